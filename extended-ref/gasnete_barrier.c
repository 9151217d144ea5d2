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
 * Barriers are numbered (the phase) and several may be in flight: GASNet-1
 * has one at a time, gex_Coll_BarrierNB up to GASNETE_BARRIER_INFLIGHT;
 * the call that would start one more first waits for the oldest. With at
 * most W in flight on every rank, a peer can have notified at most W
 * barriers past our newest one (it cannot finish one we have not
 * notified), so arrivals are kept per phase modulo 2W.
 *
 * Threads: the client lets one thread at a time into the barrier calls
 * (spec 3.5); handlers on other threads only fill arrival slots, published
 * with a release store of the phase number.
 */
#include "gasnete_internal.h"

#define GASNETE_BARRIER_MAX_ROUNDS 32
/* Barriers in flight per rank: enough for a client that overlaps a few
 * with communication; arrival slots cost 2 * this * 32 * 12 bytes. */
#define GASNETE_BARRIER_INFLIGHT 8
#define GASNETE_BARRIER_SLOTS (2 * GASNETE_BARRIER_INFLIGHT)

enum { GASNETE_B_NAMED = 0, GASNETE_B_ANON = 1, GASNETE_B_MISMATCH = 2 };

typedef struct {
  int kind; /* GASNETE_B_* */
  int id;   /* when named */
} gasnete_bstate_t;

typedef struct {
  uint32_t arrived; /* phase number + 1 of the message in this slot, 0 = empty */
  int kind, id;
} gasnete_bslot_t;

/* One barrier in flight. */
typedef struct {
  uint32_t phase;       /* its number; 0 = never used */
  int done;             /* every round heard */
  int round;            /* next round whose message we wait for */
  gasnete_bstate_t acc; /* what we know so far */
} gasnete_binst_t;

/* One team's barrier (its gasnetc_team_t.coll). */
typedef struct gasnete_barrier {
  gasnetc_team_t *team;
  uint32_t phase;       /* barriers started so far */
  /* GASNet-1: between notify and the matching wait / successful try */
  int notified;
  int notify_id, notify_flags;
  gasnete_bstate_t last; /* acc of the last GASNet-1 barrier (gasnet_barrier_result) */
  gasnete_binst_t inst[GASNETE_BARRIER_INFLIGHT];   /* by phase % INFLIGHT */
  gasnete_bslot_t slot[GASNETE_BARRIER_SLOTS][GASNETE_BARRIER_MAX_ROUNDS]; /* by phase % SLOTS */
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
  gasnete_bslot_t *s = &b->slot[(uint32_t)phase % GASNETE_BARRIER_SLOTS][round];
  __atomic_store_n(&s->kind, kind, __ATOMIC_RELAXED);
  __atomic_store_n(&s->id, id, __ATOMIC_RELAXED);
  __atomic_store_n(&s->arrived, (uint32_t)phase + 1, __ATOMIC_RELEASE);
}

static void gasnete_bsend(gasnete_barrier_t *b, const gasnete_binst_t *in) {
  const gasnetc_team_t *tm = b->team;
  gasnet_node_t peer = (gasnet_node_t)((tm->rank + ((gasnet_node_t)1 << in->round)) % tm->size);
  gex_AM_RequestShort5(gasnete_g.pair, gasnetc_team_jobrank(tm, peer), GASNETE_H_BARRIER, 0,
                       (gex_AM_Arg_t)tm->id, (gex_AM_Arg_t)in->phase, in->round, in->acc.kind,
                       in->acc.id);
}

/* Consume the arrived rounds of instance in, sending the next ones; 1 when
 * it is complete. */
static int gasnete_binst_kick(gasnete_barrier_t *b, gasnete_binst_t *in) {
  const int rounds = gasnete_brounds(b);
  while (!in->done) {
    if (in->round == rounds) {
      in->done = 1;
      break;
    }
    gasnete_bslot_t *s = &b->slot[in->phase % GASNETE_BARRIER_SLOTS][in->round];
    if (__atomic_load_n(&s->arrived, __ATOMIC_ACQUIRE) != in->phase + 1) return 0;
    gasnete_bstate_t got = { __atomic_load_n(&s->kind, __ATOMIC_RELAXED),
                             __atomic_load_n(&s->id, __ATOMIC_RELAXED) };
    __atomic_store_n(&s->arrived, 0, __ATOMIC_RELAXED);
    in->acc = gasnete_bcombine(in->acc, got);
    if (++in->round < rounds) gasnete_bsend(b, in);
  }
  return 1;
}

static inline gasnete_binst_t *gasnete_binst(gasnete_barrier_t *b, uint32_t phase) {
  return &b->inst[phase % GASNETE_BARRIER_INFLIGHT];
}

/* Start the next barrier with what this rank contributes; its phase. */
static uint32_t gasnete_bstart(gasnete_barrier_t *b, gasnete_bstate_t mine) {
  uint32_t phase = b->phase + 1;
  gasnete_binst_t *in = gasnete_binst(b, phase);
  if (in->phase) /* the slot's previous barrier: finish it first (bounded in flight) */
    GASNETE_WAIT_UNTIL(gasnete_binst_kick(b, in));
  b->phase = phase;
  in->phase = phase;
  in->done = 0;
  in->round = 0;
  in->acc = mine;
  if (gasnete_brounds(b) > 0) gasnete_bsend(b, in);
  return phase;
}

/* 1 when barrier `phase` is complete: its instance says so, or has been
 * reused by a later barrier (only a complete one is reused). */
static int gasnete_bdone(gasnete_barrier_t *b, uint32_t phase) {
  gasnete_binst_t *in = gasnete_binst(b, phase);
  return in->phase != phase || gasnete_binst_kick(b, in);
}

/* ---- GASNet-EX: gex_Coll_BarrierNB -------------------------------------------- */

int gasnete_barrier_event_done(struct gasnete_handle *h) {
  return gasnete_bdone(h->barrier, h->phase);
}

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags) {
  const char *fname = "gex_Coll_BarrierNB";
  if (GASNETE_UNLIKELY(!gasnete_b0.team)) gasnetc_not_ready(fname, 0);
  if (GASNETE_UNLIKELY(tm != gasnete_g.tm0))
    gasnete_fatal("%s: tm %p is not the primordial team (the only team so far)", fname,
                  (void *)tm);
  if (GASNETE_UNLIKELY(flags))
    gasnete_fatal("%s: flags %#x: the description reserves them; pass 0", fname,
                  (unsigned)flags);
  gasnete_barrier_t *b = &gasnete_b0;
  if (GASNETE_UNLIKELY(b->notified))
    gasnete_fatal("%s: a GASNet-1 barrier is in progress on this team; the two must not "
                  "overlap (the description, Collectives)", fname);
  gasnete_bstate_t anon = { GASNETE_B_ANON, 0 };
  uint32_t phase = gasnete_bstart(b, anon);
  if (gasnete_bdone(b, phase)) return GEX_EVENT_INVALID; /* a job of one */
  gasnete_threaddata_t *td = gasnete_mythread();
  struct gasnete_handle *h = gasnete_handle_new(td, GASNETE_H_BAR);
  h->barrier = b;
  h->phase = phase;
  return h;
}

/* ---- GASNet-1: split-phase barriers with ids (spec 3.5) ------------------------ */

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
  gasnete_bstate_t mine;
  mine.kind = (flags & GASNET_BARRIERFLAG_MISMATCH)    ? GASNETE_B_MISMATCH
              : (flags & GASNET_BARRIERFLAG_ANONYMOUS) ? GASNETE_B_ANON
                                                       : GASNETE_B_NAMED;
  mine.id = mine.kind == GASNETE_B_NAMED ? id : 0;
  b->notified = 1;
  b->notify_id = id;
  b->notify_flags = flags;
  gasnete_bstart(b, mine);
}

/* Spec 3.5.0.2: the result once every node has notified. */
static int gasnete_barrier_result(gasnete_barrier_t *b, int id, int flags) {
  b->notified = 0;
  b->last = gasnete_binst(b, b->phase)->acc;
  if (b->last.kind == GASNETE_B_MISMATCH) return GASNET_ERR_BARRIER_MISMATCH;
  if (flags != b->notify_flags) return GASNET_ERR_BARRIER_MISMATCH;
  if (flags == 0 && id != b->notify_id) return GASNET_ERR_BARRIER_MISMATCH;
  return GASNET_OK;
}

int gasnet_barrier_wait(int id, int flags) {
  gasnete_barrier_t *b = &gasnete_b0;
  if (GASNETE_UNLIKELY(!b->notified))
    gasnete_fatal("gasnet_barrier_wait: no gasnet_barrier_notify since the last wait or "
                  "successful try (spec 3.5.0.2)");
  GASNETE_WAIT_UNTIL(gasnete_bdone(b, b->phase));
  return gasnete_barrier_result(b, id, flags);
}

int gasnet_barrier_try(int id, int flags) {
  gasnete_barrier_t *b = &gasnete_b0;
  if (GASNETE_UNLIKELY(!b->notified))
    gasnete_fatal("gasnet_barrier_try: no gasnet_barrier_notify since the last wait or "
                  "successful try (spec 3.5.0.3)");
  gasnet_AMPoll(); /* every try polls, even when the barrier is complete */
  if (!gasnete_bdone(b, b->phase)) return GASNET_ERR_NOT_READY;
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
