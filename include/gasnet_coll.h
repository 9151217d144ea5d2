/*
 * gasnet_coll.h - the GASNet-1 collectives that clients of that era use
 * (beyond spec 1.8; ../shared/spec/gasnet-client-extras.md section 2).
 *
 * Provided now: gasnet_coll_init and gasnet_coll_broadcast on
 * GASNET_TEAM_ALL, with one image per node. The other collectives arrive
 * with the GASNet-EX teams and collectives, of which they will be thin
 * wrappers. Implemented in extended-ref/gasnete_coll.c on core AMs.
 */
#ifndef GASNET_COLL_H
#define GASNET_COLL_H

#include "gasnet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gasnete_coll_team *gasnet_team_handle_t;
extern struct gasnete_coll_team gasnete_coll_team_all;
#define GASNET_TEAM_ALL (&gasnete_coll_team_all)

typedef uint32_t gasnet_image_t;

/* A reduction function a client registers (the GASNet-1 signature). */
typedef void (*gasnet_coll_fn_t)(void *results, size_t result_count, const void *left_operands,
                                 size_t left_count, const void *right_operands,
                                 size_t elem_size, int flags, int arg);
typedef struct {
  gasnet_coll_fn_t fnptr;
  unsigned int flags;
} gasnet_coll_fn_entry_t;

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

/* Copy nbytes from src on node root to dst on every node (root included). */
extern void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t root,
                                  void *src, size_t nbytes, int flags);

#ifdef __cplusplus
}
#endif

#endif /* GASNET_COLL_H */
