/*
 * am_pingpong.c - AM round trip and flood rate between node 0 and node 1,
 * beside a raw UDP busy-poll ping-pong measured in the same run.
 *
 *   gasnetrun -n 2 tests/bench/am_pingpong [ITERS]
 *
 * 1. raw (raw_probe.h): a plain UDP socket per node (127.0.0.1, or AM_BENCH_RAW_IP), ports
 *    exchanged with AMs; node 0 sends a 16-byte datagram, node 1 spins on
 *    recv(MSG_DONTWAIT) and echoes it: the floor any UDP AM layer stands on.
 *    The same again on a second pair of sockets, connected to each other
 *    (send() instead of sendto(): no route lookup per datagram), the floor
 *    of the library's peer sockets; printed beside, not the goal's base.
 * 2. AM ping-pong: Short0, Medium and Long of 0 bytes to the maxima; the
 *    request handler replies with the same category and size (Long: into
 *    node 0's segment); node 0 waits with GASNET_BLOCKUNTIL.
 * 3. flood: node 0 sends a stream of requests without replies, node 1 counts
 *    them; rate = messages / time until node 1 has seen the last one. Short
 *    and Medium 64 B floods are printed beside a raw UDP flood of 16- and
 *    64-byte datagrams, one sendto per message (raw_probe_flood, measured
 *    right after the raw ping-pong), with their ratio (goal 5x: only
 *    aggregation, GASNET_UDP_AGG, gets there).
 * The raw and the AM Short ping-pongs alternate in RTT_ROUNDS rounds; their
 * ratio is the median over the rounds of each round's ratio.
 * Times are microseconds per round trip (mean and median). Beside the Short
 * round trip: the standalone ACK datagrams both nodes sent during it, per
 * round trip (gasnetc_stat_get("udp_acks_sent"); node 1's asked for by AM).
 */
#define _GNU_SOURCE 1 /* sched_setaffinity (raw_probe_pin) */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "raw_probe.h"

enum { H_PING = 128, H_PONG, H_MPING, H_MPONG, H_LPING, H_LPONG, H_FLOOD, H_FLOODACK, H_PORT, H_DONE, H_SFLOOD, H_STAT, H_STATR, H_ROUND, H_CPU };
#define RTT_ROUNDS 11 /* raw and AM Short ping-pongs alternate this many times: the
                         ratio is the median of 11 rounds (5 varied 1.12-1.18x
                         between runs on a quiet machine) */

static volatile int pongs, flood_seen, flood_acked, done;
static gasnet_seginfo_t seg[2];

static void h_ping(gasnet_token_t t) { gasnet_AMReplyShort0(t, H_PONG); }
static void h_pong(gasnet_token_t t) { (void)t; pongs++; }
static void h_mping(gasnet_token_t t, void *buf, size_t n) { gasnet_AMReplyMedium0(t, H_MPONG, buf, n); }
static void h_mpong(gasnet_token_t t, void *buf, size_t n) { (void)t; (void)buf; (void)n; pongs++; }
static void h_lping(gasnet_token_t t, void *buf, size_t n) {
  gasnet_AMReplyLong0(t, H_LPONG, buf, n, seg[0].addr);
}
static void h_lpong(gasnet_token_t t, void *buf, size_t n) { (void)t; (void)buf; (void)n; pongs++; }
static void h_flood(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t last) {
  (void)buf; (void)n;
  flood_seen++;
  if (last) gasnet_AMReplyShort0(t, H_FLOODACK);
}
static void h_floodack(gasnet_token_t t) { (void)t; flood_acked++; }
static void h_sflood(gasnet_token_t t, gasnet_handlerarg_t last) {
  flood_seen++;
  if (last) gasnet_AMReplyShort0(t, H_FLOODACK);
}
static void h_done(gasnet_token_t t) { (void)t; done = 1; }
static volatile int rounds_done;
static void h_round(gasnet_token_t t) { (void)t; rounds_done++; }

/* Standalone ACKs sent by this node so far (UINT64_MAX: not a udp node). */
static uint64_t acks_sent(void) {
  uint64_t v;
  return gasnetc_stat_get("udp_acks_sent", &v) ? v : UINT64_MAX;
}
static volatile int stat_got;
static volatile uint64_t stat_peer;
static void h_stat(gasnet_token_t t) {
  uint64_t v = acks_sent();
  gasnet_AMReplyShort2(t, H_STATR, (gasnet_handlerarg_t)(uint32_t)(v >> 32), (gasnet_handlerarg_t)(uint32_t)v);
}
static void h_statr(gasnet_token_t t, gasnet_handlerarg_t hi, gasnet_handlerarg_t lo) {
  (void)t;
  stat_peer = (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
  stat_got++;
}
/* Both nodes' standalone ACKs so far, or -1 when either cannot tell. */
static long long acks_both(void) {
  int want = stat_got + 1;
  gasnet_AMRequestShort0(1, H_STAT);
  GASNET_BLOCKUNTIL(stat_got == want);
  uint64_t mine = acks_sent();
  return mine == UINT64_MAX || stat_peer == UINT64_MAX ? -1 : (long long)(mine + stat_peer);
}

/* ---- 1. raw UDP (tests/bench/raw_probe.h) ----------------------------------- */
static raw_probe_t rawp, rawc; /* rawc: connected (raw_probe_connect_socket) */
static double raw_flood16, raw_flood64; /* datagrams/s, node 0 */
static void raw_floods(int iters) {
  gasnet_node_t me = gasnet_mynode();
  int lost;
  raw_flood16 = raw_probe_flood(&rawp, me == 0, iters * 10, 16, &lost);
  /* The receiver lingers 20 ms after a stream, answering a repeated END;
   * datagrams of the next flood sent meanwhile would be lost to it. */
  if (me == 0) usleep(30000);
  raw_flood64 = raw_probe_flood(&rawp, me == 0, iters * 10, 64, &lost);
}

/* ---- 2. AM ping-pong ------------------------------------------------------- */
static char *srcbuf;
static double am_rtt(int cat, size_t n, int iters, double *median) {
  double *rtt = malloc(sizeof *rtt * iters), sum = 0;
  for (int i = -20; i < iters; i++) {
    int want = pongs + 1;
    double t0 = raw_probe_now_us();
    if (cat == 0) gasnet_AMRequestShort0(1, H_PING);
    else if (cat == 1) gasnet_AMRequestMedium0(1, H_MPING, srcbuf, n);
    else gasnet_AMRequestLong0(1, H_LPING, srcbuf, n, seg[1].addr);
    GASNET_BLOCKUNTIL(pongs == want);
    if (i >= 0) { rtt[i] = raw_probe_now_us() - t0; sum += rtt[i]; }
  }
  *median = raw_probe_median(rtt, (size_t)iters);
  free(rtt);
  return sum / iters;
}

/* ---- 3. flood -------------------------------------------------------------- */
static double flood_rate(int cat, size_t n, int count) {
  int want = flood_acked + 1;
  double t0 = raw_probe_now_us();
  for (int i = 0; i < count; i++) {
    int last = i == count - 1;
    if (cat == 0) gasnet_AMRequestShort1(1, H_SFLOOD, last);
    else if (cat == 1) gasnet_AMRequestMedium1(1, H_FLOOD, srcbuf, n, last);
    else gasnet_AMRequestLong1(1, H_FLOOD, srcbuf, n, seg[1].addr, last);
  }
  GASNET_BLOCKUNTIL(flood_acked == want);
  return count / ((raw_probe_now_us() - t0) / 1e6);
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = {
    { H_PING, (void (*)())h_ping }, { H_PONG, (void (*)())h_pong },
    { H_MPING, (void (*)())h_mping }, { H_MPONG, (void (*)())h_mpong },
    { H_LPING, (void (*)())h_lping }, { H_LPONG, (void (*)())h_lpong },
    { H_FLOOD, (void (*)())h_flood }, { H_FLOODACK, (void (*)())h_floodack },
    RAW_PROBE_HANDLER_ENTRY(H_PORT), { H_DONE, (void (*)())h_done },
    { H_SFLOOD, (void (*)())h_sflood }, { H_STAT, (void (*)())h_stat },
    { H_STATR, (void (*)())h_statr }, { H_ROUND, (void (*)())h_round },
    RAW_PROBE_CPU_HANDLER_ENTRY(H_CPU),
  };
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  int iters = argc > 1 ? atoi(argv[1]) : 2000;
  if (gasnet_nodes() != 2) {
    if (gasnet_mynode() == 0) fprintf(stderr, "am_pingpong: run on exactly 2 nodes\n");
    gasnet_exit(1);
  }
  size_t maxlong = gasnet_AMMaxLongRequest();
  if (gasnet_attach(table, sizeof table / sizeof table[0], (maxlong + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE,
                    0) != GASNET_OK)
    gasnet_exit(1);
  raw_probe_pin();
  gasnet_getSegmentInfo(seg, 2);
  srcbuf = calloc(1, maxlong);
  gasnet_node_t me = gasnet_mynode();
  const char *drop = gasnet_getenv("GASNET_UDP_DROP");

  /* Short round trips: RTT_ROUNDS rounds of a raw ping-pong then an AM one,
   * so both see the same moments of a shared machine; the ratios are the
   * medians over the rounds of each round's ratio. */
  char cpus[64];
  raw_probe_placement(H_CPU, cpus, sizeof cpus);
  raw_probe_open(&rawp);
  raw_probe_connect(&rawp, 1 - me, H_PORT);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS); /* one port AM at a time */
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  raw_probe_open(&rawc);
  raw_probe_connect(&rawc, 1 - me, H_PORT);
  raw_probe_connect_socket(&rawc);
  int per = iters * 5 / RTT_ROUNDS > 100 ? iters * 5 / RTT_ROUNDS : 100;
  double raw = 0, rawmed = 0, shortrtt = 0, shortmed = 0, rmean[RTT_ROUNDS], rmed[RTT_ROUNDS];
  double rawc_mean = 0, rawc_med = 0, cmean[RTT_ROUNDS], cmed[RTT_ROUNDS];
  long long acks = 0;
  for (int r = 0; r < RTT_ROUNDS; r++) {
    double rm, rr = raw_probe_pingpong(&rawp, me == 0, per, &rm);
    double cm, cr = raw_probe_pingpong(&rawc, me == 0, per, &cm);
    if (me == 1) {
      GASNET_BLOCKUNTIL(rounds_done == r + 1);
      continue;
    }
    long long acks0 = acks_both();
    double am, a = am_rtt(0, 0, per, &am);
    long long acks1 = acks_both();
    /* The second exchange's own request may be acked standalone: not counted. */
    if (acks >= 0) acks = acks0 < 0 || acks1 < 0 ? -1 : acks + (acks1 - acks0 > 0 ? acks1 - acks0 - 1 : 0);
    gasnet_AMRequestShort0(1, H_ROUND);
    raw += rr / RTT_ROUNDS; rawmed += rm / RTT_ROUNDS;
    shortrtt += a / RTT_ROUNDS; shortmed += am / RTT_ROUNDS;
    rawc_mean += cr / RTT_ROUNDS; rawc_med += cm / RTT_ROUNDS;
    rmean[r] = a / rr;
    rmed[r] = am / rm;
    cmean[r] = a / cr;
    cmed[r] = am / cm;
  }
  /* Nothing of ours in flight into the floods (they do not poll): under
   * GASNET_UDP_DROP the last H_ROUND may still be in retransmission. */
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  raw_floods(iters);
  raw_probe_close(&rawp);
  raw_probe_close(&rawc);
  if (me == 1) { /* serve until node 0 is done */
    GASNET_BLOCKUNTIL(done);
    gasnet_exit(0);
  }
  printf("# am_pingpong: node 0 <-> node 1, %d round trips per size, GASNET_UDP_DROP=%s\n", iters,
         drop ? drop : "0");
  printf("%-28s %10s %10s   (Short and raw: means of %d interleaved rounds of %d; nodes on CPUs "
         "%s)\n", "round trip", "mean(us)", "median(us)", RTT_ROUNDS, per, cpus);
  printf("%-28s %10.2f %10.2f\n", "raw UDP busy-poll 16 B", raw, rawmed);
  printf("%-28s %10.2f %10.2f\n", "raw UDP, connected sockets", rawc_mean, rawc_med);
  double med;
  int rts = per * RTT_ROUNDS + 20 * RTT_ROUNDS;
  printf("%-28s %10.2f %10.2f\n", "AM Short 0 args", shortrtt, shortmed);
  char ackline[160];
  if (acks < 0) snprintf(ackline, sizeof ackline, "summary: standalone acks per Short round trip: not counted (no udp_acks_sent)\n");
  else snprintf(ackline, sizeof ackline, "summary: standalone acks per Short round trip, both nodes: %.4f (%lld in %d)\n",
                (double)acks / rts, acks, rts);
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
  printf("%-28s %12s %12s\n", "one-way flood", "msgs/s", "MB/s");
  double sfl = flood_rate(0, 0, iters * 20), m64 = flood_rate(1, 64, iters * 20);
  printf("%-28s %12.0f %12.1f\n", "AM Short 0 args", sfl, 0.0);
  printf("%-28s %12.0f %12.1f\n", "raw UDP flood 16 B", raw_flood16, raw_flood16 * 16 / 1e6);
  printf("%-28s %12.0f %12.1f\n", "AM Medium 64 B", m64, m64 * 64 / 1e6);
  printf("%-28s %12.0f %12.1f\n", "raw UDP flood 64 B", raw_flood64, raw_flood64 * 64 / 1e6);
  char floods[200];
  snprintf(floods, sizeof floods, "summary: one-way flood, AM Short %.2fx the raw 16 B UDP flood, "
           "AM Medium 64 B %.2fx the raw 64 B flood (goal 5x)\n", sfl / raw_flood16, m64 / raw_flood64);
  struct { int cat; size_t n; int count; } fl[] = {
    { 1, 0, iters * 10 }, { 1, 1024, iters * 5 }, { 1, gasnet_AMMaxMedium(), iters / 4 + 1 },
    { 2, maxlong, iters / 40 + 1 } };
  for (size_t k = 0; k < sizeof fl / sizeof fl[0]; k++) {
    char label[40];
    snprintf(label, sizeof label, "AM %s %zu B", fl[k].cat == 1 ? "Medium" : "Long", fl[k].n);
    double r = flood_rate(fl[k].cat, fl[k].n, fl[k].count);
    printf("%-28s %12.0f %12.1f\n", label, r, r * fl[k].n / 1e6);
  }
  fputs(floods, stdout);
  fputs(ackline, stdout);
  printf("summary: Short AM round trip mean %.2f us, median %.2f us; raw UDP mean %.2f us, median "
         "%.2f us; ratio of means %.2fx, of medians %.2fx (medians over %d interleaved rounds of "
         "the round's ratio; goal <= 1.15x)\n",
         shortrtt, shortmed, raw, rawmed, raw_probe_median(rmean, RTT_ROUNDS),
         raw_probe_median(rmed, RTT_ROUNDS), RTT_ROUNDS);
  printf("summary: the Short AM round trip against a raw UDP ping-pong on connected sockets "
         "(mean %.2f us, median %.2f us; send() skips sendto's route lookup, as the library's "
         "peer sockets do): ratio of means %.2fx, of medians %.2fx\n",
         rawc_mean, rawc_med, raw_probe_median(cmean, RTT_ROUNDS), raw_probe_median(cmed, RTT_ROUNDS));
  fflush(stdout);
  gasnet_AMRequestShort0(1, H_DONE);
  gasnet_exit(0);
}
