/*
 * t_ex_coll_par.c - collectives from several threads at once (GASNET_PAR):
 * each of T_CP_THREADS threads owns a team (a split of the primordial team
 * with every member, rank order kept) and runs T_CP_ITERS rounds of a
 * broadcast from a rotating root, a reduce-to-all (U64 ADD and DBL MAX), a
 * reduce-to-one (USER_NC, whose result proves rank order) and a barrier on
 * it, checking every result against what the rank computes alone. The
 * description lets collectives on different teams run concurrently
 * ("Collectives (Coll)"); here they also share the engine's progress (any
 * thread may advance another thread's operation). Last line per rank:
 * "all threaded collective checks passed".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gasnetex.h>
#include <gasnet_coll.h>

#define MAXT 8
static gex_TM_t teams[MAXT];
static gex_Rank_t me, n;
static int iters;
static int errors[MAXT];

/* (v, m) pairs: y = (x.v * y.m + y.v, x.m * y.m): affine maps composed in
 * order, so the result is the ranks' digits in rank order. */
static void compose(const void *a1, void *a2, size_t count, const void *cd) {
  (void)cd;
  const uint64_t *x = a1;
  uint64_t *y = a2;
  for (size_t i = 0; i < count; i++) {
    y[2 * i] = x[2 * i] * y[2 * i + 1] + y[2 * i];
    y[2 * i + 1] = x[2 * i + 1] * y[2 * i + 1];
  }
}

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  gex_TM_t tm = teams[t];
  for (int it = 0; it < iters; it++) {
    gex_Rank_t root = (gex_Rank_t)((it + t) % n);
    uint64_t b[64];
    for (int i = 0; i < 64; i++) b[i] = me == root ? (uint64_t)(t * 1000003 + it * 64 + i) : 0;
    gex_Event_t ev[3];
    ev[0] = gex_Coll_BroadcastNB(tm, root, b, b, sizeof b, 0);
    uint64_t s = me + (uint64_t)it, sum = 0;
    ev[1] = gex_Coll_ReduceToAllNB(tm, &sum, &s, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    double d = (double)((me * 7 + (gex_Rank_t)it) % n), mx = -1;
    ev[2] = gex_Coll_ReduceToAllNB(tm, &mx, &d, GEX_DT_DBL, 8, 1, GEX_OP_MAX, NULL, NULL, 0);
    gex_Event_WaitAll(ev, 3, 0);
    for (int i = 0; i < 64; i++)
      if (b[i] != (uint64_t)(t * 1000003 + it * 64 + i)) errors[t]++;
    if (sum != (uint64_t)n * (n - 1) / 2 + (uint64_t)n * it) errors[t]++;
    if (mx != (double)(n - 1)) errors[t]++;
    uint64_t mine[2] = { me + 1, 10 }, out[2] = { 0, 0 }, want = 0;
    for (gex_Rank_t r = 0; r < n; r++) want = want * 10 + (r + 1) % 10;
    mine[0] = (me + 1) % 10;
    gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, out, mine, GEX_DT_USER, 16, 1,
                                          GEX_OP_USER_NC, compose, NULL, 0));
    if (me == root && out[0] != want) errors[t]++;
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  }
  return NULL;
}

int main(int argc, char **argv) {
  gex_Client_t cl;
  gex_EP_t ep;
  gex_TM_t tm0;
  gex_Segment_t seg;
  if (gex_Client_Init(&cl, &ep, &tm0, "T_EX_COLL_PAR", &argc, &argv, 0) != GASNET_OK) return 1;
  if (gex_Segment_Attach(&seg, tm0, 1 << 16) != GASNET_OK) return 1;
  me = gex_TM_QueryRank(tm0);
  n = gex_TM_QuerySize(tm0);
  const char *e = getenv("T_CP_THREADS");
  int nt = e ? atoi(e) : 4;
  e = getenv("T_CP_ITERS");
  iters = e ? atoi(e) : 200;
  if (nt < 1 || nt > MAXT) nt = 4;
  for (int t = 0; t < nt; t++) gex_TM_Split(&teams[t], tm0, 0, (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  pthread_t th[MAXT];
  for (int t = 0; t < nt; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
  int bad = 0;
  for (int t = 0; t < nt; t++) {
    pthread_join(th[t], NULL);
    bad += errors[t];
  }
  for (int t = 0; t < nt; t++) gex_TM_Destroy(teams[t], NULL, 0);
  printf("rank %u: %d threads x %d rounds of broadcast, reduce-to-all x2, reduce-to-one "
         "(USER_NC), barrier on their own teams: %d wrong results\n", (unsigned)me, nt, iters, bad);
  if (!bad) printf("rank %u: all threaded collective checks passed\n", (unsigned)me);
  fflush(stdout);
  gasnet_exit(bad ? 1 : 0);
  return 0;
}
