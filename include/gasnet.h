/*
 * gasnet.h - the public interface of GASNet-1, spec 1.8 sections 1 and 2
 * (core API), for the udp and tcp conduits of this package.
 *
 * A client #defines exactly one of GASNET_SEQ, GASNET_PARSYNC, GASNET_PAR
 * before including this header (spec 1.5) and links the library of the same
 * mode, e.g.   cc -DGASNET_SEQ app.c $(pkg-config --cflags --libs gasnet-udp-seq)
 * (the pkg-config file defines the mode macro for you).
 *
 * Layout: this file holds the configuration checks, constants, types and the
 * job-control / query / HSL / no-interrupt calls; gasnet_am.h holds the
 * Active Message functions, generated for M = 0..16 from one list.
 */
#ifndef GASNET_H
#define GASNET_H
/* Berkeley's include guard: clients test it to learn that the GASNet-1 API
 * is there (its tests' test.h, for one). */
#define _INCLUDED_GASNET_H 1

/* ---- spec 1.5: exactly one threading mode ---------------------------- */
#if (defined(GASNET_SEQ) + defined(GASNET_PARSYNC) + defined(GASNET_PAR)) == 0
#error "gasnet.h: define exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR before including gasnet.h (none is defined; spec 1.5)"
#elif (defined(GASNET_SEQ) + defined(GASNET_PARSYNC) + defined(GASNET_PAR)) > 1
#error "gasnet.h: define exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR before including gasnet.h (more than one is defined; spec 1.5)"
#endif

#if defined(GASNET_SEQ)
#define GASNETC_MODE SEQ
#define GASNETC_MODE_STRING "SEQ"
#elif defined(GASNET_PARSYNC)
#define GASNETC_MODE PARSYNC
#define GASNETC_MODE_STRING "PARSYNC"
#else
#define GASNETC_MODE PAR
#define GASNETC_MODE_STRING "PAR"
#endif

/* What GASNet's own gasnet.h brings in for clients, which rely on it
 * (strcmp, atol, memset, PRIu64 without their own includes). */
#include <inttypes.h>
#include <limits.h> /* INT_MAX and the like: clients of Berkeley's gasnet.h rely on it */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if !defined(GASNET_SEQ)
#include <pthread.h>
#endif

#include "gasnet_config.h"

/* Conduit identity. The conduit's .pc and .mak flags define
 * GASNET_CONDUIT_UDP or GASNET_CONDUIT_TCP (with GASNET_<MODE>); the names
 * clients print follow from it. Compiled without either (our own tests,
 * whose objects link with either conduit), the name says so. */
#if defined(GASNET_CONDUIT_UDP) && defined(GASNET_CONDUIT_TCP)
#error "gasnet.h: GASNET_CONDUIT_UDP and GASNET_CONDUIT_TCP are both defined; use one conduit's flags"
#elif defined(GASNET_CONDUIT_UDP)
#define GASNET_CONDUIT_NAME UDP
#define GASNET_CONDUIT_NAME_STR "UDP"
#define GASNET_CORE_NAME UDP
#elif defined(GASNET_CONDUIT_TCP)
#define GASNET_CONDUIT_NAME TCP
#define GASNET_CONDUIT_NAME_STR "TCP"
#define GASNET_CORE_NAME TCP
#else
#define GASNET_CONDUIT_NAME UDP_or_TCP
#define GASNET_CONDUIT_NAME_STR "UDP-or-TCP"
#define GASNET_CORE_NAME UDP_or_TCP
#endif
/* A bare token clients only stringify (TEST_PRINT_CONDUITINFO): "2026.11"
 * for release 2026.11.0. Not a number to compare (2026.9 > 2026.11 as a
 * float): compare GASNET_RELEASE_VERSION_* instead. */
#define GASNET_CORE_VERSION GASNET_RELEASE_VERSION_MAJOR.GASNET_RELEASE_VERSION_MINOR

#if (defined(GASNET_SEGMENT_FAST) + defined(GASNET_SEGMENT_LARGE) + \
     defined(GASNET_SEGMENT_EVERYTHING)) != 1
#error "gasnet.h: gasnet_config.h must define exactly one GASNET_SEGMENT_* macro"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- spec 1.8: compile-time constants -------------------------------- */
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
#define GASNET_VERSION GASNET_SPEC_VERSION_MAJOR /* deprecated (spec 1.8) */

#define GASNETC_STR_(x) #x
#define GASNETC_STR(x) GASNETC_STR_(x)
/* Everything that must agree between a client and the library it links. */
#define GASNET_CONFIG_STRING                                          \
  "RELEASE=" GASNETC_RELEASE_STRING ",SPEC=1.8,"                      \
  "THREADMODEL=" GASNETC_MODE_STRING ",SEGMENT=" GASNETC_SEGMENT_NAME \
  ",PTR=" GASNETC_STR(__SIZEOF_POINTER__)

#define GASNET_MAXNODES 65535        /* fits gasnet_node_t; boot tables scale to it */
#define GASNET_ALIGNED_SEGMENTS 0    /* segments are mmap'd wherever the kernel puts them */
#define GASNET_PAGESIZE 4096

#if __SIZEOF_POINTER__ == 8 || defined(__x86_64__) || defined(__aarch64__)
#define SIZEOF_GASNET_REGISTER_VALUE_T 8
typedef uint64_t gasnet_register_value_t;
#else
#define SIZEOF_GASNET_REGISTER_VALUE_T 4
typedef uint32_t gasnet_register_value_t;
#endif

/* ---- spec 1.6: errors ------------------------------------------------- */
#define GASNET_OK 0
#define GASNET_ERR_BASE 10000
#define GASNET_ERR_RESOURCE (GASNET_ERR_BASE + 1)
#define GASNET_ERR_BAD_ARG (GASNET_ERR_BASE + 2)
#define GASNET_ERR_NOT_INIT (GASNET_ERR_BASE + 3)
#define GASNET_ERR_BARRIER_MISMATCH (GASNET_ERR_BASE + 4)
#define GASNET_ERR_NOT_READY (GASNET_ERR_BASE + 5)

/* 1.8.1 corrections: the strings are const. */
extern const char *gasnet_ErrorName(int errval);
extern const char *gasnet_ErrorDesc(int errval);

/* ---- spec 1.7: types -------------------------------------------------- */
typedef uint32_t gasnet_node_t;
typedef uint8_t gasnet_handler_t;     /* 0..255; 0 = "don't care" in attach */
typedef int32_t gasnet_handlerarg_t;
typedef struct gasnetc_token *gasnet_token_t;           /* opaque */
typedef struct gasnete_handle *gasnet_handle_t;         /* extended API (3.3.2) */
#define GASNET_INVALID_HANDLE ((gasnet_handle_t)0)

typedef struct {
  gasnet_handler_t index; /* == 0 for don't care */
  void (*fnptr)();        /* spec 2.1.0.2: called with the AM prototype of 2.3.1 */
} gasnet_handlerentry_t;

typedef struct {
  void *addr;
  uintptr_t size;
} gasnet_seginfo_t;

/* ---- spec 2.1: job control -------------------------------------------- */
/* The mode is part of the link names (spec 1.5 implementor's note): a client
 * built for one mode that links the library of another fails to link with
 * an undefined gasnetc_init_<MODE> / gasnetc_attach_<MODE>. */
#define GASNETC_CONCAT_(a, b) a##b
#define GASNETC_CONCAT(a, b) GASNETC_CONCAT_(a, b)
#define gasnet_init GASNETC_CONCAT(gasnetc_init_, GASNETC_MODE)
#define gasnet_attach GASNETC_CONCAT(gasnetc_attach_, GASNETC_MODE)

extern int gasnet_init(int *argc, char ***argv);
extern int gasnet_attach(gasnet_handlerentry_t *table, int numentries,
                         uintptr_t segsize, uintptr_t minheapoffset);
extern uintptr_t gasnet_getMaxLocalSegmentSize(void);
extern uintptr_t gasnet_getMaxGlobalSegmentSize(void);
extern void gasnet_exit(int exitcode) __attribute__((noreturn));
/* Internal (the extended API's checks): fatal error for fname called before
 * gasnet_init (need_attach 0) or gasnet_attach succeeded, naming the set-up
 * call that failed and its reason when one did. */
extern void gasnetc_not_ready(const char *fname, int need_attach) __attribute__((noreturn));

/* ---- beyond spec 1.8: where the nodes run ------------------------------
 * host: nodes with the same number share a host (one kernel and one network
 * namespace), numbered 0.. in order of each host's lowest node. supernode:
 * nodes that share memory through the library (a host's nodes, at most
 * GASNET_SUPERNODE_MAXSIZE of them), numbered in order of their lowest
 * node. Legal after gasnet_init, before gasnet_attach too. */
typedef struct {
  gasnet_node_t host;
  gasnet_node_t supernode;
} gasnet_nodeinfo_t;
extern int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);

/* ---- this library's own: this node's counters --------------------------
 * The counter `name` as GASNET_STATSFILE writes it ("core.polls",
 * "udp_acks_sent", "udp_data_sent"; docs/api.md and docs/transports.md list
 * them): 1 and *value, or 0 when this node has no counter of that name.
 * For benchmarks and tests, not hot paths: each call formats every counter.
 * Legal after gasnet_attach, in handlers too. */
extern int gasnetc_stat_get(const char *name, uint64_t *value);

/* ---- spec 2.2: job environment queries -------------------------------- */
extern gasnet_node_t gasnet_mynode(void);
extern gasnet_node_t gasnet_nodes(void);
/* Berkeley's gasnet_mynode()/gasnet_nodes() read these variables, and some
 * clients (its own testlegacy) name them: the same values here. */
#define gasneti_mynode (gasnet_mynode())
#define gasneti_nodes (gasnet_nodes())
extern int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
extern char *gasnet_getenv(const char *name);

/* ---- spec 2.3: active messages (generated for M = 0..16) -------------- */
#include "gasnet_am.h"

/* ---- spec 2.4.2: no-interrupt sections ---------------------------------
 * This implementation never interrupts a thread (handlers run only inside
 * GASNet calls), so these only record the state, which lets the library
 * catch the calls spec 2.4.3 forbids inside a section. */
extern void gasnet_hold_interrupts(void);
extern void gasnet_resume_interrupts(void);

/* ---- spec 2.4.4: handler-safe locks ------------------------------------
 * SEQ: no other thread may call GASNet, so an HSL is only a flag used for
 * error checks. PARSYNC and PAR: a real mutex (spec 2.4.5 implementor's
 * note: the client may still have several threads). */
typedef struct {
#if !defined(GASNET_SEQ)
  pthread_mutex_t mutex;
#endif
  int locked; /* for error checks only */
} gasnet_hsl_t;

#if defined(GASNET_SEQ)
#define GASNET_HSL_INITIALIZER { 0 }
#else
#define GASNET_HSL_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, 0 }
#endif

extern void gasnet_hsl_init(gasnet_hsl_t *hsl);
extern void gasnet_hsl_destroy(gasnet_hsl_t *hsl);
extern void gasnet_hsl_lock(gasnet_hsl_t *hsl);
extern int gasnet_hsl_trylock(gasnet_hsl_t *hsl);
extern void gasnet_hsl_unlock(gasnet_hsl_t *hsl);

#ifdef __cplusplus
}
#endif

/* ---- spec 3: the extended API ------------------------------------------ */
#include "gasnet_extended.h"

/* ---- tracing and statistics (core/gasnetc_trace.c), what gasnet_tools.h's
 * GASNETT_TRACE_* and GASNETT_STATS_* call in a conduit client. Categories
 * are letters; gasnetc_trace_on is 0 unless something is traced or counted. */
#define GASNETC_TRACE_BIT(c) (1u << ((unsigned)(c) - 'A'))
#ifdef __cplusplus
extern "C" {
#endif
extern unsigned gasnetc_trace_on, gasnetc_trace_mask, gasnetc_stats_mask;
extern void gasnetc_trace_printf(char cat, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
extern void gasnetc_stats_printf(char cat, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
extern void gasnetc_stats_dump(int reset);
extern const char *gasnetc_trace_getmask(int stats);
extern void gasnetc_trace_setmask(int stats, const char *mask);
extern int gasnetc_trace_getlocal(void);
extern void gasnetc_trace_setlocal(int on);
#ifdef __cplusplus
}
#endif
#define GASNETT__CONDUIT_TRACE 1

/* ---- the tools (gasnet_tools.h), as GASNet-1 clients expect them with
 * gasnet.h, in the thread mode that matches this library's. */
#if defined(GASNET_SEQ)
#ifndef GASNETT_THREAD_SINGLE
#define GASNETT_THREAD_SINGLE 1
#endif
#elif !defined(GASNETT_THREAD_SAFE)
#define GASNETT_THREAD_SAFE 1
#endif
#include "gasnet_tools.h"

/* GASNet-EX: GASNet-1 is provided with (and, in time, over) it. */
#include "gasnetex.h"

#endif /* GASNET_H */
