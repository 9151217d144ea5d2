/*
 * gasnet_vis.h - Vector, Indexed and Strided transfers (VIS): many pieces
 * of memory to or from one peer in one call (../shared/spec/gasnet-ex-api.txt,
 * "Vector/Indexed/Strided (VIS)"), and the GASNet-1 calls of that era
 * (../shared/spec/gasnet-client-extras.md section 2), each one EX call.
 * Implemented in extended-ref/gasnete_vis.c; docs/api.md, "VIS", says how.
 *
 * The rules every call here shares:
 *  - The two sides must hold the same number of bytes, however they are
 *    cut (a 3-entry list may meet a 5-entry one): a fatal error naming the
 *    call and both totals otherwise. The bytes are matched in order.
 *  - Local memory may be anywhere; every remote piece must lie in the
 *    peer's segment (a fatal error naming the piece otherwise).
 *  - A destination piece that overlaps a source piece or another
 *    destination piece makes the result undefined; sources may overlap.
 *  - Zero-length entries are skipped; a call of 0 bytes does nothing.
 *    Strided: elemsz == 0 or a count[i] == 0 is a no-op, and stridelevels
 *    == 0 a contiguous copy of elemsz bytes; strides may be negative.
 *  - Returns: NB an event (GEX_EVENT_INVALID when already complete; NO_OP
 *    only with GEX_FLAG_IMMEDIATE, when nothing could be sent now), NBI and
 *    Blocking non-zero only in that IMMEDIATE case. Puts are GEX_EC_PUT
 *    and gets GEX_EC_GET for gex_NBI_*; access regions cover them.
 *  - The lists of Vector and Indexed calls are read before the call
 *    returns here (the description allows as late as completion), as are
 *    Strided's strides and counts.
 *  - Flags: GEX_FLAG_IMMEDIATE, GEX_FLAG_PEER_NEVER_SELF/_NBRHD, and for
 *    puts GEX_FLAG_ENABLE_LEAF_LC. A put is locally complete when its
 *    initiation returns, so gex_Event_QueryLeaf(root, GEX_EC_LC) gives
 *    GEX_EVENT_INVALID (complete) and the NBI LC category is always done.
 */
#ifndef GASNET_VIS_H
#define GASNET_VIS_H

#include "gasnetex.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- GASNet-EX ---------------------------------------------------------------------- */

/* Vector: lists of (address, length) on each side. */
extern gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                       gex_Memvec_t const dstlist[], size_t srccount,
                                       gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                     gex_Memvec_t const dstlist[], size_t srccount,
                                     gex_Memvec_t const srclist[], gex_Flags_t flags);
extern gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                       gex_Rank_t srcrank, size_t srccount,
                                       gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                     gex_Rank_t srcrank, size_t srccount,
                                     gex_Memvec_t const srclist[], gex_Flags_t flags);

/* Indexed: lists of addresses, each naming dstlen (srclen) bytes. */
extern gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                        void *const dstlist[], size_t dstlen, size_t srccount,
                                        void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                      void *const dstlist[], size_t dstlen, size_t srccount,
                                      void *const srclist[], size_t srclen, gex_Flags_t flags);
extern gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                        size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                        void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                      size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                      void *const srclist[], size_t srclen, gex_Flags_t flags);

/* Strided: elemsz contiguous bytes per element; count[0..stridelevels-1]
 * elements per level (level 0 varies fastest); element (i0, i1, ...) at
 * addr + i0*strides[0] + i1*strides[1] + ... on each side. */
extern gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                        const ptrdiff_t dststrides[], void *srcaddr,
                                        const ptrdiff_t srcstrides[], size_t elemsz,
                                        const size_t count[], size_t stridelevels,
                                        gex_Flags_t flags);
extern int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                      const ptrdiff_t dststrides[], void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels,
                                      gex_Flags_t flags);
extern gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                        gex_Rank_t srcrank, void *srcaddr,
                                        const ptrdiff_t srcstrides[], size_t elemsz,
                                        const size_t count[], size_t stridelevels,
                                        gex_Flags_t flags);
extern int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                                 size_t elemsz, const size_t count[], size_t stridelevels,
                                 gex_Flags_t flags);
extern int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                      gex_Rank_t srcrank, void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels,
                                      gex_Flags_t flags);

/* [EXPERIMENTAL] Arm a peer completion for the calling thread's next VIS
 * put: once its data is delivered, the peer runs its handler `handler`
 * (registered with GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY and 0 arguments)
 * with nbytes (<= GEX_VIS_MAX_PEERCOMPLETION) from source_addr as payload.
 * handler 0 disarms. That put may not pass GEX_FLAG_IMMEDIATE, and a VIS
 * get while one is armed is a fatal error. flags must be 0. */
extern void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                             size_t nbytes, gex_Flags_t flags);
#define GEX_VIS_MAX_PEERCOMPLETION ((size_t)4096)

/* ---- GASNet-1 (gasnet.h clients): each call is one gex_VIS_* call on the
 * primordial team, whose rank i is node i; a gasnet_handle_t is a
 * gex_Event_t. Strided: count[0] is the element size in bytes and
 * count[1..stridelevels] the counts per level (EX's elemsz and count[]);
 * the strides are size_t. ---------------------------------------------------------- */
typedef struct {
  void *addr;
  size_t len;
} gasnet_memvec_t;

extern gasnet_handle_t gasnet_putv_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                           gasnet_memvec_t const dstlist[], size_t srccount,
                                           gasnet_memvec_t const srclist[]);
extern void gasnet_putv_nbi_bulk(gasnet_node_t dstnode, size_t dstcount,
                                 gasnet_memvec_t const dstlist[], size_t srccount,
                                 gasnet_memvec_t const srclist[]);
extern void gasnet_putv_bulk(gasnet_node_t dstnode, size_t dstcount,
                             gasnet_memvec_t const dstlist[], size_t srccount,
                             gasnet_memvec_t const srclist[]);
extern gasnet_handle_t gasnet_getv_nb_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                           gasnet_node_t srcnode, size_t srccount,
                                           gasnet_memvec_t const srclist[]);
extern void gasnet_getv_nbi_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                 gasnet_node_t srcnode, size_t srccount,
                                 gasnet_memvec_t const srclist[]);
extern void gasnet_getv_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                             gasnet_node_t srcnode, size_t srccount,
                             gasnet_memvec_t const srclist[]);

extern gasnet_handle_t gasnet_puti_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                           void *const dstlist[], size_t dstlen, size_t srccount,
                                           void *const srclist[], size_t srclen);
extern void gasnet_puti_nbi_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, size_t srccount, void *const srclist[],
                                 size_t srclen);
extern void gasnet_puti_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                             size_t dstlen, size_t srccount, void *const srclist[],
                             size_t srclen);
extern gasnet_handle_t gasnet_geti_nb_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                           gasnet_node_t srcnode, size_t srccount,
                                           void *const srclist[], size_t srclen);
extern void gasnet_geti_nbi_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                 gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                                 size_t srclen);
extern void gasnet_geti_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                             gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                             size_t srclen);

extern gasnet_handle_t gasnet_puts_nb_bulk(gasnet_node_t dstnode, void *dstaddr,
                                           const size_t dststrides[], void *srcaddr,
                                           const size_t srcstrides[], const size_t count[],
                                           size_t stridelevels);
extern void gasnet_puts_nbi_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                                 void *srcaddr, const size_t srcstrides[], const size_t count[],
                                 size_t stridelevels);
extern void gasnet_puts_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                             void *srcaddr, const size_t srcstrides[], const size_t count[],
                             size_t stridelevels);
extern gasnet_handle_t gasnet_gets_nb_bulk(void *dstaddr, const size_t dststrides[],
                                           gasnet_node_t srcnode, void *srcaddr,
                                           const size_t srcstrides[], const size_t count[],
                                           size_t stridelevels);
extern void gasnet_gets_nbi_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                                 void *srcaddr, const size_t srcstrides[], const size_t count[],
                                 size_t stridelevels);
extern void gasnet_gets_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                             void *srcaddr, const size_t srcstrides[], const size_t count[],
                             size_t stridelevels);

#ifdef __cplusplus
}
#endif

#endif /* GASNET_VIS_H */
