/*
 * classic.h - a test harness written the way the classic GASNet-1 client
 * tests are (../shared/spec/gasnet-client-extras.md section 3): it leans on
 * every compile-time decision those harnesses make, so a header that lacks
 * one, or defines it the wrong way, fails here as it would there.
 *   - gasnet.h and gasnet_tools.h in either order (CLASSIC_TOOLS_FIRST);
 *   - GASNET_SEQ / GASNET_PAR tested with defined(), #ifdef and #if;
 *   - page-size arithmetic in the preprocessor (GASNETT_PAGESIZE);
 *   - GASNET_SEGMENT_EVERYTHING with #ifdef, GASNET_ALIGNED_SEGMENTS with #if;
 *   - identification strings built by concatenating string-literal macros,
 *     GASNETT_IDENT at file scope, _STRINGIFY of __LINE__ and of tokens;
 *   - gasnet_attach #undef'd and redefined to a wrapper that appends two
 *     "don't care" handlers and needs their indexes written back;
 *   - tracing macros inside comma expressions; HAVE_PTHREAD_H for threads.
 * Our own harness, in our own words: not a copy of any other.
 */
#ifndef CLASSIC_H
#define CLASSIC_H

#ifdef CLASSIC_TOOLS_FIRST
#include <gasnet_tools.h>
#include <gasnet.h>
#else
#include <gasnet.h>
#include <gasnet_tools.h>
#endif
#include <gasnet_coll.h>
#include <stdarg.h>
#include <stdio.h>

#if defined(GASNET_SEQ) + defined(GASNET_PAR) + defined(GASNET_PARSYNC) != 1
#error "exactly one threading mode must be defined"
#endif
#if defined(GASNET_PAR)
#if !GASNET_PAR
#error "GASNET_PAR must be defined to a true value"
#endif
#define CLASSIC_PARSEQ "PAR"
#elif defined(GASNET_PARSYNC)
#define CLASSIC_PARSEQ "PARSYNC"
#else
#define CLASSIC_PARSEQ "SEQ"
#endif

#ifndef CLASSIC_SEGSZ
#define CLASSIC_SEGSZ (64 * 1024 * 1024)
#endif
#define CLASSIC_PAGESZ GASNETT_PAGESIZE
#if (CLASSIC_SEGSZ % CLASSIC_PAGESZ) != 0
#error "the segment size is not a multiple of the page size"
#endif
#if CLASSIC_PAGESZ != GASNET_PAGESIZE
#error "GASNETT_PAGESIZE and GASNET_PAGESIZE differ"
#endif
#if !defined(GASNET_SEQ) && defined(GASNETT_MAX_THREADS) && GASNETT_MAX_THREADS < 2
#error "GASNETT_MAX_THREADS too small"
#endif

#ifdef GASNET_SEGMENT_EVERYTHING
#define CLASSIC_SEGMENT "EVERYTHING"
#else
#define CLASSIC_SEGMENT "FAST/LARGE"
#endif
#if GASNET_ALIGNED_SEGMENTS == 1
#define CLASSIC_ALIGNED 1
#else
#define CLASSIC_ALIGNED 0
#endif
#if GASNET_PSHM
#define CLASSIC_PSHM "pshm"
#else
#define CLASSIC_PSHM "none"
#endif

GASNETT_IDENT(Classic_IdentString_Config, "$ClassicConfig: " GASNET_CONFIG_STRING " $");
GASNETT_IDENT(Classic_IdentString_Conduit, "$ClassicConduit: " GASNET_CONDUIT_NAME_STR "-"
              CLASSIC_PARSEQ "-" CLASSIC_PSHM " $");
GASNETT_IDENT(Classic_IdentString_System, "$ClassicSystem: " GASNETT_SYSTEM_TUPLE " "
              PLATFORM_COMPILER_VERSION_STR " $");

static const char classic_line[] = _STRINGIFY(__LINE__);
static const char classic_core[] = _STRINGIFY(GASNET_CORE_NAME) " " _STRINGIFY(GASNET_CORE_VERSION);

#if defined(HAVE_PTHREAD_H) && !defined(GASNET_SEQ)
#include <pthread.h>
static gasnett_mutex_t classic_msg_lock = GASNETT_MUTEX_INITIALIZER;
#define CLASSIC_LOCK() gasnett_mutex_lock(&classic_msg_lock)
#define CLASSIC_UNLOCK() gasnett_mutex_unlock(&classic_msg_lock)
#elif !defined(GASNET_SEQ)
#error "HAVE_PTHREAD_H must be defined for a threaded build"
#else
#define CLASSIC_LOCK() ((void)0)
#define CLASSIC_UNLOCK() ((void)0)
#endif

static int classic_errs;
GASNETT_FORMAT_PRINTF(classic_msg, 1, 2, static void classic_msg(const char *fmt, ...));
static void classic_msg(const char *fmt, ...) {
  va_list ap;
  CLASSIC_LOCK();
  printf("node %u/%u: ", (unsigned)gasnet_mynode(), (unsigned)gasnet_nodes());
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  CLASSIC_UNLOCK();
}
#define CLASSIC_ERR(...) \
  (GASNETT_TRACE_SETSOURCELINE(__FILE__, __LINE__), classic_errs++, classic_msg("ERROR: " __VA_ARGS__))
#define CLASSIC_CHECK(cond) do { if_pf (!(cond)) CLASSIC_ERR("check failed: %s", #cond); } while (0)
#define CLASSIC_CALL(call) do { int rc_ = (call); if_pf (rc_ != GASNET_OK) { \
      CLASSIC_ERR("%s: %s", #call, gasnet_ErrorName(rc_)); gasnet_exit(1); } } while (0)

/* The wrapper attach: two more handlers with index 0, whose indexes the
 * library must write back into the table. */
static int classic_h1_hits, classic_h2_hits;
static void classic_h1(gasnet_token_t t) { (void)t; classic_h1_hits++; }
static void classic_h2(gasnet_token_t t) { (void)t; classic_h2_hits++; }
static gasnet_handler_t classic_hidx[2];
static int classic_attach(gasnet_handlerentry_t *table, int n, uintptr_t segsz, uintptr_t minheap) {
  gasnet_handlerentry_t *all = (gasnet_handlerentry_t *)calloc((size_t)n + 2, sizeof *all);
  if (n) memcpy(all, table, (size_t)n * sizeof *all);
  all[n].index = 0;
  all[n].fnptr = (void (*)())classic_h1;
  all[n + 1].index = 0;
  all[n + 1].fnptr = (void (*)())classic_h2;
  int rc = gasnet_attach(all, n + 2, segsz, minheap);
  if (n) memcpy(table, all, (size_t)n * sizeof *all);
  classic_hidx[0] = all[n].index;
  classic_hidx[1] = all[n + 1].index;
  free(all);
  return rc;
}
#undef gasnet_attach
#define gasnet_attach classic_attach

/* "Local procs": nodes on my supernode; polite waits when overcommitted. */
static int classic_local_procs(void) {
  gasnet_node_t n = gasnet_nodes(), me = gasnet_mynode(), local = 0;
  gasnet_nodeinfo_t *ni = (gasnet_nodeinfo_t *)calloc(n, sizeof *ni);
  CLASSIC_CALL(gasnet_getNodeInfo(ni, (int)n));
  for (gasnet_node_t i = 0; i < n; i++) local += ni[i].supernode == ni[me].supernode;
  free(ni);
  return (int)local;
}

static void classic_print_info(void) {
  classic_msg("%s, core %s, %s segment, aligned %d, page %d, line %s, cpus %d, host %s, "
              "polite %d%s%s", GASNET_CONDUIT_NAME_STR "/" CLASSIC_PARSEQ, classic_core,
              CLASSIC_SEGMENT, CLASSIC_ALIGNED, CLASSIC_PAGESZ, classic_line,
              gasnett_cpu_count(), gasnett_gethostname(),
              gasnett_getenv_yesno_withdefault("GASNET_TEST_POLITE_SYNC", 0),
              gasnett_performance_warning_str(), gasnett_verboseenv() ? " (verbose env)" : "");
}

#endif /* CLASSIC_H */
