/*
 * classic_core.c - a client in the style of the classic GASNet-1 core and
 * extended tests, built on classic.h: Medium and Long AM round trips whose
 * payload checksums (gasnett_checksum) the handler returns to the sender,
 * puts and gets checked against a pattern, the harness's two extra
 * handlers, a broadcast of node 0's clock, and in PAR two threads per node
 * counting replies with gasnett_atomic. Prints
 *   node R/N: classic client PASSED (...)
 * and exits non-zero on any error.
 *   classic_core [ITERS]
 */
#include "classic.h"

#define H_PING 201
#define H_PONG 202
#define MAXSZ 65536

/* Replies per sending thread: a thread waits for its own, since its next
 * Long reuses its destination area. */
static gasnett_atomic_t g_pongs[2] = { gasnett_atomic_init(0), gasnett_atomic_init(0) };
static uint64_t g_sent_sum;

static void ping(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t hi, gasnet_handlerarg_t lo,
                 gasnet_handlerarg_t k) {
  uint64_t want = ((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo;
  uint64_t got = gasnett_checksum(buf, (int)n);
  gasnet_AMReplyShort2(t, H_PONG, got == want, k);
}
static void pong(gasnet_token_t t, gasnet_handlerarg_t ok, gasnet_handlerarg_t k) {
  (void)t;
  if (!ok) classic_errs++;
  gasnett_atomic_increment(&g_pongs[k & 1], GASNETT_ATOMIC_REL);
}

GASNETT_THREADKEY_DEFINE(bufkey); /* each thread's payload buffer */

static void am_round_trips(gasnet_node_t peer, void *peer_seg, int iters, unsigned seed, int k) {
  char *buf = (char *)gasnett_threadkey_get(bufkey);
  if (!buf) { buf = (char *)malloc(MAXSZ); gasnett_threadkey_set(bufkey, buf); }
  for (int i = 0; i < iters; i++) {
    size_t n = (size_t)(seed * 2654435761u + (unsigned)i * 40503u) % MAXSZ;
    for (size_t k = 0; k < n; k++) buf[k] = (char)(k * 7 + (size_t)i + seed);
    uint64_t sum = gasnett_checksum(buf, (int)n);
    gasnett_atomic_val_t before = gasnett_atomic_read(&g_pongs[k], 0);
    gasnet_handlerarg_t hi = (gasnet_handlerarg_t)(sum >> 32), lo = (gasnet_handlerarg_t)sum;
    if (i & 1) CLASSIC_CALL(gasnet_AMRequestMedium3(peer, H_PING, buf, n, hi, lo, k));
    else CLASSIC_CALL(gasnet_AMRequestLong3(peer, H_PING, buf, n, peer_seg, hi, lo, k));
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&g_pongs[k], GASNETT_ATOMIC_ACQ) > before);
    __atomic_fetch_add(&g_sent_sum, sum, __ATOMIC_RELAXED);
  }
}

#if defined(HAVE_PTHREAD_H) && defined(GASNET_PAR)
typedef struct { gasnet_node_t peer; void *seg; int iters; unsigned seed; int k; } worker_t;
static void *worker(void *arg) {
  worker_t *w = (worker_t *)arg;
  am_round_trips(w->peer, w->seg, w->iters, w->seed, w->k);
  return NULL;
}
#endif

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = { { H_PING, (void (*)())ping }, { H_PONG, (void (*)())pong } };
  CLASSIC_CALL(gasnet_init(&argc, &argv));
  int iters = argc > 1 ? atoi(argv[1]) : 100;
  if (iters <= 0) { fprintf(stderr, "usage: classic_core [ITERS > 0]\n"); gasnett_killmyprocess(2); }
  int local = classic_local_procs();
  CLASSIC_CALL(gasnet_attach(table, 2, CLASSIC_SEGSZ, CLASSIC_PAGESZ));
  classic_print_info();
  CLASSIC_CHECK(classic_hidx[0] >= 128 && classic_hidx[1] >= 128 && classic_hidx[0] != classic_hidx[1]);
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes(), peer = (me + 1) % n;
  gasnet_seginfo_t *si = (gasnet_seginfo_t *)calloc(n, sizeof *si);
  CLASSIC_CALL(gasnet_getSegmentInfo(si, (int)n));
  gasnet_coll_init(NULL, 0, NULL, 0, 0);
  gasnett_tick_t t0 = gasnett_ticks_now();

  int threads = 1;
#if defined(HAVE_PTHREAD_H) && defined(GASNET_PAR)
  threads = 2;
  pthread_t th[2];
  worker_t w[2];
  for (int k = 0; k < 2; k++) {
    w[k].peer = peer; w[k].seg = (char *)si[peer].addr + (size_t)(2 + k) * MAXSZ;
    w[k].iters = iters; w[k].seed = me * 10u + (unsigned)k; w[k].k = k;
    pthread_create(&th[k], NULL, worker, &w[k]);
  }
  for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
#else
  am_round_trips(peer, (char *)si[peer].addr + (size_t)me % 2 * MAXSZ, iters, me * 10u, 0);
#endif
  GASNET_BLOCKUNTIL(gasnett_atomic_read(&g_pongs[0], GASNETT_ATOMIC_ACQ) +
                        gasnett_atomic_read(&g_pongs[1], GASNETT_ATOMIC_ACQ) ==
                    (gasnett_atomic_val_t)(threads * iters));

  /* Extra handlers registered by the harness wrapper. */
  gasnet_AMRequestShort0(peer, classic_hidx[0]);
  gasnet_AMRequestShort0(peer, classic_hidx[1]);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  CLASSIC_CALL(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
  GASNET_BLOCKUNTIL(classic_h1_hits == 1 && classic_h2_hits == 1);

  /* Put a pattern into the next node's segment, read it back from the previous. */
  size_t bytes = 1 << 20;
  char *mine = (char *)malloc(bytes), *back = (char *)malloc(bytes);
  for (size_t k = 0; k < bytes; k++) mine[k] = (char)(k ^ me);
  char *dst = (char *)si[peer].addr + CLASSIC_SEGSZ / 2;
  gasnet_put_bulk(peer, dst, mine, bytes);
  gasnet_barrier_notify(1, 0);
  CLASSIC_CALL(gasnet_barrier_wait(1, 0));
  gasnet_get_bulk(back, peer, dst, bytes);
  CLASSIC_CHECK(gasnett_checksum(back, (int)bytes) == gasnett_checksum(mine, (int)bytes));

  /* Node 0's elapsed time, broadcast into a stack variable. */
  uint64_t us = gasnett_ticks_to_us(gasnett_ticks_now() - t0), root_us = us;
  gasnet_coll_broadcast(GASNET_TEAM_ALL, &root_us, 0, &us, sizeof us,
                        GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC | GASNET_COLL_LOCAL);
  if (me == 0) CLASSIC_CHECK(root_us == us);

  gasnet_barrier_notify(2, 0);
  CLASSIC_CALL(gasnet_barrier_wait(2, 0));
  if (classic_errs == 0)
    classic_msg("classic client PASSED (%d threads x %d round trips, checksum sum %llx, "
                "%d local procs, node 0 took %llu us)", threads, iters,
                (unsigned long long)g_sent_sum, local, (unsigned long long)root_us);
  gasnet_exit(classic_errs ? 1 : 0);
}
