/*
 * t_amtcp_traffic.c - AM traffic through libgasnet-tcp-seq for the amtcp
 * scripts. Every payload is made by t_fill and checked by t_verify, and its
 * seed is checked against the one the receiver expects.
 *
 *   a2a K       every node sends every node (itself too) K rounds of a
 *               Medium (16 B, 4000 B, 65536 B in turn) and a Long (32 KiB,
 *               into a slot of the target's segment), at most WINDOW
 *               requests unanswered; node 0 checks the job-wide totals.
 *   both N      node i sends N Longs of 1 MiB to node i+1 (mod n) while
 *               node i-1 sends it N, so every connection carries 1 MiB frames
 *               both ways at once; each is checked in place.
 *   stream S    for S seconds, every node sends 256 KiB Longs to the others
 *               in turn, into 4 slots per sender (for the kill test: a peer
 *               dies mid-transfer).
 *   idle S      light Short ping-pong with the neighbours for S seconds
 *               (for the stranger-connection test), then exit 0.
 *   a2a-go K F  a2a K once the file F exists (polling until then, at most
 *               30 s): the script puts strangers at every listener first
 *               (t-hold.sh). Only the connections to node 0 (its barrier)
 *               are made before.
 * Each node prints "node N pid P" first, so a script can find its processes.
 */
#define GASNET_SEQ 1
#include "../core/t_util.h"
#include <time.h>
#include <unistd.h>

#define WINDOW 32
#define A2A_LONG (32u << 10)
#define BIG (1u << 20)
#define STREAM_LONG (256u << 10)

enum { H_MED = 128, H_LONG, H_ACK, H_TOTAL };

static volatile long acks, handled, bad, total_sum, totals_in;
static gasnet_seginfo_t *seg;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static uint32_t seed_of(uint32_t src, uint32_t dst, uint32_t i) {
  return t_mix(src * 0x10001u ^ dst * 0x3fffu ^ i * 0x9e37u ^ 0x5eed);
}

static void check(gasnet_token_t t, void *buf, size_t n, uint32_t i) {
  gasnet_node_t src;
  gasnet_AMGetMsgSource(t, &src);
  uint32_t seed = 0;
  if (n >= 4) memcpy(&seed, buf, 4);
  if (!t_verify(buf, n) || (n >= 4 && seed != seed_of(src, gasnet_mynode(), i))) {
    fprintf(stderr, "node %u: BAD payload from node %u: message %u, %zu bytes\n",
            (unsigned)gasnet_mynode(), (unsigned)src, i, n);
    bad++;
  }
  handled++;
  gasnet_AMReplyShort0(t, H_ACK);
}
static void h_med(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t i) { check(t, buf, n, (uint32_t)i); }
static void h_long(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t i) { check(t, buf, n, (uint32_t)i); }
static void h_ack(gasnet_token_t t) { (void)t; acks++; }
static void h_total(gasnet_token_t t, gasnet_handlerarg_t h, gasnet_handlerarg_t b) {
  (void)t;
  total_sum += h;
  bad += b;
  totals_in++;
}

static char *src_buf;
static long sent;

static void send_one(gasnet_node_t dst, int is_long, size_t n, void *dest, uint32_t i) {
  GASNET_BLOCKUNTIL(sent - acks < WINDOW);
  t_fill(src_buf, n, seed_of(gasnet_mynode(), dst, i));
  if (is_long) T_CHECK(gasnet_AMRequestLong1(dst, H_LONG, src_buf, n, dest, (gasnet_handlerarg_t)i));
  else T_CHECK(gasnet_AMRequestMedium1(dst, H_MED, src_buf, n, (gasnet_handlerarg_t)i));
  sent++;
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  const char *mode = argc > 1 ? argv[1] : "a2a";
  long arg = argc > 2 ? atol(argv[2]) : 2;
  gasnet_handlerentry_t table[] = {
    { H_MED, (void (*)())h_med }, { H_LONG, (void (*)())h_long },
    { H_ACK, (void (*)())h_ack }, { H_TOTAL, (void (*)())h_total }, T_BARRIER_HANDLERS,
  };
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  size_t segsz = (size_t)n * A2A_LONG;
  if (segsz < 4 * BIG) segsz = 4 * BIG;
  if (segsz < (size_t)n * 4 * STREAM_LONG) segsz = (size_t)n * 4 * STREAM_LONG;
  T_CHECK(gasnet_attach(table, sizeof table / sizeof table[0], segsz, 0));
  seg = malloc(sizeof *seg * n);
  T_CHECK(gasnet_getSegmentInfo(seg, n));
  src_buf = malloc(BIG);
  printf("node %u pid %d\n", (unsigned)me, (int)getpid());
  fflush(stdout);
  t_barrier();
  if (!strcmp(mode, "a2a-go")) {
    const char *go = argc > 3 ? argv[3] : "";
    double end = now_s() + 30;
    while (access(go, F_OK) != 0 && now_s() < end) { gasnet_AMPoll(); usleep(1000); }
    if (access(go, F_OK) != 0) { fprintf(stderr, "node %u: no %s after 30 s\n", (unsigned)me, go); gasnet_exit(3); }
    mode = "a2a";
  }
  double t0 = now_s();
  long expect = 0; /* requests this node should handle */

  if (!strcmp(mode, "a2a")) {
    static const size_t msz[] = { 16, 4000, 65536 };
    for (uint32_t i = 0; i < (uint32_t)arg; i++)
      for (gasnet_node_t k = 1; k <= n; k++) { /* start with the next node: spread the load */
        gasnet_node_t d = (gasnet_node_t)((me + k) % n);
        send_one(d, 0, msz[i % 3], NULL, 2 * i);
        send_one(d, 1, A2A_LONG, (char *)seg[d].addr + (size_t)me * A2A_LONG, 2 * i + 1);
      }
    expect = 2 * arg * n;
  } else if (!strcmp(mode, "both")) {
    gasnet_node_t d = (gasnet_node_t)((me + 1) % n);
    for (uint32_t i = 0; i < (uint32_t)arg; i++) {
      GASNET_BLOCKUNTIL(sent - acks < 3); /* 4 slots: never overwrite one being checked */
      t_fill(src_buf, BIG, seed_of(me, d, i));
      T_CHECK(gasnet_AMRequestLong1(d, H_LONG, src_buf, BIG, (char *)seg[d].addr + (i % 4) * BIG,
                                    (gasnet_handlerarg_t)i));
      sent++;
    }
    expect = n > 1 ? arg : 0;
  } else if (!strcmp(mode, "stream")) {
    uint32_t i = 0;
    while (now_s() - t0 < arg) {
      gasnet_node_t d = (gasnet_node_t)((me + 1 + i % (n - 1)) % n);
      size_t slot = (size_t)me * 4 + i % 4; /* 4 slots per sender in each target */
      send_one(d, 1, STREAM_LONG, (char *)seg[d].addr + slot * STREAM_LONG, i);
      i++;
    }
    expect = -1;
  } else if (!strcmp(mode, "idle")) {
    uint32_t i = 0;
    while (now_s() - t0 < arg) {
      send_one((gasnet_node_t)((me + 1) % n), 0, 64, NULL, i++);
      usleep(10000);
    }
    expect = -1;
  } else {
    fprintf(stderr, "t_amtcp_traffic: unknown mode %s\n", mode);
    gasnet_exit(2);
  }
  GASNET_BLOCKUNTIL(acks == sent);
  if (expect >= 0) GASNET_BLOCKUNTIL(handled >= expect);
  double secs = now_s() - t0;
  t_barrier();
  printf("node %u: %s: sent %ld requests, %ld acked, handled %ld, %ld bad, %.2f s\n",
         (unsigned)me, mode, sent, acks, handled, bad, secs);
  fflush(stdout);
  T_CHECK(gasnet_AMRequestShort2(0, H_TOTAL, (gasnet_handlerarg_t)handled, (gasnet_handlerarg_t)bad));
  if (me == 0) {
    GASNET_BLOCKUNTIL(totals_in == n);
    long want = !strcmp(mode, "a2a") ? 2 * arg * n * n : !strcmp(mode, "both") && n > 1 ? arg * n : total_sum;
    printf("node 0: all nodes: handled %ld requests (expected %ld), %ld bad: %s\n", total_sum, want,
           bad, total_sum == want && bad == 0 ? "ok" : "MISMATCH");
    fflush(stdout);
    if (total_sum != want || bad) gasnet_exit(4);
  }
  t_barrier();
  gasnet_exit(bad ? 4 : 0);
}
