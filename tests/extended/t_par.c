/*
 * t_par.c - GASNET_PAR: THREADS threads per rank, each issuing nbi, nb and
 * access-region transfers to every rank and syncing only its own (spec
 * 3.3.5: implicit syncs cover the calling thread's operations).
 *
 *   gasnetrun -n N tests/extended/t_par [ITERS]
 *
 * Thread t of rank r owns slot (r, t) in every segment and a private
 * buffer. Per iteration: put_nbi a fresh pattern to every rank's slot,
 * wait_syncnbi_puts, get_nbi it back (half into heap memory, half into our
 * own segment), wait_syncnbi_gets, compare; then the same through put_nb /
 * get_nb handles and through an access region. Thread-info values must
 * differ between threads and stay the same within one.
 */
#define GASNET_PAR 1
#include <gasnet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_ext_util.h"

#define THREADS 4
#define SLOT (256u * 1024u)

static gasnet_node_t me, n;
static gasnet_seginfo_t *seg;
static int iters;
static gasnet_threadinfo_t infos[THREADS];

static char *slot(gasnet_node_t node, gasnet_node_t r, int t) {
  return (char *)seg[node].addr + ((size_t)r * THREADS + (size_t)t) * SLOT;
}
/* landing area for Long-reply gets: after the n*THREADS slots */
static char *land(int t) { return (char *)seg[me].addr + ((size_t)n * THREADS + (size_t)t) * SLOT; }

static void *thread_main(void *arg) {
  int t = (int)(intptr_t)arg;
  GASNET_BEGIN_FUNCTION();
  infos[t] = GASNET_GET_THREADINFO();
  uint64_t rs = 99 + me * 100 + (uint64_t)t;
  char *src = malloc(SLOT), *dst = malloc(SLOT);
  unsigned long ok = 0;
  for (int i = 0; i < iters; i++) {
    size_t len = 1 + t_rand(&rs) % (i % 4 == 3 ? SLOT : 4096);
    int shape = i % 3;
    for (gasnet_node_t node = 0; node < n; node++) {
      char *d = (i & 1) ? land(t) : dst;
      t_fill(src, len, (uint32_t)t_rand(&rs));
      memset(d, 0, len);
      if (shape == 0) {
        gasnet_put_nbi_bulk(node, slot(node, me, t), src, len);
        gasnet_wait_syncnbi_puts();
        gasnet_get_nbi_bulk(d, node, slot(node, me, t), len);
        gasnet_wait_syncnbi_gets();
      } else if (shape == 1) {
        gasnet_wait_syncnb(gasnet_put_nb_bulk(node, slot(node, me, t), src, len));
        gasnet_handle_t h = gasnet_get_nb_bulk(d, node, slot(node, me, t), len);
        while (gasnet_try_syncnb(h) != GASNET_OK) {}
      } else {
        gasnet_begin_nbi_accessregion();
        gasnet_put_nbi(node, slot(node, me, t), src, len);
        gasnet_wait_syncnb(gasnet_end_nbi_accessregion());
        gasnet_begin_nbi_accessregion();
        gasnet_get_nbi(d, node, slot(node, me, t), len);
        gasnet_handle_t h = gasnet_end_nbi_accessregion();
        gasnet_wait_syncnb_all(&h, 1);
      }
      T_EXPECT(memcmp(d, src, len) == 0, "thread %d iter %d node %u: %zu bytes differ", t, i,
               (unsigned)node, len);
      ok++;
    }
    T_EXPECT(GASNET_GET_THREADINFO() == infos[t], "thread info of thread %d changed", t);
  }
  free(src); free(dst);
  return (void *)(uintptr_t)ok;
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  iters = argc > 1 ? atoi(argv[1]) : 60;
  me = gasnet_mynode(); n = gasnet_nodes();
  T_CHECK(gasnet_attach(NULL, 0, ((uintptr_t)n * THREADS + THREADS) * SLOT, 0));
  seg = malloc(n * sizeof *seg);
  T_CHECK(gasnet_getSegmentInfo(seg, (int)n));
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t);
  unsigned long total = 0;
  for (int t = 0; t < THREADS; t++) {
    void *r;
    pthread_join(th[t], &r);
    total += (unsigned long)(uintptr_t)r;
  }
  for (int a = 0; a < THREADS; a++)
    for (int b = a + 1; b < THREADS; b++)
      T_EXPECT(infos[a] != infos[b], "threads %d and %d share thread info", a, b);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  T_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
  printf("t_par: node %u of %u: %d threads, %lu transfers verified, each thread synced only its own\n",
         (unsigned)me, (unsigned)n, THREADS, total);
  fflush(stdout);
  gasnet_barrier_notify(1, 0);
  T_CHECK(gasnet_barrier_wait(1, 0));
  gasnet_exit(0);
}
