/*
 * loss_bench.c - what a Short AM round trip and a 4 MiB put cost on a lossy
 * link (tests/bench/kloss.sh runs it across a veth pair whose packets the
 * kernel drops), beside a raw TCP ping-pong and a raw TCP stream of the same
 * 4 MiB between the same two processes over the same link, in the same run:
 * the kernel's own recovery from the same loss. Built twice: loss_bench
 * (libgasnet-udp-seq) and loss_bench_tcp (libgasnet-tcp-seq).
 *
 *   gasnetrun_udp -n 2 tests/bench/loss_bench [ROUND_TRIPS [PUTS [RAW_ROUND_TRIPS [RAW_STREAM]]]]
 *
 * 1. raw TCP (raw_probe_tcp.h): RAW_ROUND_TRIPS (default 40) 16-byte round
 *    trips, without warm-up (each lost segment costs TCP its 200 ms minimum
 *    RTO: a long warm-up would take seconds), and one 4 MiB write()
 *    read blocking, timed until the reader's 1-byte ack (RAW_STREAM 0: not
 *    run; under 20% loss TCP takes minutes for it, its RTO backing off).
 * 2. AM Short round trips (default 400): node 0 sends a Short request,
 *    node 1 replies, node 0 waits with GASNET_BLOCKUNTIL. Microseconds,
 *    mean and median.
 * 3. PUTS (default 6) blocking gasnet_put_bulk of 4 MiB, each timed alone:
 *    milliseconds, median and worst, and MB/s of the median. Node 1 checks
 *    the last one's bytes (a pattern node 0 wrote), so a figure never stands
 *    for a put that delivered the wrong data.
 * The last line ("summary:") is what kloss.sh reads.
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raw_probe_tcp.h"

enum { H_PING = 128, H_PONG, H_PORT, H_CHECK, H_CHECKED };

#define PUT_BYTES (4u << 20)

static volatile int pongs, checked, check_bad = -1;
static gasnet_seginfo_t seg[2];

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static unsigned char pattern(size_t i, int put) { return (unsigned char)(i * 7 + (size_t)put * 13 + 1); }

static void h_ping(gasnet_token_t t) { gasnet_AMReplyShort0(t, H_PONG); }
static void h_pong(gasnet_token_t t) { (void)t; pongs++; }
/* node 1: are the bytes of put `put` in the segment? */
static void h_check(gasnet_token_t t, gasnet_handlerarg_t put) {
  const unsigned char *b = seg[1].addr;
  int bad = 0;
  for (size_t i = 0; i < PUT_BYTES; i++) bad += b[i] != pattern(i, put);
  gasnet_AMReplyShort1(t, H_CHECKED, bad);
}
static void h_checked(gasnet_token_t t, gasnet_handlerarg_t bad) { (void)t; check_bad = bad; checked = 1; }

/* Short round trips: mean us, *median the median. */
static double am_rtt(int iters, double *median) {
  double *rtt = malloc(sizeof *rtt * (size_t)iters), sum = 0;
  for (int i = -10; i < iters; i++) {
    int want = pongs + 1;
    double t0 = raw_probe_now_us();
    gasnet_AMRequestShort0(1, H_PING);
    GASNET_BLOCKUNTIL(pongs == want);
    if (i >= 0) { rtt[i] = raw_probe_now_us() - t0; sum += rtt[i]; }
  }
  qsort(rtt, (size_t)iters, sizeof *rtt, cmp_double);
  *median = rtt[iters / 2];
  free(rtt);
  return sum / iters;
}

/* Blocking 4 MiB puts, each timed: median ms, *worst the slowest. */
static double put_ms(int reps, double *worst, unsigned char *src) {
  double *t = malloc(sizeof *t * (size_t)reps);
  for (int i = -1; i < reps; i++) { /* one warm-up put */
    int put = i < 0 ? 0 : i;
    for (size_t k = 0; k < PUT_BYTES; k++) src[k] = pattern(k, put);
    double t0 = raw_probe_now_us();
    gasnet_put_bulk(1, seg[1].addr, src, PUT_BYTES);
    if (i >= 0) t[i] = (raw_probe_now_us() - t0) / 1e3;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_double);
  double med = t[reps / 2];
  *worst = t[reps - 1];
  free(t);
  return med;
}

static int arg(int argc, char **argv, int i, int dflt) {
  if (argc <= i) return dflt;
  int v = atoi(argv[i]);
  if (v < 1) {
    fprintf(stderr, "loss_bench: argument %d '%s' is not a positive count\n", i, argv[i]);
    gasnet_exit(2);
  }
  return v;
}

/* The raw reference: 4 MiB written on the TCP connection, until the
 * reader's 1-byte ack. */
static double raw_stream_ms(int fd, int writer) {
  char *buf = malloc(PUT_BYTES), ack = 'k';
  memset(buf, 1, PUT_BYTES);
  double t0 = raw_probe_now_us();
  raw_probe_tcp_io(fd, buf, PUT_BYTES, writer);
  raw_probe_tcp_io(fd, &ack, 1, !writer);
  free(buf);
  return (raw_probe_now_us() - t0) / 1e3;
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = {
    { H_PING, (void (*)())h_ping }, { H_PONG, (void (*)())h_pong },
    RAW_PROBE_HANDLER_ENTRY(H_PORT),
    { H_CHECK, (void (*)())h_check }, { H_CHECKED, (void (*)())h_checked },
  };
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  int iters = arg(argc, argv, 1, 400), puts = arg(argc, argv, 2, 6), rawiters = arg(argc, argv, 3, 40);
  int rawstream = argc > 4 ? atoi(argv[4]) : 1;
  if (gasnet_attach(table, sizeof table / sizeof table[0], PUT_BYTES, 0) != GASNET_OK) gasnet_exit(1);
  if (gasnet_nodes() != 2) {
    if (gasnet_mynode() == 0) fprintf(stderr, "loss_bench: needs 2 nodes, has %u\n", (unsigned)gasnet_nodes());
    gasnet_exit(2);
  }
  gasnet_node_t me = gasnet_mynode();
  gasnet_getSegmentInfo(seg, 2);
  int fd = raw_probe_tcp_connect((gasnet_node_t)(1 - me), H_PORT, me == 0);
  char msg[16] = "raw-tcp-probe";
  double *rt = malloc(sizeof *rt * (size_t)rawiters), rawsum = 0;
  for (int i = 0; i < rawiters; i++) {
    double t0 = raw_probe_now_us();
    if (me == 0) raw_probe_tcp_io(fd, msg, sizeof msg, 1);
    raw_probe_tcp_io(fd, msg, sizeof msg, 0);
    if (me == 1) raw_probe_tcp_io(fd, msg, sizeof msg, 1);
    rt[i] = raw_probe_now_us() - t0;
    rawsum += rt[i];
  }
  qsort(rt, (size_t)rawiters, sizeof *rt, cmp_double);
  double rawmed = rt[rawiters / 2];
  double stream_ms = rawstream ? raw_stream_ms(fd, me == 0) : 0, stream = stream_ms ? PUT_BYTES / stream_ms / 1e3 : 0;
  close(fd);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (me == 0) {
    unsigned char *src = malloc(PUT_BYTES);
    double med, mean = am_rtt(iters, &med), worst, pm = put_ms(puts, &worst, src);
    gasnet_AMRequestShort1(1, H_CHECK, puts - 1);
    GASNET_BLOCKUNTIL(checked);
    printf("# loss_bench: node 0 <-> node 1, %d Short round trips, %d puts of 4 MiB, %d raw TCP round trips\n",
           iters, puts, rawiters);
    printf("%-28s %10s %10s\n", "round trip", "mean(us)", "median(us)");
    printf("%-28s %10.2f %10.2f\n", "raw TCP ping-pong 16 B", rawsum / rawiters, rawmed);
    printf("%-28s %10.2f %10.2f\n", "AM Short 0 args", mean, med);
    printf("%-28s %10s %10s %10s\n", "4 MiB", "median(ms)", "worst(ms)", "MB/s");
    printf("%-28s %10.2f %10s %10.1f\n", "raw TCP stream", stream_ms, "", stream);
    printf("%-28s %10.2f %10.2f %10.1f\n", "put_bulk", pm, worst, PUT_BYTES / pm / 1e3);
    printf("put data check: %d bad bytes of %u\n", check_bad, PUT_BYTES);
    printf("summary: Short AM round trip median %.2f us mean %.2f us; 4 MiB put median %.3f ms; "
           "raw TCP round trip median %.2f us mean %.2f us; raw TCP 4 MiB %.3f ms\n",
           med, mean, pm, rawmed, rawsum / rawiters, stream_ms);
    fflush(stdout);
    free(src);
  }
  free(rt);
  gasnet_barrier_notify(1, 0); /* node 1 serves until node 0 is done */
  gasnet_barrier_wait(1, 0);
  gasnet_exit(me == 0 && check_bad != 0 ? 1 : 0);
  return 0;
}
