/*
 * gasnete_barrier.c - split-phase barriers (spec 3.5) and gex_Coll_BarrierNB,
 * by host: the ranks of a shared-memory neighbourhood (gex_System_QueryNbrhdInfo;
 * one host, or a chunk of it) combine at their leader, the lowest rank of
 * the neighbourhood; the leaders run a barrier of log2 rounds among
 * themselves over the network; each leader then releases its neighbours.
 *
 *   stage GATHER   (leader)  wait for the arrival of every neighbour
 *   stage NET      (leader)  ceil(log2 H) rounds among the H leaders: in
 *                            round r leader i sends its accumulated state to
 *                            one leader and waits for the message of one
 *                            (gasnete_bpeer_to: i ^ 2^r both, the pairwise
 *                            exchange, when H is a power of two, so that
 *                            the transport's acks ride on the messages;
 *                            else dissemination, to i + 2^r and from i - 2^r,
 *                            mod H)
 *   stage RELEASE  (other)   wait for the leader's release, which carries the
 *                            combination of every rank's notify
 *
 * Arrivals and releases are messages between ranks of one neighbourhood,
 * which the shared-memory transport (amshm/) carries: a barrier of 8 ranks on one
 * host sends 14 messages through shared memory and none over the network
 * (a flat barrier among all 8 sends 24); across hosts only the
 * leaders talk. With the bypass off (GASNET_SUPERNODE_MAXSIZE=1) every rank
 * leads a neighbourhood of one and this is the flat barrier of the NET stage;
 * GASNET_BARRIER_BY_HOST=0 asks for that with the bypass on.
 *
 * Except on a crowded kernel (more ranks than CPUs, gasnetc_node_crowded):
 * there a host's ranks gather at one leader whatever their neighbourhoods,
 * over the network if they must. A crowded kernel is bound by CPU time,
 * not round trips, and a gather costs 2(n-1) messages where the flat
 * barrier costs n log2 n (measured: docs/rationale.md,
 * extended-ref/gasnete_barrier.c, gather at a leader).
 *
 * State carried: "anonymous so far", or "named with id", or "mismatch".
 * Combining is commutative, associative and idempotent (the overlaps of the
 * dissemination pattern, and the pairwise exchange's, do not matter):
 *   mismatch + x        = mismatch   (GASNET_BARRIERFLAG_MISMATCH anywhere)
 *   anonymous + x       = x
 *   named a + named b   = a == b ? named a : mismatch
 * which gives exactly spec 3.5.0.2's "any two nodes passed non-anonymous
 * barrier values which didn't match".
 *
 * Messages. Each says one fact, "rank r reached barrier p (with this
 * state)", in one of three places (gasnete_bfill): a round, a neighbour's
 * arrival, the release. Where the peer's transport carries notices (UDP:
 * core/transport.h, core/gasnetc_notice.c) a message goes as one, sent
 * once and perhaps lost; else as a Short AM (TCP, shared memory). A notice
 * skips the reliability layer's bookkeeping on both sides, which was most
 * of a barrier's cost on a crowded host (docs/performance.md, "The barrier
 * by notices"). Facts are idempotent, so the barrier repairs a loss itself:
 *   - a copy or a late message is harmless: a slot keeps the newest
 *     barrier's (gasnete_bslot_fill);
 *   - a barrier that has waited GASNETE_BARRIER_PULL_NS for the message it
 *     needs asks its sender again (gasnete_bpull_due: a pull, a reliable AM;
 *     the answer is a reliable reply), backing off to once a second; each
 *     rank keeps what it sent in its last GASNETE_BARRIER_SLOTS barriers
 *     for that (gasnete_bsent_t);
 *   - a rank that leaves a barrier may not hear that its last messages
 *     arrived (a round's, a release; an arrival it does, in the release):
 *     before its transports close (gasnet_exit) or a team is destroyed it
 *     sends them again as frames, which the transports flush
 *     (gasnete_bresend). Without that, a peer whose release was lost
 *     would wait for a rank that is gone.
 * tests/extended/t-barrier-loss.sh checks all three with 20% of the
 * datagrams lost.
 *
 * Handlers cannot send requests (spec 2.4.1 / core), so a message only
 * records its arrival; what follows it (the next round, the releases) is
 * sent by the waiting thread, in gasnet_barrier_wait / gasnet_barrier_try /
 * gex_Event_Test/Wait (gasnete_binst_kick). Barriers are numbered (the
 * phase) and several may be in flight: GASNet-1 has one at a time,
 * gex_Coll_BarrierNB up to GASNETE_BARRIER_INFLIGHT; the call that would
 * start one more first waits for the oldest. With at most W in flight on
 * every rank, no message can come for a barrier more than W past our
 * newest one (its sender cannot have finished one we have not notified),
 * so arrivals are kept per phase modulo 2W.
 *
 * Threads: the client lets one thread at a time into the barrier calls
 * (spec 3.5); handlers on other threads only fill arrival slots, published
 * with a release store of the phase number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gasneti_time.h" /* gasneti_now_ns: a lost message's repair is timed */

#include "gasnete_coll_internal.h"

#define GASNETE_BARRIER_MAX_ROUNDS 32
/* Barriers in flight per rank: enough for a client that overlaps a few
 * with communication; arrival slots cost 2 * this * 32 * 12 bytes. */
#define GASNETE_BARRIER_INFLIGHT 8
#define GASNETE_BARRIER_SLOTS (2 * GASNETE_BARRIER_INFLIGHT)
/* The `from` of a leader's release (gasnete_barrier_host_handler). */
#define GASNETE_B_FROM_LEADER ((gasnete_arg_t)-1)

/* Waited for this long without news, a barrier asks for the message again
 * (gasnete_bpull), then after twice as long, up to the maximum. */
#define GASNETE_BARRIER_PULL_NS 2000000u        /* 2 ms */
#define GASNETE_BARRIER_PULL_MAX_NS 1000000000u /* 1 s */
/* A waiting barrier reads the clock for that at every this-many idle kicks. */
#define GASNETE_BARRIER_PULL_EVERY 8u

enum { GASNETE_B_NAMED = 0, GASNETE_B_ANON = 1, GASNETE_B_MISMATCH = 2 };
enum { GASNETE_BS_GATHER, GASNETE_BS_NET, GASNETE_BS_RELEASE };
/* The messages: a network round's (idx: the round), a neighbour's arrival at
 * its leader (idx: its index among the leader's), the leader's release. */
enum { GASNETE_BM_ROUND, GASNETE_BM_ARRIVE, GASNETE_BM_RELEASE };

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
  int done;             /* complete */
  int stage;            /* GASNETE_BS_* */
  int step;             /* GATHER: next neighbour to hear; NET: next round */
  gasnete_bstate_t acc; /* what we know so far */
  /* The repair (gasnete_bpull_due): where it stood at the last kick, the
   * idle kicks since, when it asks again and the wait before that. */
  uint32_t mark, idle;
  uint64_t pull_at, pull_ns;
} gasnete_binst_t;

/* What this rank sent in one barrier, kept to send it again (a pull, the
 * exit). The barrier's thread writes a message's state, then its bit in
 * `have` (release); handlers on any thread read them in that order. */
#define GASNETE_BSENT_ARRIVE (1ull << 62)
#define GASNETE_BSENT_RELEASE (1ull << 63)
typedef struct {
  uint32_t phase;
  uint64_t have; /* bit r < 32: round r's; GASNETE_BSENT_ARRIVE, _RELEASE */
  gasnete_bstate_t arrive, release, round[GASNETE_BARRIER_MAX_ROUNDS];
} gasnete_bsent_t;

/* One team's barrier (its gasnetc_team_t.barrier). Ranks are team ranks. */
typedef struct gasnete_barrier {
  gasnetc_team_t *team;
  /* The hierarchy (gasnete_bhierarchy). */
  gasnet_node_t leader;     /* of this rank's neighbourhood (maybe this rank) */
  gasnet_node_t nlocal;     /* leader: the neighbours it gathers; else 0 */
  gasnet_node_t local_index; /* not leader: this rank's index among the leader's */
  gasnet_node_t *local;     /* [nlocal] */
  gasnet_node_t nleaders, leader_index;
  gasnet_node_t *leaders;   /* [nleaders], by increasing rank */
  int rounds;               /* of the network stage: ceil(log2 nleaders) */
  uint32_t phase;           /* barriers started so far */
  /* GASNet-1: between notify and the matching wait / successful try */
  int notified;
  int notify_id, notify_flags;
  gasnete_bstate_t last; /* acc of the last GASNet-1 barrier (gasnet_barrier_result) */
  gasnete_binst_t inst[GASNETE_BARRIER_INFLIGHT];   /* by phase % INFLIGHT */
  /* Arrivals, by phase % SLOTS: network rounds, neighbours, the release. */
  gasnete_bslot_t slot[GASNETE_BARRIER_SLOTS][GASNETE_BARRIER_MAX_ROUNDS];
  gasnete_bslot_t *gathered; /* [SLOTS * nlocal] */
  gasnete_bslot_t released[GASNETE_BARRIER_SLOTS];
  gasnete_bsent_t sent[GASNETE_BARRIER_SLOTS]; /* by phase % SLOTS */
  struct gasnete_barrier *next; /* every team's, for the exit (gasnete_b_all) */
} gasnete_barrier_t;

static gasnete_barrier_t gasnete_b0; /* the primordial team's */
static gasnete_barrier_t *gasnete_b_all; /* every team's, for the exit */
static gasnet_hsl_t gasnete_b_lock = GASNET_HSL_INITIALIZER;
static void gasnete_barrier_notice(gasnet_node_t src, const uint32_t *w);
static void gasnete_bresend(gasnete_barrier_t *b);
static void gasnete_blist(gasnete_barrier_t *b, int add);
static int gasnete_by_host = 1;       /* GASNET_BARRIER_BY_HOST */

static void *gasnete_balloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) gasnete_fatal("barrier: out of memory for the hierarchy of a team of %u ranks",
                        (unsigned)gasnet_nodes());
  return p;
}

/* The group job rank jr combines in: its neighbourhood, or on a crowded
 * kernel its whole host (numbered after the neighbourhoods). */
static gasnet_node_t gasnete_bgroup(const gasnet_nodeinfo_t *info, gasnet_node_t jr,
                                    gasnet_node_t nbrhds) {
  return gasnetc_node_crowded(jr) ? nbrhds + info[jr].host : info[jr].supernode;
}

/* Leaders and neighbours of team b->team from the group of each member
 * (gasnete_bgroup); the leader of a group is its lowest team rank. by_host
 * 0: every rank leads itself. */
static void gasnete_bhierarchy(gasnete_barrier_t *b, int by_host) {
  const gasnetc_team_t *tm = b->team;
  gasnet_node_t n = tm->size, me = tm->rank, nbrhds = 0, hosts = 0;
  gasnet_nodeinfo_t *info = gasnete_balloc(gasnet_nodes(), sizeof *info);
  if (gasnet_getNodeInfo(info, (int)gasnet_nodes()) != GASNET_OK)
    gasnete_fatal("barrier: cannot learn the neighbourhoods of the job's ranks");
  gex_System_QueryMyPosition(&nbrhds, NULL, &hosts, NULL);
  gasnet_node_t *first = gasnete_balloc(nbrhds + hosts, sizeof *first); /* leader + 1 */
  b->leaders = gasnete_balloc(n, sizeof *b->leaders);
  b->local = gasnete_balloc(n, sizeof *b->local);
  gasnet_node_t mine = gasnete_bgroup(info, gasnetc_team_jobrank(tm, me), nbrhds);
  for (gasnet_node_t r = 0; r < n; r++) {
    gasnet_node_t s = gasnete_bgroup(info, gasnetc_team_jobrank(tm, r), nbrhds);
    if (!by_host || !first[s]) {
      if (r == me) b->leader_index = b->nleaders;
      b->leaders[b->nleaders++] = r;
      if (by_host) first[s] = r + 1;
      if (r == me) b->leader = r;
    } else if (s == mine) {
      if (r == me) b->local_index = b->nlocal;
      b->local[b->nlocal++] = r;
    }
  }
  if (by_host) b->leader = first[mine] - 1;
  if (b->leader != me) b->nlocal = 0; /* only the leader gathers */
  b->gathered = gasnete_balloc((size_t)GASNETE_BARRIER_SLOTS * b->nlocal, sizeof *b->gathered);
  while (((gasnet_node_t)1 << b->rounds) < b->nleaders) b->rounds++;
  free(first);
  free(info);
}

void gasnete_barrier_attach(void) {
  const char *v = gasnet_getenv("GASNET_BARRIER_BY_HOST");
  if (v && *v) {
    if ((v[0] != '0' && v[0] != '1') || v[1])
      gasnete_fatal("GASNET_BARRIER_BY_HOST='%s': 1 (combine by host, the default) or 0", v);
    gasnete_by_host = v[0] == '1';
  }
  gasnete_b0.team = gasnetc_team_primordial();
  gasnete_b0.team->barrier = &gasnete_b0;
  gasnete_bhierarchy(&gasnete_b0, gasnete_by_host);
  gasnete_blist(&gasnete_b0, 1);
  gasnetc_notice_register(GASNETE_NOTICE_BARRIER, gasnete_barrier_notice);
}

/* Add b to gasnete_b_all, or take it out. */
static void gasnete_blist(gasnete_barrier_t *b, int add) {
  gasnet_hsl_lock(&gasnete_b_lock);
  gasnete_barrier_t **at = &gasnete_b_all;
  while (*at && *at != b) at = &(*at)->next;
  if (add && !*at) {
    b->next = gasnete_b_all;
    gasnete_b_all = b;
  } else if (!add && *at) {
    *at = b->next;
  }
  gasnet_hsl_unlock(&gasnete_b_lock);
}

/* A new team's barrier, before any member can send it a message. */
void gasnete_barrier_team_init(gasnetc_team_t *tm) {
  gasnete_barrier_t *b = gasnete_balloc(1, sizeof *b);
  b->team = tm;
  gasnete_bhierarchy(b, gasnete_by_host);
  gasnete_blist(b, 1);
  tm->barrier = b;
}

static int gasnete_bdone(gasnete_barrier_t *b, uint32_t phase);
int gasnete_barrier_team_idle(gasnetc_team_t *tm) {
  gasnete_barrier_t *b = tm->barrier;
  return !b->notified && (b->phase == 0 || gasnete_bdone(b, b->phase));
}

/* A destroyed team's: every barrier on it complete here; what members may
 * still wait for goes again, as frames, which need no team here to arrive. */
void gasnete_barrier_team_fini(gasnetc_team_t *tm) {
  gasnete_barrier_t *b = tm->barrier;
  tm->barrier = NULL;
  if (!b || b == &gasnete_b0) return;
  gasnete_blist(b, 0);
  gasnete_bresend(b);
  free(b->leaders);
  free(b->local);
  free(b->gathered);
  free(b);
}

/* The barrier of the team a message names; NULL if this rank has no such
 * team (fatal unless `gone_ok`: a notice or a pull may come late, after
 * the team was destroyed here, which sent its last messages as frames). */
static gasnete_barrier_t *gasnete_bteam(gasnete_arg_t team, int gone_ok) {
  gasnetc_team_t *tm = gasnetc_team_lookup((uint32_t)team);
  if (GASNETE_UNLIKELY(!tm || !tm->barrier) && !gone_ok)
    gasnete_fatal("barrier message for team %u, which this node does not have", (unsigned)team);
  return tm ? tm->barrier : NULL;
}

static inline gasnete_bstate_t gasnete_bcombine(gasnete_bstate_t a, gasnete_bstate_t b) {
  if (b.kind == GASNETE_B_MISMATCH) return b;
  if (a.kind == GASNETE_B_MISMATCH) return a;
  if (a.kind == GASNETE_B_ANON) return b;
  if (b.kind == GASNETE_B_ANON) return a;
  if (a.id != b.id) a.kind = GASNETE_B_MISMATCH;
  return a;
}

/* A message may come more than once (a notice and the answer to a pull,
 * a duplicated datagram) and late: a slot keeps the newest barrier's. */
static void gasnete_bslot_fill(gasnete_bslot_t *s, uint32_t phase, gasnete_bstate_t st) {
  uint32_t had = __atomic_load_n(&s->arrived, __ATOMIC_ACQUIRE);
  if (had && (int32_t)(phase + 1 - had) < 0) return;
  __atomic_store_n(&s->kind, st.kind, __ATOMIC_RELAXED);
  __atomic_store_n(&s->id, st.id, __ATOMIC_RELAXED);
  __atomic_store_n(&s->arrived, phase + 1, __ATOMIC_RELEASE);
}

/* Slot s holds barrier `phase`'s message: combine it into *acc, empty it. */
static int gasnete_bslot_take(gasnete_bslot_t *s, uint32_t phase, gasnete_bstate_t *acc) {
  if (__atomic_load_n(&s->arrived, __ATOMIC_ACQUIRE) != phase + 1) return 0;
  gasnete_bstate_t got = { __atomic_load_n(&s->kind, __ATOMIC_RELAXED),
                           __atomic_load_n(&s->id, __ATOMIC_RELAXED) };
  __atomic_store_n(&s->arrived, 0, __ATOMIC_RELAXED);
  *acc = gasnete_bcombine(*acc, got);
  return 1;
}

/* A message of barrier `phase` has come: into its slot. */
GASNETI_HOT
static void gasnete_bfill(gasnete_barrier_t *b, uint32_t phase, uint32_t what, uint32_t idx,
                          gasnete_bstate_t st) {
  uint32_t slot = phase % GASNETE_BARRIER_SLOTS;
  int leads = b->leader == b->team->rank;
  if (what == GASNETE_BM_ROUND && idx < (uint32_t)b->rounds && leads)
    gasnete_bslot_fill(&b->slot[slot][idx], phase, st);
  else if (what == GASNETE_BM_ARRIVE && idx < b->nlocal)
    gasnete_bslot_fill(&b->gathered[slot * b->nlocal + idx], phase, st);
  else if (what == GASNETE_BM_RELEASE && !leads)
    gasnete_bslot_fill(&b->released[slot], phase, st);
  else
    gasnete_fatal("barrier message %u (index %u) for team %u: corrupt (its barrier has %d "
                  "rounds among the leaders; rank %u leads %s, %u neighbours)",
                  (unsigned)what, (unsigned)idx, (unsigned)b->team->id, b->rounds,
                  (unsigned)b->team->rank, leads ? "yes" : "no", (unsigned)b->nlocal);
}

/* A message as a frame, sent as an AM where the transport carries no
 * notices: its team is here (the receiver waits for it). */
GASNETI_HOT
void gasnete_barrier_handler(gasnet_token_t t, gasnete_arg_t team, gasnete_arg_t phase,
                             gasnete_arg_t what, gasnete_arg_t idx, gasnete_arg_t kind,
                             gasnete_arg_t id) {
  (void)t;
  gasnete_bstate_t st = { kind, id };
  gasnete_bfill(gasnete_bteam(team, 0), (uint32_t)phase, (uint32_t)what, (uint32_t)idx, st);
}

/* A message sent again as a frame (the answer to a pull, or at an exit or
 * a team's destruction: gasnete_bresend), which may come after this rank
 * has passed that barrier and destroyed the team: then dropped. */
void gasnete_barrier_again_handler(gasnet_token_t t, gasnete_arg_t team, gasnete_arg_t phase,
                                   gasnete_arg_t what, gasnete_arg_t idx, gasnete_arg_t kind,
                                   gasnete_arg_t id) {
  (void)t;
  gasnete_barrier_t *b = gasnete_bteam(team, 1);
  gasnete_bstate_t st = { kind, id };
  if (b) gasnete_bfill(b, (uint32_t)phase, (uint32_t)what, (uint32_t)idx, st);
}

/* A message as a notice: words team, phase, what | kind << 8, idx, id. */
GASNETI_HOT
static void gasnete_barrier_notice(gasnet_node_t src, const uint32_t *w) {
  (void)src;
  gasnete_barrier_t *b = gasnete_bteam((gasnete_arg_t)w[0], 1);
  gasnete_bstate_t st = { (int)(w[2] >> 8), (int)w[4] };
  if (b) gasnete_bfill(b, w[1], w[2] & 0xff, w[3], st);
}

/* Send team rank `to` a message of barrier `phase`: a notice where its
 * transport carries them (a lost one is pulled again: gasnete_bpull_due),
 * else an AM; again (gasnete_bresend), an AM that a rank without the team
 * any more drops. */
GASNETI_HOT
static void gasnete_bsend(const gasnete_barrier_t *b, gasnet_node_t to, uint32_t phase,
                          uint32_t what, uint32_t idx, gasnete_bstate_t st, int again) {
  const gasnetc_team_t *tm = b->team;
  gasnet_node_t jr = gasnetc_team_jobrank(tm, to);
  uint32_t w[GASNETC_NOTICE_NWORDS] = { tm->id, phase, what | (uint32_t)st.kind << 8, idx,
                                        (uint32_t)st.id };
  if (!again && gasnetc_notice_send(jr, GASNETE_NOTICE_BARRIER, w) != -ENOTSUP) return;
  gex_AM_RequestShort6(gasnete_g.pair, jr, again ? GASNETE_H_BARRIER_AGAIN : GASNETE_H_BARRIER, 0,
                       (gex_AM_Arg_t)tm->id,
                       (gex_AM_Arg_t)phase, (gex_AM_Arg_t)what, (gex_AM_Arg_t)idx, st.kind,
                       st.id);
}

/* Where the message (what, idx) of a barrier is kept in s, and its bit in
 * have; NULL for no message of ours (a pull that names none). */
static gasnete_bstate_t *gasnete_bsent_at(gasnete_bsent_t *s, uint32_t what, uint32_t idx,
                                          uint64_t *bit) {
  switch (what) {
  case GASNETE_BM_ROUND:
    *bit = 1ull << (idx % GASNETE_BARRIER_MAX_ROUNDS);
    return idx < GASNETE_BARRIER_MAX_ROUNDS ? &s->round[idx] : NULL;
  case GASNETE_BM_ARRIVE:
    *bit = GASNETE_BSENT_ARRIVE;
    return &s->arrive;
  case GASNETE_BM_RELEASE:
    *bit = GASNETE_BSENT_RELEASE;
    return &s->release;
  default:
    return NULL;
  }
}

/* Send it, and keep it for a pull or the exit. */
GASNETI_HOT
static void gasnete_bpost(gasnete_barrier_t *b, gasnet_node_t to, uint32_t phase, uint32_t what,
                          uint32_t idx, gasnete_bstate_t st) {
  gasnete_bsent_t *s = &b->sent[phase % GASNETE_BARRIER_SLOTS];
  if (s->phase != phase) {
    __atomic_store_n(&s->have, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->phase, phase, __ATOMIC_RELAXED);
  }
  uint64_t bit;
  gasnete_bstate_t *at = gasnete_bsent_at(s, what, idx, &bit);
  __atomic_store_n(&at->kind, st.kind, __ATOMIC_RELAXED);
  __atomic_store_n(&at->id, st.id, __ATOMIC_RELAXED);
  /* one writer (this thread): a plain OR, published with release order */
  __atomic_store_n(&s->have, __atomic_load_n(&s->have, __ATOMIC_RELAXED) | bit, __ATOMIC_RELEASE);
  gasnete_bsend(b, to, phase, what, idx, st, 0);
}

/* Message (what, idx) of barrier phase as this rank sent it: 1, or 0 if it
 * has not (yet). Any thread. */
static int gasnete_bsent_get(gasnete_barrier_t *b, uint32_t phase, uint32_t what, uint32_t idx,
                             gasnete_bstate_t *st) {
  gasnete_bsent_t *s = &b->sent[phase % GASNETE_BARRIER_SLOTS];
  uint64_t bit;
  const gasnete_bstate_t *at = gasnete_bsent_at(s, what, idx, &bit);
  if (!at || !(__atomic_load_n(&s->have, __ATOMIC_ACQUIRE) & bit) ||
      __atomic_load_n(&s->phase, __ATOMIC_RELAXED) != phase)
    return 0;
  st->kind = __atomic_load_n(&at->kind, __ATOMIC_RELAXED);
  st->id = __atomic_load_n(&at->id, __ATOMIC_RELAXED);
  return 1;
}

/* A peer waits for a message of ours that it has not had: send it again,
 * as the reply, if we have sent it (if not yet, it goes when it is due). */
void gasnete_barrier_pull_handler(gasnet_token_t t, gasnete_arg_t team, gasnete_arg_t phase,
                                  gasnete_arg_t what, gasnete_arg_t idx) {
  gasnete_barrier_t *b = gasnete_bteam(team, 1);
  gasnete_bstate_t st;
  if (b && gasnete_bsent_get(b, (uint32_t)phase, (uint32_t)what, (uint32_t)idx, &st))
    gex_AM_ReplyShort6(t, GASNETE_H_BARRIER_AGAIN, 0, team, phase, what, idx, st.kind, st.id);
}

/* Send again, as frames, what peers may still wait for from this rank: of
 * its last GASNETE_BARRIER_SLOTS barriers (a member can be waiting in any
 * that this rank has not seen every member pass), every round's message
 * and the release that went as a notice. Its sender does not hear that
 * those arrived; an arrival it does, in the release. Before the transports
 * close (they flush frames, not notices) or a team is destroyed. */
static void gasnete_bresend(gasnete_barrier_t *b) {
  for (uint32_t k = 0; k < GASNETE_BARRIER_SLOTS && k < b->phase; k++) {
    uint32_t phase = b->phase - k;
    gasnete_bstate_t st;
    for (int r = 0; r < b->rounds; r++) {
      gasnet_node_t to = b->leaders[gasnete_bpeer_to(b->leader_index, (gasnet_node_t)1 << r,
                                                     b->nleaders)];
      if (gasnetc_notices_to(gasnetc_team_jobrank(b->team, to)) &&
          gasnete_bsent_get(b, phase, GASNETE_BM_ROUND, (uint32_t)r, &st))
        gasnete_bsend(b, to, phase, GASNETE_BM_ROUND, (uint32_t)r, st, 1);
    }
    for (gasnet_node_t i = 0; i < b->nlocal; i++)
      if (gasnetc_notices_to(gasnetc_team_jobrank(b->team, b->local[i])) &&
          gasnete_bsent_get(b, phase, GASNETE_BM_RELEASE, 0, &st))
        gasnete_bsend(b, b->local[i], phase, GASNETE_BM_RELEASE, 0, st, 1);
  }
}

void gasnete_barrier_exit(void) {
  for (gasnete_barrier_t *b = gasnete_b_all; b; b = b->next) gasnete_bresend(b);
}

/* The message in waits for, and the team rank that sends it. */
static gasnet_node_t gasnete_bawaited(const gasnete_barrier_t *b, const gasnete_binst_t *in,
                                      uint32_t *what, uint32_t *idx) {
  *idx = (uint32_t)in->step;
  if (in->stage == GASNETE_BS_GATHER) {
    *what = GASNETE_BM_ARRIVE;
    return b->local[in->step];
  }
  if (in->stage == GASNETE_BS_NET) {
    *what = GASNETE_BM_ROUND;
    return b->leaders[gasnete_bpeer_from(b->leader_index, (gasnet_node_t)1 << in->step,
                                         b->nleaders)];
  }
  *what = GASNETE_BM_RELEASE;
  *idx = 0;
  return b->leader;
}

/* in has not moved since its last kick. Once it has waited
 * GASNETE_BARRIER_PULL_NS, ask the sender for the message again (a
 * reliable AM, answered by a reliable reply: the repair of a lost notice,
 * which costs nothing while none is lost), then after twice as long, and
 * so on; a sleeping wait wakes for it (gasnetc_wake_by). */
static void gasnete_bpull_due(gasnete_barrier_t *b, gasnete_binst_t *in) {
  if (!in->pull_at) {
    in->pull_ns = GASNETE_BARRIER_PULL_NS;
    in->pull_at = gasneti_now_ns() + in->pull_ns;
  } else if (++in->idle % GASNETE_BARRIER_PULL_EVERY == 0) {
    uint64_t now = gasneti_now_ns();
    if (now >= in->pull_at) {
      uint32_t what, idx;
      gasnet_node_t from = gasnete_bawaited(b, in, &what, &idx);
      gex_AM_RequestShort4(gasnete_g.pair, gasnetc_team_jobrank(b->team, from),
                           GASNETE_H_BARRIER_PULL, 0, (gex_AM_Arg_t)b->team->id,
                           (gex_AM_Arg_t)in->phase, (gex_AM_Arg_t)what, (gex_AM_Arg_t)idx);
      if (in->pull_ns < GASNETE_BARRIER_PULL_MAX_NS) in->pull_ns *= 2;
      in->pull_at = now + in->pull_ns;
    }
  }
  gasnetc_wake_by(in->pull_at);
}

/* Leader: this round's message (the pairwise exchange's partner, or the
 * dissemination's next leader). */
GASNETI_HOT
static void gasnete_bsend_round(gasnete_barrier_t *b, const gasnete_binst_t *in) {
  gasnet_node_t to = b->leaders[gasnete_bpeer_to(b->leader_index, (gasnet_node_t)1 << in->step,
                                                 b->nleaders)];
  gasnete_bpost(b, to, in->phase, GASNETE_BM_ROUND, (uint32_t)in->step, in->acc);
}

/* Leader: every neighbour has arrived; then the network stage begins. */
static int gasnete_bgather(gasnete_barrier_t *b, gasnete_binst_t *in) {
  gasnete_bslot_t *s = &b->gathered[(in->phase % GASNETE_BARRIER_SLOTS) * b->nlocal];
  while ((gasnet_node_t)in->step < b->nlocal) {
    if (!gasnete_bslot_take(&s[in->step], in->phase, &in->acc)) return 0;
    in->step++;
  }
  in->stage = GASNETE_BS_NET;
  in->step = 0;
  if (b->rounds > 0) gasnete_bsend_round(b, in);
  return 1;
}

/* Leader: every round has arrived; then the neighbours are released. */
static int gasnete_bnet(gasnete_barrier_t *b, gasnete_binst_t *in) {
  gasnete_bslot_t *s = b->slot[in->phase % GASNETE_BARRIER_SLOTS];
  while (in->step < b->rounds) {
    if (!gasnete_bslot_take(&s[in->step], in->phase, &in->acc)) return 0;
    if (++in->step < b->rounds) gasnete_bsend_round(b, in);
  }
  for (gasnet_node_t i = 0; i < b->nlocal; i++)
    gasnete_bpost(b, b->local[i], in->phase, GASNETE_BM_RELEASE, 0, in->acc);
  in->done = 1;
  return 1;
}

/* Advance instance in as far as the arrived messages allow; 1 when it is
 * complete. */
GASNETI_HOT
static int gasnete_binst_advance(gasnete_barrier_t *b, gasnete_binst_t *in) {
  if (in->stage == GASNETE_BS_GATHER && !gasnete_bgather(b, in)) return 0;
  if (in->stage == GASNETE_BS_NET && !in->done && !gasnete_bnet(b, in)) return 0;
  if (in->stage == GASNETE_BS_RELEASE && !in->done) {
    /* the release is the whole combination: it replaces what we know */
    gasnete_bstate_t all = { GASNETE_B_ANON, 0 };
    if (!gasnete_bslot_take(&b->released[in->phase % GASNETE_BARRIER_SLOTS], in->phase, &all))
      return 0;
    in->acc = all;
    in->done = 1;
  }
  return 1;
}

/* The same; when it is still waiting, the repair of a lost message is
 * timed from its last move (gasnete_bpull_due). */
GASNETI_HOT
static int gasnete_binst_kick(gasnete_barrier_t *b, gasnete_binst_t *in) {
  if (in->done || gasnete_binst_advance(b, in)) return 1;
  uint32_t mark = (uint32_t)in->stage << 16 | (uint32_t)in->step;
  if (mark != in->mark) {
    in->mark = mark;
    in->pull_at = 0;
  }
  gasnete_bpull_due(b, in);
  return 0;
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
  if (GASNETC_TRACING('B')) gasnetc_trace_barrier(0, b->team->id, phase);
  in->phase = phase;
  in->done = 0;
  in->step = 0;
  in->acc = mine;
  in->mark = UINT32_MAX;
  in->pull_at = 0;
  if (b->leader == b->team->rank) {
    in->stage = GASNETE_BS_GATHER;
    gasnete_binst_kick(b, in); /* the first round leaves now when no one is to be heard */
  } else {
    in->stage = GASNETE_BS_RELEASE;
    gasnete_bpost(b, b->leader, phase, GASNETE_BM_ARRIVE, b->local_index, mine);
  }
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
  gasnete_coll_progress(); /* this barrier may wait for a member that waits for a collective */
  int done = gasnete_bdone(h->barrier, h->phase);
  if (done && GASNETC_TRACING('B'))
    gasnetc_trace_barrier(1, ((gasnete_barrier_t *)h->barrier)->team->id, h->phase);
  return done;
}

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags) {
  const char *fname = "gex_Coll_BarrierNB";
  if (GASNETE_UNLIKELY(!gasnete_b0.team)) gasnetc_not_ready(fname, 0);
  gasnete_barrier_t *b = gasnete_coll_team(fname, tm)->barrier;
  if (GASNETE_UNLIKELY(flags))
    gasnete_fatal("%s: flags %#x: the description reserves them; pass 0", fname,
                  (unsigned)flags);
  if (GASNETE_UNLIKELY(b->notified))
    gasnete_fatal("%s: a GASNet-1 barrier is in progress on this team; the two must not "
                  "overlap (the description, Collectives)", fname);
  gasnete_bstate_t anon = { GASNETE_B_ANON, 0 };
  uint32_t phase = gasnete_bstart(b, anon);
  if (gasnete_bdone(b, phase)) return GEX_EVENT_INVALID; /* a team of one */
  gasnete_threaddata_t *td = gasnete_mythread();
  struct gasnete_handle *h = gasnete_handle_new(td, GASNETE_H_BAR);
  h->barrier = b;
  h->phase = phase;
  return h;
}

void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags) {
  gex_Event_Wait(gex_Coll_BarrierNB(tm, flags));
}

/* ---- GASNet-1: split-phase barriers with ids (spec 3.5), on any team ----------- */

/* The GASNet-1 family fname belongs to: "gasnet_barrier" or "gasnet_coll_barrier". */
static const char *gasnete_bfamily(const char *fname) {
  return strncmp(fname, "gasnet_coll_", 12) == 0 ? "gasnet_coll_barrier" : "gasnet_barrier";
}

void gasnete_barrier_notify_tm(const char *fname, gasnetc_team_t *tm, int id, int flags) {
  gasnete_barrier_t *b = tm->barrier;
  if (GASNETE_UNLIKELY(b->notified))
    gasnete_fatal("%s: called twice without a %s_wait or a successful %s_try in between "
                  "(spec 3.5.0.1)", fname, gasnete_bfamily(fname), gasnete_bfamily(fname));
  if (GASNETE_UNLIKELY(flags & ~(GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_MISMATCH |
                                  GASNET_BARRIERFLAG_UNNAMED | GASNET_BARRIERFLAG_IMAGES)))
    gasnete_fatal("%s: flags %#x: only 0, GASNET_BARRIERFLAG_ANONYMOUS, _MISMATCH, _UNNAMED "
                  "and _IMAGES are defined (spec 3.5)", fname, (unsigned)flags);
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

/* The result once every node has notified: spec 3.5.0.2 as Berkeley's
 * library reads it since GASNet 1.20, which every client expects (its
 * testbarrierconf checks it). A mismatch is only ever between two names:
 * the job's (two nodes that named different values, or a MISMATCH flag),
 * or a named wait against this node's named notify or the name the job
 * agreed on. An anonymous notify with a named wait, or the reverse, is no
 * mismatch (docs/api.md, "Where we differ"). */
static int gasnete_barrier_result(gasnete_barrier_t *b, int id, int flags) {
  b->notified = 0;
  b->last = gasnete_binst(b, b->phase)->acc;
  if (b->last.kind == GASNETE_B_MISMATCH || (flags & GASNET_BARRIERFLAG_MISMATCH))
    return GASNET_ERR_BARRIER_MISMATCH;
  if (flags & GASNET_BARRIERFLAG_ANONYMOUS) return GASNET_OK;
  int named_notify = !(b->notify_flags & GASNET_BARRIERFLAG_ANONYMOUS);
  if (named_notify && id != b->notify_id) return GASNET_ERR_BARRIER_MISMATCH;
  if (b->last.kind == GASNETE_B_NAMED && id != b->last.id) return GASNET_ERR_BARRIER_MISMATCH;
  return GASNET_OK;
}

GASNETI_HOT
int gasnete_barrier_wait_tm(const char *fname, gasnetc_team_t *tm, int id, int flags) {
  gasnete_barrier_t *b = tm->barrier;
  if (GASNETE_UNLIKELY(!b->notified))
    gasnete_fatal("%s: no %s_notify since the last wait or successful try (spec 3.5.0.2)",
                  fname, gasnete_bfamily(fname));
  GASNETE_WAIT_UNTIL(gasnete_bdone(b, b->phase));
  if (GASNETC_TRACING('B')) gasnetc_trace_barrier(1, tm->id, b->phase);
  return gasnete_barrier_result(b, id, flags);
}

int gasnete_barrier_try_tm(const char *fname, gasnetc_team_t *tm, int id, int flags) {
  gasnete_barrier_t *b = tm->barrier;
  if (GASNETE_UNLIKELY(!b->notified))
    gasnete_fatal("%s: no %s_notify since the last wait or successful try (spec 3.5.0.3)",
                  fname, gasnete_bfamily(fname));
  gasnet_AMPoll(); /* every try polls, even when the barrier is complete */
  gasnete_coll_progress();
  if (!gasnete_bdone(b, b->phase)) return GASNET_ERR_NOT_READY;
  if (GASNETC_TRACING('B')) gasnetc_trace_barrier(1, tm->id, b->phase);
  return gasnete_barrier_result(b, id, flags);
}

static gasnetc_team_t *gasnete_barrier_tm0(const char *fname) {
  if (GASNETE_UNLIKELY(!gasnete_g.connected)) gasnetc_not_ready(fname, 1);
  return gasnete_b0.team;
}

void gasnet_barrier_notify(int id, int flags) {
  const char *fname = "gasnet_barrier_notify";
  gasnete_barrier_notify_tm(fname, gasnete_barrier_tm0(fname), id, flags);
}

int gasnet_barrier_wait(int id, int flags) {
  const char *fname = "gasnet_barrier_wait";
  return gasnete_barrier_wait_tm(fname, gasnete_barrier_tm0(fname), id, flags);
}

int gasnet_barrier_try(int id, int flags) {
  const char *fname = "gasnet_barrier_try";
  return gasnete_barrier_try_tm(fname, gasnete_barrier_tm0(fname), id, flags);
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
