/*
 * amudp_bench - the UDP transport beside raw UDP, measured in the same run.
 *
 * usage: amudp_bench [SCALE]      (SCALE multiplies iteration counts, default 1)
 *
 *   raw probe  two processes, plain UDP sockets on 127.0.0.1, busy-polling
 *              recvfrom(MSG_DONTWAIT) ping-pong of 8 bytes: the floor.
 *   ping-pong  rank 0 sends a request frame (16-byte header + N payload
 *              bytes), rank 1's deliver() replies with the same size, rank 0
 *              busy-polls for the reply; N = 0 (a Short), 8, 1 KiB, 64 KiB,
 *              1 MiB, 4 MiB (the maximum).
 *   put burst  rank 0 sends 1 or 2 back-to-back 1 MiB request frames, rank 1
 *              answers each with an empty reply (the shape of a pipelined
 *              put); time until both are answered, and the ratio 2-vs-1,
 *              which should be about 2 (each costs a copy and its sends).
 *   flood      rank 0 sends 8-byte one-way frames as fast as send() allows;
 *              rate = frames / time until rank 1 has them all.
 * The transport runs twice: loss-free, and with GASNET_UDP_DROP=0.1.
 * Ratios are to the raw probe's mean round trip (the average of the probe
 * run before and after).
 */
#include "amudp_tjob.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>

/* ---------------------------------------------------------------- raw probe */

static double raw_pingpong(int iters) {
  int s[2];
  struct sockaddr_in a[2];
  for (int i = 0; i < 2; i++) {
    s[i] = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&a[i], 0, sizeof a[i]);
    a[i].sin_family = AF_INET;
    a[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(s[i], (struct sockaddr *)&a[i], sizeof a[i]);
    socklen_t l = sizeof a[i];
    getsockname(s[i], (struct sockaddr *)&a[i], &l);
  }
  int res[2];
  if (pipe(res)) return -1;
  fflush(stdout);
  pid_t pid = fork();
  char buf[64] = {0};
  if (pid == 0) { /* ponger */
    for (int i = 0; i < iters + 100; i++) {
      while (recvfrom(s[1], buf, sizeof buf, MSG_DONTWAIT, NULL, NULL) < 0) {}
      sendto(s[1], buf, 8, 0, (struct sockaddr *)&a[0], sizeof a[0]);
    }
    _exit(0);
  }
  double t0 = 0;
  for (int i = 0; i < iters + 100; i++) {
    if (i == 100) t0 = tjob_now();
    sendto(s[0], buf, 8, 0, (struct sockaddr *)&a[1], sizeof a[1]);
    while (recvfrom(s[0], buf, sizeof buf, MSG_DONTWAIT, NULL, NULL) < 0) {}
  }
  double us = (tjob_now() - t0) / iters * 1e6;
  waitpid(pid, NULL, 0);
  close(s[0]); close(s[1]); close(res[0]); close(res[1]);
  return us;
}

/* Raw sockets made before the ranks fork, so the ranks can also run the raw
 * probe, alternating with the transport (same processes, same moment). */
static int g_rs[2];
static struct sockaddr_in g_ra[2];

static void raw_sockets(void) {
  for (int i = 0; i < 2; i++) {
    g_rs[i] = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&g_ra[i], 0, sizeof g_ra[i]);
    g_ra[i].sin_family = AF_INET;
    g_ra[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(g_rs[i], (struct sockaddr *)&g_ra[i], sizeof g_ra[i]);
    socklen_t l = sizeof g_ra[i];
    getsockname(g_rs[i], (struct sockaddr *)&g_ra[i], &l);
  }
}

static void raw_pong(int n) {
  char buf[64];
  for (int i = 0; i < n; i++) {
    while (recvfrom(g_rs[1], buf, sizeof buf, MSG_DONTWAIT, NULL, NULL) < 0) {}
    sendto(g_rs[1], buf, 8, 0, (struct sockaddr *)&g_ra[0], sizeof g_ra[0]);
  }
}

/* ---------------------------------------------------------------- transport */

enum { B_PING = 1, B_PONG = 2, B_FLOOD = 3, B_FLOOD_END = 4, B_QUIT = 5, B_RAW = 6, B_ACKS = 8,
       B_PUT = 7 };
typedef struct bhdr { uint32_t kind, seq; uint64_t count; } bhdr_t;

static tjob_t *g_job;
static volatile int g_pongs, g_quit, g_raw_todo;
static volatile uint64_t g_pong_count; /* the count field of the last B_PONG */
static uint64_t g_flood_in;
static unsigned char *g_buf;
static int g_scale = 1;
static const char *g_label;
static double g_raw_us;
static double *g_res; /* [run*8 + size], shared with the forked ranks */
static int g_run;

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                       void *payload, size_t paylen) {
  (void)ctx; (void)hdrlen; (void)payload;
  bhdr_t h;
  memcpy(&h, hdr, sizeof h);
  switch (h.kind) {
  case B_PING: {
    bhdr_t r = {B_PONG, h.seq, 0};
    tt_send(&amudp_ops, g_job->t, src, &r, sizeof r, g_buf, paylen, GASNETC_SEND_REPLY);
    break;
  }
  case B_PUT: {
    bhdr_t r = {B_PONG, h.seq, 0};
    tt_send(&amudp_ops, g_job->t, src, &r, sizeof r, NULL, 0, GASNETC_SEND_REPLY);
    break;
  }
  case B_PONG: g_pongs++; g_pong_count = h.count; break;
  case B_FLOOD: g_flood_in++; break;
  case B_FLOOD_END: {
    bhdr_t r = {B_PONG, 0, g_flood_in + 1};
    tt_send(&amudp_ops, g_job->t, src, &r, sizeof r, NULL, 0, GASNETC_SEND_REPLY);
    g_flood_in = 0;
    break;
  }
  case B_QUIT: g_quit = 1; break;
  case B_RAW: g_raw_todo = (int)h.count; break;
  case B_ACKS: { /* the standalone acks this rank sent so far */
    bhdr_t r = {B_PONG, 0, (uint64_t)tjob_stat(g_job->t, "udp_acks_sent")};
    tt_send(&amudp_ops, g_job->t, src, &r, sizeof r, NULL, 0, GASNETC_SEND_REPLY);
    break;
  }
  }
}

static void setup(tjob_t *j, void *arg) { (void)arg; j->cfg.deliver = on_deliver; }

static double pingpong(size_t len, int iters) {
  int warm = iters / 10 + 2;
  double t0 = 0;
  for (int i = 0; i < iters + warm; i++) {
    if (i == warm) t0 = tjob_now();
    bhdr_t h = {B_PING, (uint32_t)i, 0};
    int want = g_pongs + 1;
    tt_send(&amudp_ops, g_job->t, 1, &h, sizeof h, g_buf, len, 0);
    while (g_pongs < want) amudp_ops.poll(g_job->t);
  }
  return (tjob_now() - t0) / iters * 1e6;
}

/* k requests of len bytes back to back, then wait for all k replies. */
static double put_burst(size_t len, int k, int iters) {
  int warm = iters / 10 + 2;
  double t0 = 0;
  for (int i = 0; i < iters + warm; i++) {
    if (i == warm) t0 = tjob_now();
    int want = g_pongs + k;
    for (int m = 0; m < k; m++) {
      bhdr_t h = {B_PUT, (uint32_t)i, 0};
      tt_send(&amudp_ops, g_job->t, 1, &h, sizeof h, g_buf, len, 0);
    }
    while (g_pongs < want) amudp_ops.poll(g_job->t);
  }
  return (tjob_now() - t0) / iters * 1e6;
}

static double flood(int frames) {
  double t0 = tjob_now();
  bhdr_t h = {B_FLOOD, 0, 0};
  for (int i = 0; i < frames; i++) {
    tt_send(&amudp_ops, g_job->t, 1, &h, sizeof h, g_buf, 8, 0);
    if ((i & 15) == 0) amudp_ops.poll(g_job->t);
  }
  bhdr_t e = {B_FLOOD_END, 0, 0};
  int want = g_pongs + 1;
  tt_send(&amudp_ops, g_job->t, 1, &e, sizeof e, NULL, 0, 0);
  while (g_pongs < want) amudp_ops.poll(g_job->t);
  return frames / (tjob_now() - t0);
}

/* Standalone acks sent by both ranks so far (rank 1's by asking it). */
static long long acks_both(void) {
  bhdr_t h = {B_ACKS, 0, 0};
  int want = g_pongs + 1;
  tt_send(&amudp_ops, g_job->t, 1, &h, sizeof h, NULL, 0, 0);
  while (g_pongs < want) amudp_ops.poll(g_job->t);
  return tjob_stat(g_job->t, "udp_acks_sent") + (long long)g_pong_count;
}

/* Raw 8-byte ping-pong from rank 0, rank 1 answering from its main loop. */
static double raw_in_job(int iters) {
  bhdr_t h = {B_RAW, 0, (uint64_t)iters + 100};
  tt_send(&amudp_ops, g_job->t, 1, &h, sizeof h, NULL, 0, 0);
  char buf[64] = {0};
  double t0 = 0;
  for (int i = 0; i < iters + 100; i++) {
    if (i == 100) t0 = tjob_now();
    sendto(g_rs[0], buf, 8, 0, (struct sockaddr *)&g_ra[1], sizeof g_ra[1]);
    while (recvfrom(g_rs[0], buf, sizeof buf, MSG_DONTWAIT, NULL, NULL) < 0) amudp_ops.poll(g_job->t);
  }
  return (tjob_now() - t0) / iters * 1e6;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int body(tjob_t *j, void *arg) {
  (void)arg;
  g_job = j;
  g_buf = calloc(1, 4 << 20);
  if (j->rank == 1) {
    while (!g_quit) {
      amudp_ops.poll(j->t);
      if (g_raw_todo) { raw_pong(g_raw_todo); g_raw_todo = 0; }
    }
    tjob_barrier(j);
    return 0;
  }
  static const struct { size_t len; int iters; const char *name; } sz[] = {
    {0, 20000, "0 B (Short)"}, {8, 20000, "8 B"}, {1024, 10000, "1 KiB"},
    {65536, 1000, "64 KiB"}, {1 << 20, 100, "1 MiB"}, {4 << 20, 20, "4 MiB (max)"},
  };
  if (g_run == 0) {
    /* Short (0 B) round trip vs raw, alternating in rounds: a busy host
     * disturbs both alike; min and median over the rounds. */
    enum { ROUNDS = 7 };
    double raw[ROUNDS], am[ROUNDS];
    long long acks = 0;
    for (int r = 0; r < ROUNDS; r++) {
      raw[r] = raw_in_job(3000 * g_scale);
      long long a0 = acks_both();
      am[r] = pingpong(0, 3000 * g_scale);
      acks += acks_both() - a0 - 1; /* the B_ACKS exchange itself may cost one */
    }
    qsort(raw, ROUNDS, sizeof raw[0], cmp_dbl);
    qsort(am, ROUNDS, sizeof am[0], cmp_dbl);
    printf("[same processes, %d alternating rounds of 3000] raw UDP 8 B: min %.2f / median %.2f us;"
           " amudp Short (0 B): min %.2f / median %.2f us; ratio min %.2fx, median %.2fx\n",
           ROUNDS, raw[0], raw[ROUNDS / 2], am[0], am[ROUNDS / 2], am[0] / raw[0],
           am[ROUNDS / 2] / raw[ROUNDS / 2]);
    int rts = ROUNDS * (3000 * g_scale + (3000 * g_scale) / 10 + 2);
    printf("[same run] standalone acks per Short round trip (both ranks): %.4f (%lld in %d)\n",
           (double)(acks > 0 ? acks : 0) / rts, acks > 0 ? acks : 0, rts);
    g_raw_us = raw[ROUNDS / 2];
    g_res[7] = g_raw_us;
  } else {
    g_raw_us = g_res[7];
  }
  printf("[%s] ping-pong round trip (ratios to the raw median above, %.2f us)\n", g_label, g_raw_us);
  for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++) {
    double us = pingpong(sz[i].len, sz[i].iters * g_scale);
    g_res[g_run * 8 + i] = us;
    printf("  %-12s %10.2f us  %8.2fx raw", sz[i].name, us, us / g_raw_us);
    if (g_run == 1) printf("  %6.2fx loss-free", us / g_res[i]);
    if (sz[i].len >= 65536) printf("  %8.1f MB/s", 2.0 * sz[i].len / us);
    printf("\n");
    fflush(stdout);
  }
  double one = put_burst(1 << 20, 1, 100 * g_scale), two = put_burst(1 << 20, 2, 100 * g_scale);
  printf("  put burst 1 MiB: x1 %.1f us, x2 back to back %.1f us (%.2fx one)\n", one, two,
         two / one);
  double rate = flood(100000 * g_scale);
  printf("  flood 8 B one-way: %.0f frames/s (%.2f us/frame)\n", rate, 1e6 / rate);
  printf("  counters: retransmitted %lld (fast %lld), dup_dropped %lld, fault_dropped %lld, "
         "rtt_samples %lld\n",
         tjob_stat(j->t, "udp_retransmitted"), tjob_stat(j->t, "udp_fast_retransmits"),
         tjob_stat(j->t, "udp_dup_dropped"), tjob_stat(j->t, "udp_fault_dropped"),
         tjob_stat(j->t, "udp_rtt_samples"));
  bhdr_t q = {B_QUIT, 0, 0};
  tt_send(&amudp_ops, j->t, 1, &q, sizeof q, NULL, 0, 0);
  tjob_barrier(j);
  return 0;
}

int main(int argc, char **argv) {
  g_scale = argc > 1 ? atoi(argv[1]) : 1;
  g_res = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (g_scale < 1) g_scale = 1;
  unsetenv("GASNET_UDP_DROP");
  unsetenv("GASNET_UDP_DUP");
  unsetenv("GASNET_UDP_REORDER");
  raw_sockets();
  double raw1 = raw_pingpong(20000 * g_scale);
  printf("raw UDP busy-poll ping-pong, 8 B, 127.0.0.1: %.2f us round trip\n", raw1);
  g_label = "amudp, no loss";
  int rc = tjob_run(2, setup, body, NULL, NULL);
  setenv("GASNET_UDP_DROP", "0.1", 1);
  g_label = "amudp, GASNET_UDP_DROP=0.1";
  g_run = 1;
  rc |= tjob_run(2, setup, body, NULL, NULL);
  unsetenv("GASNET_UDP_DROP");
  double raw2 = raw_pingpong(20000 * g_scale);
  printf("raw UDP busy-poll ping-pong, 8 B, 127.0.0.1: %.2f us round trip (again, after)\n", raw2);
  printf("standalone raw probes: %.2f us before, %.2f us after\n", raw1, raw2);
  return rc;
}
