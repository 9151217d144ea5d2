/*
 * shm_probe.c - the limits of talking through memory between two ranks of
 * one host, beside what a GASNet Short AM round trip costs between them
 * now (issue 13 measures its shared-memory transport against these):
 *
 *   gasnetrun -n 2 tests/bench/shm_probe [ITERS]
 *
 * On more ranks, ranks 0 and 1 (which must share a host) measure and the
 * others wait in the barrier: with GASNET_SUPERNODE_MAXSIZE=2 that is a job
 * whose network transport also serves peers, as on a cluster of several
 * hosts, so its cost to the on-host path shows.
 *
 * 1. cache-line ping-pong between the two processes (raw_probe_shm.h):
 *    the round trip any shared-memory AM layer stands on;
 * 2. memcpy bandwidth of 4 MiB in one process: the floor under a 4 MiB put
 *    to a mapped peer segment;
 * 3. gasnet_AMRequestShort0 / gasnet_AMReplyShort0 round trip between the
 *    same two ranks (whatever transport serves them).
 * Lines "label mean median" (ns; GB/s for memcpy) as the other benchmarks.
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>

#include "raw_probe_shm.h"

enum { H_SHM = 200, H_PING, H_PONG };
static volatile int pongs;
static void h_ping(gasnet_token_t t) { gasnet_AMReplyShort0(t, H_PONG); }
static void h_pong(gasnet_token_t t) { (void)t; pongs++; }

static double am_rtt(int iters, double *median) {
  double *t = malloc(sizeof *t * (size_t)iters), sum = 0;
  for (int i = 0; i < iters; i++) {
    double t0 = raw_shm_now_ns();
    gasnet_AMRequestShort0(1, H_PING);
    GASNET_BLOCKUNTIL(pongs == i + 1);
    t[i] = raw_shm_now_ns() - t0;
    sum += t[i];
  }
  qsort(t, (size_t)iters, sizeof *t, raw_shm_cmp);
  *median = t[iters / 2];
  free(t);
  return sum / iters;
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t h[] = { RAW_SHM_HANDLER_ENTRY(H_SHM), { H_PING, (void (*)())h_ping },
                                { H_PONG, (void (*)())h_pong } };
  if (gasnet_init(&argc, &argv) != GASNET_OK || gasnet_attach(h, 3, 0, 0) != GASNET_OK) return 1;
  int iters = argc > 1 ? atoi(argv[1]) : 20000;
  gasnet_node_t me = gasnet_mynode();
  if (gasnet_nodes() < 2) {
    fprintf(stderr, "shm_probe: run on 2 or more ranks, 0 and 1 on one host\n");
    gasnet_exit(1);
  }
  raw_shm_t s;
  if (me < 2 && raw_shm_connect(&s, H_SHM) != 0) gasnet_exit(1);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  double median = 0, mean = me < 2 ? raw_shm_pingpong(&s, me == 0, iters, &median) : 0;
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (me == 0) {
    printf("# %d round trips each; ns (GB/s for memcpy)\n", iters);
    printf("%-34s %10s %10s\n", "label", "mean", "median");
    printf("%-34s %10.1f %10.1f\n", "raw shm cache-line rtt", mean, median);
    double gbps = raw_memcpy_gbps(4u << 20, 21);
    printf("%-34s %10.2f %10.2f\n", "memcpy 4 MiB GB/s", gbps, gbps);
    double am_median = 0, am_mean = am_rtt(iters, &am_median);
    printf("%-34s %10.1f %10.1f\n", "GASNet Short AM rtt", am_mean, am_median);
    printf("summary: Short AM rtt / raw cache-line rtt %.1fx (medians)\n", am_median / median);
  }
  if (me < 2) raw_shm_close(&s);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_exit(0);
  return 0;
}
