/*
 * gasnet_ratomic.h - GASNet-EX remote atomics (../shared/spec/gasnet-ex-api.txt,
 * "Remote Atomic Operations"): atomic domains (gex_AD_t) and the typed
 * operations gex_AD_OpNB_<DT> / gex_AD_OpNBI_<DT> for DT = I32, U32, I64,
 * U64, FLT, DBL. The data types, opcodes and GEX_FLAG_AD_* flags are in
 * gasnetex.h (reductions share them). Implemented in
 * extended-ref/gasnete_ratomic.c; docs/api.md, "Remote atomics", says how.
 */
#ifndef GASNET_RATOMIC_H
#define GASNET_RATOMIC_H

#include "gasnetex.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An atomic domain: a team, one data type, a set of operations. */
typedef struct gasnete_ad *gex_AD_t;
#define GEX_AD_INVALID ((gex_AD_t)0)

/* Collective over tm (a team, not a TM-pair). ops: a bitwise OR of the
 * GEX_OP_* valid for dt (bit-wise ones only for integer types; neither
 * GEX_OP_USER nor _USER_NC); flags: 0 or one GEX_FLAG_AD_FAVOR_*. Anything
 * else is a fatal error naming it. Communicates with no one. */
extern void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
                          gex_Flags_t flags);
/* Collective; every operation on ad must be complete on every rank first. */
extern void gex_AD_Destroy(gex_AD_t ad);

/* What gex_AD_Create was given. */
extern gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad);
extern gex_TM_t gex_AD_QueryTM(gex_AD_t ad);
extern gex_DT_t gex_AD_QueryDT(gex_AD_t ad);
extern gex_OP_t gex_AD_QueryOps(gex_AD_t ad);
/* One client pointer per domain, NULL when created. */
extern void gex_AD_SetCData(gex_AD_t ad, const void *val);
extern void *gex_AD_QueryCData(gex_AD_t ad);

/* The operations: opcode one GEX_OP_* of the domain's ops; tgt_addr an
 * aligned object of the type inside the bound segment of (the domain's
 * team, tgt_rank), or of job rank tgt_rank with GEX_FLAG_RANK_IS_JOBRANK;
 * result_p receives op0 for fetching opcodes (ignored otherwise).
 * flags: GEX_FLAG_IMMEDIATE, GEX_FLAG_AD_ACQ, _REL, one of
 * GEX_FLAG_AD_MY_RANK / _MY_NBRHD (checked), GEX_FLAG_RANK_IS_JOBRANK.
 * NB returns an event (GEX_EVENT_INVALID when already complete, as every
 * operation on memory mapped here is); NBI returns 0 and counts in
 * gex_NBI_* under GEX_EC_PUT (SET), GEX_EC_GET (GET) or GEX_EC_RMW (the
 * rest). Non-zero / GEX_EVENT_NO_OP only with GEX_FLAG_IMMEDIATE, when
 * the message could not leave now (nothing was done). */
#define GASNETE_AD_DECLARE(DT, T)                                                         \
  extern gex_Event_t gex_AD_OpNB_##DT(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank,      \
                                      void *tgt_addr, gex_OP_t opcode, T operand1,        \
                                      T operand2, gex_Flags_t flags);                     \
  extern int gex_AD_OpNBI_##DT(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank,             \
                               void *tgt_addr, gex_OP_t opcode, T operand1, T operand2,   \
                               gex_Flags_t flags);
GASNETE_AD_DECLARE(I32, int32_t)
GASNETE_AD_DECLARE(U32, uint32_t)
GASNETE_AD_DECLARE(I64, int64_t)
GASNETE_AD_DECLARE(U64, uint64_t)
GASNETE_AD_DECLARE(FLT, float)
GASNETE_AD_DECLARE(DBL, double)
#undef GASNETE_AD_DECLARE

#ifdef __cplusplus
}
#endif

#endif /* GASNET_RATOMIC_H */
