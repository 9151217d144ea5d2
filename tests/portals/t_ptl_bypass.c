/*
 * t_ptl_bypass.c - large puts that only the progress threads carry
 * (tests/portals/t-portals-bypass.sh runs it on 2 ranks, shared memory on
 * and off):
 *
 *   rank 0 puts 4 MiB with an ack to rank 1, PUTS times, each with its own
 *   data, and waits for each ack with PtlEQGet between sleeps of 100 us
 *   (an application computing: no PtlEQWait, so its progress thread alone
 *   writes what the transport could not take at once); rank 1 waits in
 *   PtlEQWait for each PUT_END (mlength 4 MiB) and at the end checks the
 *   last put's bytes.
 *
 * Neither progress thread may have slept to its 100 ms bound meanwhile
 * (PTL_SR_SLEEP_TIMEOUT_COUNT unchanged on rank 0; rank 1's is printed):
 * a sleep that long while a put is in flight is a missed wake-up (the
 * shared-memory transport kept a frame's rest and nobody asked the
 * receiver to wake us when it made room: about 100 ms per put). Counting
 * sleeps, not timing the puts, keeps the check exact on a loaded machine.
 *
 * Prints "t_ptl_bypass: rank R: all N checks passed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "portals3.h"

#define PT 4
#define BIG (4u << 20)
#define PUTS 20

static ptl_handle_ni_t ni;
static ptl_handle_eq_t eq, heq; /* the puts' events; hello's (the peer may put meanwhile) */
static unsigned me_rank;
static int checks;

static void must(int rc, const char *what, int line) {
  if (rc == PTL_OK) return;
  fprintf(stderr, "t_ptl_bypass: rank %u line %d: %s: %s\n", me_rank, line, what, PtlErrorStr(rc));
  exit(1);
}
#define OK(call) must((call), #call, __LINE__)

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "t_ptl_bypass: rank %u: FAILED: %s\n", me_rank, what);
    exit(1);
  }
  checks++;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fill(unsigned char *b, unsigned seed) {
  for (size_t i = 0; i < BIG; i++) b[i] = (unsigned char)(i * 7 + seed * 13 + (i >> 12));
}

static ptl_sr_value_t timeouts(void) {
  ptl_sr_value_t v;
  OK(PtlNIStatus(ni, PTL_SR_SLEEP_TIMEOUT_COUNT, &v));
  return v;
}

/* Put (with ack) until the peer's entry takes it: its match list is ready. */
static void hello(ptl_process_id_t peer) {
  static char one[8];
  ptl_handle_md_t md;
  ptl_md_t d = {one, 8, PTL_MD_THRESH_INF, 8, 0, NULL, heq};
  OK(PtlMDBind(ni, d, &md));
  int acked = 0;
  for (double end = now_s() + 20; !acked && now_s() < end;) {
    OK(PtlPut(md, PTL_ACK_REQ, peer, PT + 1, 0, 0, 0, 0));
    ptl_event_t ev;
    for (double t = now_s() + 0.2; !acked && now_s() < t;)
      acked = PtlEQGet(heq, &ev) == PTL_OK && ev.type == PTL_EVENT_ACK;
  }
  check(acked, "the peer's hello entry acknowledged a put within 20 s");
}

/* Rank 0: the puts, waited for without PtlEQWait. */
static void initiator(ptl_process_id_t peer, unsigned char *buf) {
  ptl_handle_md_t md;
  ptl_md_t d = {buf, BIG, PTL_MD_THRESH_INF, BIG, 0, NULL, eq};
  OK(PtlMDBind(ni, d, &md));
  ptl_sr_value_t t0 = timeouts();
  double start = now_s();
  for (unsigned i = 0; i < PUTS; i++) {
    fill(buf, i);
    OK(PtlPut(md, PTL_ACK_REQ, peer, PT, 0, 0, 0, 0));
    ptl_event_t ev;
    int acked = 0;
    for (double end = now_s() + 30; !acked && now_s() < end;) {
      int rc = PtlEQGet(eq, &ev);
      if (rc == PTL_EQ_EMPTY) {
        nanosleep(&(struct timespec){0, 100000}, NULL);
        continue;
      }
      OK(rc);
      acked = ev.type == PTL_EVENT_ACK;
      if (acked) check(ev.mlength == BIG, "the ack reports all 4 MiB");
    }
    check(acked, "each put acknowledged within 30 s");
  }
  double took = now_s() - start;
  ptl_sr_value_t t1 = timeouts();
  printf("t_ptl_bypass: rank 0: %d puts of 4 MiB in %.3f s; progress sleeps to the 100 ms bound meanwhile: %lld\n",
         PUTS, took, (long long)(t1 - t0));
  check(t1 == t0, "no progress-thread sleep ran to its bound while the puts were in flight");
  OK(PtlMDUnlink(md));
}

/* Rank 1: each PUT_END, then the last put's bytes. */
static void target(unsigned char *buf) {
  ptl_sr_value_t t0 = timeouts();
  for (unsigned i = 0; i < PUTS; i++) {
    ptl_event_t ev;
    do OK(PtlEQWait(eq, &ev));
    while (ev.type != PTL_EVENT_PUT_END);
    check(ev.mlength == BIG && ev.rlength == BIG, "PUT_END of 4 MiB");
  }
  unsigned char *want = malloc(BIG);
  fill(want, PUTS - 1);
  check(memcmp(buf, want, BIG) == 0, "the last put's 4 MiB arrived intact");
  free(want);
  printf("t_ptl_bypass: rank 1: progress sleeps to the 100 ms bound while receiving: %lld\n",
         (long long)(timeouts() - t0));
}

int main(void) {
  int maxif;
  unsigned size;
  OK(PtlInit(&maxif));
  OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_PID_ANY, NULL, NULL, &ni));
  OK(PtlGetRank(ni, &me_rank, &size));
  if (size != 2) {
    fprintf(stderr, "t_ptl_bypass: run it on 2 ranks\n");
    return 2;
  }
  OK(PtlEQAlloc(ni, 1024, &eq));
  OK(PtlEQAlloc(ni, 1024, &heq));
  ptl_process_id_t peer, any = {PTL_NID_ANY, PTL_PID_ANY};
  OK(PtlGetRankId(ni, 1 - me_rank, &peer));
  unsigned char *buf = calloc(1, BIG);
  static char hbuf[8];
  ptl_handle_me_t me, hme;
  ptl_md_t d = {buf, BIG, PTL_MD_THRESH_INF, BIG, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, NULL, eq};
  ptl_md_t hd = {hbuf, 8, PTL_MD_THRESH_INF, 8, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, NULL, PTL_EQ_NONE};
  OK(PtlMEAttach(ni, PT, any, 0, 0, PTL_RETAIN, PTL_INS_AFTER, &me));
  OK(PtlMDAttach(me, d, PTL_RETAIN, PTL_RETAIN, NULL));
  OK(PtlMEAttach(ni, PT + 1, any, 0, 0, PTL_RETAIN, PTL_INS_AFTER, &hme));
  OK(PtlMDAttach(hme, hd, PTL_RETAIN, PTL_RETAIN, NULL));
  hello(peer);
  if (me_rank == 0) initiator(peer, buf);
  else target(buf);
  OK(PtlNIFini(ni)); /* collective: rank 1 serves until rank 0 is done */
  PtlFini();
  free(buf);
  printf("t_ptl_bypass: rank %u: all %d checks passed\n", me_rank, checks);
  return 0;
}
