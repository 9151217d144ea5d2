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

/* ---- threading mode ------------------------------------------------------
 * GASNETT_LITE_MODE (tools spec, "lite" clients such as AMX): the
 * threading-neutral, header-only subset (configuration, annotations,
 * platform names, timers, atomics and fences, locks, thread keys); no mode
 * is needed and nothing is linked. Library functions are not declared. */
#if defined(GASNETT_THREAD_SAFE) && defined(GASNETT_THREAD_SINGLE)
#error "gasnet_tools.h: define only one of GASNETT_THREAD_SAFE or GASNETT_THREAD_SINGLE"
#elif !defined(GASNETT_THREAD_SAFE) && !defined(GASNETT_THREAD_SINGLE)
#if defined(GASNET_SEQ)
#define GASNETT_THREAD_SINGLE 1
#elif defined(GASNET_PAR) || defined(GASNET_PARSYNC)
#define GASNETT_THREAD_SAFE 1
#elif !defined(GASNETT_LITE_MODE)
#error "gasnet_tools.h: define GASNETT_THREAD_SAFE (threaded client) or GASNETT_THREAD_SINGLE (one thread) before including gasnet_tools.h, or one of GASNET_SEQ/GASNET_PARSYNC/GASNET_PAR for a gasnet.h client, or GASNETT_LITE_MODE for the header-only subset"
#endif
#elif defined(GASNETT_THREAD_SAFE) && defined(GASNET_SEQ)
#error "gasnet_tools.h: GASNETT_THREAD_SAFE conflicts with GASNET_SEQ (a SEQ client uses GASNETT_THREAD_SINGLE)"
#elif defined(GASNETT_THREAD_SINGLE) && (defined(GASNET_PAR) || defined(GASNET_PARSYNC))
#error "gasnet_tools.h: GASNETT_THREAD_SINGLE conflicts with GASNET_PAR/GASNET_PARSYNC (they use GASNETT_THREAD_SAFE)"
#endif
/* A client built with gasnet.h never gets the lite subset. */
#if defined(GASNETT_LITE_MODE) && (defined(GASNET_SEQ) || defined(GASNET_PAR) || defined(GASNET_PARSYNC))
#undef GASNETT_LITE_MODE
#endif

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gasnet_config.h"
#include "gasnet_tools_config.h"
#include "gasnet_portable_platform.h"

/* ---- A. configuration, identity and version ---------------------------- */
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 20

#ifndef _STRINGIFY
#define _STRINGIFY_HELPER(x) #x
#define _STRINGIFY(x) _STRINGIFY_HELPER(x)
#endif

#if defined(GASNETT_THREAD_SAFE)
#define GASNETT__THREAD_STRING "THREAD_SAFE"
#elif defined(GASNETT_THREAD_SINGLE)
#define GASNETT__THREAD_STRING "THREAD_SINGLE"
#else
#define GASNETT__THREAD_STRING "LITE"
#endif
#ifndef GASNETT_CONFIG_STRING
#define GASNETT_CONFIG_STRING                                         \
  "RELEASE=" GASNETT__RELEASE_STRING ",TOOLSSPEC=1.20," \
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
#elif defined(GASNETT_THREAD_SINGLE)
#define GASNETT_MAX_THREADS 1
#endif
#endif

/* printf/scanf conversions for size_t (SZ) and ptrdiff_t (PD), as
 * <inttypes.h> gives them for the fixed-width types:
 *   printf("%" PRIuSZ " bytes\n", n); */
#ifndef PRIdSZ
#define PRIdSZ "zd"
#define PRIiSZ "zi"
#define PRIoSZ "zo"
#define PRIuSZ "zu"
#define PRIxSZ "zx"
#define PRIXSZ "zX"
#define SCNdSZ "zd"
#define SCNiSZ "zi"
#define SCNoSZ "zo"
#define SCNuSZ "zu"
#define SCNxSZ "zx"
#endif
#ifndef PRIdPD
#define PRIdPD "td"
#define PRIiPD "ti"
#define PRIoPD "to"
#define PRIuPD "tu"
#define PRIxPD "tx"
#define PRIXPD "tX"
#define SCNdPD "td"
#define SCNiPD "ti"
#define SCNoPD "to"
#define SCNuPD "tu"
#define SCNxPD "tx"
#endif

/* ---- B. compiler annotations and syntax helpers -------------------------
 * Each annotation follows its GASNETT_USE_* feature-control macro (tools
 * spec, "Feature control"): a client may define it 0 or 1 before including
 * this header; by default it is 1 for a GNU-compatible compiler, and 0 with
 * GASNETT_COMPILER_FORCE_MISMATCH (a compiler the build did not probe). */
#if defined(__GNUC__) && !defined(GASNETT_COMPILER_FORCE_MISMATCH)
#define GASNETT__GNU 1
#else
#define GASNETT__GNU 0
#endif
#ifdef __has_attribute
#define GASNETT__HAS_ATTR(a) __has_attribute(a)
#else
#define GASNETT__HAS_ATTR(a) 0
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE
#define GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_NOINLINE
#define GASNETT_USE_GCC_ATTRIBUTE_NOINLINE GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_MALLOC
#define GASNETT_USE_GCC_ATTRIBUTE_MALLOC GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT
#define GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_USED
#define GASNETT_USE_GCC_ATTRIBUTE_USED GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_MAYALIAS
#define GASNETT_USE_GCC_ATTRIBUTE_MAYALIAS GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_NORETURN
#define GASNETT_USE_GCC_ATTRIBUTE_NORETURN GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_PURE
#define GASNETT_USE_GCC_ATTRIBUTE_PURE GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_CONST
#define GASNETT_USE_GCC_ATTRIBUTE_CONST GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED
#define GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT
#define GASNETT_USE_GCC_ATTRIBUTE_FORMAT GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR
#define GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR GASNETT__GNU
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR_ARG
#define GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR_ARG GASNETT__GNU
#endif
#ifndef GASNETT_USE_BUILTIN_CONSTANT_P
#define GASNETT_USE_BUILTIN_CONSTANT_P GASNETT__GNU
#endif
#ifndef GASNETT_USE_BUILTIN_PREFETCH
#define GASNETT_USE_BUILTIN_PREFETCH GASNETT__GNU
#endif
#ifndef GASNETT_USE_BUILTIN_EXPECT
#define GASNETT_USE_BUILTIN_EXPECT GASNETT__GNU
#endif
#ifndef GASNETT_USE_BUILTIN_UNREACHABLE
#define GASNETT_USE_BUILTIN_UNREACHABLE GASNETT__GNU
#endif
#ifndef GASNETT_USE_BUILTIN_ASSUME
#if defined(__clang__) && !defined(GASNETT_COMPILER_FORCE_MISMATCH)
#define GASNETT_USE_BUILTIN_ASSUME 1
#else
#define GASNETT_USE_BUILTIN_ASSUME 0
#endif
#endif
#ifndef GASNETT_USE_RESTRICT
#if GASNETT__GNU
#define GASNETT_USE_RESTRICT __restrict__
#else
#define GASNETT_USE_RESTRICT
#endif
#endif

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
#if GASNETT_USE_GCC_ATTRIBUTE_FORMAT
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) \
  __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#else
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) declarator
#endif
/* For a pointer to a printf-like function: the attribute follows it. */
#if GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR
#define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) \
  declarator __attribute__((__format__(__printf__, fmtarg, firstvararg)))
#else
#define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) declarator
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_NORETURN
#define GASNETT_NORETURN __attribute__((__noreturn__))
#else
#define GASNETT_NORETURN
#endif
#define GASNETT_NORETURNP(fnname)
/* The forms with P(fnname) are for compilers that annotate by pragma. */
#if GASNETT_USE_GCC_ATTRIBUTE_MALLOC
#define GASNETT_MALLOC __attribute__((__malloc__))
#else
#define GASNETT_MALLOC
#endif
#define GASNETT_MALLOCP(fnname)
#if GASNETT_USE_GCC_ATTRIBUTE_PURE
#define GASNETT_PURE __attribute__((__pure__))
#else
#define GASNETT_PURE
#endif
#define GASNETT_PUREP(fnname)
#if GASNETT_USE_GCC_ATTRIBUTE_CONST
#define GASNETT_CONST __attribute__((__const__))
#else
#define GASNETT_CONST
#endif
#define GASNETT_CONSTP(fnname)
#if GASNETT__GNU && GASNETT__HAS_ATTR(__hot__)
#define GASNETT_HOT __attribute__((__hot__))
#define GASNETT_COLD __attribute__((__cold__))
#else
#define GASNETT_HOT
#define GASNETT_COLD
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED
#define GASNETT_DEPRECATED __attribute__((__deprecated__))
#else
#define GASNETT_DEPRECATED
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT
#define GASNETT_WARN_UNUSED_RESULT __attribute__((__warn_unused_result__))
#else
#define GASNETT_WARN_UNUSED_RESULT
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_USED
#define GASNETT_USED __attribute__((__used__))
#else
#define GASNETT_USED
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_MAYALIAS
#define GASNETT__MAY_ALIAS __attribute__((__may_alias__))
#else
#define GASNETT__MAY_ALIAS
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE
#define GASNETT_INLINE(fnname) static inline __attribute__((__always_inline__))
#else
#define GASNETT_INLINE(fnname) static inline
#endif
/* Attribute first, as GASNETT_FORMAT_PRINTF: `definition` may have a body. */
#if GASNETT_USE_GCC_ATTRIBUTE_NOINLINE
#define GASNETT_NEVER_INLINE(fnname, definition) __attribute__((__noinline__)) definition
#else
#define GASNETT_NEVER_INLINE(fnname, definition) definition
#endif
#define GASNETT_RESTRICT GASNETT_USE_RESTRICT
#define GASNETT_CURRENT_FUNCTION __func__
#define GASNETT_IDENT(identName, identText) \
  static const char identName[] GASNETT_USED = identText

#if GASNETT_USE_BUILTIN_EXPECT
#define GASNETT_PREDICT_TRUE(expr) (__builtin_expect(!!(expr), 1))
#define GASNETT_PREDICT_FALSE(expr) (__builtin_expect(!!(expr), 0))
#else
#define GASNETT_PREDICT_TRUE(expr) (!!(expr))
#define GASNETT_PREDICT_FALSE(expr) (!!(expr))
#endif
#ifndef if_pf
#define if_pf(cond) if (GASNETT_PREDICT_FALSE(cond))
#endif
#ifndef if_pt
#define if_pt(cond) if (GASNETT_PREDICT_TRUE(cond))
#endif
#if GASNETT_USE_BUILTIN_CONSTANT_P
#define gasnett_constant_p(expr) __builtin_constant_p(expr)
#else
#define gasnett_constant_p(expr) 0
#endif
/* Reaching it is undefined behaviour with the builtin; abort() without. */
#if GASNETT_USE_BUILTIN_UNREACHABLE
#define gasnett_unreachable() __builtin_unreachable()
#else
#define gasnett_unreachable() abort()
#endif
/* No debug builds here: cond is an optimisation hint, never checked. */
#if GASNETT_USE_BUILTIN_ASSUME
#define gasnett_assume(cond) __builtin_assume(cond)
#elif GASNETT_USE_BUILTIN_UNREACHABLE
#define gasnett_assume(cond) ((cond) ? (void)0 : __builtin_unreachable())
#else
#define gasnett_assume(cond) ((void)0)
#endif

/* A deliberate fall-through between cases; used without a semicolon. */
#if defined(__cplusplus) && __cplusplus >= 201703L && \
    (!defined(GASNETT_USE_CXX11_ATTRIBUTE_FALLTHROUGH) || GASNETT_USE_CXX11_ATTRIBUTE_FALLTHROUGH)
#define GASNETT_FALLTHROUGH [[fallthrough]];
#elif defined(__cplusplus) && defined(__clang__) && \
    (!defined(GASNETT_USE_CXX11_ATTRIBUTE_CLANG__FALLTHROUGH) || GASNETT_USE_CXX11_ATTRIBUTE_CLANG__FALLTHROUGH)
#define GASNETT_FALLTHROUGH [[clang::fallthrough]];
#elif !defined(__cplusplus) && GASNETT__GNU && GASNETT__HAS_ATTR(__fallthrough__)
#define GASNETT_FALLTHROUGH __attribute__((__fallthrough__));
#else
#define GASNETT_FALLTHROUGH
#endif

/* Each argument evaluated exactly once, its value dropped, no warning. */
#define GASNETT_UNUSED_ARGS1(a1) ((void)(a1))
#define GASNETT_UNUSED_ARGS2(a1, a2) ((void)(a1), (void)(a2))
#define GASNETT_UNUSED_ARGS3(a1, a2, a3) ((void)(a1), GASNETT_UNUSED_ARGS2(a2, a3))
#define GASNETT_UNUSED_ARGS4(a1, a2, a3, a4) ((void)(a1), GASNETT_UNUSED_ARGS3(a2, a3, a4))
#define GASNETT_UNUSED_ARGS5(a1, a2, a3, a4, a5) \
  ((void)(a1), GASNETT_UNUSED_ARGS4(a2, a3, a4, a5))
#define GASNETT_UNUSED_ARGS6(a1, a2, a3, a4, a5, a6) \
  ((void)(a1), GASNETT_UNUSED_ARGS5(a2, a3, a4, a5, a6))
#define GASNETT_UNUSED_ARGS7(a1, a2, a3, a4, a5, a6, a7) \
  ((void)(a1), GASNETT_UNUSED_ARGS6(a2, a3, a4, a5, a6, a7))
#define GASNETT_UNUSED_ARGS8(a1, a2, a3, a4, a5, a6, a7, a8) \
  ((void)(a1), GASNETT_UNUSED_ARGS7(a2, a3, a4, a5, a6, a7, a8))

GASNETT_BEGIN_EXTERNC

/* A tools-only client built for one mode that links the library of the
 * other fails to link, naming gasnett__linkcheck_THREAD_<mode>. (A gasnet.h
 * client is checked by gasnet.h's own mode-named entry points; a lite one
 * links nothing.) */
#if !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#if defined(GASNETT_THREAD_SAFE) && !defined(GASNETT_LITE_MODE)
extern const int gasnett__linkcheck_THREAD_SAFE;
static const int *const gasnett__linkcheck GASNETT_USED = &gasnett__linkcheck_THREAD_SAFE;
#elif defined(GASNETT_THREAD_SINGLE) && !defined(GASNETT_LITE_MODE)
extern const int gasnett__linkcheck_THREAD_SINGLE;
static const int *const gasnett__linkcheck GASNETT_USED = &gasnett__linkcheck_THREAD_SINGLE;
#endif
#endif

/* ---- C. tracing and statistics -------------------------------------------
 * With gasnet.h / gasnetex.h included first (a conduit client), they write
 * into GASNET_TRACEFILE and GASNET_STATSFILE under the masks (core/
 * gasnetc_trace.c; docs/api.md), switched at run time: a disabled one
 * costs a test of one word and evaluates no argument. Otherwise (a tools
 * client), as the spec says of a build without tracing, they compile to
 * nothing (arguments still evaluated once, so side effects happen) or to
 * constants saying "not enabled". Each is an expression, usable as a
 * statement. The printf forms check their format. No source lines are
 * kept (GASNET_SRCLINES is not defined). */
#if defined(GASNETT__CONDUIT_TRACE) && !defined(GASNETT_LITE_MODE)
#define GASNETT__TRACING(mask, c) \
  ((__atomic_load_n(&(mask), __ATOMIC_RELAXED) & GASNETC_TRACE_BIT(c)) != 0)
#define GASNETT_TRACE_ENABLED GASNETT__TRACING(gasnetc_trace_mask, 'H')
#define GASNETT_STATS_ENABLED GASNETT__TRACING(gasnetc_stats_mask, 'H')
#define GASNETT_TRACE_PRINTF(...) \
  (GASNETT_TRACE_ENABLED ? gasnetc_trace_printf('H', __VA_ARGS__) : (void)0)
#define GASNETT_TRACE_PRINTF_FORCE(...) \
  (GASNETT__TRACING(gasnetc_trace_mask, 'U') ? gasnetc_trace_printf('U', __VA_ARGS__) : (void)0)
#define GASNETT_STATS_PRINTF(...) \
  (GASNETT_STATS_ENABLED ? gasnetc_stats_printf('H', __VA_ARGS__) : (void)0)
#define GASNETT_STATS_PRINTF_FORCE(...) \
  (GASNETT__TRACING(gasnetc_stats_mask, 'U') ? gasnetc_stats_printf('U', __VA_ARGS__) : (void)0)
#define GASNETT_STATS_DUMP(reset) gasnetc_stats_dump(reset)
#define GASNETT_TRACE_GETMASK() gasnetc_trace_getmask(0)
#define GASNETT_TRACE_SETMASK(mask) gasnetc_trace_setmask(0, (mask))
#define GASNETT_STATS_GETMASK() gasnetc_trace_getmask(1)
#define GASNETT_STATS_SETMASK(mask) gasnetc_trace_setmask(1, (mask))
#define GASNETT_TRACE_GET_TRACELOCAL() gasnetc_trace_getlocal()
#define GASNETT_TRACE_SET_TRACELOCAL(val) gasnetc_trace_setlocal(val)
#else
GASNETT_FORMAT_PRINTF(gasnett__trace_printf, 1, 2,
static inline void gasnett__trace_printf(const char *fmt, ...)) { (void)fmt; }
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_STATS_ENABLED 0
#define GASNETT_TRACE_PRINTF gasnett__trace_printf
#define GASNETT_TRACE_PRINTF_FORCE gasnett__trace_printf
#define GASNETT_STATS_PRINTF gasnett__trace_printf
#define GASNETT_STATS_PRINTF_FORCE gasnett__trace_printf
#define GASNETT_STATS_DUMP(reset) ((void)(reset))
#define GASNETT_TRACE_GETMASK() ""
#define GASNETT_TRACE_SETMASK(mask) ((void)(mask))
#define GASNETT_STATS_GETMASK() ""
#define GASNETT_STATS_SETMASK(mask) ((void)(mask))
#define GASNETT_TRACE_GET_TRACELOCAL() 0
#define GASNETT_TRACE_SET_TRACELOCAL(val) ((void)(val))
#endif
#define GASNETT_TRACE_SETSOURCELINE(file, line) GASNETT_UNUSED_ARGS2(file, line)
#define GASNETT_TRACE_GETSOURCELINE(pfile, pline) \
  ((void)(*(pfile) = NULL), (void)(*(pline) = 0))
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)

/* ---- D. timers: ticks are CLOCK_MONOTONIC nanoseconds ------------------- */
typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX ((gasnett_tick_t)UINT64_MAX)

#if defined(GASNETT_LITE_MODE)
/* Lite clients link nothing: the same clock, read here. */
static inline gasnett_tick_t gasnett_ticks_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (gasnett_tick_t)ts.tv_sec * 1000000000u + (gasnett_tick_t)ts.tv_nsec;
}
#else
extern gasnett_tick_t gasnett_ticks_now(void);
#endif
/* Floor division, so to_us(A) - to_us(B) is within 1 of to_us(A - B). */
static inline uint64_t gasnett_ticks_to_ns(gasnett_tick_t t) { return t; }
static inline uint64_t gasnett_ticks_to_us(gasnett_tick_t t) { return t / 1000; }
#if !defined(GASNETT_LITE_MODE)
extern double gasnett_tick_granularityus(void); /* measured at first call */
extern double gasnett_tick_overheadus(void);    /* measured at first call */
extern uint64_t gasnett_gettimeofday_us(void);  /* wall clock */
#endif

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
/* The weak barriers may compile away only in a build without threads.
 * None is: a THREAD_SINGLE client (or a SEQ GASNet client) may still start
 * threads of its own that share memory, and libc always lets it, so they
 * are the local barriers in every mode (on x86-64 the weak wmb/rmb cost
 * nothing at run time: they only stop the compiler reordering). */
#define gasnett_weak_mb() gasnett_local_mb()
#define gasnett_weak_wmb() gasnett_local_wmb()
#define gasnett_weak_rmb() gasnett_local_rmb()

/* In spin loops: the CPU's pause/yield hint, and a compiler fence. */
#if defined(__x86_64__) || defined(__i386__)
#define gasnett_spinloop_hint() __asm__ __volatile__("pause" ::: "memory")
#elif defined(__aarch64__) || defined(__arm__)
#define gasnett_spinloop_hint() __asm__ __volatile__("yield" ::: "memory")
#else
#define gasnett_spinloop_hint() gasnett_compiler_fence()
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
  } GASNETT__MAY_ALIAS __attribute__((__aligned__(ALIGN))) P##_t;
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
/* Lock-free (hence signal-safe) wherever the compiler says so; where it
 * would take a lock in libatomic, the spec's flag says it. */
#if defined(__GCC_ATOMIC_INT_LOCK_FREE) && __GCC_ATOMIC_INT_LOCK_FREE != 2
#define GASNETT_STRONGATOMIC_NOT_SIGNALSAFE 1
#define GASNETT_STRONGATOMIC32_NOT_SIGNALSAFE 1
#endif
#if defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && __GCC_ATOMIC_LLONG_LOCK_FREE != 2
#define GASNETT_STRONGATOMIC64_NOT_SIGNALSAFE 1
#endif

/* ---- F. mutex, condition variable, rwlock: pthreads in both modes ------- */
typedef pthread_mutex_t gasnett_mutex_t;
#define GASNETT_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
static inline int gasnett_mutex_init(gasnett_mutex_t *m) { return pthread_mutex_init(m, NULL); }
static inline int gasnett_mutex_destroy(gasnett_mutex_t *m) { return pthread_mutex_destroy(m); }
static inline int gasnett_mutex_lock(gasnett_mutex_t *m) { return pthread_mutex_lock(m); }
/* 0 when the lock was taken, EBUSY when another holder has it. */
static inline int gasnett_mutex_trylock(gasnett_mutex_t *m) { return pthread_mutex_trylock(m); }
static inline int gasnett_mutex_unlock(gasnett_mutex_t *m) { return pthread_mutex_unlock(m); }
/* The error, if any, is returned and nothing else is done about it. */
static inline int gasnett_mutex_destroy_ignoreerr(gasnett_mutex_t *m) {
  return pthread_mutex_destroy(m);
}
/* The spec's assertions check only in debug builds; there are none here. */
#define gasnett_mutex_assertlocked(m) ((void)(m))
#define gasnett_mutex_assertunlocked(m) ((void)(m))
#define gasnett_rwlock_assertlocked(l) ((void)(l))
#define gasnett_rwlock_assertrdlocked(l) ((void)(l))
#define gasnett_rwlock_assertwrlocked(l) ((void)(l))
#define gasnett_rwlock_assertunlocked(l) ((void)(l))

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

/* Everything below lives in the library: not part of the lite subset. */
#if !defined(GASNETT_LITE_MODE)
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
/* Report a setting as the *_withdefault readers do, iff gasnett_verboseenv():
 * "ENV parameter: KEY = VAL   (default)" or "...   (set)"; once per key. */
extern void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size);
extern void gasnett_envstr_display(const char *key, const char *val, int is_dflt);
extern void gasnett_envdbl_display(const char *key, double val, int is_dflt);

/* ---- I. system helpers ---------------------------------------------------- */
typedef void (*gasnett_sighandlerfn_t)(int);
extern int gasnett_sched_yield(void);
/* 0 after at least ns nanoseconds (a signal does not cut it short). */
extern int gasnett_nsleep(uint64_t ns);
GASNETT_NORETURN extern void gasnett_killmyprocess(int exitcode);
extern int gasnett_cpu_count(void);
extern uint64_t gasnett_getPhysMemSz(int failureIsFatal);
/* Non-zero when every limit asked for is at its maximum; a limit whose
 * GASNET_MAXIMIZE_<desc> is "no" is left as it is (and counts as done). */
extern int gasnett_maximize_rlimits(void);
extern int gasnett_maximize_rlimit(int res, const char *lim_desc);
#define GASNETT_SET_AFFINITY_SUPPORT 1
/* 0 when the calling thread now runs on the (rank % n)-th allowed CPU. */
extern int gasnett_set_affinity(int rank);
extern const char *gasnett_gethostname(void);
/* The running executable's full path (/proc/self/exe), "" if unknown. */
extern const char *gasnett_exe_name(void);
extern const char *gasnett_performance_warning_str(void);
extern const char *gasnett_release_version_str(void);
/* MAJOR * 1000000 + MINOR * 10000 + PATCH of the library's release. */
extern uint64_t gasnett_release_version(void);
extern gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fn);
/* "*** FATAL ERROR: msg", then a line "    at FILE:LINE in FUNCTION()" for
 * gasnett_fatalerror (a macro, for the call site), then backtrace and
 * freeze as configured, then abort(). */
GASNETT_NORETURN GASNETT_FORMAT_PRINTF(gasnett_fatalerror_nopos, 1, 2,
    extern void gasnett_fatalerror_nopos(const char *msg, ...));
GASNETT_NORETURN GASNETT_FORMAT_PRINTF(gasnett__fatalerror_at, 4, 5,
    extern void gasnett__fatalerror_at(const char *fn, const char *file, int line,
                                       const char *msg, ...));
#define gasnett_fatalerror(...) \
  gasnett__fatalerror_at(GASNETT_CURRENT_FUNCTION, __FILE__, __LINE__, __VA_ARGS__)
/* "FUNCTION() at FILE:LINE" in memory from malloc (the caller frees it). */
extern char *gasnett__current_loc(const char *fn, const char *file, int line);
#define gasnett_current_loc gasnett__current_loc(GASNETT_CURRENT_FUNCTION, __FILE__, __LINE__)
extern void gasnett_flush_streams(void);
extern void gasnett_close_streams(void);
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
/* A strided put/get as GASNet-EX VIS describes it (gex_VIS_Strided*):
 * team and rank of the peer (a gex_TM_t and a gex_Rank_t; NULL and any
 * rank in a tools-only program), elemsz, count[stridelevels] and the byte
 * strides (ptrdiff_t) of each side. stats is not used (pass NULL). */
struct gasnetc_team;
extern size_t gasnett_format_putsgets_bufsz(size_t stridelevels);
extern char *gasnett_format_putsgets(char *buf, void *stats, struct gasnetc_team *tm,
                                     uint32_t rank, void *dstaddr, const ptrdiff_t dststrides[],
                                     void *srcaddr, const ptrdiff_t srcstrides[], size_t elemsz,
                                     const size_t count[], size_t stridelevels);
/* GASNet-EX's gex_DT_t, gex_OP_t and gex_TI_t masks as text, e.g.
 * "GEX_DT_I32|GEX_DT_DBL" (unknown bits in hex, 0 as "0"). With buf NULL
 * they only return the size needed; either way the result counts the NUL. */
extern size_t gasnett_format_dt(char *buf, uint32_t dt);
extern size_t gasnett_format_op(char *buf, uint32_t op);
extern size_t gasnett_format_ti(char *buf, uint32_t ti);

/* Self-test of the tools (docs/tools.md): 0, or the number of failures.
 * testsections: letters of the sections to run, NULL or "" for all; seed
 * seeds the values tried. The team, segments and peer (a gex_TM_t, a
 * gex_Rank_t) are not used: the tests are local and communicate nothing. */
extern int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections,
                                   struct gasnetc_team *myteam, void *myseg, uint32_t peer,
                                   void *peerseg, uint64_t seed);

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
/* Called on every fatal error and signal: prints a backtrace iff
 * GASNET_BACKTRACE is on. A client may point it at its own function. */
extern int (*gasnett_print_backtrace_ifenabled)(int fd);
/* Cleared from a debugger to let a frozen process go on. */
extern volatile int gasnett_frozen;
/* Freeze now: *flag = 1, say how to continue (set flagsymname to 0 from a
 * debugger), wait until it is 0. */
extern void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname);
/* The same on gasnett_frozen, iff GASNET_FREEZE_ON_ERROR is on. */
extern void gasnett_freezeForDebuggerErr(void);
#endif /* !GASNETT_LITE_MODE */

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
