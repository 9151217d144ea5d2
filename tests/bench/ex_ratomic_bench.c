/*
 * ex_ratomic_bench.c - the latency of a remote atomic (gasnet_ratomic.h)
 * beside what it is built on, measured in the same run, node 0 against a
 * counter in node 1's segment:
 *
 *   GASNET_SUPERNODE_MAXSIZE=1 gasnetrun_udp -n 2 tests/bench/ex_ratomic_bench [ITERS [ROUNDS]]
 *   gasnetrun_udp -n 2 tests/bench/ex_ratomic_bench [ITERS [ROUNDS]]   (on one host)
 *   (ex_ratomic_bench_tcp with gasnetrun_tcp: the same over tcp)
 *
 * Over the network (node 1's segment not mapped here) every operation is an
 * AM round trip, so the figures are
 *   Short AM round trip     gex_AM_RequestShort0, the handler replies
 *                           gex_AM_ReplyShort0, GASNET_BLOCKUNTIL the reply
 *   FADD U64 (NB+wait)      gex_AD_OpNB_U64(GEX_OP_FADD) + gex_Event_Wait
 *   FADD DBL (NB+wait)      the same on a double (a compare-and-swap loop
 *                           at the target)
 * with the goal FADD U64 <= 1.1x the AM round trip. On one host (mapped:
 * the operation is done here with the CPU's atomics) the figures are
 *   CPU __atomic_fetch_add  seq_cst, on node 1's segment as mapped here
 *   FADD U64 (NB+wait), FADD DBL (NB+wait)   as above
 * and the ratio FADD U64 / CPU atomic is reported (no goal: it is the
 * call's overhead over one locked instruction). Each sample is one call
 * over the network and the mean of 64 calls on one host (a clock read
 * costs more than a locked add). In ROUNDS rounds each form runs ITERS
 * samples, interleaved with the other forms' (a shared machine changes its
 * pace within seconds: every form sees the same moments); per form the
 * median over the rounds of each round's mean and median, us per call, and
 * the ratios are the median over the rounds of the ratio of the round's
 * medians. Figures only.
 */
#define GASNET_SEQ 1
#include <gasnetex.h>
#include <gasnet_ratomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raw_probe.h" /* raw_probe_now_us, raw_probe_median */

#define MAX_ROUNDS 64
#define GOAL 1.1      /* FADD within 1.1x a Short AM round trip */
#define ONHOST_BATCH 64

enum { H_PING = 128, H_PONG, H_DONE };
enum { FORM_BASE, FORM_FADD, FORM_FADD_DBL, NFORMS };

static gex_TM_t tm;
static gex_AD_t ad_u64, ad_dbl;
static volatile int pongs, done;
static uint64_t *remote;     /* node 1's counter, its address */
static uint64_t *mapped;     /* the same here, NULL over the network */
static double *remote_dbl;

static void h_ping(gex_Token_t t) { gex_AM_ReplyShort0(t, H_PONG, 0); }
static void h_pong(gex_Token_t t) { (void)t; pongs++; }
static void h_done(gex_Token_t t) { (void)t; done = 1; }

/* One call of form f to completion. */
static inline void op(int f) {
  uint64_t u;
  double d;
  switch (f) {
  case FORM_BASE:
    if (mapped) {
      __atomic_fetch_add(mapped, 1, __ATOMIC_SEQ_CST);
    } else {
      int want = pongs + 1;
      gex_AM_RequestShort0(tm, 1, H_PING, 0);
      GASNET_BLOCKUNTIL(pongs == want);
    }
    break;
  case FORM_FADD:
    gex_Event_Wait(gex_AD_OpNB_U64(ad_u64, &u, 1, remote, GEX_OP_FADD, 1, 0, 0));
    break;
  case FORM_FADD_DBL:
    gex_Event_Wait(gex_AD_OpNB_DBL(ad_dbl, &d, 1, remote_dbl, GEX_OP_FADD, 1.0, 0, 0));
    break;
  }
}

/* One round: iters samples of every form, interleaved (sample i of each
 * form in turn, the order reversed every other sample), so that all forms
 * see the same moments of a shared machine. Per form: the mean per call
 * into mean[f], the median into med[f]; t is [NFORMS][iters] scratch. */
static void measure_round(int iters, int batch, double *t, double *mean, double *med) {
  double sum[NFORMS] = { 0 };
  for (int i = 0; i < iters; i++)
    for (int k = 0; k < NFORMS; k++) {
      int f = (i & 1) ? NFORMS - 1 - k : k;
      double t0 = raw_probe_now_us();
      for (int b = 0; b < batch; b++) op(f);
      sum[f] += t[f * iters + i] = (raw_probe_now_us() - t0) / batch;
    }
  for (int f = 0; f < NFORMS; f++) {
    mean[f] = sum[f] / iters;
    med[f] = raw_probe_median(&t[f * iters], (size_t)iters);
  }
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t seg;
  if (gex_Client_Init(&client, &ep, &tm, "EX_RATOMIC_BENCH", &argc, &argv, 0) != GASNET_OK) return 1;
  int iters = argc > 1 ? atoi(argv[1]) : 5000;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (iters < 1 || rounds < 1 || rounds > MAX_ROUNDS || gex_System_QueryJobSize() != 2) {
    if (gex_System_QueryJobRank() == 0)
      fprintf(stderr, "usage: gasnetrun -n 2 ex_ratomic_bench [ITERS [ROUNDS <= %d]]\n", MAX_ROUNDS);
    gasnet_exit(1);
  }
  gex_AM_Entry_t table[] = {
    {H_PING, (gex_AM_Fn_t)h_ping, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "ping"},
    {H_PONG, (gex_AM_Fn_t)h_pong, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "pong"},
    {H_DONE, (gex_AM_Fn_t)h_done, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "done"},
  };
  if (gex_EP_RegisterHandlers(ep, table, 3) != GASNET_OK) gasnet_exit(1);
  if (gex_Segment_Attach(&seg, tm, GASNET_PAGESIZE) != GASNET_OK) gasnet_exit(1);
  gex_AD_Create(&ad_u64, tm, GEX_DT_U64, GEX_OP_FADD, 0);
  gex_AD_Create(&ad_dbl, tm, GEX_DT_DBL, GEX_OP_FADD, 0);
  if (gex_System_QueryJobRank() == 1) { /* serve until node 0 is done */
    GASNET_BLOCKUNTIL(done);
    gasnet_exit(0);
  }
  void *base, *here;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, 1, &base, &here, NULL, 0));
  remote = base;
  remote_dbl = (double *)base + 8; /* another cache line */
  mapped = here;
  const int batch = mapped ? ONHOST_BATCH : 1;
  const char *labels[NFORMS] = {
    mapped ? "CPU __atomic_fetch_add" : "Short AM round trip", "FADD U64 (NB+wait)",
    "FADD DBL (NB+wait)" };
  double *t = malloc(sizeof *t * NFORMS * (size_t)iters), m[NFORMS], d[NFORMS];
  static double mean[NFORMS][MAX_ROUNDS], med[NFORMS][MAX_ROUNDS];
  measure_round(iters / 10 + 1, batch, t, m, d); /* warm */
  for (int r = 0; r < rounds; r++) {
    measure_round(iters, batch, t, m, d);
    for (int f = 0; f < NFORMS; f++) {
      mean[f][r] = m[f];
      med[f][r] = d[f];
    }
  }
  printf("# ex_ratomic_bench: node 0 -> a counter in node 1's segment over %s, %s; %d samples "
         "of %d call%s per form and round, the forms interleaved, %d round%s; per form the "
         "median over the rounds of each round's mean and median\n", GASNET_CONDUIT_NAME_STR,
         mapped ? "mapped here (one host: CPU atomics)" : "not mapped (every operation an AM)",
         iters, batch, batch == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s");
  printf("%-32s %10s %10s\n", "round trip", "mean(us)", "median(us)");
  double ratio[NFORMS];
  for (int f = 0; f < NFORMS; f++) {
    double rm[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) rm[r] = med[f][r] / med[FORM_BASE][r];
    ratio[f] = raw_probe_median(rm, (size_t)rounds);
    printf("%-32s %10.4f %10.4f\n", labels[f], raw_probe_median(mean[f], (size_t)rounds),
           raw_probe_median(med[f], (size_t)rounds));
  }
  if (mapped)
    printf("summary: on one host FADD U64 / CPU atomic %.2fx, FADD DBL / CPU atomic %.2fx "
           "(medians; the call's overhead over one locked instruction)\n",
           ratio[FORM_FADD], ratio[FORM_FADD_DBL]);
  else
    printf("summary: over the network FADD U64 / Short AM round trip %.3fx, FADD DBL %.3fx "
           "(medians, median of %d rounds); goal <= %.1fx: %s\n", ratio[FORM_FADD],
           ratio[FORM_FADD_DBL], rounds, GOAL, ratio[FORM_FADD] <= GOAL ? "met" : "not met");
  fflush(stdout);
  free(t);
  gex_AM_RequestShort0(tm, 1, H_DONE, 0);
  gasnet_exit(0);
  return 0;
}
