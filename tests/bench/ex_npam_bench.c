/*
 * ex_npam_bench.c - GASNet-EX Medium flood, fixed-payload beside
 * negotiated-payload (NPAM), node 0 -> node 1, beside a raw UDP busy-poll
 * ping-pong measured in the same run.
 *
 *   gasnetrun_udp -n 2 tests/bench/ex_npam_bench [COUNT [ROUNDS]]
 *
 * 1. raw (raw_probe.h): 16-byte datagrams between two plain UDP sockets,
 *    node 1 echoing: the floor any UDP AM layer stands on.
 * 2. one-way flood of COUNT Medium requests of each size, in ROUNDS rounds
 *    alternating the two forms (the machine is shared: a round of each
 *    side by side, the median of the rounds printed):
 *      fixed: the client writes its payload into its own buffer, then
 *             gex_AM_RequestMedium1 (which amudp copies into its own);
 *      NPAM:  gex_AM_PrepareRequestMedium(client_buf NULL), the client
 *             writes its payload into gex_AM_SrcDescAddr(), then
 *             gex_AM_CommitRequestMedium1 (no copy over udp).
 *    Both write every payload byte once; the rate is messages / time until
 *    node 1 has handled the last one (it replies to it).
 */
#define GASNET_SEQ 1
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raw_probe.h"

enum { H_PORT = 128, H_FLOOD, H_ACK, H_DONE };

static gex_TM_t tm;
static volatile int flood_seen, acked, done;

static void h_flood(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t last) {
  (void)buf; (void)n;
  flood_seen++;
  if (last) gex_AM_ReplyShort0(t, H_ACK, 0);
}
static void h_ack(gex_Token_t t) { (void)t; acked++; }
static void h_done(gex_Token_t t) { (void)t; done = 1; }

static double raw_probe(int iters, double *median) {
  gasnet_node_t me = gasnet_mynode();
  raw_probe_t p;
  raw_probe_open(&p);
  raw_probe_connect(&p, 1 - me, H_PORT);
  double mean = raw_probe_pingpong(&p, me == 0, iters, median);
  raw_probe_close(&p);
  return mean;
}

/* The client's payload: every byte written, as a client assembling it would. */
static inline void payload(void *dst, size_t n, int i) { memset(dst, i & 0xff, n); }

static double flood(int npam, size_t n, int count, char *srcbuf) {
  int want = acked + 1;
  double t0 = raw_probe_now_us();
  for (int i = 0; i < count; i++) {
    int last = i == count - 1;
    if (npam) {
      gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(tm, 1, NULL, n, n, NULL, 0, 1);
      payload(gex_AM_SrcDescAddr(sd), n, i);
      gex_AM_CommitRequestMedium1(sd, H_FLOOD, n, last);
    } else {
      payload(srcbuf, n, i);
      gex_AM_RequestMedium1(tm, 1, H_FLOOD, srcbuf, n, GEX_EVENT_NOW, 0, last);
    }
  }
  GASNET_BLOCKUNTIL(acked == want);
  return count / ((raw_probe_now_us() - t0) / 1e6);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  if (gex_Client_Init(&client, &ep, &tm, "EX_NPAM_BENCH", &argc, &argv, 0) != GASNET_OK) return 1;
  int count = argc > 1 ? atoi(argv[1]) : 20000;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (count < 1 || rounds < 1 || rounds > 64 || gex_System_QueryJobSize() != 2) {
    if (gex_System_QueryJobRank() == 0)
      fprintf(stderr, "usage: gasnetrun_udp -n 2 ex_npam_bench [COUNT [ROUNDS <= 64]]\n");
    gasnet_exit(1);
  }
  gex_AM_Entry_t table[] = {
    {H_PORT, (gex_AM_Fn_t)raw_probe_port_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "port"},
    {H_FLOOD, (gex_AM_Fn_t)h_flood, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "flood"},
    {H_ACK, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "ack"},
    {H_DONE, (gex_AM_Fn_t)h_done, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "done"},
  };
  if (gex_EP_RegisterHandlers(ep, table, 4) != GASNET_OK) gasnet_exit(1);
  gex_Segment_t seg;
  if (gex_Segment_Attach(&seg, tm, GASNET_PAGESIZE) != GASNET_OK) gasnet_exit(1);
  gasnet_node_t me = gasnet_mynode();

  double rawmed, raw = raw_probe(10000, &rawmed);
  if (me == 1) { /* serve until node 0 is done */
    GASNET_BLOCKUNTIL(done);
    gasnet_exit(0);
  }
  const size_t sizes[] = {512, 4096, 32768};
  const int nsizes = sizeof sizes / sizeof sizes[0];
  char *srcbuf = malloc(sizes[nsizes - 1]);
  printf("# ex_npam_bench: node 0 -> node 1, one-way flood of %d Medium requests per size and "
         "form, %d rounds alternating the forms, median of the rounds%s\n", count, rounds,
#if defined(GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM)
         ""
#else
         " (NPAM not native in this build)"
#endif
  );
  printf("%-28s %10s %10s\n", "round trip", "mean(us)", "median(us)");
  printf("%-28s %10.2f %10.2f\n", "raw UDP busy-poll 16 B", raw, rawmed);
  printf("%-28s %12s %12s\n", "one-way flood", "msgs/s", "MB/s");
  double ratio[8];
  for (int k = 0; k < nsizes; k++) {
    double r[2][64];
    flood(0, sizes[k], count / 10 + 1, srcbuf); /* warm: buffers, caches, RTO */
    flood(1, sizes[k], count / 10 + 1, srcbuf);
    for (int i = 0; i < rounds; i++)
      for (int npam = 0; npam < 2; npam++) r[npam][i] = flood((i & 1) ? !npam : npam, sizes[k], count, srcbuf);
    /* odd rounds ran NPAM first: put each rate back under its form */
    for (int i = 1; i < rounds; i += 2) { double x = r[0][i]; r[0][i] = r[1][i]; r[1][i] = x; }
    double med[2];
    for (int npam = 0; npam < 2; npam++) {
      qsort(r[npam], rounds, sizeof r[npam][0], cmp_d);
      med[npam] = r[npam][rounds / 2];
      char label[40];
      snprintf(label, sizeof label, "EX Medium %s %zu B", npam ? "NPAM" : "fixed", sizes[k]);
      printf("%-28s %12.0f %12.1f\n", label, med[npam], med[npam] * sizes[k] / 1e6);
    }
    ratio[k] = med[1] / med[0];
  }
  printf("summary: NPAM (GASNet buffer) / fixed-payload Medium flood rate:");
  for (int k = 0; k < nsizes; k++) printf(" %zu B %.3fx%s", sizes[k], ratio[k], k + 1 < nsizes ? "," : "");
  printf("; raw UDP round trip median %.2f us\n", rawmed);
  fflush(stdout);
  gex_AM_RequestShort0(tm, 1, H_DONE, 0);
  gasnet_exit(0);
  return 0;
}
