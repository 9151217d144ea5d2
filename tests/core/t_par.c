/*
 * t_par.c - GASNET_PAR: THREADS threads per node send requests to random
 * nodes (self included), poll, and wait for their replies at the same time.
 * Handlers update a node-wide total under an HSL and per-thread counters
 * with atomics. Node 0 checks at the end that the requests handled on all
 * nodes equal the requests sent. Run under ThreadSanitizer by t-par.sh when
 * the TSan build exists.
 */
#define GASNET_PAR 1
#include "t_util.h"
#include <pthread.h>

#define THREADS 4
#define PER_THREAD_DEFAULT 2000

static long per_thread = PER_THREAD_DEFAULT;
static int replies[THREADS];             /* atomics */
static gasnet_hsl_t total_lock = GASNET_HSL_INITIALIZER;
static long handled_total;               /* under total_lock */
static long grand_sent, grand_handled;   /* node 0, under total_lock */
static int totals_in;

static void req_short(gasnet_token_t token, gasnet_handlerarg_t tid, gasnet_handlerarg_t seq) {
  gasnet_hsl_lock(&total_lock);
  handled_total++;
  gasnet_hsl_unlock(&total_lock);
  gasnet_AMReplyShort2(token, 129, tid, seq);
}
static void rep_short(gasnet_token_t token, gasnet_handlerarg_t tid, gasnet_handlerarg_t seq) {
  (void)token; (void)seq;
  __atomic_fetch_add(&replies[tid], 1, __ATOMIC_RELEASE);
}
static void req_medium(gasnet_token_t token, void *buf, size_t n, gasnet_handlerarg_t tid) {
  T_EXPECT(t_verify(buf, n), "medium payload of %zu bytes corrupt", n);
  gasnet_hsl_lock(&total_lock);
  handled_total++;
  gasnet_hsl_unlock(&total_lock);
  gasnet_AMReplyMedium1(token, 131, buf, n, tid);
}
static void rep_medium(gasnet_token_t token, void *buf, size_t n, gasnet_handlerarg_t tid) {
  (void)token;
  T_EXPECT(t_verify(buf, n), "medium reply of %zu bytes corrupt", n);
  __atomic_fetch_add(&replies[tid], 1, __ATOMIC_RELEASE);
}
static void total_handler(gasnet_token_t token, gasnet_handlerarg_t s, gasnet_handlerarg_t h) {
  (void)token;
  gasnet_hsl_lock(&total_lock);
  grand_sent += s; grand_handled += h;
  __atomic_fetch_add(&totals_in, 1, __ATOMIC_RELEASE);
  gasnet_hsl_unlock(&total_lock);
}

static void *worker(void *arg) {
  int tid = (int)(intptr_t)arg;
  uint64_t r = 0x9e3779b97f4a7c15ull * (gasnet_mynode() * THREADS + tid + 1);
  char *buf = malloc(4096);
  for (long i = 0; i < per_thread; i++) {
    r ^= r << 13; r ^= r >> 7; r ^= r << 17;
    gasnet_node_t dest = (gasnet_node_t)(r % gasnet_nodes());
    if (i % 2) {
      T_CHECK(gasnet_AMRequestShort2(dest, 128, tid, (gasnet_handlerarg_t)i));
    } else {
      size_t n = (size_t)(r >> 20) % 4096;
      t_fill(buf, n, (uint32_t)r);
      T_CHECK(gasnet_AMRequestMedium1(dest, 130, buf, n, tid));
    }
    if (i % 8 == 7) /* at most 8 in flight per thread */
      GASNET_BLOCKUNTIL(__atomic_load_n(&replies[tid], __ATOMIC_ACQUIRE) == i + 1);
    else
      gasnet_AMPoll();
  }
  GASNET_BLOCKUNTIL(__atomic_load_n(&replies[tid], __ATOMIC_ACQUIRE) == per_thread);
  free(buf);
  return NULL;
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  if (argc > 1) per_thread = atol(argv[1]);
  gasnet_handlerentry_t table[] = {
    { 128, (void (*)())req_short }, { 129, (void (*)())rep_short },
    { 130, (void (*)())req_medium }, { 131, (void (*)())rep_medium },
    { 132, (void (*)())total_handler }, T_BARRIER_HANDLERS };
  T_CHECK(gasnet_attach(table, 7, 0, 0));
  t_barrier();
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
  for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  long sent = per_thread * THREADS;
  printf("node %u: %d threads sent %ld requests, got %ld replies\n", (unsigned)gasnet_mynode(),
         THREADS, sent, sent);
  fflush(stdout);
  t_barrier();
  gasnet_hsl_lock(&total_lock);
  long handled = handled_total;
  gasnet_hsl_unlock(&total_lock);
  T_CHECK(gasnet_AMRequestShort2(0, 132, (gasnet_handlerarg_t)sent, (gasnet_handlerarg_t)handled));
  if (gasnet_mynode() == 0) {
    GASNET_BLOCKUNTIL(__atomic_load_n(&totals_in, __ATOMIC_ACQUIRE) == (int)gasnet_nodes());
    gasnet_hsl_lock(&total_lock);
    long s = grand_sent, h = grand_handled;
    gasnet_hsl_unlock(&total_lock);
    T_EXPECT(s == h, "requests sent %ld, handled %ld", s, h);
    printf("node 0: all nodes: %ld requests sent, %ld handled: equal\n", s, h);
    fflush(stdout);
  }
  t_barrier();
  gasnet_exit(0);
}
