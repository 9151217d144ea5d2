/*
 * coll_bench.c - the latency of the GASNet-EX collectives (gasnet_coll.h)
 * beside the barrier and the raw floor under it, measured in one run on
 * every rank of the job:
 *
 *   GASNET_SUPERNODE_MAXSIZE=1 gasnetrun_udp -n N tests/bench/coll_bench [ITERS [ROUNDS]]
 *   gasnetrun_udp -n N tests/bench/coll_bench [ITERS [ROUNDS]]      (on one host)
 *
 * The forms, each one call of the primordial team waited to completion:
 *   barrier          gex_Coll_BarrierNB
 *   bcast 8 B        gex_Coll_BroadcastNB of 8 bytes from rank 0
 *   reduce-all U64   gex_Coll_ReduceToAllNB of one U64, GEX_OP_ADD
 *   reduce-all DBL   gex_Coll_ReduceToAllNB of one double, GEX_OP_ADD
 * Each sample starts after an untimed barrier, so every rank enters about
 * together; a sample's latency is its maximum over the ranks (gathered
 * after the round by a ReduceToAll MAX, untimed): the time until the last
 * rank has its result. In ROUNDS rounds each form runs ITERS samples,
 * interleaved with the other forms' (sample i of each form in turn, the
 * order reversed every other sample), so that all see the same moments of
 * a shared machine. Per form: the median over the rounds of each round's
 * median (max over ranks) and of rank 0's own median; the ratios to the
 * barrier are the median over the rounds of the ratio of the round's
 * medians. Also the mean of a loop of ITERS back-to-back calls (broadcasts
 * from rank i % N), and the raw UDP dissemination barrier of
 * tests/bench/raw_probe.h over the same processes (rank 0's median: the
 * floor under a barrier over UDP on this host; busy-polling, or yielding
 * when the ranks outnumber the CPUs, as the library does).
 * The goal (issue 14): bcast and reduce-to-all within 1.5x the barrier at
 * 2, 4 and 8 ranks over the network. Figures only; nothing is asserted.
 */
#define GASNET_SEQ 1
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raw_probe.h"

#define H_PORTS 128
#define MAX_ROUNDS 64
#define GOAL 1.5

enum { F_BAR, F_BCAST, F_RED_U64, F_RED_DBL, NFORMS };
static const char *const labels[NFORMS] = { "barrier", "bcast 8 B", "reduce-all U64",
                                            "reduce-all DBL" };

static gex_TM_t tm;
static gex_Rank_t me, n;

static void bar(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

/* One call of form f to completion; root for the broadcast. */
static inline void op(int f, gex_Rank_t root) {
  static uint64_t u, uo;
  static double d, dd;
  switch (f) {
  case F_BAR: bar(); break;
  case F_BCAST: gex_Event_Wait(gex_Coll_BroadcastNB(tm, root, &uo, &u, 8, 0)); break;
  case F_RED_U64:
    u = me;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &uo, &u, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
    break;
  case F_RED_DBL:
    d = me;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &dd, &d, GEX_DT_DBL, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
    break;
  }
}

/* One round: iters samples of every form, interleaved. t[f * iters + i]
 * is this rank's time of sample i of form f; tmax the same, max over ranks.
 * Per form: med[f] of the maxima, own[f] of this rank's own. */
static void measure_round(int iters, double *t, double *tmax, double *med, double *own) {
  for (int i = 0; i < iters; i++)
    for (int k = 0; k < NFORMS; k++) {
      int f = (i & 1) ? NFORMS - 1 - k : k;
      bar();
      double t0 = raw_probe_now_us();
      op(f, 0);
      t[f * iters + i] = raw_probe_now_us() - t0;
    }
  size_t cnt = (size_t)NFORMS * iters;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, tmax, t, GEX_DT_DBL, 8, cnt, GEX_OP_MAX, NULL, NULL, 0));
  for (int f = 0; f < NFORMS; f++) {
    med[f] = raw_probe_median(&tmax[f * iters], (size_t)iters);
    own[f] = raw_probe_median(&t[f * iters], (size_t)iters);
  }
}

/* The mean per call of iters back-to-back calls of form f (broadcasts from
 * rank i % n). */
static double loop_mean(int f, int iters) {
  bar();
  double t0 = raw_probe_now_us();
  for (int i = 0; i < iters; i++) op(f, (gex_Rank_t)i % n);
  double mean = (raw_probe_now_us() - t0) / iters;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &t0, &mean, GEX_DT_DBL, 8, 1, GEX_OP_MAX, NULL, NULL, 0));
  return t0; /* the slowest rank's */
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = { RAW_PROBE_PORTS_HANDLER_ENTRY(H_PORTS) };
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  if (gasnet_attach(table, 1, GASNET_PAGESIZE, 0) != GASNET_OK) gasnet_exit(1);
  gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  int iters = argc > 1 ? atoi(argv[1]) : 1000;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (iters < 1 || rounds < 1 || rounds > MAX_ROUNDS || n < 2) {
    if (me == 0)
      fprintf(stderr, "usage: gasnetrun -n N (N >= 2) coll_bench [ITERS [ROUNDS <= %d]]\n",
              MAX_ROUNDS);
    gasnet_exit(1);
  }
  gex_Rank_t nbrhd;
  gex_System_QueryNbrhdInfo(NULL, &nbrhd, NULL);
  const char *where = nbrhd == 1 ? "over the network (every peer in another neighbourhood)"
                      : nbrhd == n ? "on one host (every peer in the neighbourhood)"
                                   : "mixed (neighbourhoods of several ranks)";
  int polite = (long)n > sysconf(_SC_NPROCESSORS_ONLN);

  /* the raw floor first, while nothing else runs */
  bar();
  double rawmed = 0, raw = raw_probe_barrier(H_PORTS, iters, polite, &rawmed);
  bar();

  double *t = malloc(sizeof *t * NFORMS * (size_t)iters);
  double *tmax = malloc(sizeof *tmax * NFORMS * (size_t)iters);
  double med[NFORMS], own[NFORMS];
  static double rmed[NFORMS][MAX_ROUNDS], rown[NFORMS][MAX_ROUNDS], ratio[NFORMS][MAX_ROUNDS];
  measure_round(iters / 10 + 1, t, tmax, med, own); /* warm */
  for (int r = 0; r < rounds; r++) {
    measure_round(iters, t, tmax, med, own);
    for (int f = 0; f < NFORMS; f++) {
      rmed[f][r] = med[f];
      rown[f][r] = own[f];
      ratio[f][r] = med[f] / med[F_BAR];
    }
  }
  double loop[NFORMS];
  for (int f = 0; f < NFORMS; f++) loop[f] = loop_mean(f, iters);

  if (me == 0) {
    printf("# coll_bench: %u ranks %s over %s; %d samples per form and round, the forms "
           "interleaved, %d round%s; a sample = max over the ranks of the call's time after "
           "an untimed barrier\n", (unsigned)n, where, GASNET_CONDUIT_NAME_STR, iters, rounds,
           rounds == 1 ? "" : "s");
    printf("%-24s %14s %14s %14s %10s\n", "form", "median(us)", "rank 0 (us)", "loop mean(us)",
           "/ barrier");
    double rt[NFORMS];
    for (int f = 0; f < NFORMS; f++) {
      rt[f] = raw_probe_median(ratio[f], (size_t)rounds);
      printf("%-24s %14.2f %14.2f %14.2f %9.2fx\n", labels[f],
             raw_probe_median(rmed[f], (size_t)rounds), raw_probe_median(rown[f], (size_t)rounds),
             loop[f], rt[f]);
    }
    char rawl[64];
    if (raw < 0) snprintf(rawl, sizeof rawl, "lost a datagram");
    else snprintf(rawl, sizeof rawl, "median %.2f us, mean %.2f us", rawmed, raw);
    printf("%-24s %s (rank 0's own, %s)\n", "raw UDP barrier", rawl,
           polite ? "yielding: more ranks than CPUs" : "busy-polling");
    int met = rt[F_BCAST] <= GOAL && rt[F_RED_U64] <= GOAL && rt[F_RED_DBL] <= GOAL;
    printf("summary: %u ranks %s: bcast 8 B / barrier %.2fx, reduce-all U64 / barrier %.2fx, "
           "DBL %.2fx (medians of the max over ranks, median of %d rounds); goal <= %.1fx: %s\n",
           (unsigned)n, nbrhd == 1 ? "over the network" : nbrhd == n ? "on one host" : "mixed",
           rt[F_BCAST], rt[F_RED_U64], rt[F_RED_DBL], rounds, GOAL, met ? "met" : "not met");
    double own_bar = raw_probe_median(rown[F_BAR], (size_t)rounds);
    if (raw > 0)
      printf("summary: barrier median %.2f us (rank 0's own) / raw UDP dissemination barrier "
             "median %.2f us = %.2fx; bcast %.2fx, reduce-all U64 %.2fx the raw barrier\n",
             own_bar, rawmed, own_bar / rawmed,
             raw_probe_median(rown[F_BCAST], (size_t)rounds) / rawmed,
             raw_probe_median(rown[F_RED_U64], (size_t)rounds) / rawmed);
    else
      printf("summary: the raw UDP barrier lost a datagram; no ratio to it\n");
    fflush(stdout);
  }
  free(t);
  free(tmax);
  bar();
  gasnet_exit(0);
  return 0;
}
