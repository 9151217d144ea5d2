/*
 * gasnet_fwd.h - the GASNet-EX types and constants a client's own headers
 * may need without the whole API (description v0.19, "The gasnet_fwd.h
 * header"): gex_Rank_t, gex_EP_Index_t, gex_Addr_t, gex_Event_t,
 * gex_Flags_t, gex_DT_t, gex_OP_t, gex_EP_Capabilities_t, gex_TI_t and
 * GEX_RANK_INVALID, GEX_EVENT_*, every GEX_FLAG_*, GEX_DT_*, GEX_OP_*,
 * GEX_EP_CAPABILITY_*, GEX_TI_*. Only #defines and typedefs of simple
 * types: no thread mode is needed, nothing to link. gasnetex.h includes it:
 * this is where they are defined, once. Every constant is a plain integer
 * expression, usable in #if.
 */
#ifndef GASNET_FWD_H
#define GASNET_FWD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t gex_Rank_t;                      /* = gasnet_node_t */
typedef uint16_t gex_EP_Index_t;
typedef void *gex_Addr_t;
typedef struct gasnete_handle *gex_Event_t;       /* = gasnet_handle_t */
typedef uint32_t gex_Flags_t;
typedef uint32_t gex_DT_t;
typedef uint32_t gex_OP_t;
typedef uint32_t gex_EP_Capabilities_t;
typedef uint32_t gex_TI_t;

#define GEX_RANK_INVALID ((gex_Rank_t)0xffffffffu)
#define GEX_EVENT_INVALID ((gex_Event_t)0)
#define GEX_EVENT_NO_OP ((gex_Event_t)(uintptr_t)1)
#define GEX_EVENT_NOW ((gex_Event_t *)(uintptr_t)1)
#define GEX_EVENT_DEFER ((gex_Event_t *)(uintptr_t)2)
#define GEX_EVENT_GROUP ((gex_Event_t *)(uintptr_t)3)
/* ---- flags (bits disjoint per API; unrelated APIs may share bits) ---------- */
#define GEX_FLAG_USES_GASNET1         (1u << 0)  /* gex_Client_Init */
#define GEX_FLAG_DEFER_THREADS        (1u << 1)  /* gex_Client_Init (spec v0.18) */
#define GEX_FLAG_IMMEDIATE            (1u << 0)
#define GEX_FLAG_LC_COPY_YES          (1u << 1)
#define GEX_FLAG_LC_COPY_NO           (1u << 2)
#define GEX_FLAG_PEER_NEVER_SELF      (1u << 3)
#define GEX_FLAG_PEER_NEVER_NBRHD     (1u << 4)
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT (1u << 5)
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC  (1u << 6)
#define GEX_FLAG_SELF_SEG_UNKNOWN     (1u << 7)
#define GEX_FLAG_PEER_SEG_UNKNOWN     (1u << 8)
#define GEX_FLAG_SELF_SEG_SOME        (1u << 9)
#define GEX_FLAG_PEER_SEG_SOME        (1u << 10)
#define GEX_FLAG_SELF_SEG_BOUND       (1u << 11)
#define GEX_FLAG_PEER_SEG_BOUND       (1u << 12)
#define GEX_FLAG_SELF_SEG_OFFSET      (1u << 13)
#define GEX_FLAG_PEER_SEG_OFFSET      (1u << 14)
#define GEX_FLAG_RANK_IS_JOBRANK      (1u << 15)
/* Remote atomics (gasnet_ratomic.h): at initiation, one of MY_RANK /
 * MY_NBRHD (assertions about the target), ACQ and REL (ordering); at
 * gex_AD_Create one of the FAVOR_* hints. */
#define GEX_FLAG_AD_MY_RANK           (1u << 16)
#define GEX_FLAG_AD_MY_NBRHD          (1u << 17)
#define GEX_FLAG_AD_ACQ               (1u << 18)
#define GEX_FLAG_AD_REL               (1u << 19)
#define GEX_FLAG_AD_FAVOR_MY_RANK     (1u << 20)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD    (1u << 21)
#define GEX_FLAG_AD_FAVOR_REMOTE      (1u << 22)
#define GEX_FLAG_ENABLE_LEAF_LC       (1u << 24)
/* Handler registration (gex_AM_Entry_t.gex_flags): one of each group. */
#define GEX_FLAG_AM_SHORT   (1u << 0)
#define GEX_FLAG_AM_MEDIUM  (1u << 1)
#define GEX_FLAG_AM_LONG    (1u << 2)
#define GEX_FLAG_AM_MEDLONG (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST (1u << 3)
#define GEX_FLAG_AM_REPLY   (1u << 4)
#define GEX_FLAG_AM_REQREP  (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)
/* gex_EP_Create hints (memory kinds): defined, and ignored, as in the description. */
#define GEX_FLAG_HINT_ACCEL_AD        (1u << 0)
#define GEX_FLAG_HINT_ACCEL_COLL      (1u << 1)
#define GEX_FLAG_HINT_ACCEL_ALL       (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)

/* ---- data types and operation codes for atomics (and reductions) -----------
 * The description, "Data types for atomics and reductions" and "Operation
 * codes": disjoint non-zero bits. The opcodes come in pairs, non-fetching
 * at bit 2k and its fetching form at bit 2k+1 (SET/SWAP and CAS/FCAS
 * among them), so GEX_OP_TO_FETCHING and GEX_OP_TO_NONFETCHING are
 * shifts; GEX_OP_GET has no non-fetching form. Remote atomics:
 * gasnet_ratomic.h. */
#define GEX_DT_I32  (1u << 0)
#define GEX_DT_U32  (1u << 1)
#define GEX_DT_I64  (1u << 2)
#define GEX_DT_U64  (1u << 3)
#define GEX_DT_FLT  (1u << 4)
#define GEX_DT_DBL  (1u << 5)
#define GEX_DT_USER (1u << 6)
#define GEX_OP_SET   (1u << 0)
#define GEX_OP_SWAP  (1u << 1)
#define GEX_OP_CAS   (1u << 2)
#define GEX_OP_FCAS  (1u << 3)
#define GEX_OP_ADD   (1u << 4)
#define GEX_OP_FADD  (1u << 5)
#define GEX_OP_SUB   (1u << 6)
#define GEX_OP_FSUB  (1u << 7)
#define GEX_OP_INC   (1u << 8)
#define GEX_OP_FINC  (1u << 9)
#define GEX_OP_DEC   (1u << 10)
#define GEX_OP_FDEC  (1u << 11)
#define GEX_OP_MULT  (1u << 12)
#define GEX_OP_FMULT (1u << 13)
#define GEX_OP_MIN   (1u << 14)
#define GEX_OP_FMIN  (1u << 15)
#define GEX_OP_MAX   (1u << 16)
#define GEX_OP_FMAX  (1u << 17)
#define GEX_OP_AND   (1u << 18)
#define GEX_OP_FAND  (1u << 19)
#define GEX_OP_OR    (1u << 20)
#define GEX_OP_FOR   (1u << 21)
#define GEX_OP_XOR   (1u << 22)
#define GEX_OP_FXOR  (1u << 23)
#define GEX_OP_GET   (1u << 24)
#define GEX_OP_USER    (1u << 25)
#define GEX_OP_USER_NC (1u << 26)
#define GEX_OP_CSWAP GEX_OP_FCAS
#define GEX_OP_TO_FETCHING(op) ((gex_OP_t)((op) << 1))
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)((op) >> 1))
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED (1u << 25)
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN         (1u << 26)
#define GEX_FLAG_TM_GLOBAL_SCRATCH           (1u << 27)
#define GEX_FLAG_TM_LOCAL_SCRATCH            (1u << 28)
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH        (1u << 29)
#define GEX_FLAG_TM_NO_SCRATCH               (1u << 30)
#define GEX_FLAG_SCRATCH_SEG_OFFSET          (1u << 31)
#define GEX_FLAG_GLOBALLY_QUIESCED           (1u << 1)
#define GEX_EP_CAPABILITY_RMA  (1u << 0)
#define GEX_EP_CAPABILITY_AM   (1u << 1)
#define GEX_EP_CAPABILITY_VIS  (1u << 2)
#define GEX_EP_CAPABILITY_COLL (1u << 3)
#define GEX_EP_CAPABILITY_AD   (1u << 4)
#define GEX_EP_CAPABILITY_ALL  0x1fu
/* Endpoints per process, the primordial one included (gex_EP_Create); the
 * number Berkeley's multi-EP conduits give, an index fits the AM header. */
#define GASNET_MAXEPS 33
#define GEX_TI_SRCRANK (1u << 0)
#define GEX_TI_EP      (1u << 1)
#define GEX_TI_ENTRY   (1u << 2)
#define GEX_TI_IS_REQ  (1u << 3)
#define GEX_TI_IS_LONG (1u << 4)
#define GEX_TI_ALL     0x1fu

#ifdef __cplusplus
}
#endif

#endif /* GASNET_FWD_H */
