/*
 * gasnett_diagnostic.c - gasnett_run_diagnostics: a self-test of the tools
 * a client can run where it will run (a new compiler, a new machine).
 * Sections, selected by letter: T timers, A atomics, L locks (mutex, cond,
 * rwlock), K thread keys, F formatting/parsing, checksums and zero counts.
 * In THREAD_SAFE builds the atomics and locks are exercised by threads.
 * Each failure is reported on stderr; the result is the number of them.
 */
#include <stdio.h>

#include "gasnett_internal.h"
#include "gasneti_time.h"

static int gasnett__diag_failures;

#define GASNETT__CHECK(cond, ...)                                         \
  do {                                                                    \
    if (!(cond)) {                                                        \
      gasnett__diag_failures++;                                           \
      fprintf(stderr, "gasnett_run_diagnostics: FAILED (%s): ", #cond);   \
      fprintf(stderr, __VA_ARGS__);                                       \
      fprintf(stderr, "\n");                                              \
    }                                                                     \
  } while (0)

/* A timer step or a call taking longer than this is not sensible. */
#define GASNETT__DIAG_TIMER_SANE_US 1000.0

/* ---- T: timers --------------------------------------------------------- */
static void gasnett__diag_timers(int iters) {
  gasnett_tick_t prev = gasnett_ticks_now();
  for (int i = 0; i < iters; i++) {
    gasnett_tick_t t = gasnett_ticks_now();
    GASNETT__CHECK(t >= prev, "ticks went back: %" PRIu64 " after %" PRIu64, t, prev);
    uint64_t a = gasnett_ticks_to_us(t), b = gasnett_ticks_to_us(prev);
    uint64_t d = gasnett_ticks_to_us(t - prev);
    GASNETT__CHECK(a - b == d || a - b == d + 1, "to_us(A)-to_us(B)=%" PRIu64
                   " vs to_us(A-B)=%" PRIu64, a - b, d);
    prev = t;
  }
  uint64_t c0 = gasneti_now_ns();
  gasnett_tick_t t0 = gasnett_ticks_now();
  gasnett_nsleep(2000000);
  gasnett_tick_t t1 = gasnett_ticks_now();
  uint64_t c1 = gasneti_now_ns();
  uint64_t ns = gasnett_ticks_to_ns(t1 - t0);
  GASNETT__CHECK(ns >= 2000000 && ns <= c1 - c0,
                 "a 2 ms sleep took %" PRIu64 " ns by ticks, %" PRIu64 " by clock_gettime",
                 ns, c1 - c0);
  double g = gasnett_tick_granularityus(), o = gasnett_tick_overheadus();
  GASNETT__CHECK(g > 0 && g < GASNETT__DIAG_TIMER_SANE_US, "granularity %g us", g);
  GASNETT__CHECK(o > 0 && o < GASNETT__DIAG_TIMER_SANE_US, "overhead %g us", o);
}

/* ---- A: atomics ---------------------------------------------------------- */
#define GASNETT__DIAG_ATOMIC_FAMILY(P, T, BIG)                                       \
  static void gasnett__diag_##P(void) {                                               \
    P##_t a = P##_init(5);                                                            \
    GASNETT__CHECK(P##_read(&a, 0) == 5, #P " init");                                 \
    P##_set(&a, BIG, GASNETT_ATOMIC_REL);                                             \
    GASNETT__CHECK(P##_read(&a, GASNETT_ATOMIC_ACQ) == (T)BIG, #P " set/read");      \
    P##_increment(&a, GASNETT_ATOMIC_MB_PRE);                                         \
    GASNETT__CHECK(P##_read(&a, 0) == (T)(BIG + 1), #P " increment");                 \
    P##_decrement(&a, GASNETT_ATOMIC_MB_POST);                                        \
    GASNETT__CHECK(P##_add(&a, 10, 0) == (T)(BIG + 10), #P " add returns the new value"); \
    GASNETT__CHECK(P##_subtract(&a, 10, 0) == (T)BIG, #P " subtract returns the new value"); \
    GASNETT__CHECK(P##_swap(&a, 1, 0) == (T)BIG, #P " swap returns the old value");   \
    GASNETT__CHECK(P##_decrement_and_test(&a, GASNETT_ATOMIC_ACQ_IF_TRUE), #P " 1->0 is zero"); \
    GASNETT__CHECK(!P##_decrement_and_test(&a, 0) && P##_read(&a, 0) == (T)-1,        \
                   #P " 0->max is not zero");                                         \
    GASNETT__CHECK(!P##_compare_and_swap(&a, 3, 4, GASNETT_ATOMIC_ACQ_IF_FALSE),      \
                   #P " CAS with a wrong old value fails");                           \
    GASNETT__CHECK(P##_compare_and_swap(&a, (T)-1, 7, GASNETT_ATOMIC_MB_PRE |         \
                   GASNETT_ATOMIC_MB_POST) && P##_read(&a, 0) == 7, #P " CAS succeeds"); \
  }
GASNETT__DIAG_ATOMIC_FAMILY(gasnett_atomic, uint32_t, 0xfffffff0u)
GASNETT__DIAG_ATOMIC_FAMILY(gasnett_strongatomic, uint32_t, 0xfffffff0u)
GASNETT__DIAG_ATOMIC_FAMILY(gasnett_atomic32, uint32_t, 0xfffffff0u)
GASNETT__DIAG_ATOMIC_FAMILY(gasnett_strongatomic32, uint32_t, 0xfffffff0u)
GASNETT__DIAG_ATOMIC_FAMILY(gasnett_atomic64, uint64_t, 0xfffffffff0ull)
GASNETT__DIAG_ATOMIC_FAMILY(gasnett_strongatomic64, uint64_t, 0xfffffffff0ull)

/* Shared by the threads of one parallel run. */
static struct {
  int iters;
  gasnett_atomic_t inc;     /* each thread adds 1, iters times */
  gasnett_atomic64_t cas;   /* each thread adds 1 by CAS, iters times */
  gasnett_mutex_t lock;
  uint64_t locked_count;    /* plain variable under lock */
} gasnett__par;

static void *gasnett__diag_worker(void *arg) {
  (void)arg;
  for (int i = 0; i < gasnett__par.iters; i++) {
    gasnett_atomic_increment(&gasnett__par.inc, 0);
    uint64_t old;
    do old = gasnett_atomic64_read(&gasnett__par.cas, 0);
    while (!gasnett_atomic64_compare_and_swap(&gasnett__par.cas, old, old + 1, 0));
    gasnett_mutex_lock(&gasnett__par.lock);
    gasnett__par.locked_count++;
    gasnett_mutex_unlock(&gasnett__par.lock);
  }
  return NULL;
}

/* threads threads at once; 0: the work of one, in this thread. */
static void gasnett__diag_parallel(int iters, int threads) {
  pthread_t tid[64];
  if (threads > 64) threads = 64;
  gasnett__par.iters = iters;
  gasnett_atomic_set(&gasnett__par.inc, 0, 0);
  gasnett_atomic64_set(&gasnett__par.cas, 0, 0);
  gasnett_mutex_init(&gasnett__par.lock);
  gasnett__par.locked_count = 0;
  int started = 0;
  for (; started < threads; started++)
    if (pthread_create(&tid[started], NULL, gasnett__diag_worker, NULL) != 0) break;
  GASNETT__CHECK(started == threads, "started %d of %d threads", started, threads);
  for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
  if (threads == 0) gasnett__diag_worker(NULL), started = 1;
  uint64_t want = (uint64_t)iters * (uint64_t)started;
  GASNETT__CHECK(gasnett_atomic_read(&gasnett__par.inc, 0) == (uint32_t)want,
                 "%d threads x %d increments gave %u", started, iters,
                 (unsigned)gasnett_atomic_read(&gasnett__par.inc, 0));
  GASNETT__CHECK(gasnett_atomic64_read(&gasnett__par.cas, 0) == want,
                 "%d threads x %d CAS increments gave %" PRIu64, started, iters,
                 gasnett_atomic64_read(&gasnett__par.cas, 0));
  GASNETT__CHECK(gasnett__par.locked_count == want, "mutex-protected count %" PRIu64
                 " of %" PRIu64, gasnett__par.locked_count, want);
  gasnett_mutex_destroy(&gasnett__par.lock);
}

static void gasnett__diag_atomics(int iters, int threads) {
  gasnett__diag_gasnett_atomic();
  gasnett__diag_gasnett_strongatomic();
  gasnett__diag_gasnett_atomic32();
  gasnett__diag_gasnett_strongatomic32();
  gasnett__diag_gasnett_atomic64();
  gasnett__diag_gasnett_strongatomic64();
  double d = 1.5;
  gasnett_atomic64_t *dp = (gasnett_atomic64_t *)&d;
  double two = 2.0;
  uint64_t bits;
  memcpy(&bits, &two, sizeof bits);
  gasnett_atomic64_set(dp, bits, 0);
  GASNETT__CHECK(d == 2.0, "64-bit atomic set on double storage gave %g", d);
#if defined(GASNETT_THREAD_SAFE)
  gasnett__diag_parallel(iters, threads);
#else
  (void)threads;
  gasnett__diag_parallel(iters, 0);
#endif
}

/* ---- L: locks ---------------------------------------------------------- */
#if defined(GASNETT_THREAD_SAFE)
static struct {
  gasnett_mutex_t m;
  gasnett_cond_t c;
  int turn, rounds; /* ping-pong: the main thread waits for odd turns */
} gasnett__pp = {GASNETT_MUTEX_INITIALIZER, GASNETT_COND_INITIALIZER, 0, 0};

static void gasnett__pp_play(int parity) {
  for (int r = 0; r < gasnett__pp.rounds; r++) {
    gasnett_mutex_lock(&gasnett__pp.m);
    while (gasnett__pp.turn % 2 != parity) gasnett_cond_wait(&gasnett__pp.c, &gasnett__pp.m);
    gasnett__pp.turn++;
    gasnett_cond_broadcast(&gasnett__pp.c);
    gasnett_mutex_unlock(&gasnett__pp.m);
  }
}

static void *gasnett__pp_thread(void *arg) {
  (void)arg;
  gasnett__pp_play(1);
  return NULL;
}

static void *gasnett__trylock_thread(void *m) {
  return (void *)(intptr_t)gasnett_mutex_trylock((gasnett_mutex_t *)m);
}
#endif

/* A trylock from another thread, or (THREAD_SINGLE) from this one: a
 * default mutex is not recursive, so either way it is busy. */
static int gasnett__trylock_elsewhere(gasnett_mutex_t *m) {
#if defined(GASNETT_THREAD_SAFE)
  pthread_t t;
  void *rc = NULL;
  if (pthread_create(&t, NULL, gasnett__trylock_thread, m) != 0) return -1;
  pthread_join(t, &rc);
  return (int)(intptr_t)rc;
#else
  return gasnett_mutex_trylock(m);
#endif
}

static void gasnett__diag_locks(int iters) {
  gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;
  GASNETT__CHECK(gasnett_mutex_trylock(&m) == 0, "trylock of a free mutex");
  int busy = gasnett__trylock_elsewhere(&m);
  GASNETT__CHECK(busy == EBUSY, "trylock of a held mutex gave %d", busy);
  gasnett_mutex_unlock(&m);
  gasnett_rwlock_t rw = GASNETT_RWLOCK_INITIALIZER;
  GASNETT__CHECK(gasnett_rwlock_rdlock(&rw) == 0 && gasnett_rwlock_tryrdlock(&rw) == 0,
                 "two readers");
  GASNETT__CHECK(gasnett_rwlock_trywrlock(&rw) == EBUSY, "a writer waits for readers");
  gasnett_rwlock_unlock(&rw);
  gasnett_rwlock_unlock(&rw);
  GASNETT__CHECK(gasnett_rwlock_wrlock(&rw) == 0 && gasnett_rwlock_tryrdlock(&rw) == EBUSY,
                 "a reader waits for the writer");
  gasnett_rwlock_unlock(&rw);
#if defined(GASNETT_THREAD_SAFE)
  pthread_t t;
  gasnett__pp.turn = 0;
  gasnett__pp.rounds = iters;
  if (pthread_create(&t, NULL, gasnett__pp_thread, NULL) != 0) return;
  gasnett__pp_play(0);
  pthread_join(t, NULL);
  GASNETT__CHECK(gasnett__pp.turn == 2 * iters, "cond ping-pong: %d turns of %d",
                 gasnett__pp.turn, 2 * iters);
#else
  (void)iters;
#endif
}

/* ---- K: thread keys ---------------------------------------------------- */
GASNETT_THREADKEY_DEFINE(gasnett__diag_key);

#if defined(GASNETT_THREAD_SAFE)
static void *gasnett__key_thread(void *arg) {
  void *was = gasnett_threadkey_get(gasnett__diag_key);
  gasnett_threadkey_set(gasnett__diag_key, arg);
  return gasnett_threadkey_get(gasnett__diag_key) == arg ? was : arg;
}
#endif

static void gasnett__diag_keys(void) {
  int mine, theirs;
  gasnett_threadkey_init(gasnett__diag_key);
  gasnett_threadkey_set(gasnett__diag_key, &mine);
#if defined(GASNETT_THREAD_SAFE)
  pthread_t t;
  void *res = &mine;
  if (pthread_create(&t, NULL, gasnett__key_thread, &theirs) == 0) pthread_join(t, &res);
  GASNETT__CHECK(res == NULL, "a new thread's key starts NULL and keeps its own value");
#else
  (void)theirs;
#endif
  GASNETT__CHECK(gasnett_threadkey_get(gasnett__diag_key) == &mine, "main thread's key");
}

/* ---- F: formatting, parsing, checksums --------------------------------- */
static void gasnett__diag_roundtrip(int64_t v) {
  char buf[64];
  for (int ismem = 0; ismem <= 1; ismem++) {
    gasnett_format_number(v, buf, sizeof buf, ismem);
    int64_t back = 0;
    const char *why = gasnett__parse_int(buf, ismem, &back);
    GASNETT__CHECK(!why && back == v, "format %" PRId64 " (ismem %d) -> '%s' -> %" PRId64,
                   v, ismem, buf, back);
  }
}

/* seed: the start of the xorshift sequence of values tried (0: a fixed one). */
static void gasnett__diag_format(int iters, uint64_t seed) {
  uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < iters; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    gasnett__diag_roundtrip((int64_t)(x >> (i % 64)) * (i % 2 ? -1 : 1));
    gasnett__diag_roundtrip((int64_t)(i % 1000) << (10 * (i % 5)));
  }
  int64_t v = 0;
  GASNETT__CHECK(!gasnett__parse_int("1.5KB", 1, &v) && v == 1536, "1.5KB -> %" PRId64, v);
  GASNETT__CHECK(!gasnett__parse_int("0x10", 0, &v) && v == 16, "0x10 -> %" PRId64, v);
  GASNETT__CHECK(!gasnett__parse_int("3", 1 << 20, &v) && v == 3 << 20, "3 MB-units");
  GASNETT__CHECK(gasnett__parse_int("12abc", 1, &v) != NULL, "12abc is rejected");
  GASNETT__CHECK(gasnett__parse_int("4K", 0, &v) != NULL, "4K is not a plain number");
  GASNETT__CHECK(gasnett_checksum("a", 1) == 0xaf63dc4c8601ec8cull, "FNV-1a of \"a\"");
  GASNETT__CHECK(gasnett_checksum("", 0) == 0xcbf29ce484222325ull, "FNV-1a of nothing");
  char src[8] = {1, 0, 2, 0, 0, 3, 4, 0}, dst[8];
  GASNETT__CHECK(gasnett_count0s_copy(dst, src, 8) == 4 && !memcmp(dst, src, 8), "count0s_copy");
  GASNETT__CHECK(gasnett_count0s_uint32_t(0x00ff0000u) == 3, "count0s_uint32_t");
  GASNETT__CHECK(gasnett_count0s_uint64_t(0x0100000000000001ull) == 6, "count0s_uint64_t");
}

static int gasnett__diag_wants(const char *sections, char s) {
  return !sections || !*sections || strchr(sections, s) || strchr(sections, s + 'a' - 'A');
}

/* The team, segments and peer are GASNet's arguments for communication
 * tests; these tests are local (docs/tools.md). */
int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections,
                            struct gasnetc_team *myteam, void *myseg, uint32_t peer,
                            void *peerseg, uint64_t seed) {
  GASNETT_UNUSED_ARGS4(myteam, myseg, peer, peerseg);
  if (iters <= 0) iters = 1000;
  if (threadcnt <= 1) threadcnt = 2;
  gasnett__diag_failures = 0;
  if (gasnett__diag_wants(testsections, 'T')) gasnett__diag_timers(iters);
  if (gasnett__diag_wants(testsections, 'A')) gasnett__diag_atomics(iters, threadcnt);
  if (gasnett__diag_wants(testsections, 'L')) gasnett__diag_locks(iters);
  if (gasnett__diag_wants(testsections, 'K')) gasnett__diag_keys();
  if (gasnett__diag_wants(testsections, 'F')) gasnett__diag_format(iters, seed);
  return gasnett__diag_failures;
}
