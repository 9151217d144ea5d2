/*
 * t_live.c MODE SECS - liveness tells a busy rank from a dead one
 * (docs/transports.md, "Liveness").
 *   compute  the last node computes for SECS s without any GASNet call
 *            (it only reads the clock), while node 0 waits on it from
 *            0.5 s on: an AM request whose reply only the last node's
 *            handler sends, a blocking get from its segment, a barrier.
 *            Run with the timeout below SECS: the last node must not be
 *            declared dead, and every value must arrive intact.
 *   pause    node 0 sends the last node requests and waits for each reply
 *            for SECS s; the last node prints its pid and answers them.
 *            The script stops it (SIGSTOP) meanwhile and continues it
 *            later (tests/core/t-live.sh: GASNET_*_TIMEOUT=0 must keep
 *            the job alive however long it is stopped).
 * Every node prints "t_live: node N: ok" at the end, then exits 0. A node
 * still running after 60 s prints SURVIVED and exits 99.
 */
#include "t_util.h"
#include <time.h>
#include <unistd.h>

#define H_REQ 128
#define H_REP 129
#define H_DONE 130
#define MAGIC 0x11fe5eedu

static volatile int replies, done;
static volatile uint32_t reply_val;
static void req_h(gasnet_token_t token, gasnet_handlerarg_t a) {
  gasnet_AMReplyShort1(token, H_REP, (gasnet_handlerarg_t)((uint32_t)a ^ MAGIC));
}
static void rep_h(gasnet_token_t token, gasnet_handlerarg_t a) {
  (void)token;
  reply_val = (uint32_t)a;
  __atomic_fetch_add(&replies, 1, __ATOMIC_RELEASE);
}
static void done_h(gasnet_token_t token) { (void)token; done = 1; }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void barrier(void) {
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  T_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
}

/* One request to `peer` and the wait for its reply; returns the value. */
static uint32_t round_trip(gasnet_node_t peer, uint32_t v) {
  int want = replies + 1;
  T_CHECK(gasnet_AMRequestShort1(peer, H_REQ, (gasnet_handlerarg_t)v));
  GASNET_BLOCKUNTIL(__atomic_load_n(&replies, __ATOMIC_ACQUIRE) == want);
  return reply_val;
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  const char *mode = argc > 1 ? argv[1] : "compute";
  double secs = argc > 2 ? atof(argv[2]) : 4;
  gasnet_node_t me = gasnet_mynode(), last = gasnet_nodes() - 1;
  gasnet_handlerentry_t table[] = { { H_REQ, (void (*)())req_h }, { H_REP, (void (*)())rep_h },
                                    { H_DONE, (void (*)())done_h }, T_BARRIER_HANDLERS };
  T_CHECK(gasnet_attach(table, 5, GASNET_PAGESIZE, 0));
  if (last == 0) { fprintf(stderr, "t_live: needs 2 nodes or more\n"); gasnet_exit(2); }
  gasnet_seginfo_t *seg = malloc(sizeof *seg * gasnet_nodes());
  T_CHECK(gasnet_getSegmentInfo(seg, (int)gasnet_nodes()));
  *(volatile uint64_t *)seg[me].addr = 0xabcdef0000000000ull + me;
  int bad = 0;
  barrier();
  double t0 = now_s(), end = t0 + 60;

  if (!strcmp(mode, "compute")) {
    if (me == last) {
      volatile unsigned long spin = 0;
      while (now_s() < t0 + secs) spin++; /* no GASNet call: nothing polls */
      printf("t_live: node %u: computed %.1f s without polling\n", (unsigned)me, now_s() - t0);
    } else if (me == 0) {
      usleep(500000); /* the last node has left the barrier: it computes */
      double w0 = now_s();
      uint32_t v = round_trip(last, 7);
      double rt = now_s() - w0;
      uint64_t got = 0;
      gasnet_get(&got, last, seg[last].addr, sizeof got);
      printf("t_live: node 0: waited %.1f s for the reply: %#x (expected %#x); get: %#llx (expected %#llx)\n",
             rt, (unsigned)v, (unsigned)(7 ^ MAGIC), (unsigned long long)got,
             0xabcdef0000000000ull + last);
      bad = v != (7 ^ MAGIC) || got != 0xabcdef0000000000ull + last;
    }
    barrier();
  } else if (!strcmp(mode, "pause")) {
    if (me == last) {
      printf("t_live: node %u: pid %d\n", (unsigned)me, (int)getpid());
      fflush(stdout);
    }
    if (me == 0) {
      unsigned n = 0;
      double longest = 0;
      while (now_s() < t0 + secs) {
        double a = now_s();
        uint32_t v = round_trip(last, n);
        if (v != (n ^ MAGIC)) bad = 1;
        if (now_s() - a > longest) longest = now_s() - a;
        n++;
      }
      printf("t_live: node 0: %u round trips in %.1f s, the longest %.1f s%s\n", n,
             now_s() - t0, longest, bad ? ", WRONG VALUES" : "");
      for (gasnet_node_t i = 1; i <= last; i++) T_CHECK(gasnet_AMRequestShort0(i, H_DONE));
    } else {
      while (!done && now_s() < end) gasnet_AMPoll();
    }
    barrier();
  } else {
    fprintf(stderr, "t_live: unknown mode %s\n", mode);
    gasnet_exit(2);
  }
  if (now_s() > end) {
    printf("t_live: node %u: SURVIVED 60 s in mode %s\n", (unsigned)me, mode);
    fflush(stdout);
    _exit(99);
  }
  printf("t_live: node %u: %s\n", (unsigned)me, bad ? "FAILED" : "ok");
  fflush(stdout);
  free(seg);
  gasnet_exit(bad);
  return 0;
}
