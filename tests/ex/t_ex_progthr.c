/*
 * t_ex_progthr.c MODE [SECS] [MARKER] - progress threads of GASNet-EX
 * (../shared/spec/gasnet-ex-api-0.19.txt, gex_System_QueryProgressThreads,
 * GEX_FLAG_DEFER_THREADS; here the one deferrable thread is the liveness
 * thread, docs/transports.md "Liveness"). Each check prints what it
 * compared; every node prints "t_ex_progthr: node N: ok" and exits 0 only
 * when all matched (T_EXPECT ends the job otherwise). MARKER is unused: it
 * lets the script find the job's processes.
 *
 *   nodefer   gex_Client_Init without GEX_FLAG_DEFER_THREADS:
 *             gex_System_QueryProgressThreads returns GASNET_ERR_RESOURCE;
 *             count_p NULL returns GASNET_ERR_BAD_ARG.
 *   defer     with GEX_FLAG_DEFER_THREADS: count_p NULL -> BAD_ARG, info_p
 *             NULL -> BAD_ARG; then count 1 on 2+ ranks (0 on one) and for
 *             the thread: role GEX_THREAD_ROLE_SND, a device list string,
 *             non-NULL fn and arg; the client starts it with
 *             pthread_create. Then the last node computes SECS s without a
 *             GASNet call while node 0 waits on it (an AM round trip, a
 *             blocking get, a barrier): run with the timeout below SECS,
 *             it must not be declared dead. Then gasnet_exit(0) with the
 *             thread running.
 *   exit7     as defer up to the thread's start, then node 0 calls
 *             gasnet_exit(7) at once while the others wait in a barrier:
 *             the job ends 7, nothing left behind.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#define SEGSIZE (16u * GASNET_PAGESIZE)
#define MAGIC 0x5eedf00du

static gex_TM_t tm;
static gex_Rank_t me, n;
static gex_AM_Index_t h_req, h_rep;
static volatile int replied;
static volatile uint32_t reply_val;

static void req(gex_Token_t t, gex_AM_Arg_t a) {
  gex_AM_ReplyShort(t, h_rep, 0, (gex_AM_Arg_t)((uint32_t)a ^ MAGIC));
}
static void rep(gex_Token_t t, gex_AM_Arg_t a) {
  (void)t;
  reply_val = (uint32_t)a;
  replied = 1;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The deferred thread: checked, then started as the description says. */
static void start_threads(gex_Client_t client) {
  unsigned count = 99;
  const gex_ProgressThreadInfo_t *info = NULL;
  int rc = gex_System_QueryProgressThreads(client, NULL, &info, 0);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG, "count_p NULL: %s", gasnet_ErrorName(rc));
  rc = gex_System_QueryProgressThreads(client, &count, NULL, 0);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG, "info_p NULL: %s", gasnet_ErrorName(rc));
  T_CHECK(gex_System_QueryProgressThreads(client, &count, &info, 0));
  unsigned want = n > 1 ? 1 : 0;
  printf("node %u: gex_System_QueryProgressThreads: count %u, expected %u\n", (unsigned)me,
         count, want);
  T_EXPECT(count == want, "count");
  for (unsigned i = 0; i < count; i++) {
    const gex_ProgressThreadInfo_t *p = &info[i];
    printf("node %u: thread %u: roles %#x (SND %#x), device list '%s', fn %s, arg %s\n",
           (unsigned)me, i, p->gex_thread_roles, (unsigned)GEX_THREAD_ROLE_SND,
           p->gex_device_list ? p->gex_device_list : "(null)", p->gex_progress_fn ? "set" : "NULL",
           p->gex_progress_arg ? "set" : "NULL");
    T_EXPECT(p->gex_thread_roles == GEX_THREAD_ROLE_SND && p->gex_device_list &&
                 p->gex_progress_fn && p->gex_progress_arg,
             "thread %u's info", i);
    pthread_t tid;
    T_EXPECT(pthread_create(&tid, NULL, p->gex_progress_fn, p->gex_progress_arg) == 0,
             "pthread_create");
    /* Joinable, neither joined nor detached here: the library ends and
     * joins it at exit (the description, gex_System_QueryProgressThreads). */
  }
}

/* The last node computes; node 0 waits on it (tests/core/t_live.c's busy). */
static void busy(double secs, uint64_t *seg) {
  if (me == n - 1) seg[0] = 0xabcdef0000000001ull; /* seg: the last node's segment */
  gex_Coll_BarrierBlocking(tm, 0);
  if (me == n - 1) {
    double t0 = now_s();
    volatile unsigned long spin = 0;
    while (now_s() - t0 < secs) spin++;
    printf("node %u: computed %.1f s without a GASNet call\n", (unsigned)me, now_s() - t0);
  } else if (me == 0) {
    struct timespec half = {0, 500000000};
    nanosleep(&half, NULL); /* the last node has left the barrier: it computes */
    double t0 = now_s();
    gex_AM_RequestShort(tm, n - 1, h_req, 0, 12345);
    GASNET_BLOCKUNTIL(replied);
    uint64_t v = 0;
    gex_RMA_GetBlocking(tm, &v, n - 1, seg, sizeof v, 0);
    printf("node 0: waited %.1f s on node %u: reply %#x (expected %#x); get: %#llx "
           "(expected 0xabcdef0000000001)\n", now_s() - t0, (unsigned)(n - 1),
           (unsigned)reply_val, 12345u ^ MAGIC, (unsigned long long)v);
    T_EXPECT(reply_val == (12345u ^ MAGIC) && v == 0xabcdef0000000001ull, "reply or get");
  }
  gex_Coll_BarrierBlocking(tm, 0);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "defer";
  double secs = argc > 2 ? atof(argv[2]) : 3.0;
  int defer = strcmp(mode, "nodefer") != 0;
  gex_Client_t client;
  gex_EP_t ep;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "t_ex_progthr", &argc, &argv,
                          defer ? GEX_FLAG_DEFER_THREADS : 0));
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();
  if (!defer) {
    unsigned count;
    const gex_ProgressThreadInfo_t *info;
    int rc = gex_System_QueryProgressThreads(client, &count, &info, 0);
    printf("node %u: without GEX_FLAG_DEFER_THREADS: %s (expected GASNET_ERR_RESOURCE)\n",
           (unsigned)me, gasnet_ErrorName(rc));
    T_EXPECT(rc == GASNET_ERR_RESOURCE, "no DEFER");
    rc = gex_System_QueryProgressThreads(client, NULL, &info, 0);
    T_EXPECT(rc == GASNET_ERR_BAD_ARG, "count_p NULL: %s", gasnet_ErrorName(rc));
  } else {
    start_threads(client);
  }
  gex_AM_Entry_t t[] = {
    {0, (gex_AM_Fn_t)req, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "req"},
    {0, (gex_AM_Fn_t)rep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "rep"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, t, 2));
  h_req = t[0].gex_index; h_rep = t[1].gex_index;
  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, SEGSIZE));
  if (!strcmp(mode, "exit7")) {
    if (me == 0) {
      printf("t_ex_progthr: node 0: exiting with 7\n");
      fflush(stdout);
      gasnet_exit(7);
    }
    gex_Coll_BarrierBlocking(tm, 0); /* ended by node 0's exit */
    T_EXPECT(0, "the barrier returned although node 0 exited");
  }
  void *last = NULL; /* the last node's segment */
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, n - 1, &last, NULL, NULL, 0));
  if (defer && n > 1) busy(secs, last);
  printf("t_ex_progthr: node %u: ok\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
