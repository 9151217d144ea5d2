/*
 * t_barrier_loss - the barrier over UDP when its messages are lost,
 * duplicated and reordered (t-barrier-loss.sh injects the faults).
 *
 * Over UDP a barrier's messages go as notices (core/transport.h), which a
 * lost datagram loses for good: the barrier must ask for them again
 * (gasnete_bpull) and, at the end, send what a peer may still wait for as
 * frames (gasnete_bresend at gasnet_exit and gex_TM_Destroy). Checked:
 *   - ITERS barriers, each named: id i on every rank, except that every
 *     MISMATCH_EVERY-th rank 0 passes i + 1: exactly those report
 *     GASNET_ERR_BARRIER_MISMATCH, on every rank, and the others GASNET_OK;
 *   - barriers separate phases: every rank's blocking put of i + 1 into its
 *     slot on rank 0 before barrier i is there after it;
 *   - a split-phase barrier by gasnet_barrier_try until it succeeds;
 *   - after the last barrier every rank prints its line and exits at once:
 *     a rank whose last message was lost still finishes (gasnet_exit
 *     sends it again as a frame) and prints, rather than being ended by
 *     another's exit inside the barrier.
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>

#define MISMATCH_EVERY 10

static int check(int rc, int want, int i) {
  if (rc == want) return 0;
  printf("t_barrier_loss: node %u: barrier %d returned %d, expected %d\n", (unsigned)gasnet_mynode(),
         i, rc, want);
  return 1;
}

int main(int argc, char **argv) {
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 2;
  int iters = argc > 1 ? atoi(argv[1]) : 300;
  if (gasnet_attach(NULL, 0, GASNET_PAGESIZE, 0) != GASNET_OK) return 2;
  unsigned me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_seginfo_t *seg = malloc(n * sizeof *seg);
  gasnet_getSegmentInfo(seg, (int)n);
  int *slots = seg[0].addr; /* rank 0's: one int per rank */
  int bad = 0, mismatches = 0;
  for (int i = 0; i < iters && !bad; i++) {
    int val = i + 1;
    gasnet_put(0, &slots[me], &val, sizeof val);
    int mis = i % MISMATCH_EVERY == MISMATCH_EVERY - 1;
    int id = me == 0 && mis ? i + 1 : i, rc;
    gasnet_barrier_notify(id, 0);
    if (i % 3 == 2) {
      while ((rc = gasnet_barrier_try(id, 0)) == GASNET_ERR_NOT_READY) {}
    } else {
      rc = gasnet_barrier_wait(id, 0);
    }
    bad |= check(rc, mis ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK, i);
    mismatches += mis;
    for (unsigned r = 0; me == 0 && r < n; r++)
      if (slots[r] != i + 1) {
        printf("t_barrier_loss: barrier %d let rank 0 through before rank %u's put (%d)\n", i, r,
               slots[r]);
        bad = 1;
      }
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS); /* read before the next puts */
    bad |= check(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS), GASNET_OK, i);
  }
  printf("t_barrier_loss: node %u of %u: %d barriers, %d mismatches reported: %s\n", me, n,
         2 * iters, mismatches, bad ? "FAILED" : "ok");
  fflush(stdout);
  gasnet_exit(bad);
  return bad;
}
