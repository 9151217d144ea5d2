/*
 * gasnet_coll.h - collectives.
 *
 * GASNet-EX (../shared/spec/gasnet-ex-api.txt, "Collectives (Coll)"):
 * gex_Coll_BroadcastNB, gex_Coll_ReduceToOneNB, gex_Coll_ReduceToAllNB on
 * any team (gex_Coll_BarrierNB is in gasnetex.h). Several may be in flight
 * on one team and on several; the results of a reduction are reproducible
 * (a fixed combination order for a given team, root, type and count).
 *
 * GASNet-1 (../shared/spec/gasnet-client-extras.md section 2): the
 * collectives of that era's prototype, each one call of the same engine
 * (extended-ref/gasnete_coll*.c), with one image per node.
 */
#ifndef GASNET_COLL_H
#define GASNET_COLL_H

#include "gasnet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== GASNet-EX ============================================================== */

/* A user reduction: for i < count, arg2_and_out[i] = arg1[i] (+) arg2_and_out[i]. */
typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count,
                                    const void *cdata);

/* nbytes from src on root to dst on every member (root included; src ==
 * dst allowed there). flags must be 0. */
extern gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst,
                                        const void *src, size_t nbytes, gex_Flags_t flags);
/* dst_i = src_i[0] (+) src_i[1] ... (+) src_i[N-1], for every element i of
 * dt_cnt, on root (ToOne) or on every member (ToAll). dt a GEX_DT_* (with
 * dt_sz its size) or GEX_DT_USER with GEX_OP_USER / GEX_OP_USER_NC; op one
 * GEX_OP_* of ADD MULT MIN MAX (every type), AND OR XOR (integers), USER,
 * USER_NC (non-commutative: combined in rank order). No size limit. */
extern gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst,
                                          const void *src, gex_DT_t dt, size_t dt_sz,
                                          size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                          size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);

/* ==== GASNet-1 ================================================================ */

/* A team is a GASNet-EX team; GASNET_TEAM_ALL the primordial one (valid
 * from gasnet_attach on). */
typedef gex_TM_t gasnet_team_handle_t;
extern gasnet_team_handle_t gasnete_coll_team_all;
#define GASNET_TEAM_ALL gasnete_coll_team_all

typedef uint32_t gasnet_image_t;
/* A non-blocking collective's handle: a GASNet-EX event. */
typedef gex_Event_t gasnet_coll_handle_t;
#define GASNET_COLL_INVALID_HANDLE ((gasnet_coll_handle_t)GEX_EVENT_INVALID)

/* A reduction function a client registers with gasnet_coll_init: for
 * i < result_count, results[i] = left_operands[i] (+) right_operands[i]
 * (elements of elem_size bytes; left_count == result_count; flags is the
 * entry's, arg the call's func_arg). */
typedef void (*gasnet_coll_fn_t)(void *results, size_t result_count, const void *left_operands,
                                 size_t left_count, const void *right_operands,
                                 size_t elem_size, int flags, int arg);
typedef gasnet_coll_fn_t gasnet_coll_reduce_fn_t;
typedef struct {
  gasnet_coll_fn_t fnptr;
  unsigned int flags;
} gasnet_coll_fn_entry_t;
/* The index of a function in gasnet_coll_init's fn_table. */
typedef uint32_t gasnet_coll_fn_handle_t;

/* Flags: exactly one GASNET_COLL_IN_* and one GASNET_COLL_OUT_* per call.
 *   IN_NOSYNC / OUT_NOSYNC   no synchronisation on entry / exit
 *   IN_MYSYNC / OUT_MYSYNC   only with the nodes whose data this node needs
 *   IN_ALLSYNC / OUT_ALLSYNC every node has entered / finished
 * LOCAL: the addresses are local and may lie outside the segment;
 * SINGLE: every node passes the same addresses (not both). */
#define GASNET_COLL_IN_NOSYNC (1 << 0)
#define GASNET_COLL_IN_MYSYNC (1 << 1)
#define GASNET_COLL_IN_ALLSYNC (1 << 2)
#define GASNET_COLL_OUT_NOSYNC (1 << 3)
#define GASNET_COLL_OUT_MYSYNC (1 << 4)
#define GASNET_COLL_OUT_ALLSYNC (1 << 5)
#define GASNET_COLL_SINGLE (1 << 6)
#define GASNET_COLL_LOCAL (1 << 7)
#define GASNET_COLL_AGGREGATE (1 << 8)
#define GASNET_COLL_DST_IN_SEGMENT (1 << 9)
#define GASNET_COLL_SRC_IN_SEGMENT (1 << 10)

/* Collective; once, after gasnet_attach. images must be NULL (one image per
 * node; my_image is then ignored); fn_table lists the reduction functions. */
extern void gasnet_coll_init(gasnet_image_t *images, gasnet_image_t my_image,
                             gasnet_coll_fn_entry_t *fn_table, size_t fn_count, int flags);

/* Completion of the _nb forms. */
extern void gasnet_coll_wait_sync(gasnet_coll_handle_t handle);
extern int gasnet_coll_try_sync(gasnet_coll_handle_t handle);
extern void gasnet_coll_wait_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles);
extern int gasnet_coll_try_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles);
extern void gasnet_coll_wait_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles);
extern int gasnet_coll_try_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles);

/* Broadcast: nbytes from src on srcimage to dst on every node. */
extern void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                  void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                                     gasnet_image_t srcimage, void *src,
                                                     size_t nbytes, int flags);
extern void gasnet_coll_broadcastM(gasnet_team_handle_t team, void *const dstlist[],
                                   gasnet_image_t srcimage, void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_broadcastM_nb(gasnet_team_handle_t team,
                                                      void *const dstlist[],
                                                      gasnet_image_t srcimage, void *src,
                                                      size_t nbytes, int flags);
/* Scatter: block i (nbytes) of src on srcimage to dst on node i. */
extern void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                                   gasnet_image_t srcimage, void *src,
                                                   size_t nbytes, int flags);
extern void gasnet_coll_scatterM(gasnet_team_handle_t team, void *const dstlist[],
                                 gasnet_image_t srcimage, void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_scatterM_nb(gasnet_team_handle_t team,
                                                    void *const dstlist[],
                                                    gasnet_image_t srcimage, void *src,
                                                    size_t nbytes, int flags);
/* Gather: src (nbytes) of node i to block i of dst on dstimage. */
extern void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                               void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team,
                                                  gasnet_image_t dstimage, void *dst, void *src,
                                                  size_t nbytes, int flags);
extern void gasnet_coll_gatherM(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                                void *const srclist[], size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gatherM_nb(gasnet_team_handle_t team,
                                                   gasnet_image_t dstimage, void *dst,
                                                   void *const srclist[], size_t nbytes,
                                                   int flags);
/* Gather to all: src of node i to block i of dst on every node. */
extern void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src,
                                   size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst,
                                                      void *src, size_t nbytes, int flags);
extern void gasnet_coll_gather_allM(gasnet_team_handle_t team, void *const dstlist[],
                                    void *const srclist[], size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_allM_nb(gasnet_team_handle_t team,
                                                       void *const dstlist[],
                                                       void *const srclist[], size_t nbytes,
                                                       int flags);
/* Exchange (all to all): block j of src on node i to block i of dst on node j. */
extern void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                 int flags);
extern gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst,
                                                    void *src, size_t nbytes, int flags);
extern void gasnet_coll_exchangeM(gasnet_team_handle_t team, void *const dstlist[],
                                  void *const srclist[], size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_exchangeM_nb(gasnet_team_handle_t team,
                                                     void *const dstlist[],
                                                     void *const srclist[], size_t nbytes,
                                                     int flags);
/* Reduce: elem_count elements of elem_size at src + src_offset on every
 * node, combined by the registered function func, to dst on dstimage.
 * src_blksz is the distance between images' blocks (one image per node). */
extern void gasnet_coll_reduce(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                               void *src, size_t src_blksz, size_t src_offset, size_t elem_size,
                               size_t elem_count, gasnet_coll_fn_handle_t func, int func_arg,
                               int flags);
extern gasnet_coll_handle_t gasnet_coll_reduce_nb(gasnet_team_handle_t team,
                                                  gasnet_image_t dstimage, void *dst, void *src,
                                                  size_t src_blksz, size_t src_offset,
                                                  size_t elem_size, size_t elem_count,
                                                  gasnet_coll_fn_handle_t func, int func_arg,
                                                  int flags);
extern void gasnet_coll_reduceM(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                                void *const srclist[], size_t src_blksz, size_t src_offset,
                                size_t elem_size, size_t elem_count,
                                gasnet_coll_fn_handle_t func, int func_arg, int flags);
extern gasnet_coll_handle_t gasnet_coll_reduceM_nb(gasnet_team_handle_t team,
                                                   gasnet_image_t dstimage, void *dst,
                                                   void *const srclist[], size_t src_blksz,
                                                   size_t src_offset, size_t elem_size,
                                                   size_t elem_count,
                                                   gasnet_coll_fn_handle_t func, int func_arg,
                                                   int flags);

/* Teams: split (members with the same color, ordered by myrelrank) and the
 * team's ranks. scratch_seg is accepted and not used. */
extern gasnet_team_handle_t gasnet_coll_team_split(gasnet_team_handle_t parent_team,
                                                   gasnet_node_t mycolor,
                                                   gasnet_node_t myrelrank,
                                                   const gasnet_seginfo_t *scratch_seg);
extern gasnet_node_t gasnet_coll_team_rank(gasnet_team_handle_t team);
extern gasnet_node_t gasnet_coll_team_size(gasnet_team_handle_t team);
extern gasnet_node_t gasnet_coll_team_rank2node(gasnet_team_handle_t team, gasnet_node_t rank);
extern gasnet_node_t gasnet_coll_team_node2rank(gasnet_team_handle_t team, gasnet_node_t node);
#define gasnete_coll_team_rank gasnet_coll_team_rank
#define gasnete_coll_team_size gasnet_coll_team_size
#define gasnete_coll_team_rank2node gasnet_coll_team_rank2node
#define gasnete_coll_team_node2rank gasnet_coll_team_node2rank

/* A team's split-phase barrier (spec 3.5's rules, per team). */
extern void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags);

/* Tuning and profiling: nothing to dump or load here. */
extern void gasnet_coll_dumpProfile(const char *filename, gasnet_team_handle_t team);
extern void gasnet_coll_dumpTuningState(const char *filename, gasnet_team_handle_t team);
extern void gasnet_coll_loadTuningState(const char *filename, gasnet_team_handle_t team);

#ifdef __cplusplus
}
#endif

#endif /* GASNET_COLL_H */
