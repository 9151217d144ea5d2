/*
 * t_ptl_mt.c - puts from several threads at once (spec "Multi-threaded
 * Applications"), on 2 ranks: each rank runs T threads, and thread t puts
 * ROUNDS times to the peer, each time a put with ack of a size drawn from
 * 8 bytes to 1 MiB (the larger ones through shared memory by direct reads,
 * their copy shared with the waiting thread) into its own slot t of the
 * peer's entry (remote-managed offsets), from a source it refills before
 * each put and waits on its own event queue; the peer's entry logs every
 * PUT_END on one queue. Checks: every thread's every put acknowledged with
 * its length, the target's queue holds exactly T x ROUNDS PUT_ENDs with
 * the right lengths and offsets, and after a barrier each slot of the
 * target holds the last put of its thread, byte for byte.
 *
 * Prints "t_ptl_mt: rank R: all N checks passed". (Built by hand with
 * -fsanitize=thread, ThreadSanitizer reports nothing; docs/portals.md.)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "portals3.h"

#define T 4
#define ROUNDS 40
#define SLOT (1u << 20)
#define PT 5

static ptl_handle_ni_t ni;
static ptl_process_id_t peer;
static unsigned me_rank;
static int checks;
static pthread_mutex_t checks_lock = PTHREAD_MUTEX_INITIALIZER;

static void must(int rc, const char *what, int line) {
  if (rc == PTL_OK) return;
  fprintf(stderr, "t_ptl_mt: rank %u line %d: %s: %s\n", me_rank, line, what, PtlErrorStr(rc));
  exit(1);
}
#define OK(call) must((call), #call, __LINE__)

static void check(int ok, const char *what, unsigned a, unsigned b) {
  if (!ok) {
    fprintf(stderr, "t_ptl_mt: rank %u: FAILED: %s (%u, %u)\n", me_rank, what, a, b);
    exit(1);
  }
  pthread_mutex_lock(&checks_lock);
  checks++;
  pthread_mutex_unlock(&checks_lock);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The bytes of put `round` of thread t of rank r. */
static uint8_t pattern(unsigned r, unsigned t, unsigned round, size_t i) {
  return (uint8_t)(i * 7 + (i >> 10) + r * 101 + t * 31 + round * 13);
}
/* The length of that put: 8 B to 1 MiB, one in 4 of 64 KiB or more. */
static size_t length(unsigned r, unsigned t, unsigned round) {
  uint64_t z = (uint64_t)(r * 1000003u + t * 7919u + round * 104729u) * 0x9e3779b97f4a7c15ull;
  z ^= z >> 29;
  return (z & 3) == 0 ? (64u << 10) + (size_t)(z >> 8) % (SLOT - (64u << 10) + 1) : 8 + (size_t)(z >> 8) % 4096;
}

static void *putter(void *arg) {
  unsigned t = (unsigned)(uintptr_t)arg;
  uint8_t *src = malloc(SLOT);
  ptl_handle_eq_t eq;
  OK(PtlEQAlloc(ni, 64, &eq));
  for (unsigned round = 0; round < ROUNDS; round++) {
    size_t len = length(me_rank, t, round);
    for (size_t i = 0; i < len; i++) src[i] = pattern(me_rank, t, round, i);
    ptl_md_t d = {src, len, PTL_MD_THRESH_INF, len, 0, NULL, eq};
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, d, &md));
    OK(PtlPut(md, PTL_ACK_REQ, peer, PT, 0, 0, (ptl_size_t)t * SLOT, round));
    ptl_event_t ev;
    int acked = 0, sent = 0;
    while (!acked || !sent) { /* SEND_START, SEND_END, ACK in some order of the last two */
      OK(PtlEQWait(eq, &ev));
      if (ev.type == PTL_EVENT_SEND_END) sent = 1;
      if (ev.type == PTL_EVENT_ACK) {
        acked = 1;
        check(ev.mlength == len, "an ack reports the put's length", (unsigned)ev.mlength, (unsigned)len);
      }
    }
    int rc = PtlMDUnlink(md);
    check(rc == PTL_OK, "the source MD unlinks after SEND_END and the ack", (unsigned)rc, 0);
  }
  OK(PtlEQFree(eq));
  free(src);
  return NULL;
}

/* Put (with ack) until the peer's entry takes it; PT + 1 is the barrier's. */
static void hello(ptl_handle_eq_t heq, unsigned tag) {
  static char one[8];
  ptl_handle_md_t md;
  ptl_md_t d = {one, 8, PTL_MD_THRESH_INF, 8, 0, NULL, heq};
  OK(PtlMDBind(ni, d, &md));
  int acked = 0;
  for (double end = now_s() + 30; !acked && now_s() < end;) {
    OK(PtlPut(md, PTL_ACK_REQ, peer, PT + 1, 0, tag, 0, 0));
    ptl_event_t ev;
    for (double t = now_s() + 0.2; !acked && now_s() < t;)
      acked = PtlEQGet(heq, &ev) == PTL_OK && ev.type == PTL_EVENT_ACK;
  }
  check(acked, "the peer's barrier entry answered", tag, 0);
  OK(PtlMDUnlink(md));
}

/* Each rank hears the other's tag: a barrier of two. */
static void barrier(ptl_handle_eq_t heq, ptl_handle_eq_t beq, unsigned tag) {
  hello(heq, tag);
  ptl_event_t ev;
  for (int got = 0; !got;) {
    OK(PtlEQWait(beq, &ev));
    got = ev.type == PTL_EVENT_PUT_END && ev.match_bits == tag;
  }
}

int main(void) {
  int maxif;
  unsigned size;
  OK(PtlInit(&maxif));
  OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_PID_ANY, NULL, NULL, &ni));
  OK(PtlGetRank(ni, &me_rank, &size));
  if (size != 2) {
    fprintf(stderr, "t_ptl_mt: run it on 2 ranks\n");
    return 2;
  }
  OK(PtlGetRankId(ni, 1 - me_rank, &peer));
  ptl_process_id_t any = {PTL_NID_ANY, PTL_PID_ANY};
  /* The target: T slots, every put logged; the barrier's entry. */
  uint8_t *slots = calloc(T, SLOT);
  ptl_handle_eq_t teq, heq, beq;
  OK(PtlEQAlloc(ni, 4 * T * ROUNDS, &teq));
  OK(PtlEQAlloc(ni, 64, &heq));
  OK(PtlEQAlloc(ni, 64, &beq));
  ptl_handle_me_t me, bme;
  ptl_md_t td = {slots, (ptl_size_t)T * SLOT, PTL_MD_THRESH_INF, (ptl_size_t)T * SLOT,
                 PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, NULL, teq};
  OK(PtlMEAttach(ni, PT, any, 0, 0, PTL_RETAIN, PTL_INS_AFTER, &me));
  OK(PtlMDAttach(me, td, PTL_RETAIN, PTL_RETAIN, NULL));
  static char bbuf[8];
  ptl_md_t bd = {bbuf, 8, PTL_MD_THRESH_INF, 8, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, NULL, beq};
  OK(PtlMEAttach(ni, PT + 1, any, 0, ~(ptl_match_bits_t)0, PTL_RETAIN, PTL_INS_AFTER, &bme));
  OK(PtlMDAttach(bme, bd, PTL_RETAIN, PTL_RETAIN, NULL));
  barrier(heq, beq, 1); /* both entries are up */

  double t0 = now_s();
  pthread_t th[T];
  for (unsigned t = 0; t < T; t++) pthread_create(&th[t], NULL, putter, (void *)(uintptr_t)t);
  for (unsigned t = 0; t < T; t++) pthread_join(th[t], NULL);
  barrier(heq, beq, 2); /* the peer's puts are all acknowledged, so all here */
  double took = now_s() - t0;

  unsigned ends = 0, last[T];
  memset(last, 0, sizeof last);
  ptl_event_t ev;
  int rc;
  while ((rc = PtlEQGet(teq, &ev)) == PTL_OK || rc == PTL_EQ_DROPPED) {
    check(rc == PTL_OK, "the target's queue dropped nothing", (unsigned)rc, 0);
    if (ev.type != PTL_EVENT_PUT_END) continue;
    unsigned t = (unsigned)(ev.offset / SLOT), round = (unsigned)ev.hdr_data;
    check(t < T && ev.offset == (ptl_size_t)t * SLOT, "a put landed at its thread's slot", t, 0);
    check(round < ROUNDS && ev.mlength == length(1 - me_rank, t, round), "PUT_END has the put's length",
          (unsigned)ev.mlength, round);
    if (round >= last[t]) last[t] = round;
    ends++;
  }
  check(ends == T * ROUNDS, "every put of the peer's threads logged its PUT_END", ends, T * ROUNDS);
  for (unsigned t = 0; t < T; t++) {
    size_t len = length(1 - me_rank, t, ROUNDS - 1);
    for (size_t i = 0; i < len; i++)
      if (slots[(size_t)t * SLOT + i] != pattern(1 - me_rank, t, ROUNDS - 1, i)) {
        check(0, "a slot holds its thread's last put, byte for byte", t, (unsigned)i);
      }
    check(1, "slot checked", t, 0);
  }
  printf("t_ptl_mt: rank %u: %u threads x %u puts with ack each way in %.3f s\n", me_rank, T,
         ROUNDS, took);
  barrier(heq, beq, 3); /* nobody unlinks while the other still checks */
  OK(PtlNIFini(ni));
  PtlFini();
  printf("t_ptl_mt: rank %u: all %d checks passed\n", me_rank, checks);
  free(slots);
  return 0;
}
