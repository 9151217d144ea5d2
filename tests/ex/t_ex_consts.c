/*
 * t_ex_consts.c - a compile-only check (t-ex-consts.sh compiles it as C and
 * as C++, -Wall -Wextra -Werror, after gasnetex.h and with gasnet_fwd.h
 * first): every GEX_FLAG_*, GEX_TI_*, GEX_EP_CAPABILITY_* and
 * GEX_THREAD_ROLE_* constant the v0.19 description names is defined and
 * usable in #if, and GASNET_SUPPORTS_TI_* are 1 or undefined (the
 * description, "GASNET_SUPPORTS_TI_* preprocessor identifiers are defined to
 * 1 or #undef"); the unions the description defines (GEX_TI_ALL,
 * GEX_EP_CAPABILITY_ALL, GEX_FLAG_AM_MEDLONG, GEX_FLAG_AM_REQREP,
 * GEX_FLAG_HINT_ACCEL_ALL) equal their members' OR, the AM category and
 * direction bits are disjoint, and GEX_FLAG_PEER_NEVER_SELF and
 * _PEER_NEVER_NBRHD differ (as Berkeley's testgasnet asks). The same
 * values at run time as in #if (a C static assertion each). A failure is
 * a #error naming the constant. With T_FWD_ONLY, gasnet_fwd.h alone: its
 * GEX_FLAG_*, GEX_TI_* and GEX_EP_CAPABILITY_* the same way (the
 * description: gasnet_fwd.h defines GEX_FLAG_* and GEX_EP_CAPABILITY_*).
 */
#if defined(T_FWD_FIRST) || defined(T_FWD_ONLY)
#include "gasnet_fwd.h"
#endif
#ifndef T_FWD_ONLY
#include "gasnetex.h"
#include "gasnet_mk.h"
#endif

#define T_SAME(x, v) typedef char t_same_##v[(x) == (v) ? 1 : -1];
#ifndef T_FWD_ONLY
#if defined(GASNET_SUPPORTS_TI_ENTRY) && GASNET_SUPPORTS_TI_ENTRY != 1
#error "GASNET_SUPPORTS_TI_ENTRY is neither 1 nor undefined"
#endif
#endif
#ifndef T_FWD_ONLY
#if defined(GASNET_SUPPORTS_TI_EP) && GASNET_SUPPORTS_TI_EP != 1
#error "GASNET_SUPPORTS_TI_EP is neither 1 nor undefined"
#endif
#endif
#ifndef T_FWD_ONLY
#if defined(GASNET_SUPPORTS_TI_IS_LONG) && GASNET_SUPPORTS_TI_IS_LONG != 1
#error "GASNET_SUPPORTS_TI_IS_LONG is neither 1 nor undefined"
#endif
#endif
#ifndef T_FWD_ONLY
#if defined(GASNET_SUPPORTS_TI_IS_REQ) && GASNET_SUPPORTS_TI_IS_REQ != 1
#error "GASNET_SUPPORTS_TI_IS_REQ is neither 1 nor undefined"
#endif
#endif
#ifndef T_FWD_ONLY
#if defined(GASNET_SUPPORTS_TI_SRCRANK) && GASNET_SUPPORTS_TI_SRCRANK != 1
#error "GASNET_SUPPORTS_TI_SRCRANK is neither 1 nor undefined"
#endif
#endif
#if !defined(GEX_EP_CAPABILITY_AM)
#error "GEX_EP_CAPABILITY_AM is not defined"
#elif (GEX_EP_CAPABILITY_AM) == 0
#error "GEX_EP_CAPABILITY_AM is 0 in #if"
#endif
#if !defined(GEX_FLAG_AD_ACQ)
#error "GEX_FLAG_AD_ACQ is not defined"
#elif (GEX_FLAG_AD_ACQ) == 0
#error "GEX_FLAG_AD_ACQ is 0 in #if"
#endif
#if !defined(GEX_FLAG_AD_FAVOR_MY_NBRHD)
#error "GEX_FLAG_AD_FAVOR_MY_NBRHD is not defined"
#elif (GEX_FLAG_AD_FAVOR_MY_NBRHD) == 0
#error "GEX_FLAG_AD_FAVOR_MY_NBRHD is 0 in #if"
#endif
#if !defined(GEX_FLAG_AD_FAVOR_MY_RANK)
#error "GEX_FLAG_AD_FAVOR_MY_RANK is not defined"
#elif (GEX_FLAG_AD_FAVOR_MY_RANK) == 0
#error "GEX_FLAG_AD_FAVOR_MY_RANK is 0 in #if"
#endif
#if !defined(GEX_FLAG_AD_FAVOR_REMOTE)
#error "GEX_FLAG_AD_FAVOR_REMOTE is not defined"
#elif (GEX_FLAG_AD_FAVOR_REMOTE) == 0
#error "GEX_FLAG_AD_FAVOR_REMOTE is 0 in #if"
#endif
#if !defined(GEX_FLAG_AD_MY_NBRHD)
#error "GEX_FLAG_AD_MY_NBRHD is not defined"
#elif (GEX_FLAG_AD_MY_NBRHD) == 0
#error "GEX_FLAG_AD_MY_NBRHD is 0 in #if"
#endif
#if !defined(GEX_FLAG_AD_MY_RANK)
#error "GEX_FLAG_AD_MY_RANK is not defined"
#elif (GEX_FLAG_AD_MY_RANK) == 0
#error "GEX_FLAG_AD_MY_RANK is 0 in #if"
#endif
#if !defined(GEX_FLAG_AD_REL)
#error "GEX_FLAG_AD_REL is not defined"
#elif (GEX_FLAG_AD_REL) == 0
#error "GEX_FLAG_AD_REL is 0 in #if"
#endif
#if !defined(GEX_FLAG_AM_LONG)
#error "GEX_FLAG_AM_LONG is not defined"
#elif (GEX_FLAG_AM_LONG) == 0
#error "GEX_FLAG_AM_LONG is 0 in #if"
#endif
#if !defined(GEX_FLAG_AM_MEDIUM)
#error "GEX_FLAG_AM_MEDIUM is not defined"
#elif (GEX_FLAG_AM_MEDIUM) == 0
#error "GEX_FLAG_AM_MEDIUM is 0 in #if"
#endif
#if !defined(GEX_FLAG_AM_MEDLONG)
#error "GEX_FLAG_AM_MEDLONG is not defined"
#elif (GEX_FLAG_AM_MEDLONG) == 0
#error "GEX_FLAG_AM_MEDLONG is 0 in #if"
#endif
#if !defined(GEX_FLAG_AM_PREPARE_LEAST_ALLOC)
#error "GEX_FLAG_AM_PREPARE_LEAST_ALLOC is not defined"
#elif (GEX_FLAG_AM_PREPARE_LEAST_ALLOC) == 0
#error "GEX_FLAG_AM_PREPARE_LEAST_ALLOC is 0 in #if"
#endif
#if !defined(GEX_FLAG_AM_PREPARE_LEAST_CLIENT)
#error "GEX_FLAG_AM_PREPARE_LEAST_CLIENT is not defined"
#elif (GEX_FLAG_AM_PREPARE_LEAST_CLIENT) == 0
#error "GEX_FLAG_AM_PREPARE_LEAST_CLIENT is 0 in #if"
#endif
#if !defined(GEX_FLAG_AM_REPLY)
#error "GEX_FLAG_AM_REPLY is not defined"
#elif (GEX_FLAG_AM_REPLY) == 0
#error "GEX_FLAG_AM_REPLY is 0 in #if"
#endif
#if !defined(GEX_FLAG_AM_REQREP)
#error "GEX_FLAG_AM_REQREP is not defined"
#elif (GEX_FLAG_AM_REQREP) == 0
#error "GEX_FLAG_AM_REQREP is 0 in #if"
#endif
#if !defined(GEX_FLAG_AM_REQUEST)
#error "GEX_FLAG_AM_REQUEST is not defined"
#elif (GEX_FLAG_AM_REQUEST) == 0
#error "GEX_FLAG_AM_REQUEST is 0 in #if"
#endif
#if !defined(GEX_FLAG_AM_SHORT)
#error "GEX_FLAG_AM_SHORT is not defined"
#elif (GEX_FLAG_AM_SHORT) == 0
#error "GEX_FLAG_AM_SHORT is 0 in #if"
#endif
#if !defined(GEX_FLAG_DEFER_THREADS)
#error "GEX_FLAG_DEFER_THREADS is not defined"
#elif (GEX_FLAG_DEFER_THREADS) == 0
#error "GEX_FLAG_DEFER_THREADS is 0 in #if"
#endif
#if !defined(GEX_FLAG_ENABLE_LEAF_LC)
#error "GEX_FLAG_ENABLE_LEAF_LC is not defined"
#elif (GEX_FLAG_ENABLE_LEAF_LC) == 0
#error "GEX_FLAG_ENABLE_LEAF_LC is 0 in #if"
#endif
#if !defined(GEX_FLAG_GLOBALLY_QUIESCED)
#error "GEX_FLAG_GLOBALLY_QUIESCED is not defined"
#elif (GEX_FLAG_GLOBALLY_QUIESCED) == 0
#error "GEX_FLAG_GLOBALLY_QUIESCED is 0 in #if"
#endif
#if !defined(GEX_FLAG_IMMEDIATE)
#error "GEX_FLAG_IMMEDIATE is not defined"
#elif (GEX_FLAG_IMMEDIATE) == 0
#error "GEX_FLAG_IMMEDIATE is 0 in #if"
#endif
#if !defined(GEX_FLAG_LC_COPY_NO)
#error "GEX_FLAG_LC_COPY_NO is not defined"
#elif (GEX_FLAG_LC_COPY_NO) == 0
#error "GEX_FLAG_LC_COPY_NO is 0 in #if"
#endif
#if !defined(GEX_FLAG_LC_COPY_YES)
#error "GEX_FLAG_LC_COPY_YES is not defined"
#elif (GEX_FLAG_LC_COPY_YES) == 0
#error "GEX_FLAG_LC_COPY_YES is 0 in #if"
#endif
#if !defined(GEX_FLAG_PEER_NEVER_NBRHD)
#error "GEX_FLAG_PEER_NEVER_NBRHD is not defined"
#elif (GEX_FLAG_PEER_NEVER_NBRHD) == 0
#error "GEX_FLAG_PEER_NEVER_NBRHD is 0 in #if"
#endif
#if !defined(GEX_FLAG_PEER_NEVER_SELF)
#error "GEX_FLAG_PEER_NEVER_SELF is not defined"
#elif (GEX_FLAG_PEER_NEVER_SELF) == 0
#error "GEX_FLAG_PEER_NEVER_SELF is 0 in #if"
#endif
#if !defined(GEX_FLAG_PEER_SEG_BOUND)
#error "GEX_FLAG_PEER_SEG_BOUND is not defined"
#elif (GEX_FLAG_PEER_SEG_BOUND) == 0
#error "GEX_FLAG_PEER_SEG_BOUND is 0 in #if"
#endif
#if !defined(GEX_FLAG_PEER_SEG_OFFSET)
#error "GEX_FLAG_PEER_SEG_OFFSET is not defined"
#elif (GEX_FLAG_PEER_SEG_OFFSET) == 0
#error "GEX_FLAG_PEER_SEG_OFFSET is 0 in #if"
#endif
#if !defined(GEX_FLAG_PEER_SEG_SOME)
#error "GEX_FLAG_PEER_SEG_SOME is not defined"
#elif (GEX_FLAG_PEER_SEG_SOME) == 0
#error "GEX_FLAG_PEER_SEG_SOME is 0 in #if"
#endif
#if !defined(GEX_FLAG_PEER_SEG_UNKNOWN)
#error "GEX_FLAG_PEER_SEG_UNKNOWN is not defined"
#elif (GEX_FLAG_PEER_SEG_UNKNOWN) == 0
#error "GEX_FLAG_PEER_SEG_UNKNOWN is 0 in #if"
#endif
#if !defined(GEX_FLAG_RANK_IS_JOBRANK)
#error "GEX_FLAG_RANK_IS_JOBRANK is not defined"
#elif (GEX_FLAG_RANK_IS_JOBRANK) == 0
#error "GEX_FLAG_RANK_IS_JOBRANK is 0 in #if"
#endif
#if !defined(GEX_FLAG_SCRATCH_SEG_OFFSET)
#error "GEX_FLAG_SCRATCH_SEG_OFFSET is not defined"
#elif (GEX_FLAG_SCRATCH_SEG_OFFSET) == 0
#error "GEX_FLAG_SCRATCH_SEG_OFFSET is 0 in #if"
#endif
#if !defined(GEX_FLAG_SELF_SEG_BOUND)
#error "GEX_FLAG_SELF_SEG_BOUND is not defined"
#elif (GEX_FLAG_SELF_SEG_BOUND) == 0
#error "GEX_FLAG_SELF_SEG_BOUND is 0 in #if"
#endif
#if !defined(GEX_FLAG_SELF_SEG_OFFSET)
#error "GEX_FLAG_SELF_SEG_OFFSET is not defined"
#elif (GEX_FLAG_SELF_SEG_OFFSET) == 0
#error "GEX_FLAG_SELF_SEG_OFFSET is 0 in #if"
#endif
#if !defined(GEX_FLAG_SELF_SEG_SOME)
#error "GEX_FLAG_SELF_SEG_SOME is not defined"
#elif (GEX_FLAG_SELF_SEG_SOME) == 0
#error "GEX_FLAG_SELF_SEG_SOME is 0 in #if"
#endif
#if !defined(GEX_FLAG_SELF_SEG_UNKNOWN)
#error "GEX_FLAG_SELF_SEG_UNKNOWN is not defined"
#elif (GEX_FLAG_SELF_SEG_UNKNOWN) == 0
#error "GEX_FLAG_SELF_SEG_UNKNOWN is 0 in #if"
#endif
#if !defined(GEX_FLAG_TM_GLOBAL_SCRATCH)
#error "GEX_FLAG_TM_GLOBAL_SCRATCH is not defined"
#elif (GEX_FLAG_TM_GLOBAL_SCRATCH) == 0
#error "GEX_FLAG_TM_GLOBAL_SCRATCH is 0 in #if"
#endif
#if !defined(GEX_FLAG_TM_LOCAL_SCRATCH)
#error "GEX_FLAG_TM_LOCAL_SCRATCH is not defined"
#elif (GEX_FLAG_TM_LOCAL_SCRATCH) == 0
#error "GEX_FLAG_TM_LOCAL_SCRATCH is 0 in #if"
#endif
#if !defined(GEX_FLAG_TM_NO_SCRATCH)
#error "GEX_FLAG_TM_NO_SCRATCH is not defined"
#elif (GEX_FLAG_TM_NO_SCRATCH) == 0
#error "GEX_FLAG_TM_NO_SCRATCH is 0 in #if"
#endif
#if !defined(GEX_FLAG_TM_SCRATCH_SIZE_MIN)
#error "GEX_FLAG_TM_SCRATCH_SIZE_MIN is not defined"
#elif (GEX_FLAG_TM_SCRATCH_SIZE_MIN) == 0
#error "GEX_FLAG_TM_SCRATCH_SIZE_MIN is 0 in #if"
#endif
#if !defined(GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED)
#error "GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED is not defined"
#elif (GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) == 0
#error "GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED is 0 in #if"
#endif
#if !defined(GEX_FLAG_TM_SYMMETRIC_SCRATCH)
#error "GEX_FLAG_TM_SYMMETRIC_SCRATCH is not defined"
#elif (GEX_FLAG_TM_SYMMETRIC_SCRATCH) == 0
#error "GEX_FLAG_TM_SYMMETRIC_SCRATCH is 0 in #if"
#endif
#if !defined(GEX_FLAG_USES_GASNET1)
#error "GEX_FLAG_USES_GASNET1 is not defined"
#elif (GEX_FLAG_USES_GASNET1) == 0
#error "GEX_FLAG_USES_GASNET1 is 0 in #if"
#endif
#ifndef T_FWD_ONLY
#if !defined(GEX_THREAD_ROLE_RCV)
#error "GEX_THREAD_ROLE_RCV is not defined"
#elif (GEX_THREAD_ROLE_RCV) == 0
#error "GEX_THREAD_ROLE_RCV is 0 in #if"
#endif
#endif
#ifndef T_FWD_ONLY
#if !defined(GEX_THREAD_ROLE_SND)
#error "GEX_THREAD_ROLE_SND is not defined"
#elif (GEX_THREAD_ROLE_SND) == 0
#error "GEX_THREAD_ROLE_SND is 0 in #if"
#endif
#endif
#if !defined(GEX_TI_ALL)
#error "GEX_TI_ALL is not defined"
#elif (GEX_TI_ALL) == 0
#error "GEX_TI_ALL is 0 in #if"
#endif
#if !defined(GEX_TI_ENTRY)
#error "GEX_TI_ENTRY is not defined"
#elif (GEX_TI_ENTRY) == 0
#error "GEX_TI_ENTRY is 0 in #if"
#endif
#if !defined(GEX_TI_EP)
#error "GEX_TI_EP is not defined"
#elif (GEX_TI_EP) == 0
#error "GEX_TI_EP is 0 in #if"
#endif
#if !defined(GEX_TI_IS_LONG)
#error "GEX_TI_IS_LONG is not defined"
#elif (GEX_TI_IS_LONG) == 0
#error "GEX_TI_IS_LONG is 0 in #if"
#endif
#if !defined(GEX_TI_IS_REQ)
#error "GEX_TI_IS_REQ is not defined"
#elif (GEX_TI_IS_REQ) == 0
#error "GEX_TI_IS_REQ is 0 in #if"
#endif
#if !defined(GEX_TI_SRCRANK)
#error "GEX_TI_SRCRANK is not defined"
#elif (GEX_TI_SRCRANK) == 0
#error "GEX_TI_SRCRANK is 0 in #if"
#endif
#if GEX_TI_ALL != (GEX_TI_SRCRANK | GEX_TI_EP | GEX_TI_ENTRY | GEX_TI_IS_REQ | GEX_TI_IS_LONG)
#error "GEX_TI_ALL is not the OR of the GEX_TI_* bits"
#endif
#if GEX_EP_CAPABILITY_ALL != (GEX_EP_CAPABILITY_RMA | GEX_EP_CAPABILITY_AM | \
                              GEX_EP_CAPABILITY_VIS | GEX_EP_CAPABILITY_COLL | GEX_EP_CAPABILITY_AD)
#error "GEX_EP_CAPABILITY_ALL is not the OR of the GEX_EP_CAPABILITY_* bits"
#endif
#if GEX_FLAG_AM_MEDLONG != (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#error "GEX_FLAG_AM_MEDLONG"
#endif
#if GEX_FLAG_AM_REQREP != (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)
#error "GEX_FLAG_AM_REQREP"
#endif
#if GEX_FLAG_HINT_ACCEL_ALL != (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)
#error "GEX_FLAG_HINT_ACCEL_ALL"
#endif
#if (GEX_FLAG_AM_SHORT & GEX_FLAG_AM_MEDLONG) || (GEX_FLAG_AM_MEDIUM & GEX_FLAG_AM_LONG) || \
    ((GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG) & GEX_FLAG_AM_REQREP) || \
    (GEX_FLAG_AM_REQUEST & GEX_FLAG_AM_REPLY)
#error "the GEX_FLAG_AM_* category and direction bits overlap"
#endif
#if GEX_FLAG_PEER_NEVER_SELF == GEX_FLAG_PEER_NEVER_NBRHD
#error "GEX_FLAG_PEER_NEVER_SELF == GEX_FLAG_PEER_NEVER_NBRHD"
#endif
#ifndef T_FWD_ONLY
#if GEX_THREAD_ROLE_RCV == GEX_THREAD_ROLE_SND
#error "GEX_THREAD_ROLE_RCV == GEX_THREAD_ROLE_SND"
#endif
#endif

/* What #if computed is what the compiler computes. */
#if GEX_TI_ALL == 0x1f
T_SAME(GEX_TI_ALL, 0x1f)
#endif
#if GEX_FLAG_IMMEDIATE == 1
T_SAME(GEX_FLAG_IMMEDIATE, 1)
#endif
#if GEX_FLAG_DEFER_THREADS == 2
T_SAME(GEX_FLAG_DEFER_THREADS, 2)
#endif
#if GEX_THREAD_ROLE_SND == 2
T_SAME(GEX_THREAD_ROLE_SND, 2)
#endif

int t_ex_consts(void);
int t_ex_consts(void) {
  gex_Flags_t f = GEX_FLAG_IMMEDIATE | GEX_FLAG_DEFER_THREADS;
  gex_TI_t ti = GEX_TI_ALL;
  gex_EP_Capabilities_t caps = GEX_EP_CAPABILITY_ALL;
  return (int)(f + ti + caps);
}
