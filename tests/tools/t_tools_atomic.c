/*
 * t_tools_atomic.c - atomics of every width and strength with every fence
 * flag, memory barriers, locks and thread keys; under THREAD_SAFE with two
 * threads and exact final counts.
 */
#include "t_tools_util.h"

#include <pthread.h>

static const int t_flags[] = {
    GASNETT_ATOMIC_NONE, GASNETT_ATOMIC_REL, GASNETT_ATOMIC_ACQ,
    GASNETT_ATOMIC_MB_PRE, GASNETT_ATOMIC_MB_POST, GASNETT_ATOMIC_RMB_PRE,
    GASNETT_ATOMIC_WMB_PRE, GASNETT_ATOMIC_RMB_POST, GASNETT_ATOMIC_WMB_POST,
    GASNETT_ATOMIC_ACQ_IF_TRUE, GASNETT_ATOMIC_ACQ_IF_FALSE,
    GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST, GASNETT_ATOMIC_REL | GASNETT_ATOMIC_ACQ,
};
#define T_NFLAGS (int)(sizeof t_flags / sizeof t_flags[0])

/* Every operation of family P (value type T) under flags f, each result
 * compared; 0 if all matched. */
#define T_FAMILY_SERIAL(P, T, BIG)                                             \
  static int t_serial_##P(int f) {                                             \
    P##_t a = P##_init(BIG);                                                   \
    int bad = P##_read(&a, f) != (T)(BIG);                                     \
    P##_set(&a, 1, f);                                                         \
    bad += P##_read(&a, f) != 1;                                               \
    P##_increment(&a, f);                                                      \
    bad += P##_read(&a, f) != 2;                                               \
    P##_decrement(&a, f);                                                      \
    bad += P##_decrement_and_test(&a, f) != 1 || P##_read(&a, f) != 0;         \
    bad += P##_decrement_and_test(&a, f) != 0 || P##_read(&a, f) != (T)-1;     \
    bad += P##_compare_and_swap(&a, 5, 6, f) != 0 || P##_read(&a, f) != (T)-1; \
    bad += P##_compare_and_swap(&a, (T)-1, 6, f) == 0 || P##_read(&a, f) != 6; \
    bad += P##_swap(&a, (T)(BIG), f) != 6 || P##_read(&a, f) != (T)(BIG);      \
    bad += P##_add(&a, 3, f) != (T)((BIG) + 3);                                \
    bad += P##_subtract(&a, 4, f) != (T)((BIG) - 1);                           \
    return bad;                                                                \
  }
T_FAMILY_SERIAL(gasnett_atomic, gasnett_atomic_val_t, 0x80000001u)
T_FAMILY_SERIAL(gasnett_strongatomic, gasnett_atomic_val_t, 0x80000001u)
T_FAMILY_SERIAL(gasnett_atomic32, uint32_t, 0x80000001u)
T_FAMILY_SERIAL(gasnett_strongatomic32, uint32_t, 0x80000001u)
T_FAMILY_SERIAL(gasnett_atomic64, uint64_t, 0x8000000100000001ull)
T_FAMILY_SERIAL(gasnett_strongatomic64, uint64_t, 0x8000000100000001ull)

/* Shared counters of the parallel run: increments, adds, CAS-adds,
 * decrement_and_test hits of zero (one per thread's batch). */
static struct {
  int iters;
  gasnett_atomic_t inc;
  gasnett_strongatomic_t sinc;
  gasnett_atomic32_t add32;
  gasnett_strongatomic64_t cas64;
  gasnett_atomic64_t down;
  gasnett_atomic_t zero_hits;
} t_par;

static void *t_par_worker(void *arg) {
  (void)arg;
  for (int i = 0; i < t_par.iters; i++) {
    gasnett_atomic_increment(&t_par.inc, 0);
    gasnett_strongatomic_increment(&t_par.sinc, GASNETT_ATOMIC_MB_POST);
    gasnett_atomic32_add(&t_par.add32, 3, GASNETT_ATOMIC_REL);
    uint64_t old;
    do old = gasnett_strongatomic64_read(&t_par.cas64, GASNETT_ATOMIC_ACQ);
    while (!gasnett_strongatomic64_compare_and_swap(&t_par.cas64, old, old + 2, 0));
    if (gasnett_atomic64_decrement_and_test(&t_par.down, GASNETT_ATOMIC_ACQ_IF_TRUE))
      gasnett_atomic_increment(&t_par.zero_hits, 0);
  }
  return NULL;
}

static void t_parallel(int iters) {
  int threads = 2;
#if defined(GASNETT_THREAD_SINGLE)
  threads = 0; /* THREAD_SINGLE: one thread, the same counts */
#endif
  t_par.iters = iters;
  gasnett_atomic64_set(&t_par.down, (uint64_t)iters * (threads ? threads : 1), 0);
  pthread_t tid[2];
  for (int i = 0; i < threads; i++) pthread_create(&tid[i], NULL, t_par_worker, NULL);
  for (int i = 0; i < threads; i++) pthread_join(tid[i], NULL);
  if (threads == 0) t_par_worker(NULL), threads = 1;
  uint64_t n = (uint64_t)iters * threads;
  T_OK(gasnett_atomic_read(&t_par.inc, 0) == (uint32_t)n &&
           gasnett_strongatomic_read(&t_par.sinc, 0) == (uint32_t)n &&
           gasnett_atomic32_read(&t_par.add32, 0) == (uint32_t)(3 * n) &&
           gasnett_strongatomic64_read(&t_par.cas64, 0) == 2 * n,
       "%d thread(s) x %d: increments %u %u (want %" PRIu64 "), add32 %u (want %" PRIu64
       "), CAS64 %" PRIu64 " (want %" PRIu64 ")",
       threads, iters, (unsigned)gasnett_atomic_read(&t_par.inc, 0),
       (unsigned)gasnett_strongatomic_read(&t_par.sinc, 0), n,
       (unsigned)gasnett_atomic32_read(&t_par.add32, 0), 3 * n,
       gasnett_strongatomic64_read(&t_par.cas64, 0), 2 * n);
  T_OK(gasnett_atomic_read(&t_par.zero_hits, 0) == 1 && gasnett_atomic64_read(&t_par.down, 0) == 0,
       "decrement_and_test from %" PRIu64 ": zero seen %u time(s) (want 1)", n,
       (unsigned)gasnett_atomic_read(&t_par.zero_hits, 0));
}

void t_atomics(int iters) {
  T_SECTION("atomics");
  int bad[6] = {0};
  for (int i = 0; i < T_NFLAGS; i++) {
    bad[0] += t_serial_gasnett_atomic(t_flags[i]);
    bad[1] += t_serial_gasnett_strongatomic(t_flags[i]);
    bad[2] += t_serial_gasnett_atomic32(t_flags[i]);
    bad[3] += t_serial_gasnett_strongatomic32(t_flags[i]);
    bad[4] += t_serial_gasnett_atomic64(t_flags[i]);
    bad[5] += t_serial_gasnett_strongatomic64(t_flags[i]);
  }
  T_OK(!bad[0] && !bad[1] && !bad[2] && !bad[3] && !bad[4] && !bad[5],
       "every op of atomic, strongatomic, atomic32, strongatomic32, atomic64, strongatomic64 "
       "under %d fence-flag sets: %d %d %d %d %d %d mismatches",
       T_NFLAGS, bad[0], bad[1], bad[2], bad[3], bad[4], bad[5]);
  double d = 0.0;
  gasnett_atomic64_t *dp = (gasnett_atomic64_t *)&d;
  double v = 3.25;
  uint64_t bits, oldbits;
  memcpy(&bits, &v, sizeof bits);
  oldbits = gasnett_atomic64_swap(dp, bits, 0);
  T_OK(d == 3.25 && oldbits == 0 && gasnett_atomic64_read(dp, 0) == bits,
       "64-bit atomics on double storage: swap in 3.25 gives %g", d);
  T_OK(sizeof(gasnett_atomic64_t) == 8 && sizeof(gasnett_atomic32_t) == 4 &&
           __alignof__(gasnett_atomic64_t) == 8,
       "natural sizes: atomic32 %zu, atomic64 %zu bytes", sizeof(gasnett_atomic32_t),
       sizeof(gasnett_atomic64_t));
  T_OK(GASNETT_ATOMIC_MAX == 0xffffffffu && GASNETT_ATOMIC_SIGNED_MIN == INT32_MIN &&
           GASNETT_ATOMIC_SIGNED_MAX == INT32_MAX &&
           gasnett_atomic_signed(GASNETT_ATOMIC_MAX) == -1 &&
           gasnett_atomic_signed((gasnett_atomic_val_t)5) == 5,
       "ATOMIC_MAX %u, SIGNED_MIN %d, SIGNED_MAX %d, signed(MAX) %d",
       (unsigned)GASNETT_ATOMIC_MAX, (int)GASNETT_ATOMIC_SIGNED_MIN,
       (int)GASNETT_ATOMIC_SIGNED_MAX, (int)gasnett_atomic_signed(GASNETT_ATOMIC_MAX));
  gasnett_local_wmb();
  gasnett_local_rmb();
  gasnett_local_mb();
  gasnett_compiler_fence();
  gasnett_weak_wmb();
  gasnett_weak_rmb();
  gasnett_weak_mb();
  t_parallel(iters);
}

/* ---- locks and keys ------------------------------------------------------ */
static gasnett_mutex_t t_m = GASNETT_MUTEX_INITIALIZER;
static gasnett_cond_t t_c = GASNETT_COND_INITIALIZER;
static gasnett_rwlock_t t_rw = GASNETT_RWLOCK_INITIALIZER;
static int t_turn;
GASNETT_THREADKEY_DECLARE(t_key);
GASNETT_THREADKEY_DEFINE(t_key);

static gasnett_atomic_t t_tried = gasnett_atomic_init(0);

static void *t_other_thread(void *arg) {
  intptr_t busy = gasnett_mutex_trylock(&t_m); /* held by main: EBUSY */
  if (busy == 0) gasnett_mutex_unlock(&t_m);    /* (a failure: do not deadlock) */
  gasnett_atomic_set(&t_tried, 1, GASNETT_ATOMIC_REL);
  void *key_at_start = gasnett_threadkey_get(t_key);
  gasnett_threadkey_set(t_key, arg);
  int rd = gasnett_rwlock_tryrdlock(&t_rw); /* main holds it for reading */
  if (rd == 0) gasnett_rwlock_unlock(&t_rw);
  gasnett_mutex_lock(&t_m); /* released by the main thread's cond_wait */
  t_turn = 1;
  gasnett_cond_broadcast(&t_c);
  gasnett_mutex_unlock(&t_m);
  return (key_at_start == NULL && gasnett_threadkey_get(t_key) == arg && rd == 0)
             ? (void *)busy : (void *)-1;
}

void t_locks_and_keys(void) {
  T_SECTION("mutex, cond, rwlock, thread keys");
  void *at_start = gasnett_threadkey_get_noinit(t_key);
  gasnett_threadkey_init(t_key);
  int mine = 0, theirs = 0;
  gasnett_threadkey_set_noinit(t_key, &mine);
  T_OK(at_start == NULL && gasnett_threadkey_get(t_key) == &mine, "key starts NULL, then set");
  T_OK(gasnett_mutex_trylock(&t_m) == 0, "trylock of a free mutex: 0");
  gasnett_rwlock_rdlock(&t_rw);
#if defined(GASNETT_THREAD_SAFE)
  pthread_t t;
  pthread_create(&t, NULL, t_other_thread, &theirs);
  while (!gasnett_atomic_read(&t_tried, GASNETT_ATOMIC_ACQ)) gasnett_sched_yield();
  while (!t_turn) gasnett_cond_wait(&t_c, &t_m); /* bounded: the thread sets it */
  gasnett_mutex_unlock(&t_m);
  void *res;
  pthread_join(t, &res);
  T_OK((intptr_t)res == EBUSY, "other thread: trylock of the held mutex %d (EBUSY %d), "
       "its key started NULL and kept its value, read lock shared", (int)(intptr_t)res, EBUSY);
  T_OK(gasnett_threadkey_get(t_key) == &mine, "main thread's key unchanged");
#else
  (void)theirs;
  (void)t_other_thread;
  (void)t_tried;
  T_OK(gasnett_mutex_trylock(&t_m) == EBUSY, "trylock of the held mutex: EBUSY");
  gasnett_mutex_unlock(&t_m);
  gasnett_cond_broadcast(&t_c);
#endif
  T_OK(gasnett_rwlock_trywrlock(&t_rw) == EBUSY, "writer excluded by a reader");
  gasnett_rwlock_unlock(&t_rw);
  T_OK(gasnett_rwlock_wrlock(&t_rw) == 0 && gasnett_rwlock_tryrdlock(&t_rw) == EBUSY,
       "reader excluded by the writer");
  gasnett_rwlock_unlock(&t_rw);
  gasnett_mutex_t m2;
  gasnett_cond_t c2;
  gasnett_rwlock_t rw2;
  T_OK(gasnett_mutex_init(&m2) == 0 && gasnett_cond_init(&c2) == 0 && gasnett_rwlock_init(&rw2) == 0 &&
           gasnett_mutex_lock(&m2) == 0 && gasnett_cond_signal(&c2) == 0 &&
           gasnett_mutex_unlock(&m2) == 0 && gasnett_mutex_destroy(&m2) == 0 &&
           gasnett_cond_destroy(&c2) == 0 && gasnett_rwlock_destroy(&rw2) == 0,
       "init/lock/signal/unlock/destroy");
}
