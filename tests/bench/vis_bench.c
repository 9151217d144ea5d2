/*
 * vis_bench.c - VIS (gasnet_vis.h): what packing many pieces into few AMs
 * buys. Node 0 puts into node 1's segment; node 1 spins in gasnet_AMPoll
 * (GASNET_BLOCKUNTIL may sleep on a crowded host, and a put's round trip
 * would then measure the wake-up).
 *
 *   gasnetrun_udp -n 2 tests/bench/vis_bench [ITERS [ROUNDS]]
 *     (GASNET_SUPERNODE_MAXSIZE=1 for the network; the default shares the
 *      segments of one host, and every VIS piece is a memmove)
 *
 * The shape: a 64x64 block of 8-byte elements taken from a 256x256 array
 * (row stride 2 KiB) and put into the same block of a 256x256 array in the
 * peer's segment: gex_VIS_StridedPutBlocking with elemsz 8, count {64, 64},
 * strides {8, 2048} on both sides (64 rows of 512 contiguous bytes: 32 KiB).
 * Beside it, the same 32 KiB:
 *   contiguous    one gex_RMA_PutBlocking of 32 KiB
 *   8 B loop      4096 gex_RMA_PutNBI of 8 B, then gex_NBI_Wait
 *   scattered     the same count of elements taken every other one
 *                 (strides {16, 4096}: 4096 pieces of 8 B, nothing touches)
 *   memcpy        (on one host) a memcpy of 32 KiB, and a loop of 64 row
 *                 memcpys of 512 B into the peer's mapped segment
 * Each figure: ROUNDS rounds of ITERS calls (ITERS/50 for the 8 B loop,
 * which sends 4096 AMs a call), the forms taking turns to go first; per
 * form the mean and the median of every call's time, us per 32 KiB (the
 * median stands still when other jobs preempt the two ranks).
 * summary: lines give strided / contiguous (goal: <= 2x over the
 * network) and strided / 8 B loop, and on one host strided / memcpy.
 */
#define GASNET_SEQ 1
#include <gasnetex.h>
#include <gasnet_vis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DIM 256                 /* the arrays: DIM x DIM doubles */
#define BLK 64                  /* the block moved: BLK x BLK */
#define ELEM 8
#define BYTES ((size_t)BLK * BLK * ELEM)
#define H_DONE 200

enum { F_STRIDED, F_CONTIG, F_LOOP, F_SCATTER, F_MEMCPY, F_ROWCPY, NFORMS };
static const char *const names[NFORMS] = {
  "strided put 64x64 x 8 B",
  "contiguous put 32 KiB",
  "loop of 4096 8 B put_nbi",
  "strided put, every other elem",
  "memcpy 32 KiB",
  "64 row memcpys of 512 B",
};

static gex_TM_t tm;
static volatile int done;
static void h_done(gex_Token_t t) { (void)t; done = 1; }

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static char *src, *remote, *mapped; /* mapped: the peer's array here, or NULL */

static void one(int form) {
  static const size_t count[2] = { BLK, BLK };
  static const ptrdiff_t rows[2] = { ELEM, DIM * ELEM }, every2[2] = { 2 * ELEM, 2 * DIM * ELEM };
  switch (form) {
  case F_STRIDED:
    gex_VIS_StridedPutBlocking(tm, 1, remote, rows, src, rows, ELEM, count, 2, 0);
    break;
  case F_CONTIG: gex_RMA_PutBlocking(tm, 1, remote, src, BYTES, 0); break;
  case F_LOOP:
    for (size_t i = 0; i < BYTES; i += ELEM) gex_RMA_PutNBI(tm, 1, remote + i, src + i, ELEM, GEX_EVENT_DEFER, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    break;
  case F_SCATTER:
    gex_VIS_StridedPutBlocking(tm, 1, remote, every2, src, every2, ELEM, count, 2, 0);
    break;
  case F_MEMCPY: memcpy(mapped, src, BYTES); break;
  default:
    for (int r = 0; r < BLK; r++) memcpy(mapped + r * DIM * ELEM, src + r * DIM * ELEM, BLK * ELEM);
  }
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t seg;
  if (gex_Client_Init(&client, &ep, &tm, "VIS_BENCH", &argc, &argv, 0)) return 1;
  gex_AM_Entry_t h[] = { { H_DONE, (gex_AM_Fn_t)h_done, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "done" } };
  gex_EP_RegisterHandlers(ep, h, 1);
  size_t arr = (size_t)DIM * DIM * ELEM * 2; /* room for the every-other block */
  if (gex_Segment_Attach(&seg, tm, arr)) return 1;
  int iters = argc > 1 ? atoi(argv[1]) : 200, rounds = argc > 2 ? atoi(argv[2]) : 15;
  if (iters < 1) iters = 1;
  if (rounds < 1) rounds = 1;
  if (gex_TM_QuerySize(tm) < 2) { fprintf(stderr, "vis_bench: run on 2 ranks\n"); return 1; }
  if (gex_TM_QueryRank(tm) != 0) {
    while (!done) gasnet_AMPoll(); /* spinning, as the initiator does */
    gasnet_exit(0);
  }
  void *owner = NULL, *local = NULL;
  uintptr_t size = 0;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, 1, &owner, &local, &size, 0));
  remote = owner, mapped = local;
  src = malloc(arr);
  for (size_t i = 0; i < arr; i++) src[i] = (char)i;
  int nforms = mapped ? NFORMS : F_MEMCPY;
  double *t[NFORMS], mean[NFORMS], med[NFORMS];
  size_t nt[NFORMS] = { 0 };
  for (int f = 0; f < nforms; f++) t[f] = malloc(sizeof(double) * (size_t)iters * rounds);
  for (int f = 0; f < nforms; f++) one(f); /* warm up */
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < nforms; k++) {
      int f = (k + r) % nforms; /* a different form first in each round */
      int calls = f == F_LOOP ? (iters + 49) / 50 : iters; /* 4096 AMs each: fewer */
      for (int i = 0; i < calls; i++) {
        double t0 = now_us();
        one(f);
        t[f][nt[f]++] = now_us() - t0;
      }
    }
  printf("# vis_bench: node 0 -> node 1 %s, %d rounds of %d calls, us per 32 KiB\n",
         mapped ? "on one host (segments shared: memmove)" : "over the network (packed AMs)",
         rounds, iters);
  printf("%-32s %10s %10s\n", "label", "mean", "median");
  for (int f = 0; f < nforms; f++) {
    mean[f] = 0;
    for (size_t i = 0; i < nt[f]; i++) mean[f] += t[f][i] / (double)nt[f];
    qsort(t[f], nt[f], sizeof t[f][0], cmp);
    med[f] = t[f][nt[f] / 2];
    printf("%-32s %10.2f %10.2f\n", names[f], mean[f], med[f]);
    free(t[f]);
  }
  const char *where = mapped ? "on one host" : "network";
  printf("summary: %s: strided put 64x64x8B %.2f us / contiguous put 32 KiB %.2f us = %.2fx "
         "(medians; goal <= 2x over the network)\n", where, med[F_STRIDED], med[F_CONTIG],
         med[F_STRIDED] / med[F_CONTIG]);
  printf("summary: %s: strided put %.2f us / 4096 8 B puts %.2f us = %.3fx; every other "
         "element (4096 pieces) %.2f us\n", where, med[F_STRIDED], med[F_LOOP],
         med[F_STRIDED] / med[F_LOOP], med[F_SCATTER]);
  if (mapped)
    printf("summary: on one host: strided put %.2f us / 64 row memcpys %.2f us = %.2fx; "
           "memcpy 32 KiB %.2f us\n", med[F_STRIDED], med[F_ROWCPY],
           med[F_STRIDED] / med[F_ROWCPY], med[F_MEMCPY]);
  gex_AM_RequestShort0(tm, 1, H_DONE, 0);
  free(src);
  gasnet_exit(0);
  return 0;
}
