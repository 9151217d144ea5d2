/*
 * ptl_bench.c - Portals 3.2 (portals/) latency and bandwidth between two
 * ranks, to set beside the GASNet figures of the same path
 * (tests/bench/portals.sh runs it interleaved with tcp_bench):
 *
 *   put 8 B + ack     rank 0 puts 8 bytes with PTL_ACK_REQ to rank 1 and
 *                     waits for the PTL_EVENT_ACK (PtlEQWait); rank 1 only
 *                     serves (its progress thread: no call of its own).
 *                     Microseconds per round trip, mean and median.
 *   put 4 MiB         puts of 4 MiB with ack, one at a time (each waits for
 *                     its ack, as gasnet_put_bulk) and pipelined (all
 *                     issued, then every ack awaited); source and target
 *                     walk 16 MiB. MB/s (1e6 bytes).
 *
 *   gasnetrun_udp -n 2 tests/bench/ptl_bench [ITERS]
 *   gasnetrun_tcp -n 2 tests/bench/ptl_bench_tcp [ITERS]
 * Last lines: "ptl_bench: put8ack mean M median D" and
 * "ptl_bench: put4m blocking B pipelined P" (read by portals.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "portals3.h"

#define PT 3
#define BIG (4u << 20)
#define WALK (16u << 20)

static ptl_handle_ni_t ni;
static ptl_handle_eq_t eq;
static ptl_handle_md_t hello; /* its late acks (a hello sent again) are not the measured ones */

static void must(int rc, const char *what) {
  if (rc == PTL_OK) return;
  fprintf(stderr, "ptl_bench: %s: %s\n", what, PtlErrorStr(rc));
  exit(1);
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Wait for the next ack of a measured put (other events, SEND_* and a
 * hello's late ack, are passed). */
static void wait_ack(void) {
  ptl_event_t ev;
  do must(PtlEQWait(eq, &ev), "PtlEQWait"); while (ev.type != PTL_EVENT_ACK || ev.md_handle == hello);
}

static void latency(ptl_process_id_t to, int iters) {
  static char src[8];
  ptl_handle_md_t md;
  ptl_md_t d = {src, 8, PTL_MD_THRESH_INF, 8, 0, NULL, eq};
  must(PtlMDBind(ni, d, &md), "bind");
  double *t = malloc(sizeof *t * (size_t)iters), sum = 0;
  for (int i = -100; i < iters; i++) { /* 100 to warm up */
    double t0 = now_us();
    must(PtlPut(md, PTL_ACK_REQ, to, PT, 0, 0, 0, 0), "put");
    wait_ack();
    if (i >= 0) sum += t[i] = now_us() - t0;
  }
  qsort(t, (size_t)iters, sizeof *t, cmp_d);
  printf("put 8 B + ack round trip        mean %8.2f us  median %8.2f us\n", sum / iters, t[iters / 2]);
  printf("ptl_bench: put8ack mean %.2f median %.2f\n", sum / iters, t[iters / 2]);
  free(t);
  must(PtlMDUnlink(md), "unlink");
}

static double bandwidth(ptl_process_id_t to, char *buf, int n, int pipelined) {
  ptl_handle_md_t md[WALK / BIG];
  for (unsigned k = 0; k < WALK / BIG; k++) {
    ptl_md_t d = {buf + k * BIG, BIG, PTL_MD_THRESH_INF, BIG, 0, NULL, eq};
    must(PtlMDBind(ni, d, &md[k]), "bind");
  }
  double t0 = now_us();
  for (int i = 0; i < n; i++) {
    unsigned k = (unsigned)i % (WALK / BIG);
    must(PtlPut(md[k], PTL_ACK_REQ, to, PT, 0, 0, (ptl_size_t)k * BIG, 0), "put");
    if (!pipelined) wait_ack();
  }
  if (pipelined)
    for (int i = 0; i < n; i++) wait_ack();
  double us = now_us() - t0;
  for (unsigned k = 0; k < WALK / BIG; k++) {
    int rc;
    while ((rc = PtlMDUnlink(md[k])) == PTL_MD_INUSE) {
      ptl_event_t ev;
      PtlEQGet(eq, &ev);
    }
    must(rc, "unlink");
  }
  return (double)n * BIG / us;
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 2000, maxif;
  unsigned rank, size;
  if (iters < 10) iters = 10;
  must(PtlInit(&maxif), "PtlInit");
  must(PtlNIInit(PTL_IFACE_DEFAULT, PTL_PID_ANY, NULL, NULL, &ni), "PtlNIInit");
  must(PtlGetRank(ni, &rank, &size), "PtlGetRank");
  if (size != 2) {
    fprintf(stderr, "ptl_bench: run it on 2 ranks\n");
    return 2;
  }
  must(PtlEQAlloc(ni, 4096, &eq), "PtlEQAlloc");
  ptl_process_id_t peer, any = {PTL_NID_ANY, PTL_PID_ANY};
  must(PtlGetRankId(ni, 1 - rank, &peer), "PtlGetRankId");
  char *buf = malloc(WALK);
  memset(buf, (int)rank, WALK);
  /* Both: the target entry (remote-managed offsets, no events), then a
   * ready message each way (a put nothing matches would be dropped). */
  ptl_handle_me_t me;
  ptl_md_t d = {buf, WALK, PTL_MD_THRESH_INF, WALK, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, NULL, PTL_EQ_NONE};
  must(PtlMEAttach(ni, PT, any, 0, 0, PTL_RETAIN, PTL_INS_AFTER, &me), "attach");
  must(PtlMDAttach(me, d, PTL_RETAIN, PTL_RETAIN, NULL), "MD");
  static char one[8];
  ptl_md_t hd = {one, 8, PTL_MD_THRESH_INF, 8, 0, NULL, eq};
  must(PtlMDBind(ni, hd, &hello), "bind");
  /* Until the peer's entry takes it. The look sleeps between polls: a
   * rank whose first hello came too early must not spin beside the
   * measured loop of the other (3 busy threads on 2 CPUs). */
  for (int acked = 0; !acked;) {
    must(PtlPut(hello, PTL_ACK_REQ, peer, PT, 0, 0, 0, 0), "hello");
    ptl_event_t ev;
    struct timespec nap = {0, 20000};
    for (double end = now_us() + 5000; !acked && now_us() < end; nanosleep(&nap, NULL))
      while (!acked && PtlEQGet(eq, &ev) == PTL_OK) acked = ev.type == PTL_EVENT_ACK;
  }
  if (rank == 0) {
    printf("# ptl_bench: rank 0 -> rank 1, %d round trips\n", iters);
    latency(peer, iters);
    double b = bandwidth(peer, buf, 50, 0), p = bandwidth(peer, buf, 50, 1);
    printf("put 4 MiB + ack, blocking       %10.1f MB/s\nput 4 MiB + ack, pipelined      %10.1f MB/s\n", b, p);
    printf("ptl_bench: put4m blocking %.1f pipelined %.1f\n", b, p);
  }
  must(PtlNIFini(ni), "PtlNIFini"); /* collective: rank 1 serves until rank 0 is done */
  PtlFini();
  free(buf);
  return 0;
}
