/*
 * gasnet_tools.h - the GASNet tools portability interface (tools spec 1.20):
 * configuration macros, compiler annotations, timers, atomics and memory
 * barriers, pthread wrappers, thread keys, environment helpers, system
 * helpers and backtraces. Reference: docs/tools.md.
 *
 * A tools-only client defines exactly one of GASNETT_THREAD_SAFE or
 * GASNETT_THREAD_SINGLE (the gasnet_tools-{par,seq} .pc/.mak flags do) and
 * links libgasnet_tools-par.a or -seq.a. A gasnet.h client gets the tools
 * from its conduit library, in the mode matching GASNET_SEQ/PARSYNC/PAR.
 * This header and gasnet.h may be included in either order.
 *
 * Inline code here is plain C that also compiles as C++17; the library
 * (tools/) names its internal symbols gasnett__*.
 */
#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H

/* ---- threading mode ---------------------------------------------------- */
#if defined(GASNETT_THREAD_SAFE) && defined(GASNETT_THREAD_SINGLE)
#error "gasnet_tools.h: define only one of GASNETT_THREAD_SAFE or GASNETT_THREAD_SINGLE"
#elif !defined(GASNETT_THREAD_SAFE) && !defined(GASNETT_THREAD_SINGLE)
#if defined(GASNET_SEQ)
#define GASNETT_THREAD_SINGLE 1
#elif defined(GASNET_PAR) || defined(GASNET_PARSYNC)
#define GASNETT_THREAD_SAFE 1
#else
#error "gasnet_tools.h: define GASNETT_THREAD_SAFE (threaded client) or GASNETT_THREAD_SINGLE (one thread) before including gasnet_tools.h, or one of GASNET_SEQ/GASNET_PARSYNC/GASNET_PAR for a gasnet.h client"
#endif
#elif defined(GASNETT_THREAD_SAFE) && defined(GASNET_SEQ)
#error "gasnet_tools.h: GASNETT_THREAD_SAFE conflicts with GASNET_SEQ (a SEQ client uses GASNETT_THREAD_SINGLE)"
#elif defined(GASNETT_THREAD_SINGLE) && (defined(GASNET_PAR) || defined(GASNET_PARSYNC))
#error "gasnet_tools.h: GASNETT_THREAD_SINGLE conflicts with GASNET_PAR/GASNET_PARSYNC (they use GASNETT_THREAD_SAFE)"
#endif

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gasnet_tools_config.h"

/* ---- A. configuration, identity and version ---------------------------- */
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 20

#ifndef _STRINGIFY
#define _STRINGIFY_HELPER(x) #x
#define _STRINGIFY(x) _STRINGIFY_HELPER(x)
#endif

#if defined(GASNETT_THREAD_SAFE)
#define GASNETT__THREAD_STRING "SAFE"
#else
#define GASNETT__THREAD_STRING "SINGLE"
#endif
#ifndef GASNETT_CONFIG_STRING
#define GASNETT_CONFIG_STRING                                         \
  "RELEASE=" GASNETT__RELEASE_STRING ",TOOLSSPEC=1.20,THREAD_" \
  GASNETT__THREAD_STRING ",PTR=" _STRINGIFY(__SIZEOF_POINTER__) ",nodebug"
#endif

#ifndef HAVE_PTHREAD_H
#define HAVE_PTHREAD_H 1
#endif
#ifndef HAVE_MMAP
#define HAVE_MMAP 1
#endif

/* Must equal gasnet.h's GASNET_PAGESIZE and stay a plain integer (#if). */
#ifndef GASNETT_PAGESIZE
#define GASNETT_PAGESIZE 4096
#endif
#ifndef GASNETT_PAGESHIFT
#define GASNETT_PAGESHIFT 12
#endif
#ifndef GASNETT_CACHE_LINE_BYTES
#define GASNETT_CACHE_LINE_BYTES 64
#endif
#ifndef GASNETT_MAX_THREADS
#if defined(GASNETT_THREAD_SAFE)
#define GASNETT_MAX_THREADS 256
#else
#define GASNETT_MAX_THREADS 1
#endif
#endif

#if __SIZEOF_POINTER__ == 8
#ifndef PLATFORM_ARCH_64
#define PLATFORM_ARCH_64 1
#endif
#else
#ifndef PLATFORM_ARCH_32
#define PLATFORM_ARCH_32 1
#endif
#endif

#if defined(__clang__)
#ifndef PLATFORM_COMPILER_FAMILYNAME
#define PLATFORM_COMPILER_FAMILYNAME CLANG
#endif
#ifndef PLATFORM_COMPILER_CLANG
#define PLATFORM_COMPILER_CLANG 1
#endif
#elif defined(__GNUC__)
#ifndef PLATFORM_COMPILER_FAMILYNAME
#define PLATFORM_COMPILER_FAMILYNAME GNU
#endif
#ifndef PLATFORM_COMPILER_GNU
#define PLATFORM_COMPILER_GNU 1
#endif
#endif
#ifndef PLATFORM_COMPILER_VERSION_STR
#define PLATFORM_COMPILER_VERSION_STR __VERSION__
#endif

/* ---- B. compiler annotations and syntax helpers ------------------------ */
#ifdef __cplusplus
#define GASNETT_BEGIN_EXTERNC extern "C" {
#define GASNETT_END_EXTERNC }
#define GASNETT_EXTERNC extern "C"
#else
#define GASNETT_BEGIN_EXTERNC
#define GASNETT_END_EXTERNC
#define GASNETT_EXTERNC extern
#endif

/* Attribute first: the declarator may also start a function definition. */
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) \
  __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#define GASNETT_NORETURN __attribute__((__noreturn__))
#define GASNETT_NORETURNP(fnname)
#define GASNETT_INLINE(fnname) static inline
#define GASNETT_MALLOC __attribute__((__malloc__))
#define GASNETT_RESTRICT __restrict__
#define GASNETT_CURRENT_FUNCTION __func__
#define GASNETT_IDENT(identName, identText) \
  static const char identName[] __attribute__((__used__)) = identText

#ifndef if_pf
#define if_pf(cond) if (__builtin_expect(!!(cond), 0))
#endif
#ifndef if_pt
#define if_pt(cond) if (__builtin_expect(!!(cond), 1))
#endif

GASNETT_BEGIN_EXTERNC

/* A tools-only client built for one mode that links the library of the
 * other fails to link, naming gasnett__linkcheck_THREAD_<mode>. (A gasnet.h
 * client is checked by gasnet.h's own mode-named entry points.) */
#if !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#if defined(GASNETT_THREAD_SAFE)
extern const int gasnett__linkcheck_THREAD_SAFE;
static const int *const gasnett__linkcheck __attribute__((__used__)) =
    &gasnett__linkcheck_THREAD_SAFE;
#else
extern const int gasnett__linkcheck_THREAD_SINGLE;
static const int *const gasnett__linkcheck __attribute__((__used__)) =
    &gasnett__linkcheck_THREAD_SINGLE;
#endif
#endif

/* ---- C. tracing and statistics: not collected here; no-op expressions -- */
static inline void gasnett__trace_printf(const char *fmt, ...) { (void)fmt; }
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_STATS_ENABLED 0
#define GASNETT_TRACE_SETSOURCELINE(file, line) ((void)0)
#define GASNETT_TRACE_GETSOURCELINE(pfile, pline) \
  ((void)(*(pfile) = NULL), (void)(*(pline) = 0))
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_PRINTF gasnett__trace_printf
#define GASNETT_TRACE_PRINTF_FORCE gasnett__trace_printf
#define GASNETT_STATS_PRINTF gasnett__trace_printf
#define GASNETT_TRACE_GETMASK() ""
#define GASNETT_TRACE_SETMASK(mask) ((void)(mask))
#define GASNETT_STATS_GETMASK() ""
#define GASNETT_STATS_SETMASK(mask) ((void)(mask))
#define GASNETT_TRACE_GET_TRACELOCAL() 0
#define GASNETT_TRACE_SET_TRACELOCAL(val) ((void)(val))

/* ---- D. timers: ticks are CLOCK_MONOTONIC nanoseconds ------------------- */
typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX ((gasnett_tick_t)UINT64_MAX)

extern gasnett_tick_t gasnett_ticks_now(void);
/* Floor division, so to_us(A) - to_us(B) is within 1 of to_us(A - B). */
static inline uint64_t gasnett_ticks_to_ns(gasnett_tick_t t) { return t; }
static inline uint64_t gasnett_ticks_to_us(gasnett_tick_t t) { return t / 1000; }
extern double gasnett_tick_granularityus(void); /* measured at first call */
extern double gasnett_tick_overheadus(void);    /* measured at first call */
extern uint64_t gasnett_gettimeofday_us(void);  /* wall clock */

/* ---- E. atomics and memory barriers -------------------------------------
 * Fence flags may be OR'ed. PRE fences come before the operation, POST
 * after; _IF_TRUE/_IF_FALSE apply the read fence only when a
 * decrement_and_test or compare_and_swap returns non-zero / zero. Every
 * write-barrier flag is implemented as a release fence (orders earlier loads
 * too), every read-barrier flag as an acquire fence, MB as seq_cst. */
#define GASNETT_ATOMIC_NONE 0x00
#define GASNETT_ATOMIC_RMB_PRE 0x01
#define GASNETT_ATOMIC_WMB_PRE 0x02
#define GASNETT_ATOMIC_RMB_POST 0x04
#define GASNETT_ATOMIC_WMB_POST 0x08
#define GASNETT_ATOMIC_RMB_POST_IF_TRUE 0x10
#define GASNETT_ATOMIC_RMB_POST_IF_FALSE 0x20
#define GASNETT_ATOMIC_MB_PRE (GASNETT_ATOMIC_RMB_PRE | GASNETT_ATOMIC_WMB_PRE)
#define GASNETT_ATOMIC_MB_POST (GASNETT_ATOMIC_RMB_POST | GASNETT_ATOMIC_WMB_POST)
#define GASNETT_ATOMIC_REL GASNETT_ATOMIC_WMB_PRE
#define GASNETT_ATOMIC_ACQ GASNETT_ATOMIC_RMB_POST
#define GASNETT_ATOMIC_ACQ_IF_TRUE GASNETT_ATOMIC_RMB_POST_IF_TRUE
#define GASNETT_ATOMIC_ACQ_IF_FALSE GASNETT_ATOMIC_RMB_POST_IF_FALSE

#define gasnett_compiler_fence() __asm__ __volatile__("" ::: "memory")
#define gasnett_local_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gasnett_local_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define gasnett_local_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
/* The weak barriers order memory only among threads: none in SINGLE. */
#if defined(GASNETT_THREAD_SAFE)
#define gasnett_weak_mb() gasnett_local_mb()
#define gasnett_weak_wmb() gasnett_local_wmb()
#define gasnett_weak_rmb() gasnett_local_rmb()
#else
#define gasnett_weak_mb() ((void)0)
#define gasnett_weak_wmb() ((void)0)
#define gasnett_weak_rmb() ((void)0)
#endif

static inline void gasnett__fence_pre(int flags) {
  if ((flags & GASNETT_ATOMIC_MB_PRE) == GASNETT_ATOMIC_MB_PRE)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  else if (flags & GASNETT_ATOMIC_WMB_PRE)
    __atomic_thread_fence(__ATOMIC_RELEASE);
  else if (flags & GASNETT_ATOMIC_RMB_PRE)
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

static inline void gasnett__fence_post(int flags, int result) {
  if ((flags & GASNETT_ATOMIC_RMB_POST_IF_TRUE) && result) flags |= GASNETT_ATOMIC_RMB_POST;
  if ((flags & GASNETT_ATOMIC_RMB_POST_IF_FALSE) && !result) flags |= GASNETT_ATOMIC_RMB_POST;
  if ((flags & GASNETT_ATOMIC_MB_POST) == GASNETT_ATOMIC_MB_POST)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  else if (flags & GASNETT_ATOMIC_RMB_POST)
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
  else if (flags & GASNETT_ATOMIC_WMB_POST)
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

/* One family of operations on a struct holding one counter of type T.
 * may_alias: clients apply the 64-bit ops to `double` storage. */
#define GASNETT__ATOMIC_TYPE(P, T, ALIGN)                                    \
  typedef struct {                                                          \
    volatile T gasnett__ctr;                                                \
  } __attribute__((__may_alias__, __aligned__(ALIGN))) P##_t;
#define GASNETT__ATOMIC_RMW(P, T, NAME, EXPR)                                \
  static inline T P##_##NAME(P##_t *p, T v, int flags) {                     \
    gasnett__fence_pre(flags);                                               \
    T r = EXPR;                                                              \
    gasnett__fence_post(flags, 1);                                           \
    return r;                                                                \
  }
#define GASNETT__ATOMIC_OPS(P, T)                                                   \
  static inline T P##_read(const P##_t *p, int flags) {                             \
    gasnett__fence_pre(flags);                                                      \
    T v = __atomic_load_n(&p->gasnett__ctr, __ATOMIC_RELAXED);                      \
    gasnett__fence_post(flags, 1);                                                  \
    return v;                                                                       \
  }                                                                                 \
  static inline void P##_set(P##_t *p, T v, int flags) {                            \
    gasnett__fence_pre(flags);                                                      \
    __atomic_store_n(&p->gasnett__ctr, v, __ATOMIC_RELAXED);                        \
    gasnett__fence_post(flags, 1);                                                  \
  }                                                                                 \
  GASNETT__ATOMIC_RMW(P, T, add, __atomic_add_fetch(&p->gasnett__ctr, v, __ATOMIC_RELAXED)) \
  GASNETT__ATOMIC_RMW(P, T, subtract, __atomic_sub_fetch(&p->gasnett__ctr, v, __ATOMIC_RELAXED)) \
  GASNETT__ATOMIC_RMW(P, T, swap, __atomic_exchange_n(&p->gasnett__ctr, v, __ATOMIC_RELAXED)) \
  static inline void P##_increment(P##_t *p, int flags) { (void)P##_add(p, 1, flags); } \
  static inline void P##_decrement(P##_t *p, int flags) { (void)P##_subtract(p, 1, flags); } \
  static inline int P##_decrement_and_test(P##_t *p, int flags) {                   \
    gasnett__fence_pre(flags);                                                      \
    int zero = __atomic_sub_fetch(&p->gasnett__ctr, 1, __ATOMIC_RELAXED) == 0;      \
    gasnett__fence_post(flags, zero);                                               \
    return zero;                                                                    \
  }                                                                                 \
  static inline int P##_compare_and_swap(P##_t *p, T oldval, T newval, int flags) { \
    gasnett__fence_pre(flags);                                                      \
    int ok = __atomic_compare_exchange_n(&p->gasnett__ctr, &oldval, newval, 0,      \
                                         __ATOMIC_RELAXED, __ATOMIC_RELAXED);       \
    gasnett__fence_post(flags, ok);                                                 \
    return ok;                                                                      \
  }

/* gasnett_atomic_t: the unsigned 32-bit counter. Every family is truly
 * atomic in both modes; "strong" names exist because GASNet's weak atomics
 * may be plain variables in THREAD_SINGLE. */
typedef uint32_t gasnett_atomic_val_t;
typedef int32_t gasnett_atomic_sval_t;
#define GASNETT_ATOMIC_MAX ((gasnett_atomic_val_t)UINT32_MAX)
#define GASNETT_ATOMIC_SIGNED_MIN ((gasnett_atomic_sval_t)INT32_MIN)
#define GASNETT_ATOMIC_SIGNED_MAX ((gasnett_atomic_sval_t)INT32_MAX)
#define gasnett_atomic_signed(v) ((gasnett_atomic_sval_t)(v))
#define gasnett_strongatomic_signed(v) ((gasnett_atomic_sval_t)(v))

GASNETT__ATOMIC_TYPE(gasnett_atomic, uint32_t, 4)
GASNETT__ATOMIC_TYPE(gasnett_strongatomic, uint32_t, 4)
GASNETT__ATOMIC_TYPE(gasnett_atomic32, uint32_t, 4)
GASNETT__ATOMIC_TYPE(gasnett_strongatomic32, uint32_t, 4)
GASNETT__ATOMIC_TYPE(gasnett_atomic64, uint64_t, 8)
GASNETT__ATOMIC_TYPE(gasnett_strongatomic64, uint64_t, 8)
GASNETT__ATOMIC_OPS(gasnett_atomic, uint32_t)
GASNETT__ATOMIC_OPS(gasnett_strongatomic, uint32_t)
GASNETT__ATOMIC_OPS(gasnett_atomic32, uint32_t)
GASNETT__ATOMIC_OPS(gasnett_strongatomic32, uint32_t)
GASNETT__ATOMIC_OPS(gasnett_atomic64, uint64_t)
GASNETT__ATOMIC_OPS(gasnett_strongatomic64, uint64_t)

/* Static initializers; the cast keeps C++ brace-init free of narrowing. */
#define gasnett_atomic_init(v) { (uint32_t)(v) }
#define gasnett_strongatomic_init(v) { (uint32_t)(v) }
#define gasnett_atomic32_init(v) { (uint32_t)(v) }
#define gasnett_strongatomic32_init(v) { (uint32_t)(v) }
#define gasnett_atomic64_init(v) { (uint64_t)(v) }
#define gasnett_strongatomic64_init(v) { (uint64_t)(v) }

#define GASNETT_HAVE_ATOMIC_CAS 1
#define GASNETT_HAVE_ATOMIC_ADD_SUB 1
#define GASNETT_HAVE_STRONGATOMIC_CAS 1
#define GASNETT_HAVE_STRONGATOMIC_ADD_SUB 1

/* ---- F. mutex, condition variable, rwlock: pthreads in both modes ------- */
typedef pthread_mutex_t gasnett_mutex_t;
#define GASNETT_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
static inline int gasnett_mutex_init(gasnett_mutex_t *m) { return pthread_mutex_init(m, NULL); }
static inline int gasnett_mutex_destroy(gasnett_mutex_t *m) { return pthread_mutex_destroy(m); }
static inline int gasnett_mutex_lock(gasnett_mutex_t *m) { return pthread_mutex_lock(m); }
/* 0 when the lock was taken, EBUSY when another holder has it. */
static inline int gasnett_mutex_trylock(gasnett_mutex_t *m) { return pthread_mutex_trylock(m); }
static inline int gasnett_mutex_unlock(gasnett_mutex_t *m) { return pthread_mutex_unlock(m); }

typedef pthread_cond_t gasnett_cond_t;
#define GASNETT_COND_INITIALIZER PTHREAD_COND_INITIALIZER
static inline int gasnett_cond_init(gasnett_cond_t *c) { return pthread_cond_init(c, NULL); }
static inline int gasnett_cond_destroy(gasnett_cond_t *c) { return pthread_cond_destroy(c); }
static inline int gasnett_cond_signal(gasnett_cond_t *c) { return pthread_cond_signal(c); }
static inline int gasnett_cond_broadcast(gasnett_cond_t *c) { return pthread_cond_broadcast(c); }
static inline int gasnett_cond_wait(gasnett_cond_t *c, gasnett_mutex_t *m) {
  return pthread_cond_wait(c, m);
}

#if defined(PTHREAD_RWLOCK_INITIALIZER)
typedef pthread_rwlock_t gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER PTHREAD_RWLOCK_INITIALIZER
static inline int gasnett_rwlock_init(gasnett_rwlock_t *l) { return pthread_rwlock_init(l, NULL); }
static inline int gasnett_rwlock_destroy(gasnett_rwlock_t *l) { return pthread_rwlock_destroy(l); }
static inline int gasnett_rwlock_rdlock(gasnett_rwlock_t *l) { return pthread_rwlock_rdlock(l); }
static inline int gasnett_rwlock_wrlock(gasnett_rwlock_t *l) { return pthread_rwlock_wrlock(l); }
static inline int gasnett_rwlock_tryrdlock(gasnett_rwlock_t *l) { return pthread_rwlock_tryrdlock(l); }
static inline int gasnett_rwlock_trywrlock(gasnett_rwlock_t *l) { return pthread_rwlock_trywrlock(l); }
static inline int gasnett_rwlock_unlock(gasnett_rwlock_t *l) { return pthread_rwlock_unlock(l); }
#else
/* A client compiled in strict ISO mode (-std=c99, no _POSIX_C_SOURCE >=
 * 200112L before the first system header) has no pthread rwlocks: a mutex
 * is a correct (if less concurrent) readers-writer lock. */
typedef pthread_mutex_t gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER PTHREAD_MUTEX_INITIALIZER
static inline int gasnett_rwlock_init(gasnett_rwlock_t *l) { return pthread_mutex_init(l, NULL); }
static inline int gasnett_rwlock_destroy(gasnett_rwlock_t *l) { return pthread_mutex_destroy(l); }
static inline int gasnett_rwlock_rdlock(gasnett_rwlock_t *l) { return pthread_mutex_lock(l); }
static inline int gasnett_rwlock_wrlock(gasnett_rwlock_t *l) { return pthread_mutex_lock(l); }
static inline int gasnett_rwlock_tryrdlock(gasnett_rwlock_t *l) { return pthread_mutex_trylock(l); }
static inline int gasnett_rwlock_trywrlock(gasnett_rwlock_t *l) { return pthread_mutex_trylock(l); }
static inline int gasnett_rwlock_unlock(gasnett_rwlock_t *l) { return pthread_mutex_unlock(l); }
#endif

/* ---- G. thread-local keys: a __thread void* per key, NULL at start ------ */
#define GASNETT_THREADKEY_DECLARE(key) extern __thread void *gasnett__tk_##key
#define GASNETT_THREADKEY_DEFINE(key) __thread void *gasnett__tk_##key = NULL
#define gasnett_threadkey_init(key) ((void)0)
#define gasnett_threadkey_get(key) ((void *)gasnett__tk_##key)
#define gasnett_threadkey_set(key, val) ((void)(gasnett__tk_##key = (void *)(val)))
#define gasnett_threadkey_get_noinit(key) gasnett_threadkey_get(key)
#define gasnett_threadkey_set_noinit(key, val) gasnett_threadkey_set(key, val)

/* ---- H. environment ------------------------------------------------------
 * Readers see the job's environment once the core has started (before, and
 * in tools-only programs, this process's). Malformed values are fatal
 * errors naming the variable. With GASNET_VERBOSEENV=yes every
 * *_withdefault reader reports its variable once on stderr. */
extern char *gasnett_getenv(const char *name);
extern int gasnett_setenv(const char *name, const char *value);
extern int gasnett_unsetenv(const char *name);
extern const char *gasnett_getenv_withdefault(const char *name, const char *dflt);
extern int gasnett_getenv_yesno_withdefault(const char *name, int dflt);
/* memmul != 0: a size; a suffix B/K/KB/M/MB/G/GB/T/TB (any case) scales it
 * by powers of 1024, no suffix means units of memmul. */
extern int64_t gasnett_getenv_int_withdefault(const char *name, int64_t dflt, uint64_t memmul);
extern double gasnett_getenv_dbl_withdefault(const char *name, double dflt);
extern int gasnett_verboseenv(void);
extern int64_t gasnett_parse_int(const char *str, uint64_t memmul);
/* Inverse of gasnett_parse_int (ismem: with the largest exact suffix). */
extern char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int ismem);

/* ---- I. system helpers ---------------------------------------------------- */
typedef void (*gasnett_sighandlerfn_t)(int);
extern int gasnett_sched_yield(void);
extern void gasnett_nsleep(uint64_t ns);
GASNETT_NORETURN extern void gasnett_killmyprocess(int exitcode);
extern int gasnett_cpu_count(void);
extern uint64_t gasnett_getPhysMemSz(int failureIsFatal);
extern int gasnett_maximize_rlimits(void);
#define GASNETT_SET_AFFINITY_SUPPORT 1
extern void gasnett_set_affinity(int rank);
extern const char *gasnett_gethostname(void);
extern const char *gasnett_performance_warning_str(void);
extern const char *gasnett_release_version_str(void);
extern gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fn);
GASNETT_NORETURN GASNETT_FORMAT_PRINTF(gasnett_fatalerror, 1, 2,
    extern void gasnett_fatalerror(const char *msg, ...));
extern void gasnett_flush_streams(void);
extern void *gasnett_mmap(uintptr_t size); /* anonymous; fatal error on failure */
static inline int gasnett_isLittleEndian(void) {
  return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
}

/* 64-bit FNV-1a of the bytes: the same value on every node. */
extern uint64_t gasnett_checksum(const void *p, size_t numbytes);
extern size_t gasnett_count0s(const void *src, size_t bytes);
extern size_t gasnett_count0s_copy(void *dst, const void *src, size_t bytes);
static inline int gasnett_count0s_uint64_t(uint64_t x) {
  int zeros = 0;
  for (int i = 0; i < 8; i++, x >>= 8) zeros += (x & 0xff) == 0;
  return zeros;
}
static inline int gasnett_count0s_uint32_t(uint32_t x) {
  return gasnett_count0s_uint64_t(x) - 4; /* the 4 high bytes are zero */
}
static inline int gasnett_count0s_uintptr_t(uintptr_t x) {
  return sizeof(uintptr_t) == 8 ? gasnett_count0s_uint64_t(x)
                                : gasnett_count0s_uint32_t((uint32_t)x);
}

/* Text forms for traces and error messages; buffers of _bufsz(count). */
typedef struct {
  void *addr;
  size_t len;
} gasnett_memvec_t;
extern size_t gasnett_format_addrlist_bufsz(size_t count);
extern char *gasnett_format_addrlist(char *buf, size_t count, void *const *list, size_t len);
extern size_t gasnett_format_memveclist_bufsz(size_t count);
/* list: count {void *addr; size_t len} pairs (gasnett_memvec_t, gasnet_memvec_t) */
extern char *gasnett_format_memveclist(char *buf, size_t count, const void *list);
extern size_t gasnett_format_putsgets_bufsz(size_t stridelevels);
extern char *gasnett_format_putsgets(char *buf, void *dstaddr, const size_t dststrides[],
                                     void *srcaddr, const size_t srcstrides[],
                                     const size_t count[], size_t stridelevels);

/* Self-test of the tools (docs/tools.md): 0, or the number of failures.
 * testsections: letters of the sections to run, NULL or "" for all;
 * seginfo is accepted for GASNet compatibility and not used. */
extern int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections,
                                   const void *seginfo);

/* ---- J. backtrace --------------------------------------------------------
 * A client may define gasnett_backtrace_user (the library's is weak); its
 * fnp is then one of the mechanisms GASNET_BACKTRACE_TYPE can list, under
 * the name USER or its own name. */
typedef struct {
  const char *name;
  int (*fnp)(int fd);
  int threadsupport;
} gasnett_backtrace_type_t;
extern gasnett_backtrace_type_t gasnett_backtrace_user;
extern void gasnett_backtrace_init(const char *exename);
extern int gasnett_print_backtrace(int fd);
/* Cleared from a debugger to let a frozen process go on. */
extern volatile int gasnett_frozen;

GASNETT_END_EXTERNC
#endif /* GASNET_TOOLS_H */

/* ---- with gasnet.h: the names that need its types. Outside the include
 * guard, so that gasnet.h including this header at its end (or a client
 * including it again after gasnet.h) adds them. */
#if defined(GASNET_H) && !defined(GASNETT__WITH_GASNET_H)
#define GASNETT__WITH_GASNET_H
GASNETT_BEGIN_EXTERNC
/* The diagnostics are local self-tests: they register no AM handlers. */
static inline void gasnett_diagnostic_gethandlers(gasnet_handlerentry_t **htable,
                                                  int *htable_cnt) {
  *htable = NULL;
  *htable_cnt = 0;
}
GASNETT_END_EXTERNC
#endif
