/*
 * t_tools.c - every name of gasnet_tools.h, with checked results. Built
 * four ways (tests/tools/Makefile.inc): tools-only THREAD_SINGLE and
 * THREAD_SAFE, and with gasnet.h included before or after gasnet_tools.h
 * (T_GASNET_FIRST, T_TOOLS_FIRST; then it also runs as a 1-rank GASNet job). Each check
 * prints what it compared; the exit code is the number of failures.
 * Children (fork) run the checks whose outcome is the end of a process.
 */
#include "t_tools_util.h"

#include <stdarg.h>
#include <time.h>

/* ---- A/B: configuration macros and annotations (compile-time checks) ---- */
#if GASNETT_PAGESIZE != 4096 || (1 << GASNETT_PAGESHIFT) != GASNETT_PAGESIZE
#error "GASNETT_PAGESIZE must be 4096 = 1 << GASNETT_PAGESHIFT, usable in #if"
#endif
#if defined(GASNET_PAGESIZE) && GASNET_PAGESIZE != GASNETT_PAGESIZE
#error "GASNETT_PAGESIZE differs from GASNET_PAGESIZE"
#endif
#if defined(PLATFORM_ARCH_64) + defined(PLATFORM_ARCH_32) != 1
#error "exactly one of PLATFORM_ARCH_64/32"
#endif
#if !defined(HAVE_PTHREAD_H) || !defined(HAVE_MMAP) || GASNETT_MAX_THREADS < 1
#error "HAVE_PTHREAD_H, HAVE_MMAP, GASNETT_MAX_THREADS"
#endif
#if GASNETT_SPEC_VERSION_MAJOR != 1 || GASNETT_SPEC_VERSION_MINOR != 20
#error "tools spec 1.20"
#endif
#if !defined(GASNETT_HAVE_ATOMIC_CAS) || !defined(GASNETT_HAVE_ATOMIC_ADD_SUB) || \
    !defined(GASNETT_HAVE_STRONGATOMIC_CAS) || !defined(GASNETT_HAVE_STRONGATOMIC_ADD_SUB) || \
    !defined(GASNETT_SET_AFFINITY_SUPPORT)
#error "feature macros"
#endif
#if !defined(GASNETT__CONDUIT_TRACE) /* with gasnet.h first: switched at run time (t-trace) */
#if GASNETT_TRACE_ENABLED || GASNETT_STATS_ENABLED
#error "tracing is off"
#endif
#endif

GASNETT_IDENT(t_tools_ident, "$t_tools: " GASNETT_CONFIG_STRING " on " GASNETT_SYSTEM_TUPLE " $");
GASNETT_BEGIN_EXTERNC
GASNETT_EXTERNC int t_externc_fn(void);
GASNETT_END_EXTERNC
int t_externc_fn(void) { return 1; }
GASNETT_FORMAT_PRINTF(t_fmt, 2, 3, static int t_fmt(char *buf, const char *fmt, ...));
GASNETT_NORETURN static void t_never(void) GASNETT_NORETURNP(t_never);
GASNETT_INLINE(t_inline) int t_inline(int x) { return x + 1; }
GASNETT_MALLOC static void *t_alloc(size_t n) { return malloc(n); }
static int t_fmt(char *buf, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsprintf(buf, fmt, ap);
  va_end(ap);
  return n;
}
static void t_never(void) { abort(); }

static void t_config(void) {
  T_SECTION("configuration and annotations");
  char v[64];
  snprintf(v, sizeof v, "%d.%d.%d", GASNETT_RELEASE_VERSION_MAJOR,
           GASNETT_RELEASE_VERSION_MINOR, GASNETT_RELEASE_VERSION_PATCH);
  T_OK(!strcmp(v, gasnett_release_version_str()) && !strcmp(v, T_PACKAGE_VERSION),
       "release %s: macros %s, configure %s", gasnett_release_version_str(), v,
       T_PACKAGE_VERSION);
  T_OK(strstr(GASNETT_CONFIG_STRING, "RELEASE=") != NULL, "config string '%s'",
       GASNETT_CONFIG_STRING);
  T_OK(strlen(GASNETT_SYSTEM_TUPLE "") > 3 && strlen(PLATFORM_COMPILER_VERSION_STR "") > 0,
       "system '%s', compiler %s '%s'", GASNETT_SYSTEM_TUPLE,
       _STRINGIFY(PLATFORM_COMPILER_FAMILYNAME), PLATFORM_COMPILER_VERSION_STR);
  char line[16];
  const char *str = _STRINGIFY(__LINE__); snprintf(line, sizeof line, "%d", __LINE__);
  T_OK(!strcmp(str, line), "_STRINGIFY(__LINE__) '%s' vs '%s'", str, line);
  T_OK(!strcmp(GASNETT_CURRENT_FUNCTION, "t_config"), "GASNETT_CURRENT_FUNCTION '%s'",
       GASNETT_CURRENT_FUNCTION);
  int hits = 0;
  if_pf(hits == 1) hits = 100;
  if_pt(hits == 0) hits += 1;
  char buf[32];
  t_fmt(buf, "%d-%s", 7, "x");
  void *GASNETT_RESTRICT p = t_alloc(8);
  T_OK(hits == 1 && t_inline(1) == 2 && !strcmp(buf, "7-x") && p && t_externc_fn(),
       "if_pf/if_pt, INLINE, FORMAT_PRINTF, MALLOC, RESTRICT, EXTERNC");
  free(p);
  if (hits == 42) t_never();
  T_OK(GASNETT_CACHE_LINE_BYTES >= 16 && GASNETT_MAX_THREADS >= 1, "cache line %d, max threads %d",
       GASNETT_CACHE_LINE_BYTES, GASNETT_MAX_THREADS);
  T_OK(strlen(t_tools_ident) > 0, "GASNETT_IDENT: %s", t_tools_ident);
  /* Section C: expressions, and a non-literal format. */
  const char *file = "x";
  unsigned int lineno = 1;
  const char *fmt = "%d\n";
  int n = (GASNETT_TRACE_SETSOURCELINE(__FILE__, __LINE__), GASNETT_TRACE_FREEZESOURCELINE(),
           GASNETT_TRACE_UNFREEZESOURCELINE(), GASNETT_TRACE_GETSOURCELINE(&file, &lineno), 5);
  GASNETT_TRACE_PRINTF(fmt, n);
  GASNETT_TRACE_PRINTF_FORCE(fmt, n);
  GASNETT_TRACE_SETMASK("ALL");
  GASNETT_STATS_SETMASK("ALL");
  GASNETT_TRACE_SET_TRACELOCAL(1);
  T_OK(n == 5 && !strcmp(GASNETT_TRACE_GETMASK(), "") && !strcmp(GASNETT_STATS_GETMASK(), "") &&
           GASNETT_TRACE_GET_TRACELOCAL() == 0 && file == NULL && lineno == 0,
       "tracing macros are no-op expressions");
}

/* ---- D: timers ---------------------------------------------------------- */
static uint64_t t_mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void t_timers(void) {
  T_SECTION("timers");
  uint64_t c0 = t_mono_ns();
  gasnett_tick_t t0 = gasnett_ticks_now();
  int slept = gasnett_nsleep(20 * 1000 * 1000);
  gasnett_tick_t t1 = gasnett_ticks_now();
  uint64_t c1 = t_mono_ns();
  uint64_t ns = gasnett_ticks_to_ns(t1 - t0);
  T_OK(slept == 0 && gasnett_nsleep(0) == 0, "nsleep returns 0 (20 ms and 0 ns)");
  T_OK(ns >= 20000000 && ns <= c1 - c0 && gasnett_ticks_to_ns(t0) >= c0 &&
           gasnett_ticks_to_ns(t1) <= c1,
       "nsleep(20 ms): %" PRIu64 " ns by ticks, within clock_gettime's %" PRIu64 " ns", ns,
       c1 - c0);
  T_OK(gasnett_ticks_to_us(t1 - t0) == ns / 1000, "ticks_to_us %" PRIu64 " = ns/1000",
       gasnett_ticks_to_us(t1 - t0));
  int bad = 0;
  gasnett_tick_t prev = gasnett_ticks_now();
  for (int i = 0; i < 100000; i++) {
    gasnett_tick_t t = gasnett_ticks_now();
    uint64_t diff = gasnett_ticks_to_us(t) - gasnett_ticks_to_us(prev - (uint64_t)i * 777);
    uint64_t whole = gasnett_ticks_to_us(t - (prev - (uint64_t)i * 777));
    bad += t < prev || (diff != whole && diff != whole + 1);
    prev = t;
  }
  T_OK(bad == 0, "100000 readings monotonic, to_us(A)-to_us(B) within 1 of to_us(A-B): %d bad", bad);
  double g = gasnett_tick_granularityus(), o = gasnett_tick_overheadus();
  T_OK(g > 0 && g < 10 && o > 0 && o < 10, "granularity %.4f us, overhead %.4f us (0 < x < 10)",
       g, o);
  uint64_t tod = gasnett_gettimeofday_us(), now = (uint64_t)time(NULL) * 1000000u;
  T_OK(tod + 2000000 > now && tod < now + 2000000, "gettimeofday_us %" PRIu64 " vs time() %" PRIu64,
       tod, now);
  T_OK(GASNETT_TICK_MIN < GASNETT_TICK_MAX && GASNETT_TICK_MAX >= t1, "TICK_MIN < TICK_MAX");
}

int t_failures;

/* With gasnet.h: the conduit library's tools, then a 1-rank job. */
static int t_finish(int argc, char **argv) {
#if defined(T_GASNET_FIRST) || defined(T_TOOLS_FIRST)
  T_SECTION("with gasnet.h");
  gasnet_handlerentry_t *table = (gasnet_handlerentry_t *)&table;
  int count = -1;
  gasnett_diagnostic_gethandlers(&table, &count);
  T_OK(table == NULL && count == 0, "gasnett_diagnostic_gethandlers: %d handlers", count);
  if (gasnet_init(&argc, &argv) != GASNET_OK || gasnet_attach(NULL, 0, 0, 0) != GASNET_OK) {
    T_OK(0, "gasnet_init + gasnet_attach");
    return t_failures;
  }
  T_OK(gasnet_nodes() == 1, "a job of %u node(s)", (unsigned)gasnet_nodes());
  printf("t_tools: %d failures\n", t_failures);
  fflush(stdout);
  gasnet_exit(t_failures);
#else
  (void)argc, (void)argv;
#endif
  printf("t_tools: %d failures\n", t_failures);
  return t_failures;
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 0;
  t_config();
  t_timers();
  t_atomics(iters > 0 ? iters : 200000);
  t_locks_and_keys();
  t_env();
  t_format();
  t_system();
  t_processes();
  t_backtrace(argv[0]);
  T_SECTION("run_diagnostics");
  int diag = gasnett_run_diagnostics(1000, 2, NULL, NULL, NULL, 0, NULL, 0);
  T_OK(diag == 0, "gasnett_run_diagnostics(1000, 2, all) = %d", diag);
  return t_finish(argc, argv);
}
