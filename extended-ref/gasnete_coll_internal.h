/*
 * gasnete_coll_internal.h - the collectives engine (gasnete_coll.c and
 * gasnete_coll_ops.c) as what is built over it sees it: the GASNet-EX
 * calls (end of gasnete_coll_ops.c), GASNet-1's gasnet_coll.h
 * (gasnete_coll_g1.c) and the teams (gasnete_team.c). Not installed.
 *
 * Each call starts one collective over team tm: every member calls the
 * same collectives on tm in the same order (the description, "Collective
 * Call"), so the n-th collective of tm is the same operation everywhere;
 * its messages carry (team id, n). It returns an event owned by the
 * calling thread (gex_Event_Test/Wait/..., GASNet-1 handle calls), or
 * GEX_EVENT_INVALID when it completed inside the call. fname names the
 * client's call in error messages; every argument is checked here (ranks
 * are tm's; a bad one is a fatal error naming fname and the problem).
 *
 * Buffers: src is read and dst written only by the calling process, from
 * the call until the event completes (nothing remote ever writes dst);
 * src and dst may lie anywhere in memory.
 *
 * sync: GASNETE_COLL_SYNC_IN: no data moves until every member has called
 * (GASNet-1's IN_ALLSYNC); GASNETE_COLL_SYNC_OUT: no member completes
 * before every member has its data (OUT_ALLSYNC). 0 for GASNet-EX.
 */
#ifndef GASNETE_COLL_INTERNAL_H
#define GASNETE_COLL_INTERNAL_H

#include "gasnete_internal.h"
#include "gasnet_coll.h"

#define GASNETE_COLL_SYNC_IN 1
#define GASNETE_COLL_SYNC_OUT 2

/* The peers of round r (d = 2^r) of a barrier among n ranks, rank me
 * among them: whom it sends to, whom it hears from. Every pattern here
 * takes ceil(log2 n) rounds of n messages, and after round r a rank has
 * heard, directly or not, from 2^(r+1) ranks (itself included).
 *   n a power of two: the pairwise exchange, me ^ d both ways. Each
 *     message has one coming back from the same peer, which carries the
 *     transport's acknowledgement of it: amudp then sends no standalone
 *     ACK (8 ranks, one per host: 0.096 per barrier message with the
 *     dissemination pattern, 0.001 with this; docs/performance.md).
 *   otherwise dissemination: to me + d, from me - d (mod n), whose
 *     receivers never send back to their senders in that round. */
static inline gex_Rank_t gasnete_bpeer_to(gex_Rank_t me, gex_Rank_t d, gex_Rank_t n) {
  return (n & (n - 1)) == 0 ? me ^ d : (me + d) % n;
}
static inline gex_Rank_t gasnete_bpeer_from(gex_Rank_t me, gex_Rank_t d, gex_Rank_t n) {
  return (n & (n - 1)) == 0 ? me ^ d : (me + n - d) % n;
}

/* nbytes from src on root to dst on every member (src == dst allowed on root). */
gex_Event_t gasnete_coll_broadcast(const char *fname, gasnetc_team_t *tm, gex_Rank_t root,
                                   void *dst, const void *src, size_t nbytes, int sync);
/* Block r (nbytes) of src on root to dst on member r. */
gex_Event_t gasnete_coll_scatter(const char *fname, gasnetc_team_t *tm, gex_Rank_t root,
                                 void *dst, const void *src, size_t nbytes, int sync);
/* src (nbytes) of member r to block r of dst on root. */
gex_Event_t gasnete_coll_gather(const char *fname, gasnetc_team_t *tm, gex_Rank_t root,
                                void *dst, const void *src, size_t nbytes, int sync);
/* src of member r to block r of dst on every member. */
gex_Event_t gasnete_coll_gather_all(const char *fname, gasnetc_team_t *tm, void *dst,
                                    const void *src, size_t nbytes, int sync);
/* Block j of src on member i to block i of dst on member j. */
gex_Event_t gasnete_coll_exchange(const char *fname, gasnetc_team_t *tm, void *dst,
                                  const void *src, size_t nbytes, int sync);
/* The reductions of gex_Coll_ReduceToOneNB (root a rank) and
 * gex_Coll_ReduceToAllNB (root GEX_RANK_INVALID), same arguments. */
gex_Event_t gasnete_coll_reduce(const char *fname, gasnetc_team_t *tm, gex_Rank_t root,
                                void *dst, const void *src, gex_DT_t dt, size_t dt_sz,
                                size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t user_op,
                                const void *user_cdata, int sync);

/* The team a collective call names: fatal (naming fname) unless tm is a
 * team this process is a member of (not a TM-pair, not destroyed). */
gasnetc_team_t *gasnete_coll_team(const char *fname, gex_TM_t tm);

/* Fatal (naming fname) unless no collective or barrier on tm is in flight
 * here (gex_TM_Destroy's "locally quiesced"). */
void gasnete_coll_team_quiesced(const char *fname, gasnetc_team_t *tm);
int gasnete_barrier_team_idle(gasnetc_team_t *tm);

/* A team's barrier (gasnete_barrier.c), for GASNet-1's team barriers
 * (gasnet_coll_barrier_*): spec 3.5's calls and rules on team tm. */
void gasnete_barrier_notify_tm(const char *fname, gasnetc_team_t *tm, int id, int flags);
int gasnete_barrier_wait_tm(const char *fname, gasnetc_team_t *tm, int id, int flags);
int gasnete_barrier_try_tm(const char *fname, gasnetc_team_t *tm, int id, int flags);

#endif /* GASNETE_COLL_INTERNAL_H */
