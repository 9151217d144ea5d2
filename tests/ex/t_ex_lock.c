/*
 * t_ex_lock.c - a lock word and a counter passed between the ranks of one
 * host with blocking value puts and gets only, checked exactly on every
 * turn: what a client builds on the memory model (spec 1.8 3.4: a blocking
 * put is complete, so visible, when it returns).
 *
 * The lock (4 bytes at rank 0's segment base) holds a turn number t: the
 * turn is rank t % n's. Rank r spins on gex_RMA_GetBlockingVal(lock) until
 * t % n == r, then checks that t is exactly the turn it waited for (k-th
 * turn: r + k*n) and that the counter (4 bytes in the last rank's segment)
 * holds t, puts t + 1 there, then puts t + 1 in the lock. A put that stores
 * its bytes more than once (memmove of 4 bytes does, with two overlapping
 * stores) can land its second store after the next rank has already taken
 * the turn and passed it on, and bring an old turn number back: a rank
 * then sees a turn that is not the one it waits for, or a stale counter,
 * and the job fails at once naming both values.
 *
 * MODE block: gasnet_set_waitmode(GASNET_WAIT_BLOCK) and sched_yield in
 * the spin (a polite client's loop, several ranks per core); spin:
 * GASNET_WAIT_SPIN, no yield. Each spin also calls gasnet_AMPoll. A rank
 * that waits more than 20 s for its turn fails (a lost hand-off).
 *
 *   t_ex_lock MODE TURNS   (TURNS per rank)
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#define T_LOCK_STUCK_NS (20ull * 1000000000ull)

static uint64_t t_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Wait for turn `want` of the lock; returns the turn read (== want unless broken). */
static uint32_t t_acquire(gex_TM_t tm, uint32_t *lock, gex_Rank_t me, gex_Rank_t n,
                          int polite, uint32_t want) {
  uint64_t t0 = t_now_ns();
  for (;;) {
    uint32_t t = (uint32_t)gex_RMA_GetBlockingVal(tm, 0, lock, sizeof t, 0);
    if (t % n == me) return t;
    if (polite) sched_yield();
    gasnet_AMPoll();
    if (t_now_ns() - t0 > T_LOCK_STUCK_NS) {
      printf("node %u: FAIL waited 20 s for turn %u; the lock holds %u\n", (unsigned)me,
             (unsigned)want, (unsigned)t);
      fflush(stdout);
      gasnet_exit(3);
    }
  }
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "t_ex_lock", &argc, &argv, 0));
  if (argc != 3 || (strcmp(argv[1], "block") && strcmp(argv[1], "spin")) || atoi(argv[2]) <= 0) {
    fprintf(stderr, "usage: t_ex_lock block|spin TURNS\n");
    gasnet_exit(2);
  }
  const int polite = !strcmp(argv[1], "block");
  const uint32_t turns = (uint32_t)atoi(argv[2]);
  T_CHECK(gex_Segment_Attach(&seg, tm, 1u << 16));
  T_CHECK(gasnet_set_waitmode(polite ? GASNET_WAIT_BLOCK : GASNET_WAIT_SPIN));
  const gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  void *base0, *basel;
  uintptr_t size;
  T_CHECK(gex_Segment_QueryBound(tm, 0, &base0, NULL, &size));
  T_CHECK(gex_Segment_QueryBound(tm, n - 1, &basel, NULL, &size));
  uint32_t *lock = base0;
  uint32_t *count = (uint32_t *)basel + 16; /* its own cache line when both are rank 0's */
  if (me == 0) *lock = 0;
  if (me == n - 1) *count = 0;
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

  uint64_t t0 = t_now_ns();
  for (uint32_t k = 0; k < turns; k++) {
    const uint32_t want = me + k * n;
    uint32_t t = t_acquire(tm, lock, me, n, polite, want);
    uint32_t c = (uint32_t)gex_RMA_GetBlockingVal(tm, n - 1, count, sizeof c, 0);
    if (t != want || c != want) {
      printf("node %u: FAIL turn %u (pass %u): the lock said turn %u, the counter %u "
             "(both should be %u)\n", (unsigned)me, (unsigned)want, (unsigned)k,
             (unsigned)t, (unsigned)c, (unsigned)want);
      fflush(stdout);
      gasnet_exit(1);
    }
    T_CHECK(gex_RMA_PutBlockingVal(tm, n - 1, count, want + 1, sizeof c, 0));
    T_CHECK(gex_RMA_PutBlockingVal(tm, 0, lock, want + 1, sizeof t, 0));
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  uint32_t last = (uint32_t)gex_RMA_GetBlockingVal(tm, n - 1, count, sizeof last, 0);
  if (last != turns * n) {
    printf("node %u: FAIL the counter ends at %u, not %u\n", (unsigned)me, (unsigned)last,
           (unsigned)(turns * n));
    gasnet_exit(1);
  }
  printf("node %u: %s: %u turns of %u ranks in order, counter %u (%.1f s)\n", (unsigned)me,
         argv[1], (unsigned)turns, (unsigned)n, (unsigned)last, (t_now_ns() - t0) / 1e9);
  fflush(stdout);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gasnet_exit(0);
  return 0;
}
