/*
 * tcp_bench.c - latency, bandwidth and barrier of a conduit, beside a raw
 * TCP ping-pong and a raw TCP stream between the same two processes,
 * measured in the same run (the floor and the ceiling a TCP AM layer stands
 * between). Built twice: bench/tcp_bench (libgasnet-tcp-seq) and
 * bench/tcp_bench_udp (libgasnet-udp-seq, the same object), so both
 * conduits are measured against the same raw TCP figures.
 *
 *   gasnetrun_tcp -n 2 tests/bench/tcp_bench [ITERS]
 *
 * 1. raw TCP (raw_probe_tcp.h, beside raw_probe.h's UDP probes): a plain
 *    TCP connection between the two processes; a 16-byte ping-pong, both
 *    sides spinning on recv(MSG_DONTWAIT); a stream of 4 MiB write()s read
 *    blocking, then spinning, walking a 16 MiB buffer on both sides.
 * 2. AM round trips: Short0, Medium and Long of 0 bytes to the maxima; the
 *    request handler replies with the same category and size; node 0 waits
 *    with GASNET_BLOCKUNTIL. Microseconds, mean and median.
 * 3. one-way flood: Mediums and 1 MiB Longs, rate until node 1 has seen the
 *    last one; and a flood of Short requests node 1 answers each with a
 *    Short reply, rate until node 0 has every reply (replies batch up).
 * 4. put bandwidth: gasnet_put_bulk of 4 MiB, blocking (one at a time) and
 *    as a pipeline of gasnet_put_nbi_bulk then gasnet_wait_syncnbi_puts;
 *    like the raw stream, source and destination walk 16 MiB.
 * 5. barrier: gasnet_barrier_notify + gasnet_barrier_wait, anonymous, on all
 *    nodes (any node count; with n != 2 only this part runs).
 * With TCP_BENCH_FLOODS set, only the floods run (3), without the raw
 * probes: for counting system calls (strace -c) and frames per write.
 * The last lines are the goals: Short AM round trip <= 1.3x the raw TCP
 * ping-pong, 4 MiB put bandwidth >= 0.8x the raw stream.
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raw_probe_tcp.h"

enum { H_PING = 128, H_PONG, H_MPING, H_MPONG, H_LPING, H_LPONG, H_FLOOD, H_FLOODACK, H_PORT, H_DONE,
       H_RFLOOD, H_RFLOODACK };

#define PUT_BYTES (4u << 20)

static volatile int pongs, flood_seen, flood_acked, flood_replies, done;
static gasnet_seginfo_t seg[2];

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void h_ping(gasnet_token_t t) { gasnet_AMReplyShort0(t, H_PONG); }
static void h_pong(gasnet_token_t t) { (void)t; pongs++; }
static void h_mping(gasnet_token_t t, void *buf, size_t n) { gasnet_AMReplyMedium0(t, H_MPONG, buf, n); }
static void h_mpong(gasnet_token_t t, void *buf, size_t n) { (void)t; (void)buf; (void)n; pongs++; }
static void h_lping(gasnet_token_t t, void *buf, size_t n) { gasnet_AMReplyLong0(t, H_LPONG, buf, n, seg[0].addr); }
static void h_lpong(gasnet_token_t t, void *buf, size_t n) { (void)t; (void)buf; (void)n; pongs++; }
static void h_flood(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t last) {
  (void)buf; (void)n;
  flood_seen++;
  if (last) gasnet_AMReplyShort0(t, H_FLOODACK);
}
static void h_floodack(gasnet_token_t t) { (void)t; flood_acked++; }
static void h_rflood(gasnet_token_t t) { flood_seen++; gasnet_AMReplyShort0(t, H_RFLOODACK); }
static void h_rfloodack(gasnet_token_t t) { (void)t; flood_replies++; }
static void h_done(gasnet_token_t t) { (void)t; done = 1; }

/* ---- 2-4. AM and put ------------------------------------------------------- */
static char *srcbuf;
static double am_rtt(int cat, size_t n, int iters, double *median) {
  double *rtt = malloc(sizeof *rtt * iters), sum = 0;
  for (int i = -20; i < iters; i++) {
    int want = pongs + 1;
    double t0 = now_us();
    if (cat == 0) gasnet_AMRequestShort0(1, H_PING);
    else if (cat == 1) gasnet_AMRequestMedium0(1, H_MPING, srcbuf, n);
    else gasnet_AMRequestLong0(1, H_LPING, srcbuf, n, seg[1].addr);
    GASNET_BLOCKUNTIL(pongs == want);
    if (i >= 0) { rtt[i] = now_us() - t0; sum += rtt[i]; }
  }
  qsort(rtt, iters, sizeof *rtt, cmp_double);
  *median = rtt[iters / 2];
  free(rtt);
  return sum / iters;
}

static double flood_rate(int cat, size_t n, int count) {
  int want = flood_acked + 1, replies = flood_replies + count;
  double t0 = now_us();
  if (cat == 0) { /* Short requests, each answered */
    for (int i = 0; i < count; i++) gasnet_AMRequestShort0(1, H_RFLOOD);
    GASNET_BLOCKUNTIL(flood_replies == replies);
    return count / ((now_us() - t0) / 1e6);
  }
  for (int i = 0; i < count; i++) {
    int last = i == count - 1;
    if (cat == 1) gasnet_AMRequestMedium1(1, H_FLOOD, srcbuf, n, last);
    else gasnet_AMRequestLong1(1, H_FLOOD, srcbuf, n, seg[1].addr, last);
  }
  GASNET_BLOCKUNTIL(flood_acked == want);
  return count / ((now_us() - t0) / 1e6);
}

static double put_bw(int reps, int nbi) {
  const size_t slots = RAW_PROBE_SPAN / PUT_BYTES;
  for (size_t k = 0; k < slots; k++) /* warm-up, touching the whole span */
    gasnet_put_bulk(1, (char *)seg[1].addr + k * PUT_BYTES, srcbuf + k * PUT_BYTES, PUT_BYTES);
  double t0 = now_us();
  for (int i = 0; i < reps; i++) {
    size_t off = (size_t)i % slots * PUT_BYTES;
    if (nbi) gasnet_put_nbi_bulk(1, (char *)seg[1].addr + off, srcbuf + off, PUT_BYTES);
    else gasnet_put_bulk(1, (char *)seg[1].addr + off, srcbuf + off, PUT_BYTES);
  }
  if (nbi) gasnet_wait_syncnbi_puts();
  return (double)reps * PUT_BYTES / (now_us() - t0);
}

/* ---- 5. barrier ------------------------------------------------------------ */
static double barrier_us(int iters, double *median) {
  double *t = malloc(sizeof *t * iters), sum = 0;
  for (int i = -20; i < iters; i++) {
    double t0 = now_us();
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (i >= 0) { t[i] = now_us() - t0; sum += t[i]; }
  }
  qsort(t, iters, sizeof *t, cmp_double);
  *median = t[iters / 2];
  free(t);
  return sum / iters;
}

/* 3. the floods, printed by node 0 */
static void floods(int iters, size_t maxlong) {
  printf("%-28s %12s %12s\n", "one-way flood", "msgs/s", "MB/s");
  struct { int cat; size_t n; int count; } fl[] = {
    { 0, 0, iters * 10 }, { 1, 0, iters * 10 }, { 1, 1024, iters * 5 }, { 1, gasnet_AMMaxMedium(), iters / 4 + 1 },
    { 2, maxlong, iters / 8 + 1 } };
  for (size_t k = 0; k < sizeof fl / sizeof fl[0]; k++) {
    char label[40];
    if (fl[k].cat == 0) snprintf(label, sizeof label, "AM Short + reply");
    else snprintf(label, sizeof label, "AM %s %zu B", fl[k].cat == 1 ? "Medium" : "Long", fl[k].n);
    double r = flood_rate(fl[k].cat, fl[k].n, fl[k].count);
    printf("%-28s %12.0f %12.1f\n", label, r, r * fl[k].n / 1e6);
  }
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = {
    { H_PING, (void (*)())h_ping }, { H_PONG, (void (*)())h_pong },
    { H_MPING, (void (*)())h_mping }, { H_MPONG, (void (*)())h_mpong },
    { H_LPING, (void (*)())h_lping }, { H_LPONG, (void (*)())h_lpong },
    { H_FLOOD, (void (*)())h_flood }, { H_FLOODACK, (void (*)())h_floodack },
    { H_RFLOOD, (void (*)())h_rflood }, { H_RFLOODACK, (void (*)())h_rfloodack },
    RAW_PROBE_HANDLER_ENTRY(H_PORT), { H_DONE, (void (*)())h_done },
  };
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  int iters = argc > 1 ? atoi(argv[1]) : 2000;
  size_t maxlong = gasnet_AMMaxLongRequest();
  size_t segsz = RAW_PROBE_SPAN > maxlong ? RAW_PROBE_SPAN : maxlong;
  if (gasnet_attach(table, sizeof table / sizeof table[0],
                    (segsz + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE, 0) != GASNET_OK)
    gasnet_exit(1);
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  double med, barmed, bar = barrier_us(iters, &barmed);
  if (n != 2) {
    if (me == 0)
      printf("# tcp_bench: %u nodes: only the barrier (the rest needs 2)\n"
             "barrier %u nodes: mean %.2f us, median %.2f us\n", (unsigned)n, (unsigned)n, bar, barmed);
    fflush(stdout);
    gasnet_barrier_notify(1, 0); /* nobody's exit may overtake node 0's report */
    gasnet_barrier_wait(1, 0);
    gasnet_exit(0);
  }
  gasnet_getSegmentInfo(seg, 2);
  srcbuf = malloc(segsz);
  memset(srcbuf, 1, segsz);
  if (gasnet_getenv("TCP_BENCH_FLOODS")) { /* the floods alone, no raw probe (for strace -c) */
    if (me == 0) floods(iters, maxlong);
    fflush(stdout);
    if (me == 0) gasnet_AMRequestShort0(1, H_DONE);
    else GASNET_BLOCKUNTIL(done);
    gasnet_exit(0);
  }
  int fd = raw_probe_tcp_connect((gasnet_node_t)(1 - me), H_PORT, me == 0);
  double rawmed, raw = raw_probe_tcp_pingpong(fd, me == 0, iters * 5, &rawmed);
  int chunks = 128; /* 512 MiB */
  double stream = raw_probe_tcp_stream(fd, me == 0, chunks, 0);
  double stream_spin = raw_probe_tcp_stream(fd, me == 0, chunks, 1);
  close(fd);
  if (me == 1) { /* serve until node 0 is done */
    GASNET_BLOCKUNTIL(done);
    gasnet_exit(0);
  }
  const char *conduit = gasnet_getenv("TCP_BENCH_CONDUIT");
  printf("# tcp_bench: node 0 <-> node 1, %d round trips per size%s%s\n", iters,
         conduit ? ", conduit " : "", conduit ? conduit : "");
  printf("%-28s %10s %10s\n", "round trip", "mean(us)", "median(us)");
  printf("%-28s %10.2f %10.2f\n", "raw TCP ping-pong 16 B", raw, rawmed);
  double shortmed, shortrtt = am_rtt(0, 0, iters * 5, &shortmed);
  printf("%-28s %10.2f %10.2f\n", "AM Short 0 args", shortrtt, shortmed);
  size_t msizes[] = { 0, 8, 512, 4096, 16384, gasnet_AMMaxMedium() };
  for (size_t k = 0; k < sizeof msizes / sizeof msizes[0]; k++) {
    char label[40];
    snprintf(label, sizeof label, "AM Medium %zu B", msizes[k]);
    double m = am_rtt(1, msizes[k], msizes[k] > 16384 ? iters / 4 + 1 : iters, &med);
    printf("%-28s %10.2f %10.2f\n", label, m, med);
  }
  size_t lsizes[] = { 0, 8, 4096, 65536, 262144, maxlong };
  for (size_t k = 0; k < sizeof lsizes / sizeof lsizes[0]; k++) {
    char label[40];
    snprintf(label, sizeof label, "AM Long %zu B", lsizes[k]);
    int it = lsizes[k] >= 262144 ? iters / 20 + 1 : lsizes[k] >= 65536 ? iters / 4 + 1 : iters;
    double m = am_rtt(2, lsizes[k], it, &med);
    printf("%-28s %10.2f %10.2f\n", label, m, med);
  }
  printf("%-28s %10.2f %10.2f\n", "barrier 2 nodes", bar, barmed);
  floods(iters, maxlong);
  int reps = iters / 40 + 8;
  double put1 = put_bw(reps, 0), putn = put_bw(reps, 1);
  printf("%-28s %12s %12.1f\n", "raw TCP stream, blocking rd", "", stream);
  printf("%-28s %12s %12.1f\n", "raw TCP stream, spinning rd", "", stream_spin);
  printf("%-28s %12s %12.1f\n", "put_bulk 4 MiB (blocking)", "", put1);
  printf("%-28s %12s %12.1f\n", "put_nbi_bulk 4 MiB x N", "", putn);
  printf("summary: Short AM round trip mean %.2f us, median %.2f us; raw TCP mean %.2f us, median "
         "%.2f us; ratio of means %.2fx, of medians %.2fx (goal <= 1.3x)\n",
         shortrtt, shortmed, raw, rawmed, shortrtt / raw, shortmed / rawmed);
  printf("summary: 4 MiB put %.1f MB/s blocking, %.1f MB/s pipelined; raw TCP stream %.1f MB/s "
         "(blocking reads), %.1f MB/s (spinning reads); ratios to the raw stream %.2fx, %.2fx; "
         "to the faster raw stream %.2fx, %.2fx (goal >= 0.8x)\n", put1, putn, stream, stream_spin,
         put1 / stream, putn / stream, put1 / fmax(stream, stream_spin), putn / fmax(stream, stream_spin));
  fflush(stdout);
  gasnet_AMRequestShort0(1, H_DONE);
  gasnet_exit(0);
}
