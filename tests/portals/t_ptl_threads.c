/*
 * t_ptl_threads.c - the blocking call and the any-portal attach
 * (tests/portals/t-portals-mpi.sh runs it on 2 ranks, each on its own):
 *
 *   FIFO     three threads wait in PtlEQWait on one queue, started 200 ms
 *            apart; puts to this process log two events each: the first
 *            waiter gets the first event, the second the second, the third
 *            the third; each event goes to exactly one waiter, and the
 *            one left over is there for PtlEQGet;
 *   free     a thread waits on a queue that PtlEQFree frees: it returns
 *            PTL_INV_EQ (within the wait's re-check interval);
 *   any      PtlMEAttachAny takes every empty Portal index in turn (never
 *            one in use), then PTL_PT_FULL; a put to an index it gave lands
 *            there; an index freed by PtlMEUnlink is given again.
 *
 * Prints "t_ptl_threads: rank R: all N checks passed".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "portals3.h"

static ptl_handle_ni_t ni;
static ptl_process_id_t self;
static unsigned me_rank;
static int checks;

#define CHECK(cond, ...)                                                                \
  do {                                                                                  \
    __atomic_add_fetch(&checks, 1, __ATOMIC_RELAXED);                                   \
    if (!(cond)) {                                                                      \
      fprintf(stderr, "t_ptl_threads: rank %u: FAILED %s (line %d): ", me_rank, #cond, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                                     \
      fprintf(stderr, "\n");                                                            \
      exit(3);                                                                          \
    }                                                                                   \
  } while (0)
#define OK(call)                                          \
  do {                                                    \
    int rc_ = (call);                                     \
    CHECK(rc_ == PTL_OK, "%s", PtlErrorStr(rc_));         \
  } while (0)

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static ptl_process_id_t any_id(void) {
  ptl_process_id_t a = {PTL_NID_ANY, PTL_PID_ANY};
  return a;
}

/* ---- FIFO waiters ----------------------------------------------------------- */
typedef struct {
  ptl_handle_eq_t q;
  int rc;
  ptl_event_t ev;
  double returned;
} waiter_t;

static void *waiter_main(void *arg) {
  waiter_t *w = arg;
  w->rc = PtlEQWait(w->q, &w->ev);
  w->returned = now_s();
  return NULL;
}

static void put_self(ptl_pt_index_t pt, ptl_hdr_data_t hdr) {
  static unsigned char src[8];
  ptl_handle_md_t md;
  ptl_md_t d = {src, sizeof src, PTL_MD_THRESH_INF, sizeof src, 0, NULL, PTL_EQ_NONE};
  OK(PtlMDBind(ni, d, &md));
  OK(PtlPut(md, PTL_NOACK_REQ, self, pt, 0, 0, 0, hdr));
  OK(PtlMDUnlink(md)); /* loopback: done within PtlPut */
}

static void fifo(void) {
  static unsigned char dst[64];
  ptl_handle_eq_t q;
  ptl_handle_me_t me;
  OK(PtlEQAlloc(ni, 16, &q));
  OK(PtlMEAttach(ni, 1, any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER, &me));
  ptl_md_t d = {dst, sizeof dst, PTL_MD_THRESH_INF, sizeof dst, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, NULL, q};
  OK(PtlMDAttach(me, d, PTL_RETAIN, PTL_RETAIN, NULL));
  waiter_t w[3];
  pthread_t t[3];
  for (int k = 0; k < 3; k++) {
    w[k].q = q;
    w[k].returned = 0;
    CHECK(pthread_create(&t[k], NULL, waiter_main, &w[k]) == 0, "thread");
    usleep(200000); /* thread k waits before thread k+1 starts */
  }
  put_self(1, 100); /* PUT_START -> waiter 0, PUT_END -> waiter 1 */
  usleep(100000);
  CHECK(w[2].returned == 0, "the third waiter still waits after two events");
  put_self(1, 101); /* PUT_START -> waiter 2; PUT_END left in the queue */
  for (int k = 0; k < 3; k++) pthread_join(t[k], NULL);
  static const ptl_event_kind_t kind[3] = {PTL_EVENT_PUT_START, PTL_EVENT_PUT_END, PTL_EVENT_PUT_START};
  static const ptl_hdr_data_t hdr[3] = {100, 100, 101};
  for (int k = 0; k < 3; k++) {
    CHECK(w[k].rc == PTL_OK, "waiter %d: %s", k, PtlErrorStr(w[k].rc));
    CHECK(w[k].ev.type == kind[k] && w[k].ev.hdr_data == hdr[k] && w[k].ev.sequence == (ptl_seq_t)k + 1,
          "waiter %d got %s of put %llu, sequence %u (FIFO: wanted %s of put %llu)", k,
          PtlEventKindStr(w[k].ev.type), (unsigned long long)w[k].ev.hdr_data, w[k].ev.sequence,
          PtlEventKindStr(kind[k]), (unsigned long long)hdr[k]);
  }
  ptl_event_t ev;
  OK(PtlEQGet(q, &ev));
  CHECK(ev.type == PTL_EVENT_PUT_END && ev.hdr_data == 101 && ev.sequence == 4, "the event left over");
  CHECK(PtlEQGet(q, &ev) == PTL_EQ_EMPTY, "nothing else");
  OK(PtlMEUnlink(me));
  OK(PtlEQFree(q));
}

/* ---- PtlEQFree under a waiter ---------------------------------------------- */
static void free_under_waiter(void) {
  waiter_t w = {0};
  pthread_t t;
  OK(PtlEQAlloc(ni, 4, &w.q));
  CHECK(pthread_create(&t, NULL, waiter_main, &w) == 0, "thread");
  usleep(200000);
  CHECK(w.returned == 0, "the waiter waits");
  double freed = now_s();
  OK(PtlEQFree(w.q));
  pthread_join(t, NULL);
  CHECK(w.rc == PTL_INV_EQ, "a waiter on a freed queue: %s", PtlErrorStr(w.rc));
  CHECK(w.returned - freed < 1.0, "it returned %.3f s after the free", w.returned - freed);
  CHECK(PtlEQWait(w.q, &w.ev) == PTL_INV_EQ, "the freed handle");
}

/* ---- PtlMEAttachAny ---------------------------------------------------------- */
static void attach_any(void) {
  static unsigned char dst[8];
  ptl_handle_me_t fixed, any[64];
  ptl_pt_index_t idx[64];
  int used[64] = {0};
  OK(PtlMEAttach(ni, 0, any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER, &fixed));
  used[0] = 1;
  int n = 0;
  for (;;) {
    int rc = PtlMEAttachAny(ni, &idx[n], any_id(), 0, 0, PTL_RETAIN, &any[n]);
    if (rc == PTL_PT_FULL) break;
    CHECK(rc == PTL_OK, "PtlMEAttachAny #%d: %s", n, PtlErrorStr(rc));
    CHECK(idx[n] < 64 && !used[idx[n]], "index %u given twice or in use", idx[n]);
    used[idx[n]] = 1;
    n++;
  }
  CHECK(n == 63, "%d indexes given (64 Portals, one in use), then PTL_PT_FULL", n);
  ptl_handle_eq_t q;
  ptl_event_t ev;
  OK(PtlEQAlloc(ni, 8, &q));
  ptl_md_t d = {dst, sizeof dst, PTL_MD_THRESH_INF, sizeof dst, PTL_MD_OP_PUT, NULL, q};
  OK(PtlMDAttach(any[17], d, PTL_RETAIN, PTL_RETAIN, NULL));
  put_self(idx[17], 7);
  OK(PtlEQGet(q, &ev));
  CHECK(ev.type == PTL_EVENT_PUT_START && ev.portal == idx[17] && ev.hdr_data == 7, "a put to an index it gave");
  ptl_pt_index_t again;
  ptl_handle_me_t h;
  OK(PtlMEUnlink(any[30]));
  OK(PtlMEAttachAny(ni, &again, any_id(), 0, 0, PTL_RETAIN, &h));
  CHECK(again == idx[30], "the freed index %u is given again (got %u)", idx[30], again);
  any[30] = h;
  for (int i = 0; i < n; i++) OK(PtlMEUnlink(any[i]));
  OK(PtlMEUnlink(fixed));
  OK(PtlEQFree(q));
}

int main(void) {
  int maxif;
  unsigned size;
  alarm(60);
  OK(PtlInit(&maxif));
  OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_PID_ANY, NULL, NULL, &ni));
  OK(PtlGetRank(ni, &me_rank, &size));
  OK(PtlGetId(ni, &self));
  fifo();
  free_under_waiter();
  attach_any();
  OK(PtlNIFini(ni));
  PtlFini();
  printf("t_ptl_threads: rank %u: all %d checks passed\n", me_rank, checks);
  return 0;
}
