/*
 * ext_bench.c - extended-API latency, bandwidth and barrier figures beside
 * raw UDP probes measured in the same run (tests/bench/raw_probe.h).
 *
 *   gasnetrun -n N tests/bench/ext_bench [ITERS]     (N >= 2)
 *
 * Node 0 measures against node 1 (the other nodes wait in a barrier):
 *   raw      16-byte UDP busy-poll ping-pong; UDP stream of 65000-byte
 *            datagrams with a 32-datagram window, read from and written
 *            into 16 MiB buffers front to back, as a 16 MiB put does
 *   latency  blocking gasnet_put / gasnet_get (into heap memory) of 8 B to
 *            2 KiB: mean and median per call, us
 *   bandwidth 4 KiB to 16 MiB: blocking put, put_nbi (a stream of puts, one
 *            sync), blocking get and get_nbi into our segment (Long replies),
 *            get_nbi into heap memory (Medium replies); MB/s = 10^6 B/s
 *   barrier  gasnet_barrier_notify + wait, anonymous, all N nodes: us per
 *            barrier (mean over the loop, and median of single barriers),
 *            beside a raw UDP dissemination barrier over the same N
 *            processes (raw_probe_barrier: same pattern, no acks), which
 *            busy-polls when the N nodes fit the host's CPUs and yields the
 *            CPU as it polls when they do not, as the library does; in
 *            BAR_ROUNDS rounds of raw then gasnet, the ratio the median of
 *            the rounds' (issue 15: <= 1.2x), after BAR_WARMUP barriers;
 *            and beside a raw UDP gather barrier (raw_probe_gather_run: all
 *            arrive at node 0, which releases them, by connected sockets),
 *            the pattern the library takes with more ranks than CPUs; its
 *            header names the CPU each rank ran on (with more ranks than
 *            CPUs the figure depends on it: BENCH_PIN, raw_probe.h)
 * The last lines are the goals: 8-byte put <= 1.3x the raw round trip,
 * 4 MiB put bandwidth >= 0.8x the raw stream (>= 0.95x in BW_ROUNDS rounds
 * alternating 32 MiB of each, the median of the rounds' ratios: issue 15;
 * and, when node 1 shares memory with node 0, the median of 21 single 4 MiB puts >= 0.9x the
 * median of 21 memcpys of 4 MiB in the same run: raw_probe_shm.h),
 * barrier <= 4x the raw round
 * trip. With more nodes than cores even the raw barrier is bound by context
 * switches, not round trips: its line says how far. Figures only; nothing is
 * asserted.
 */
#define _GNU_SOURCE 1 /* sched_setaffinity (raw_probe_pin) */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raw_probe.h"
#include "raw_probe_shm.h"

#define H_PORT 128
#define H_PORTS 129
#define H_CPU 130
#define MiB (1024u * 1024u)
#define SEGSIZE (34u * MiB)
#define BAR_ROUNDS 11 /* the ratio: median of 11 rounds (5 varied 1.18-1.31x between runs) */
#define BW_ROUNDS 5
#define BAR_WARMUP 2000 /* barriers before the barrier's rounds: 0.1 s at 4 ranks on 2 CPUs */

static gasnet_seginfo_t *seg;
static char *heap;

static void bar(void) {
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* One row of a latency table: its mean and median in us, or "lost". */
static void row(const char *label, int ok, double mean, double median) {
  if (ok) printf("%-30s %10.2f %10.2f\n", label, mean, median);
  else printf("%-30s %10s %10s\n", label, "lost", "lost");
}

static double lat(int get, size_t n, int iters, double *median) {
  double *t = malloc(sizeof *t * (size_t)iters), sum = 0;
  char *remote = seg[1].addr;
  for (int i = -20; i < iters; i++) {
    double t0 = raw_probe_now_us();
    if (get) gasnet_get(heap, 1, remote, n);
    else gasnet_put(1, remote, heap, n);
    if (i >= 0) { t[i] = raw_probe_now_us() - t0; sum += t[i]; }
  }
  *median = raw_probe_median(t, (size_t)iters);
  free(t);
  return sum / iters;
}

enum { BW_PUT, BW_PUT_NBI, BW_GET, BW_GET_NBI, BW_GET_NBI_HEAP, BW_KINDS };
static const char *bw_names[] = { "put", "put_nbi", "get", "get_nbi", "get_nbi heap" };

/* MB/s moving about `total` bytes in transfers of n bytes. */
static double bw(int kind, size_t n, size_t total) {
  size_t reps = total / n ? total / n : 1;
  char *remote = seg[1].addr;
  char *local = (char *)seg[0].addr + 17 * MiB; /* our segment: Long replies */
  char *dst = kind == BW_GET_NBI_HEAP ? heap : local;
  /* one warm-up transfer */
  if (kind <= BW_PUT_NBI) gasnet_put(1, remote, heap, n); else gasnet_get(dst, 1, remote, n);
  double t0 = raw_probe_now_us();
  for (size_t i = 0; i < reps; i++) {
    switch (kind) {
    case BW_PUT: gasnet_put(1, remote, heap, n); break;
    case BW_PUT_NBI: gasnet_put_nbi(1, remote, heap, n); break;
    case BW_GET: gasnet_get(dst, 1, remote, n); break;
    default: gasnet_get_nbi(dst, 1, remote, n); break;
    }
  }
  gasnet_wait_syncnbi_all();
  return (double)(reps * n) / (raw_probe_now_us() - t0);
}

/* Blocking 4 MiB puts against the raw UDP stream between nodes 0 and 1, in
 * BW_ROUNDS rounds of 32 MiB each (the raw stream, then the puts, every
 * node between them in a barrier, so that both see the same moments of a
 * shared machine), after one round unrecorded: the first raw stream runs
 * cold, at an eighth of the later ones' rate, and a ratio of 6-9x among
 * five moved the median up. Node 0 prints each round and returns the
 * median of their ratios. Every node calls it; p is open on nodes 0 and 1. */
static double put4_interleaved(raw_probe_t *p, gasnet_node_t me, int iters) {
  double ratio[BW_ROUNDS] = { 0 };
  int count = iters >= 500 ? 520 : 130; /* 65000-byte datagrams: 32 MiB, or 8 */
  for (int r = -1; r < BW_ROUNDS; r++) {
    int lost;
    double raw = 0;
    if (me < 2) {
      char junk[64]; /* what the last stream left (a repeated END, its answers) */
      while (recv(p->fd, junk, sizeof junk, MSG_DONTWAIT) >= 0) {}
    }
    bar();
    if (me < 2) raw = raw_probe_stream(p, me == 0, count, &lost);
    bar();
    double put = me == 0 ? bw(BW_PUT, 4 * MiB, (size_t)count * RAW_PROBE_DGRAM) : 0;
    if (me == 0 && r >= 0) {
      ratio[r] = put / raw;
      printf("put 4 MiB, round %d of %d:  %9.1f MB/s, raw UDP stream %9.1f MB/s: %.2fx\n", r + 1,
             BW_ROUNDS, put, raw, ratio[r]);
    }
    bar();
  }
  return raw_probe_median(ratio, BW_ROUNDS);
}

/* MB/s of one blocking put of n bytes: the median of `rounds`, after one. */
static double put_median(size_t n, int rounds) {
  double *r = malloc(sizeof *r * (size_t)rounds);
  gasnet_put(1, seg[1].addr, heap, n);
  for (int i = 0; i < rounds; i++) {
    double t0 = raw_probe_now_us();
    gasnet_put(1, seg[1].addr, heap, n);
    r[i] = (double)n / (raw_probe_now_us() - t0);
  }
  double med = raw_probe_median(r, (size_t)rounds);
  free(r);
  return med;
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = { RAW_PROBE_HANDLER_ENTRY(H_PORT),
                                     RAW_PROBE_PORTS_HANDLER_ENTRY(H_PORTS),
                                     RAW_PROBE_CPU_HANDLER_ENTRY(H_CPU) };
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  int iters = argc > 1 ? atoi(argv[1]) : 2000;
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  if (n < 2) {
    fprintf(stderr, "ext_bench: run on 2 or more nodes\n");
    gasnet_exit(1);
  }
  if (gasnet_attach(table, sizeof table / sizeof table[0], SEGSIZE, 0) != GASNET_OK) gasnet_exit(1);
  raw_probe_pin();
  seg = malloc(n * sizeof *seg);
  gasnet_getSegmentInfo(seg, (int)n);
  heap = calloc(1, 17 * MiB);

  /* 1. raw probes between nodes 0 and 1 */
  double rawrtt = 0, rawmed = 0, rawbw = 0;
  int lost = 0;
  raw_probe_t p;
  double put4m = 0, putnbi4m = 0; /* node 0's loop figures */
  if (me < 2) {
    raw_probe_open(&p);
    raw_probe_connect(&p, 1 - me, H_PORT);
    rawrtt = raw_probe_pingpong(&p, me == 0, iters * 5, &rawmed);
    rawbw = raw_probe_stream(&p, me == 0, 2000, &lost); /* 130 MB */
  }
  bar();
  if (me == 0) {
    const char *drop = gasnet_getenv("GASNET_UDP_DROP");
    printf("# ext_bench: %u nodes, node 0 -> node 1, %d iterations, GASNET_UDP_DROP=%s\n",
           (unsigned)n, iters, drop ? drop : "0");
    printf("%-30s %10s %10s\n", "round trip / call", "mean(us)", "median(us)");
    row("raw UDP busy-poll 16 B", 1, rawrtt, rawmed);
    double put8 = 0, put8med = 0;
    for (int get = 0; get < 2; get++)
      for (size_t sz = 8; sz <= 2048; sz *= 2) {
        double med, m = lat(get, sz, iters, &med);
        char label[40];
        snprintf(label, sizeof label, "gasnet_%s %zu B", get ? "get" : "put", sz);
        row(label, 1, m, med);
        if (!get && sz == 8) { put8 = m; put8med = med; }
      }
    printf("%-14s", "bandwidth MB/s");
    for (int k = 0; k < BW_KINDS; k++) printf(" %13s", bw_names[k]);
    printf("\n%-14s %13.1f  (65000-byte datagrams from/into 16 MiB buffers, window 32, %d of 2000 "
           "lost)\n", "raw UDP stream", rawbw, lost);
    for (size_t sz = 4096; sz <= 16 * MiB; sz *= 4) {
      char label[20];
      snprintf(label, sizeof label, sz >= MiB ? "%zu MiB" : "%zu KiB", sz >= MiB ? sz / MiB : sz / 1024);
      printf("%-14s", label);
      size_t total = sz < 65536 ? 16 * MiB : 64 * MiB;
      for (int k = 0; k < BW_KINDS; k++) {
        double b = bw(k, sz, total);
        printf(" %13.1f", b);
        if (sz == 4 * MiB && k == BW_PUT) put4m = b;
        if (sz == 4 * MiB && k == BW_PUT_NBI) putnbi4m = b;
      }
      printf("\n");
      fflush(stdout);
    }
    printf("summary: put 8 B mean %.2f us / raw round trip mean %.2f us = %.2fx (median %.2f / %.2f = "
           "%.2fx), goal <= 1.3x\n", put8, rawrtt, put8 / rawrtt, put8med, rawmed, put8med / rawmed);
    printf("summary: put 4 MiB %.1f MB/s (put_nbi %.1f) / raw stream %.1f MB/s = %.2fx (%.2fx), "
           "goal >= 0.8x\n", put4m, putnbi4m, rawbw, put4m / rawbw, putnbi4m / rawbw);
    fflush(stdout);
  }
  /* 4 MiB puts and the raw stream alternating, BW_ROUNDS rounds */
  double bwr = put4_interleaved(&p, me, iters);
  if (me < 2) raw_probe_close(&p);
  if (me == 0) {
    printf("summary: put 4 MiB / raw UDP stream, %d interleaved rounds (32 MiB each): median of "
           "the rounds' ratios %.2fx, goal >= 0.95x (issue 15)\n", BW_ROUNDS, bwr);
    /* the floor under a put to a neighbour whose segment is mapped here,
     * like with like: the median of 21 single puts beside the probe's
     * median of 21 memcpys (the loop above is a mean, which a preemption
     * on this shared machine moves by more than the copy costs) */
    double mc = raw_memcpy_gbps(4 * MiB, 21) * 1000.0, put4med = put_median(4 * MiB, 21);
    printf("memcpy 4 MiB (raw probe)     %13.1f MB/s (median of 21)\n", mc);
    printf("put 4 MiB                    %13.1f MB/s (median of 21)\n", put4med);
    printf("summary: put 4 MiB %.1f MB/s / memcpy 4 MiB %.1f MB/s = %.2fx (medians of 21; the "
           "loop's mean %.2fx, put_nbi %.2fx), goal >= 0.9x when node 1 shares memory with node 0 "
           "(GASNET_SUPERNODE_MAXSIZE)\n", put4med, mc, put4med / mc, put4m / mc, putnbi4m / mc);
    fflush(stdout);
  }
  /* 2. barrier latency, all nodes: BAR_ROUNDS rounds, each the raw UDP
   * barrier, a raw UDP gather barrier, then gasnet_barrier, ITERS /
   * BAR_ROUNDS of each, so that all see the same moments of a shared
   * machine; the ratio is the median over the rounds of the round's ratio.
   * The goal's base is the dissemination barrier; the gather by connected
   * sockets is the floor under the pattern gasnet_barrier takes on a
   * crowded host (gasnete_barrier.c), so gasnet_barrier against it is our
   * own code's share. */
  int polite = (long)n > sysconf(_SC_NPROCESSORS_ONLN);
  raw_probe_bar_t rb;
  raw_probe_barrier_open(&rb, H_PORTS);
  int biters = iters / BAR_ROUNDS > 10 ? iters / BAR_ROUNDS : 10, rawok = 1;
  double *bt = malloc(sizeof *bt * (size_t)biters * BAR_ROUNDS), mean = 0, rawbar = 0;
  double rmean[BAR_ROUNDS], rmed[BAR_ROUNDS], rawall_med = 0;
  double gmean[BAR_ROUNDS], rawgather = 0, rawgather_med = 0;
  /* Warm-up long enough for the kernel to spread ranks that slept through
   * the measurements above: woken, they came back to their waker's CPU (3
   * of 4 ranks on one CPU at first, 2 and 2 some 100 ms later). */
  for (int i = 0; i < BAR_WARMUP; i++) bar();
  char cpus0[256], cpus1[256];
  raw_probe_placement(H_CPU, cpus0, sizeof cpus0);
  for (int r = 0; r < BAR_ROUNDS; r++) {
    double rawmed_r = 0, raw_r = rawok ? raw_probe_barrier_run(&rb, biters, polite, &rawmed_r) : -1;
    if (raw_r < 0) rawok = 0; /* a datagram lost: no more raw rounds (each would wait 2 s) */
    double gmed_r = 0, g_r = rawok ? raw_probe_gather_run(&rb, biters, polite, &gmed_r) : -1;
    if (g_r < 0) rawok = 0;
    bar();
    double t0 = raw_probe_now_us(), *rt = bt + (size_t)r * biters;
    for (int i = 0; i < biters; i++) {
      double t1 = raw_probe_now_us();
      bar();
      rt[i] = raw_probe_now_us() - t1;
    }
    double m = (raw_probe_now_us() - t0) / biters;
    rmean[r] = m / raw_r;
    gmean[r] = m / g_r;
    rmed[r] = raw_probe_median(rt, (size_t)biters) / rawmed_r;
    mean += m / BAR_ROUNDS;
    rawbar += raw_r / BAR_ROUNDS;
    rawall_med += rawmed_r / BAR_ROUNDS;
    rawgather += g_r / BAR_ROUNDS;
    rawgather_med += gmed_r / BAR_ROUNDS;
    bar();
  }
  raw_probe_barrier_close(&rb);
  raw_probe_placement(H_CPU, cpus1, sizeof cpus1);
  double bmed = raw_probe_median(bt, (size_t)biters * BAR_ROUNDS);
  if (me == 0) {
    char label[40], glabel[40];
    snprintf(label, sizeof label, "raw UDP barrier (%s)", polite ? "polite" : "busy-poll");
    snprintf(glabel, sizeof glabel, "raw UDP gather (%s)", polite ? "polite" : "busy-poll");
    printf("%-30s %10s %10s   (%d rounds of %d, interleaved; ranks on CPUs %s", "barrier, all nodes",
           "mean(us)", "median(us)", BAR_ROUNDS, biters, cpus0);
    if (strcmp(cpus0, cpus1)) printf(", at the end %s", cpus1);
    printf(")\n");
    row(label, rawok, rawbar, rawall_med);
    row(glabel, rawok, rawgather, rawgather_med);
    row("gasnet_barrier (anonymous)", 1, mean, bmed);
    printf("summary: barrier on %u nodes mean %.2f us / raw round trip mean %.2f us = %.2fx "
           "(median %.2f / %.2f = %.2fx), goal <= 4x\n", (unsigned)n, mean, rawrtt, mean / rawrtt,
           bmed, rawmed, bmed / rawmed);
    if (rawok)
      printf("summary: the raw UDP barrier on the same %u processes: mean %.2f us = %.2fx the raw "
             "round trip; gasnet_barrier / raw barrier = %.2fx (median %.2fx; medians over %d "
             "rounds of the round's ratio), goal <= 1.2x; / raw gather by connected sockets "
             "%.2fx\n", (unsigned)n, rawbar, rawbar / rawrtt, raw_probe_median(rmean, BAR_ROUNDS),
             raw_probe_median(rmed, BAR_ROUNDS), BAR_ROUNDS, raw_probe_median(gmean, BAR_ROUNDS));
    fflush(stdout);
  }
  free(bt);
  bar();
  gasnet_exit(0);
}
