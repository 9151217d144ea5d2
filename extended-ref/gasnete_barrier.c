/*
 * gasnete_barrier.c - split-phase barriers (spec 3.5) as a dissemination
 * barrier over AMs: ceil(log2 N) rounds; in round r node i sends its
 * accumulated state to node (i + 2^r) mod N and waits for the one of node
 * (i - 2^r) mod N. After the last round every node has heard, directly or
 * transitively, from every node, so it has the combination of all notifies.
 *
 * State carried: "anonymous so far", or "named with id", or "mismatch".
 * Combining is commutative, associative and idempotent (the overlaps of the
 * dissemination pattern do not matter):
 *   mismatch + x        = mismatch   (GASNET_BARRIERFLAG_MISMATCH anywhere)
 *   anonymous + x       = x
 *   named a + named b   = a == b ? named a : mismatch
 * which gives exactly spec 3.5.0.2's "any two nodes passed non-anonymous
 * barrier values which didn't match".
 *
 * Handlers cannot send requests (spec 2.4.1 / core), so a round's message
 * only records the arrival; the next round is sent by the waiting thread,
 * in gasnet_barrier_wait / gasnet_barrier_try (gasnete_barrier_kick).
 * A node can be at most one barrier ahead of another (it cannot finish
 * barrier k+1 before everyone notified k+1), so arrivals are kept per
 * phase parity.
 *
 * Threads: the client lets one thread at a time into the barrier calls
 * (spec 3.5); handlers on other threads only fill arrival slots, published
 * with a release store of the phase number.
 */
#include "gasnete_internal.h"

#define GASNETE_BARRIER_MAX_ROUNDS 32

enum { GASNETE_B_NAMED = 0, GASNETE_B_ANON = 1, GASNETE_B_MISMATCH = 2 };

typedef struct {
  int kind; /* GASNETE_B_* */
  int id;   /* when named */
} gasnete_bstate_t;

typedef struct {
  uint32_t arrived; /* phase number + 1 of the message in this slot, 0 = empty */
  int kind, id;
} gasnete_bslot_t;

/* One team's barrier (its gasnetc_team_t.coll). */
typedef struct gasnete_barrier {
  gasnetc_team_t *team;
  uint32_t phase;      /* barriers notified so far */
  int notified;        /* between notify and the matching wait/try success */
  int notify_id, notify_flags;
  int round;           /* next round whose message we wait for */
  gasnete_bstate_t acc;
  gasnete_bstate_t last; /* acc of the last completed barrier (gasnet_barrier_result) */
  gasnete_bslot_t slot[2][GASNETE_BARRIER_MAX_ROUNDS];
} gasnete_barrier_t;

static gasnete_barrier_t gasnete_b0; /* the primordial team's */

void gasnete_barrier_attach(void) {
  gasnete_b0.team = gasnetc_team_primordial();
  gasnete_b0.team->coll = &gasnete_b0;
}

/* The barrier of the team a message names. */
static gasnete_barrier_t *gasnete_bteam(gasnete_arg_t team) {
  gasnetc_team_t *tm = gasnetc_team_lookup((uint32_t)team);
  if (GASNETE_UNLIKELY(!tm || !tm->coll))
    gasnete_fatal("barrier message for team %u, which this node does not have", (unsigned)team);
  return tm->coll;
}

static inline gasnete_bstate_t gasnete_bcombine(gasnete_bstate_t a, gasnete_bstate_t b) {
  if (b.kind == GASNETE_B_MISMATCH) return b;
  if (a.kind == GASNETE_B_MISMATCH) return a;
  if (a.kind == GASNETE_B_ANON) return b;
  if (b.kind == GASNETE_B_ANON) return a;
  if (a.id != b.id) a.kind = GASNETE_B_MISMATCH;
  return a;
}

static int gasnete_brounds(const gasnete_barrier_t *b) {
  int r = 0;
  while (((gasnet_node_t)1 << r) < b->team->size) r++;
  return r;
}

void gasnete_barrier_handler(gasnet_token_t t, gasnete_arg_t team, gasnete_arg_t phase,
                             gasnete_arg_t round, gasnete_arg_t kind, gasnete_arg_t id) {
  (void)t;
  gasnete_barrier_t *b = gasnete_bteam(team);
  if (GASNETE_UNLIKELY((uint32_t)round >= GASNETE_BARRIER_MAX_ROUNDS))
    gasnete_fatal("barrier message for round %d: corrupt (at most %d rounds)", (int)round,
                  GASNETE_BARRIER_MAX_ROUNDS);
  gasnete_bslot_t *s = &b->slot[(uint32_t)phase & 1][round];
  __atomic_store_n(&s->kind, kind, __ATOMIC_RELAXED);
  __atomic_store_n(&s->id, id, __ATOMIC_RELAXED);
  __atomic_store_n(&s->arrived, (uint32_t)phase + 1, __ATOMIC_RELEASE);
}

static void gasnete_bsend(gasnete_barrier_t *b, int round) {
  const gasnetc_team_t *tm = b->team;
  gasnet_node_t peer = (gasnet_node_t)((tm->rank + ((gasnet_node_t)1 << round)) % tm->size);
  gasnet_AMRequestShort5(gasnetc_team_jobrank(tm, peer), GASNETE_H_BARRIER,
                         (gasnet_handlerarg_t)tm->id, (gasnet_handlerarg_t)b->phase,
                         round, b->acc.kind, b->acc.id);
}

/* Consume the arrived rounds, sending the next ones; 1 when complete. */
static int gasnete_barrier_kick(gasnete_barrier_t *b) {
  const int rounds = gasnete_brounds(b);
  const uint32_t phase = b->phase;
  while (b->round < rounds) {
    gasnete_bslot_t *s = &b->slot[phase & 1][b->round];
    if (__atomic_load_n(&s->arrived, __ATOMIC_ACQUIRE) != phase + 1) return 0;
    gasnete_bstate_t in = { __atomic_load_n(&s->kind, __ATOMIC_RELAXED),
                            __atomic_load_n(&s->id, __ATOMIC_RELAXED) };
    __atomic_store_n(&s->arrived, 0, __ATOMIC_RELAXED);
    b->acc = gasnete_bcombine(b->acc, in);
    if (++b->round < rounds) gasnete_bsend(b, b->round);
  }
  return 1;
}

void gasnet_barrier_notify(int id, int flags) {
  if (GASNETE_UNLIKELY(!gasnete_g.attached)) gasnetc_not_ready("gasnet_barrier_notify", 1);
  gasnete_barrier_t *b = &gasnete_b0;
  if (GASNETE_UNLIKELY(b->notified))
    gasnete_fatal("gasnet_barrier_notify: called twice without a gasnet_barrier_wait or a "
                  "successful gasnet_barrier_try in between (spec 3.5.0.1)");
  if (GASNETE_UNLIKELY(flags & ~(GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_MISMATCH |
                                  GASNET_BARRIERFLAG_UNNAMED | GASNET_BARRIERFLAG_IMAGES)))
    gasnete_fatal("gasnet_barrier_notify: flags %#x: only 0, GASNET_BARRIERFLAG_ANONYMOUS, "
                  "_MISMATCH, _UNNAMED and _IMAGES are defined (spec 3.5)", (unsigned)flags);
  b->notified = 1;
  b->notify_id = id;
  b->notify_flags = flags;
  b->phase++;
  b->round = 0;
  b->acc.kind = (flags & GASNET_BARRIERFLAG_MISMATCH) ? GASNETE_B_MISMATCH
                       : (flags & GASNET_BARRIERFLAG_ANONYMOUS) ? GASNETE_B_ANON
                                                                : GASNETE_B_NAMED;
  b->acc.id = b->acc.kind == GASNETE_B_NAMED ? id : 0;
  if (gasnete_brounds(b) > 0) gasnete_bsend(b, 0);
}

/* Spec 3.5.0.2: the result once every node has notified. */
static int gasnete_barrier_result(gasnete_barrier_t *b, int id, int flags) {
  b->notified = 0;
  b->last = b->acc;
  if (b->acc.kind == GASNETE_B_MISMATCH) return GASNET_ERR_BARRIER_MISMATCH;
  if (flags != b->notify_flags) return GASNET_ERR_BARRIER_MISMATCH;
  if (flags == 0 && id != b->notify_id) return GASNET_ERR_BARRIER_MISMATCH;
  return GASNET_OK;
}

int gasnet_barrier_wait(int id, int flags) {
  gasnete_barrier_t *b = &gasnete_b0;
  if (GASNETE_UNLIKELY(!b->notified))
    gasnete_fatal("gasnet_barrier_wait: no gasnet_barrier_notify since the last wait or "
                  "successful try (spec 3.5.0.2)");
  GASNETE_WAIT_UNTIL(gasnete_barrier_kick(b));
  return gasnete_barrier_result(b, id, flags);
}

int gasnet_barrier_try(int id, int flags) {
  gasnete_barrier_t *b = &gasnete_b0;
  if (GASNETE_UNLIKELY(!b->notified))
    gasnete_fatal("gasnet_barrier_try: no gasnet_barrier_notify since the last wait or "
                  "successful try (spec 3.5.0.3)");
  gasnet_AMPoll(); /* every try polls, even when the barrier is complete */
  if (!gasnete_barrier_kick(b)) return GASNET_ERR_NOT_READY;
  return gasnete_barrier_result(b, id, flags);
}

int gasnet_barrier(int id, int flags) {
  gasnet_barrier_notify(id, flags);
  return gasnet_barrier_wait(id, flags);
}

int gasnet_barrier_result(int *id) {
  gasnete_barrier_t *b = &gasnete_b0;
  if (b->last.kind == GASNETE_B_ANON) return 1;
  if (id && b->last.kind == GASNETE_B_NAMED) *id = b->last.id;
  return 0;
}
