/*
 * gasnet_fwd.h - the GASNet-EX types and constants a client's own headers
 * may need without the whole API (description v0.19, "The gasnet_fwd.h
 * header"): gex_Rank_t, gex_EP_Index_t, gex_Addr_t, gex_Event_t,
 * gex_Flags_t, gex_DT_t, gex_OP_t, gex_EP_Capabilities_t and
 * GEX_RANK_INVALID, GEX_EVENT_*, GEX_FLAG_*, GEX_DT_*, GEX_OP_*,
 * GEX_EP_CAPABILITY_*. Only #defines and typedefs of simple types; no
 * thread mode is needed, nothing to link.
 *
 * It may be included alone or with gasnetex.h/gasnet.h in either order, in
 * C and C++: after gasnetex.h it adds nothing; before it, every typedef
 * names the same type as gasnetex.h's and every #define is spelled token
 * for token as there, so that gasnetex.h's repetition is a benign
 * redefinition (tests/tools/t-headers.sh compiles both orders with -Werror).
 * A change to one of these names in gasnetex.h must be made here too.
 */
#ifndef GASNET_FWD_H
#define GASNET_FWD_H
#ifndef GASNETEX_H

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
#define GEX_FLAG_USES_GASNET1         ((gex_Flags_t)1u << 0)
#define GEX_FLAG_IMMEDIATE            ((gex_Flags_t)1u << 0)
#define GEX_FLAG_LC_COPY_YES          ((gex_Flags_t)1u << 1)
#define GEX_FLAG_LC_COPY_NO           ((gex_Flags_t)1u << 2)
#define GEX_FLAG_PEER_NEVER_SELF      ((gex_Flags_t)1u << 3)
#define GEX_FLAG_PEER_NEVER_NBRHD     ((gex_Flags_t)1u << 4)
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT ((gex_Flags_t)1u << 5)
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC  ((gex_Flags_t)1u << 6)
#define GEX_FLAG_SELF_SEG_UNKNOWN     ((gex_Flags_t)1u << 7)
#define GEX_FLAG_PEER_SEG_UNKNOWN     ((gex_Flags_t)1u << 8)
#define GEX_FLAG_SELF_SEG_SOME        ((gex_Flags_t)1u << 9)
#define GEX_FLAG_PEER_SEG_SOME        ((gex_Flags_t)1u << 10)
#define GEX_FLAG_SELF_SEG_BOUND       ((gex_Flags_t)1u << 11)
#define GEX_FLAG_PEER_SEG_BOUND       ((gex_Flags_t)1u << 12)
#define GEX_FLAG_SELF_SEG_OFFSET      ((gex_Flags_t)1u << 13)
#define GEX_FLAG_PEER_SEG_OFFSET      ((gex_Flags_t)1u << 14)
#define GEX_FLAG_RANK_IS_JOBRANK      ((gex_Flags_t)1u << 15)
#define GEX_FLAG_AD_MY_RANK           ((gex_Flags_t)1u << 16)
#define GEX_FLAG_AD_MY_NBRHD          ((gex_Flags_t)1u << 17)
#define GEX_FLAG_AD_ACQ               ((gex_Flags_t)1u << 18)
#define GEX_FLAG_AD_REL               ((gex_Flags_t)1u << 19)
#define GEX_FLAG_AD_FAVOR_MY_RANK     ((gex_Flags_t)1u << 20)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD    ((gex_Flags_t)1u << 21)
#define GEX_FLAG_AD_FAVOR_REMOTE      ((gex_Flags_t)1u << 22)
#define GEX_FLAG_ENABLE_LEAF_LC       ((gex_Flags_t)1u << 24)
#define GEX_FLAG_AM_SHORT   ((gex_Flags_t)1u << 0)
#define GEX_FLAG_AM_MEDIUM  ((gex_Flags_t)1u << 1)
#define GEX_FLAG_AM_LONG    ((gex_Flags_t)1u << 2)
#define GEX_FLAG_AM_MEDLONG (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST ((gex_Flags_t)1u << 3)
#define GEX_FLAG_AM_REPLY   ((gex_Flags_t)1u << 4)
#define GEX_FLAG_AM_REQREP  (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)
#define GEX_DT_I32  ((gex_DT_t)1u << 0)
#define GEX_DT_U32  ((gex_DT_t)1u << 1)
#define GEX_DT_I64  ((gex_DT_t)1u << 2)
#define GEX_DT_U64  ((gex_DT_t)1u << 3)
#define GEX_DT_FLT  ((gex_DT_t)1u << 4)
#define GEX_DT_DBL  ((gex_DT_t)1u << 5)
#define GEX_DT_USER ((gex_DT_t)1u << 6)
#define GEX_OP_SET   ((gex_OP_t)1u << 0)
#define GEX_OP_SWAP  ((gex_OP_t)1u << 1)
#define GEX_OP_CAS   ((gex_OP_t)1u << 2)
#define GEX_OP_FCAS  ((gex_OP_t)1u << 3)
#define GEX_OP_ADD   ((gex_OP_t)1u << 4)
#define GEX_OP_FADD  ((gex_OP_t)1u << 5)
#define GEX_OP_SUB   ((gex_OP_t)1u << 6)
#define GEX_OP_FSUB  ((gex_OP_t)1u << 7)
#define GEX_OP_INC   ((gex_OP_t)1u << 8)
#define GEX_OP_FINC  ((gex_OP_t)1u << 9)
#define GEX_OP_DEC   ((gex_OP_t)1u << 10)
#define GEX_OP_FDEC  ((gex_OP_t)1u << 11)
#define GEX_OP_MULT  ((gex_OP_t)1u << 12)
#define GEX_OP_FMULT ((gex_OP_t)1u << 13)
#define GEX_OP_MIN   ((gex_OP_t)1u << 14)
#define GEX_OP_FMIN  ((gex_OP_t)1u << 15)
#define GEX_OP_MAX   ((gex_OP_t)1u << 16)
#define GEX_OP_FMAX  ((gex_OP_t)1u << 17)
#define GEX_OP_AND   ((gex_OP_t)1u << 18)
#define GEX_OP_FAND  ((gex_OP_t)1u << 19)
#define GEX_OP_OR    ((gex_OP_t)1u << 20)
#define GEX_OP_FOR   ((gex_OP_t)1u << 21)
#define GEX_OP_XOR   ((gex_OP_t)1u << 22)
#define GEX_OP_FXOR  ((gex_OP_t)1u << 23)
#define GEX_OP_GET   ((gex_OP_t)1u << 24)
#define GEX_OP_USER    ((gex_OP_t)1u << 25)
#define GEX_OP_USER_NC ((gex_OP_t)1u << 26)
#define GEX_OP_CSWAP GEX_OP_FCAS
#define GEX_OP_TO_FETCHING(op) ((gex_OP_t)((op) << 1))
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)((op) >> 1))
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED ((gex_Flags_t)1u << 25)
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN         ((gex_Flags_t)1u << 26)
#define GEX_FLAG_TM_GLOBAL_SCRATCH           ((gex_Flags_t)1u << 27)
#define GEX_FLAG_TM_LOCAL_SCRATCH            ((gex_Flags_t)1u << 28)
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH        ((gex_Flags_t)1u << 29)
#define GEX_FLAG_TM_NO_SCRATCH               ((gex_Flags_t)1u << 30)
#define GEX_FLAG_SCRATCH_SEG_OFFSET          ((gex_Flags_t)1u << 31)
#define GEX_FLAG_GLOBALLY_QUIESCED           ((gex_Flags_t)1u << 1)
#define GEX_EP_CAPABILITY_RMA  ((gex_EP_Capabilities_t)1u << 0)
#define GEX_EP_CAPABILITY_AM   ((gex_EP_Capabilities_t)1u << 1)
#define GEX_EP_CAPABILITY_VIS  ((gex_EP_Capabilities_t)1u << 2)
#define GEX_EP_CAPABILITY_COLL ((gex_EP_Capabilities_t)1u << 3)
#define GEX_EP_CAPABILITY_AD   ((gex_EP_Capabilities_t)1u << 4)
#define GEX_EP_CAPABILITY_ALL  ((gex_EP_Capabilities_t)0x1fu)
#define GEX_TI_SRCRANK ((gex_TI_t)1u << 0)
#define GEX_TI_EP      ((gex_TI_t)1u << 1)
#define GEX_TI_ENTRY   ((gex_TI_t)1u << 2)
#define GEX_TI_IS_REQ  ((gex_TI_t)1u << 3)
#define GEX_TI_IS_LONG ((gex_TI_t)1u << 4)
#define GEX_TI_ALL     ((gex_TI_t)0x1fu)

#ifdef __cplusplus
}
#endif

#endif /* !GASNETEX_H */
#endif /* GASNET_FWD_H */
