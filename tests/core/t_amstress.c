/*
 * t_amstress.c - Active Message stress test (spec 2.3).
 *
 * Every node sends to every node (itself too):
 *   1. a sweep: each category (Short, Medium, Long, LongAsync) with every
 *      M = 0..16, payload sizes cycling 0, 1, random, maximum;
 *   2. a storm: NSTORM (argv[1], default 300) random messages (random target,
 *      category, M and log-uniform size up to the maxima) with up to WINDOW
 *      requests in flight.
 * argv[2] adds to the seed. argv[3], CAP (bytes, default 0: none), is for
 * large jobs (tests/core/t-scale.sh): the full sweep is 68 requests per
 * pair with payloads up to the maxima, O(n^2) megabytes, too much at 256
 * ranks. With CAP the sweep sends one request per category per pair (M
 * rotating with the target, so every M still meets every category over
 * the targets), every Medium and Long payload 1..CAP bytes (none empty: each
 * pair's payloads are checked both ways), the storm's sizes are capped at
 * CAP too, and a Long slot in the segment is CAP bytes rounded up to a page
 * instead of MAXLONG. Then node 0 prints, when the job's environment has
 * T_LAUNCH_NS (the launch time, CLOCK_REALTIME in ns), the milliseconds from
 * launch to the first barrier, the sweep's end and the storm's end; and
 * every node prints its peak RSS, its anonymous and shared resident memory
 * and its open descriptors (from /proc/self).
 * Arguments: a0 is a random seed, a_i = mix(a0 + i), checked by the handler.
 * Payloads carry a seed and bytes derived from it, checked byte for byte.
 * Each request handler replies with the same category, M, arguments and
 * payload (Long: into the sender's segment), and the reply is checked too.
 * At the end node 0 checks that the requests handled, summed over all nodes,
 * equal the requests sent.
 */
#include "t_util.h"
#include <dirent.h>
#include <math.h>
#include <time.h>

#define WINDOW 16
#define MAXLONG (1024u * 1024)

#define T_P_0
#define T_P_1 T_P_0, gasnet_handlerarg_t a0
#define T_P_2 T_P_1, gasnet_handlerarg_t a1
#define T_P_3 T_P_2, gasnet_handlerarg_t a2
#define T_P_4 T_P_3, gasnet_handlerarg_t a3
#define T_P_5 T_P_4, gasnet_handlerarg_t a4
#define T_P_6 T_P_5, gasnet_handlerarg_t a5
#define T_P_7 T_P_6, gasnet_handlerarg_t a6
#define T_P_8 T_P_7, gasnet_handlerarg_t a7
#define T_P_9 T_P_8, gasnet_handlerarg_t a8
#define T_P_10 T_P_9, gasnet_handlerarg_t a9
#define T_P_11 T_P_10, gasnet_handlerarg_t a10
#define T_P_12 T_P_11, gasnet_handlerarg_t a11
#define T_P_13 T_P_12, gasnet_handlerarg_t a12
#define T_P_14 T_P_13, gasnet_handlerarg_t a13
#define T_P_15 T_P_14, gasnet_handlerarg_t a14
#define T_P_16 T_P_15, gasnet_handlerarg_t a15
#define T_A_0
#define T_A_1 T_A_0 a0,
#define T_A_2 T_A_1 a1,
#define T_A_3 T_A_2 a2,
#define T_A_4 T_A_3 a3,
#define T_A_5 T_A_4 a4,
#define T_A_6 T_A_5 a5,
#define T_A_7 T_A_6 a6,
#define T_A_8 T_A_7 a7,
#define T_A_9 T_A_8 a8,
#define T_A_10 T_A_9 a9,
#define T_A_11 T_A_10 a10,
#define T_A_12 T_A_11 a11,
#define T_A_13 T_A_12 a12,
#define T_A_14 T_A_13 a13,
#define T_A_15 T_A_14 a14,
#define T_A_16 T_A_15 a15,
#define T_V_0
#define T_V_1 T_V_0, av[0]
#define T_V_2 T_V_1, av[1]
#define T_V_3 T_V_2, av[2]
#define T_V_4 T_V_3, av[3]
#define T_V_5 T_V_4, av[4]
#define T_V_6 T_V_5, av[5]
#define T_V_7 T_V_6, av[6]
#define T_V_8 T_V_7, av[7]
#define T_V_9 T_V_8, av[8]
#define T_V_10 T_V_9, av[9]
#define T_V_11 T_V_10, av[10]
#define T_V_12 T_V_11, av[11]
#define T_V_13 T_V_12, av[12]
#define T_V_14 T_V_13, av[13]
#define T_V_15 T_V_14, av[14]
#define T_V_16 T_V_15, av[15]
#define T_FOREACH_M(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)

/* handler indexes */
#define H_REQ(cat, M) (128 + 17 * (cat) + (M)) /* cat 0 Short, 1 Medium, 2 Long: 128..178 */
#define H_REP(cat, M) (179 + 17 * (cat) + (M)) /* 179..229 */
#define H_TOTAL 240

static gasnet_seginfo_t *seg;
static volatile int outstanding;
static volatile int *long_busy;          /* [dest]: a Long request to dest in flight */
static long handled, replies_ok, sent;
static long sent_by_cat[4], sent_by_m[17];
static long long bytes_sent;
static volatile int totals_in;
static long total_sent, total_handled;
static size_t slot = MAXLONG;            /* a Long slot in the segment */

static void check_args(const char *what, int M, const gasnet_handlerarg_t *av) {
  for (int i = 1; i < M; i++)
    T_EXPECT(av[i] == (gasnet_handlerarg_t)t_mix((uint32_t)av[0] + (uint32_t)i),
             "%s M=%d: arg %d is %d, expected %d", what, M, i, av[i],
             (gasnet_handlerarg_t)t_mix((uint32_t)av[0] + (uint32_t)i));
}

static char *reply_dst(gasnet_node_t requester) {
  return (char *)seg[requester].addr + (size_t)(gasnet_nodes() + gasnet_mynode()) * slot;
}

#define DEF_HANDLERS(M)                                                                 \
  static void req_short_##M(gasnet_token_t token T_P_##M) {                             \
    gasnet_handlerarg_t av[M + 1] = { T_A_##M 0 };                                      \
    check_args("Short request", M, av);                                                 \
    handled++;                                                                          \
    T_CHECK(gasnet_AMReplyShort##M(token, H_REP(0, M) T_V_##M));                        \
  }                                                                                     \
  static void req_medium_##M(gasnet_token_t token, void *buf, size_t n T_P_##M) {       \
    gasnet_handlerarg_t av[M + 1] = { T_A_##M 0 };                                      \
    check_args("Medium request", M, av);                                                \
    T_EXPECT(t_verify(buf, n), "Medium request M=%d payload of %zu bytes corrupt", M, n); \
    handled++;                                                                          \
    T_CHECK(gasnet_AMReplyMedium##M(token, H_REP(1, M), buf, n T_V_##M));               \
  }                                                                                     \
  static void req_long_##M(gasnet_token_t token, void *buf, size_t n T_P_##M) {         \
    gasnet_handlerarg_t av[M + 1] = { T_A_##M 0 };                                      \
    gasnet_node_t src;                                                                  \
    T_CHECK(gasnet_AMGetMsgSource(token, &src));                                        \
    check_args("Long request", M, av);                                                  \
    char *at = (char *)seg[gasnet_mynode()].addr + (size_t)src * slot;                  \
    T_EXPECT(n == 0 || buf == at, "Long request landed at %p, not %p", buf, (void *)at); \
    T_EXPECT(t_verify(at, n), "Long request M=%d payload of %zu bytes corrupt", M, n);  \
    handled++;                                                                          \
    T_CHECK(gasnet_AMReplyLong##M(token, H_REP(2, M), at, n, reply_dst(src) T_V_##M));  \
  }                                                                                     \
  static void rep_short_##M(gasnet_token_t token T_P_##M) {                             \
    gasnet_handlerarg_t av[M + 1] = { T_A_##M 0 };                                      \
    (void)token;                                                                        \
    check_args("Short reply", M, av);                                                   \
    replies_ok++; outstanding--;                                                        \
  }                                                                                     \
  static void rep_medium_##M(gasnet_token_t token, void *buf, size_t n T_P_##M) {       \
    gasnet_handlerarg_t av[M + 1] = { T_A_##M 0 };                                      \
    (void)token;                                                                        \
    check_args("Medium reply", M, av);                                                  \
    T_EXPECT(t_verify(buf, n), "Medium reply M=%d payload of %zu bytes corrupt", M, n); \
    replies_ok++; outstanding--;                                                        \
  }                                                                                     \
  static void rep_long_##M(gasnet_token_t token, void *buf, size_t n T_P_##M) {         \
    gasnet_handlerarg_t av[M + 1] = { T_A_##M 0 };                                      \
    gasnet_node_t src;                                                                  \
    T_CHECK(gasnet_AMGetMsgSource(token, &src));                                        \
    check_args("Long reply", M, av);                                                    \
    char *at = (char *)seg[gasnet_mynode()].addr + (size_t)(gasnet_nodes() + src) * slot; \
    T_EXPECT(n == 0 || buf == at, "Long reply landed at %p, not %p", buf, (void *)at);  \
    T_EXPECT(t_verify(at, n), "Long reply M=%d payload of %zu bytes corrupt", M, n);    \
    replies_ok++; outstanding--; long_busy[src] = 0;                                    \
  }
T_FOREACH_M(DEF_HANDLERS)

static void total_handler(gasnet_token_t token, gasnet_handlerarg_t s, gasnet_handlerarg_t h) {
  (void)token;
  total_sent += s; total_handled += h; totals_in++;
}

static uint64_t rng_state;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 11);
}
static size_t rnd_size(size_t max) {
  if (rnd() % 20 == 0) return max;
  double u = (rnd() % 1000000) / 1000000.0;
  size_t s = (size_t)exp(u * log((double)max + 1)) - 1;
  return s > max ? max : s;
}

static char *srcbuf;

/* With CAP: node 0 says how long after T_LAUNCH_NS the job reached `what`. */
static void report_time(const char *what) {
  const char *l = getenv("T_LAUNCH_NS");
  if (!l || gasnet_mynode() != 0) return;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  double ms = ((double)ts.tv_sec * 1e9 + (double)ts.tv_nsec - atof(l)) / 1e6;
  printf("node 0: %s %.0f ms after launch\n", what, ms);
  fflush(stdout);
}

/* With CAP: this node's memory (kB, from /proc/self/status) and descriptors. */
static void report_resources(void) {
  long hwm = -1, anon = -1, shm = -1, fds = 0;
  char line[256];
  FILE *f = fopen("/proc/self/status", "r");
  while (f && fgets(line, sizeof line, f)) {
    sscanf(line, "VmHWM: %ld", &hwm);
    sscanf(line, "RssAnon: %ld", &anon);
    sscanf(line, "RssShmem: %ld", &shm);
  }
  if (f) fclose(f);
  DIR *d = opendir("/proc/self/fd");
  for (struct dirent *e; d && (e = readdir(d));) fds += e->d_name[0] != '.';
  if (d) closedir(d);
  printf("node %u: resources: VmHWM %ld kB, RssAnon %ld kB, RssShmem %ld kB, %ld descriptors\n",
         (unsigned)gasnet_mynode(), hwm, anon, shm, fds - 1 /* the DIR's own */);
  fflush(stdout);
}

#define SEND_CASE(M)                                                                     \
  case M:                                                                                \
    if (cat == 0) T_CHECK(gasnet_AMRequestShort##M(dest, H_REQ(0, M) T_V_##M));          \
    else if (cat == 1) T_CHECK(gasnet_AMRequestMedium##M(dest, H_REQ(1, M), srcbuf, n T_V_##M)); \
    else if (cat == 2) T_CHECK(gasnet_AMRequestLong##M(dest, H_REQ(2, M), srcbuf, n, dst T_V_##M)); \
    else T_CHECK(gasnet_AMRequestLongAsync##M(dest, H_REQ(2, M), srcbuf, n, dst T_V_##M)); \
    break;

/* cat: 0 Short, 1 Medium, 2 Long, 3 LongAsync */
static void send_one(gasnet_node_t dest, int cat, int M, size_t n) {
  gasnet_handlerarg_t av[17];
  av[0] = (gasnet_handlerarg_t)rnd();
  for (int i = 1; i < 17; i++) av[i] = (gasnet_handlerarg_t)t_mix((uint32_t)av[0] + (uint32_t)i);
  char *dst = NULL;
  if (cat == 0) n = 0;
  GASNET_BLOCKUNTIL(outstanding < WINDOW);
  if (cat >= 2) {
    GASNET_BLOCKUNTIL(!long_busy[dest]);
    long_busy[dest] = 1;
    dst = (char *)seg[dest].addr + (size_t)gasnet_mynode() * slot;
  }
  t_fill(srcbuf, n, rnd());
  outstanding++;
  sent++; sent_by_cat[cat]++; sent_by_m[M]++; bytes_sent += (long long)n;
  switch (M) { T_FOREACH_M(SEND_CASE) }
  /* LongAsync: the source must stay untouched until the reply starts (spec 2.3.3.4) */
  if (cat == 3) GASNET_BLOCKUNTIL(!long_busy[dest]);
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  long nstorm = argc > 1 ? atol(argv[1]) : 300;
  size_t cap = argc > 3 ? (size_t)atol(argv[3]) : 0;
  if (cap) slot = (cap + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
  if (slot > MAXLONG) slot = MAXLONG;
  gasnet_node_t me = gasnet_mynode(), nodes = gasnet_nodes();
  gasnet_handlerentry_t table[2 * 3 * 17 + 3];
  int k = 0;
#define REG(M)                                                         \
  table[k++] = (gasnet_handlerentry_t){ H_REQ(0, M), (void (*)())req_short_##M };  \
  table[k++] = (gasnet_handlerentry_t){ H_REQ(1, M), (void (*)())req_medium_##M }; \
  table[k++] = (gasnet_handlerentry_t){ H_REQ(2, M), (void (*)())req_long_##M };   \
  table[k++] = (gasnet_handlerentry_t){ H_REP(0, M), (void (*)())rep_short_##M };  \
  table[k++] = (gasnet_handlerentry_t){ H_REP(1, M), (void (*)())rep_medium_##M }; \
  table[k++] = (gasnet_handlerentry_t){ H_REP(2, M), (void (*)())rep_long_##M };
  T_FOREACH_M(REG)
  table[k++] = (gasnet_handlerentry_t){ H_TOTAL, (void (*)())total_handler };
  table[k++] = (gasnet_handlerentry_t){ T_H_ARRIVE, (void (*)())t_arrive_handler };
  table[k++] = (gasnet_handlerentry_t){ T_H_RELEASE, (void (*)())t_release_handler };
  T_CHECK(gasnet_attach(table, k, (uintptr_t)2 * nodes * slot, 0));
  seg = calloc(nodes, sizeof *seg);
  long_busy = calloc(nodes, sizeof *long_busy);
  srcbuf = malloc(MAXLONG);
  T_CHECK(gasnet_getSegmentInfo(seg, (int)nodes));
  rng_state = 0x9e3779b97f4a7c15ull * (me + 1) + (argc > 2 ? (uint64_t)atoll(argv[2]) : 0);
  size_t maxsz[4] = { 0, gasnet_AMMaxMedium(), gasnet_AMMaxLongRequest(), gasnet_AMMaxLongRequest() };
  for (int cat = 1; cat < 4 && cap; cat++)
    if (maxsz[cat] > cap) maxsz[cat] = cap;
  if (slot < maxsz[2]) maxsz[2] = maxsz[3] = slot;

  if (cap) {
    t_barrier();
    report_time("first barrier");
  }

  /* 1. sweep: every category x every M x every node (with CAP: every
   * category x every node, M = (me + d + cat) % 17, 1..CAP bytes) */
  for (int cat = 0; cat < 4; cat++)
    for (int M = 0; M <= (cap ? 0 : 16); M++)
      for (gasnet_node_t d = 0; d < nodes; d++) {
        size_t sizes[4] = { 0, 1, rnd_size(maxsz[cat]), maxsz[cat] };
        if (cap) send_one((me + d) % nodes, cat, (int)((me + d + cat) % 17), cat ? 1 + rnd_size(maxsz[cat] - 1) : 0);
        else send_one((me + d) % nodes, cat, M, sizes[(M + d) % 4]);
      }
  GASNET_BLOCKUNTIL(outstanding == 0);
  printf("node %u: sweep done: %ld requests (4 categories x %s x %u nodes), all replies verified\n",
         (unsigned)me, sent, cap ? "one M" : "M=0..16", (unsigned)nodes);
  fflush(stdout);
  t_barrier();
  if (cap) report_time("sweep done");

  /* 2. storm */
  for (long i = 0; i < nstorm; i++) {
    int cat = (int)(rnd() % 4), M = (int)(rnd() % 17);
    send_one((gasnet_node_t)(rnd() % nodes), cat, M, rnd_size(maxsz[cat]));
  }
  GASNET_BLOCKUNTIL(outstanding == 0);
  T_EXPECT(replies_ok == sent, "replies verified %ld, requests sent %ld", replies_ok, sent);
  printf("node %u: storm done: sent %ld requests (Short %ld, Medium %ld, Long %ld, LongAsync %ld; "
         "%lld payload bytes), verified %ld replies, handled %ld requests\n",
         (unsigned)me, sent, sent_by_cat[0], sent_by_cat[1], sent_by_cat[2], sent_by_cat[3],
         bytes_sent, replies_ok, handled);
  fflush(stdout);
  t_barrier(); /* every request everywhere has been handled and replied */
  if (cap) {
    report_time("storm done");
    report_resources();
  }
  T_CHECK(gasnet_AMRequestShort2(0, H_TOTAL, (gasnet_handlerarg_t)sent, (gasnet_handlerarg_t)handled));
  if (me == 0) {
    GASNET_BLOCKUNTIL(totals_in == (int)nodes);
    T_EXPECT(total_sent == total_handled, "requests sent %ld, handled %ld", total_sent, total_handled);
    printf("node 0: all nodes: %ld requests sent, %ld handled: equal\n", total_sent, total_handled);
    fflush(stdout);
  }
  t_barrier();
  gasnet_exit(0);
}
