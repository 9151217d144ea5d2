/*
 * t_amtcp_par.c - GASNET_PAR over tcp with large frames: THREADS threads per
 * node each send ROUNDS 1 MiB Longs (2 slots per sending thread in every
 * target's segment, at most 2 unanswered) and Mediums of 0..64 KiB to
 * random other nodes, while all of them poll. Every payload is checked by
 * its handler (t_verify, seed), replies are counted per thread, and node 0
 * checks the job-wide total. With small socket buffers (GASNET_TCP_SOCKBUF)
 * frames are queued, written in pieces and waited on (zero copy) by several
 * threads at once: the paths t-par.sh runs under ThreadSanitizer.
 *
 *   gasnetrun_tcp -n N t_amtcp_par [ROUNDS]
 */
#define GASNET_PAR 1
#include "../core/t_util.h"
#include <pthread.h>

#define THREADS 3
#define BIG (1u << 20)

enum { H_LONG = 128, H_MED, H_ACK, H_TOTAL };

static gasnet_seginfo_t *seg;
static long rounds = 20;
static int acks[THREADS];                /* atomics */
static long handled, bad, grand, grand_bad, totals_in; /* atomics */

static uint32_t seed_of(uint32_t src, uint32_t tid, uint32_t i) {
  return t_mix(src * 0x10001u ^ tid * 0x3fffu ^ i * 0x9e37u ^ 0x9a5);
}
static void check(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t tid,
                  gasnet_handlerarg_t i) {
  gasnet_node_t src;
  gasnet_AMGetMsgSource(t, &src);
  uint32_t seed = 0;
  if (n >= 4) memcpy(&seed, buf, 4);
  if (!t_verify(buf, n) || (n >= 4 && seed != seed_of(src, (uint32_t)tid, (uint32_t)i))) {
    fprintf(stderr, "node %u: BAD payload from node %u thread %d message %d (%zu bytes)\n",
            (unsigned)gasnet_mynode(), (unsigned)src, (int)tid, (int)i, n);
    __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
  }
  __atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
  gasnet_AMReplyShort1(t, H_ACK, tid);
}
static void h_long(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t tid,
                   gasnet_handlerarg_t i) { check(t, buf, n, tid, i); }
static void h_med(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t tid,
                  gasnet_handlerarg_t i) { check(t, buf, n, tid, i); }
static void h_ack(gasnet_token_t t, gasnet_handlerarg_t tid) {
  (void)t;
  __atomic_fetch_add(&acks[tid], 1, __ATOMIC_RELAXED);
}
static void h_total(gasnet_token_t t, gasnet_handlerarg_t h, gasnet_handlerarg_t b) {
  (void)t;
  __atomic_fetch_add(&grand, h, __ATOMIC_RELAXED);
  __atomic_fetch_add(&grand_bad, b, __ATOMIC_RELAXED);
  __atomic_fetch_add(&totals_in, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg) {
  int tid = (int)(intptr_t)arg;
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  char *buf = malloc(BIG);
  uint64_t rng = 0x9e3779b97f4a7c15ull * (me * THREADS + tid + 1);
  int sent = 0;
  for (int i = 0; i < 2 * rounds; i++) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    gasnet_node_t d = (gasnet_node_t)((me + 1 + (rng >> 33) % (n - 1)) % n);
    GASNET_BLOCKUNTIL(sent - __atomic_load_n(&acks[tid], __ATOMIC_RELAXED) < 2);
    if (i % 2 == 0) { /* a 1 MiB Long into this thread's slot i/2 % 2 */
      size_t slot = ((size_t)me * THREADS + (size_t)tid) * 2 + (size_t)(i / 2 % 2);
      t_fill(buf, BIG, seed_of(me, (uint32_t)tid, (uint32_t)i));
      T_CHECK(gasnet_AMRequestLong2(d, H_LONG, buf, BIG, (char *)seg[d].addr + slot * BIG, tid, i));
    } else {
      size_t len = (size_t)((rng >> 20) % (gasnet_AMMaxMedium() + 1));
      t_fill(buf, len, seed_of(me, (uint32_t)tid, (uint32_t)i));
      T_CHECK(gasnet_AMRequestMedium2(d, H_MED, buf, len, tid, i));
    }
    sent++;
  }
  GASNET_BLOCKUNTIL(__atomic_load_n(&acks[tid], __ATOMIC_RELAXED) == sent);
  free(buf);
  return NULL;
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  if (argc > 1) rounds = atol(argv[1]);
  gasnet_handlerentry_t table[] = {
    { H_LONG, (void (*)())h_long }, { H_MED, (void (*)())h_med },
    { H_ACK, (void (*)())h_ack }, { H_TOTAL, (void (*)())h_total }, T_BARRIER_HANDLERS,
  };
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  if (n < 2) {
    fprintf(stderr, "t_amtcp_par: run on 2 nodes or more\n");
    gasnet_exit(2);
  }
  T_CHECK(gasnet_attach(table, sizeof table / sizeof table[0], (uintptr_t)n * THREADS * 2 * BIG, 0));
  seg = malloc(sizeof *seg * n);
  T_CHECK(gasnet_getSegmentInfo(seg, n));
  t_barrier();
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  t_barrier(); /* every request sent has been handled somewhere */
  T_CHECK(gasnet_AMRequestShort2(0, H_TOTAL, (gasnet_handlerarg_t)__atomic_load_n(&handled, __ATOMIC_RELAXED),
                                 (gasnet_handlerarg_t)__atomic_load_n(&bad, __ATOMIC_RELAXED)));
  if (me == 0) {
    GASNET_BLOCKUNTIL(__atomic_load_n(&totals_in, __ATOMIC_RELAXED) == n);
    long want = (long)n * THREADS * 2 * rounds;
    long got = __atomic_load_n(&grand, __ATOMIC_RELAXED), b = __atomic_load_n(&grand_bad, __ATOMIC_RELAXED);
    printf("node 0: %d threads x %ld Longs of 1 MiB and %ld Mediums per node; all nodes handled %ld "
           "(expected %ld), %ld bad: %s\n", THREADS, rounds, rounds, got, want, b,
           got == want && b == 0 ? "ok" : "MISMATCH");
    fflush(stdout);
    if (got != want || b) gasnet_exit(4);
  }
  t_barrier();
  gasnet_exit(0);
}
