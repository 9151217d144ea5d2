/*
 * t_amtcp_lazy.c - connections made on first use (amtcp_conn.c), through
 * libgasnet-tcp-seq and gasnetrun_tcp. Every payload is made by t_fill and
 * checked by t_verify; every request carries its number in the stream from
 * its sender to its receiver, which must see 0, 1, 2... (frames queued while
 * a connection is made leave in order once it is up).
 *
 *   ring R   each node sends R rounds of a Medium and a Long to its two ring
 *            neighbours only, then passes a token twice around the ring
 *            (so nobody talks to anyone else meanwhile) and counts its
 *            sockets; then every node sends every other R rounds (all to
 *            all), a barrier, and it counts again. Prints "sockets opened
 *            by the all-to-all: K (expected E)": E = n - 3 when connections
 *            are made on first use (only the 2 neighbours were connected),
 *            0 when all were made at attach (GASNET_TCP_CONNECT=eager).
 *   race R   right after attach, with no barrier, every node sends every
 *            other R rounds at once: every pair connects both ways at the
 *            same moment (the tie-break of amtcp_conn.c).
 * Node 0 checks the job-wide totals; exit 0 when all matched.
 */
#define GASNET_SEQ 1
#include "../core/t_util.h"
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 32
#define LONG_SZ (32u << 10)
#define MAX_NODES 64

enum { H_MED = 128, H_LONG, H_ACK, H_TOTAL, H_TOKEN };

static volatile long acks, handled, bad, total_sum, totals_in, tokens;
static uint32_t next_out[MAX_NODES], next_in[MAX_NODES];
static gasnet_seginfo_t *seg;
static char *src_buf;
static long sent;

static uint32_t seed_of(uint32_t src, uint32_t dst, uint32_t i) {
  return t_mix(src * 0x10001u ^ dst * 0x3fffu ^ i * 0x9e37u ^ 0x1a2e);
}

/* A request from src numbered i: its payload, and its place in src's stream. */
static void check(gasnet_token_t t, void *buf, size_t n, uint32_t i) {
  gasnet_node_t src;
  gasnet_AMGetMsgSource(t, &src);
  uint32_t seed = 0;
  memcpy(&seed, buf, 4);
  if (!t_verify(buf, n) || seed != seed_of(src, gasnet_mynode(), i) || i != next_in[src]) {
    fprintf(stderr, "node %u: BAD request from node %u: number %u (expected %u), %zu bytes\n",
            (unsigned)gasnet_mynode(), (unsigned)src, i, next_in[src], n);
    bad++;
  }
  next_in[src] = i + 1;
  handled++;
  gasnet_AMReplyShort0(t, H_ACK);
}
static void h_med(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t i) { check(t, buf, n, (uint32_t)i); }
static void h_long(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t i) { check(t, buf, n, (uint32_t)i); }
static void h_ack(gasnet_token_t t) { (void)t; acks++; }
static void h_token(gasnet_token_t t) { (void)t; tokens++; }
static void h_total(gasnet_token_t t, gasnet_handlerarg_t h, gasnet_handlerarg_t b) {
  (void)t;
  total_sum += h;
  bad += b;
  totals_in++;
}

/* One Medium (16..4000 B) or, every 4th, a 32 KiB Long into src's slot. */
static void send_one(gasnet_node_t dst) {
  GASNET_BLOCKUNTIL(sent - acks < WINDOW);
  uint32_t i = next_out[dst]++;
  size_t n = i % 4 == 3 ? LONG_SZ : 16 + (i * 997) % 3985;
  t_fill(src_buf, n, seed_of(gasnet_mynode(), dst, i));
  if (i % 4 == 3)
    T_CHECK(gasnet_AMRequestLong1(dst, H_LONG, src_buf, n,
                                  (char *)seg[dst].addr + (size_t)gasnet_mynode() * LONG_SZ,
                                  (gasnet_handlerarg_t)i));
  else
    T_CHECK(gasnet_AMRequestMedium1(dst, H_MED, src_buf, n, (gasnet_handlerarg_t)i));
  sent++;
}

/* Every node sends every other `rounds` rounds; returns the requests this
 * node will handle. */
static long all_to_all(long rounds) {
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  for (long r = 0; r < rounds; r++)
    for (gasnet_node_t k = 1; k < n; k++) send_one((gasnet_node_t)((me + k) % n));
  return rounds * (n - 1);
}

static int count_sockets(void) {
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  int k = 0;
  char path[300], link[64];
  while (d && (e = readdir(d))) {
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t l = readlink(path, link, sizeof link - 1);
    if (l > 0 && (link[l] = 0, !strncmp(link, "socket:", 7))) k++;
  }
  if (d) closedir(d);
  return k;
}

/* Sockets once those of lost connect races are closed: the count after
 * 200 ms of polling. */
static int settled_sockets(void) {
  for (int i = 0; i < 200; i++) {
    gasnet_AMPoll();
    usleep(1000);
  }
  return count_sockets();
}

/* A barrier over the ring only: a token twice around. */
static void ring_barrier(void) {
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes(), right = (gasnet_node_t)((me + 1) % n);
  for (long round = 1; round <= 2; round++) {
    if (me != 0) GASNET_BLOCKUNTIL(tokens >= round);
    T_CHECK(gasnet_AMRequestShort0(right, H_TOKEN));
    if (me == 0) GASNET_BLOCKUNTIL(tokens >= round);
  }
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  const char *mode = argc > 1 ? argv[1] : "ring";
  long rounds = argc > 2 ? atol(argv[2]) : 8;
  gasnet_handlerentry_t table[] = {
    { H_MED, (void (*)())h_med }, { H_LONG, (void (*)())h_long }, { H_ACK, (void (*)())h_ack },
    { H_TOTAL, (void (*)())h_total }, { H_TOKEN, (void (*)())h_token }, T_BARRIER_HANDLERS,
  };
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  if (n < 3 || n > MAX_NODES) {
    fprintf(stderr, "t_amtcp_lazy: wants 3..%d nodes\n", MAX_NODES);
    gasnet_exit(2);
  }
  T_CHECK(gasnet_attach(table, sizeof table / sizeof table[0], (size_t)n * LONG_SZ, 0));
  seg = malloc(sizeof *seg * n);
  T_CHECK(gasnet_getSegmentInfo(seg, n));
  src_buf = malloc(LONG_SZ);
  long expect = 0;
  if (!strcmp(mode, "ring")) {
    for (long r = 0; r < rounds; r++) {
      send_one((gasnet_node_t)((me + 1) % n));
      send_one((gasnet_node_t)((me + n - 1) % n));
    }
    expect = 2 * rounds;
    GASNET_BLOCKUNTIL(acks == sent && handled == expect);
    ring_barrier();
    int ring = settled_sockets();
    expect += all_to_all(rounds);
    GASNET_BLOCKUNTIL(acks == sent && handled == expect);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    int all = settled_sockets();
    const char *cm = getenv("GASNET_TCP_CONNECT");
    int want = cm && !strcmp(cm, "eager") ? 0 : (int)n - 3;
    printf("node %u: sockets opened by the all-to-all: %d (expected %d)\n", (unsigned)me,
           all - ring, want);
    if (all - ring != want) bad++;
  } else if (!strcmp(mode, "race")) {
    expect = all_to_all(rounds);
    GASNET_BLOCKUNTIL(acks == sent && handled == expect);
  } else {
    fprintf(stderr, "t_amtcp_lazy: unknown mode %s\n", mode);
    gasnet_exit(2);
  }
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  T_CHECK(gasnet_AMRequestShort2(0, H_TOTAL, (gasnet_handlerarg_t)handled, (gasnet_handlerarg_t)bad));
  if (me == 0) {
    GASNET_BLOCKUNTIL(totals_in == n);
    long want = (!strcmp(mode, "ring") ? rounds * (n + 1) : rounds * (n - 1)) * n;
    printf("node 0: %s: handled %ld requests (expected %ld), %ld bad: %s\n", mode, total_sum,
           want, bad, total_sum == want && bad == 0 ? "ok" : "MISMATCH");
    fflush(stdout);
    if (total_sum != want || bad) gasnet_exit(4);
  }
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_exit(bad ? 4 : 0);
}
