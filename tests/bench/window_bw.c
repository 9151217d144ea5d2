/*
 * window_bw.c - osu_bw's pattern through GASNet-EX, beside a raw probe of
 * the same transport measured in the same run (issue 45).
 *
 *   GASNET_SUPERNODE_MAXSIZE=1 gasnetrun_udp -n 2 tests/bench/window_bw [W [ROUNDS [MAXSIZE]]]
 *   GASNET_SUPERNODE_MAXSIZE=1 gasnetrun_tcp -n 2 tests/bench/window_bw_tcp ...
 *   gasnetrun_udp -n 2 tests/bench/window_bw ...       (one host: shared memory)
 *
 * Node 0 sends node 1, for sizes S = 1 B .. MAXSIZE (default 4 MiB), windows
 * of W (default 64) puts of S bytes into node 1's segment (all to the same
 * address, as osu_bw does), waits for them all, then asks node 1 for a
 * small ack (a Short AM request and its reply); repeated. Two forms:
 *   put_nbi  gex_RMA_PutNBI(GEX_EVENT_NOW) x W, gex_NBI_Wait
 *   put_nb   gex_RMA_PutNB(GEX_EVENT_DEFER) x W, gex_Event_WaitAll
 * MB/s = 10^6 B/s of payload. Beside them, the raw probe of the same
 * transport between the same two processes:
 *   udp      a one-way UDP stream (raw_probe_stream_n) of datagrams of S
 *            bytes (at least 16, the probe's header; S above 65000 cut
 *            into equal datagrams), window 128 small or 32 large
 *            datagrams: the floor under any UDP layer's rate for messages
 *            of S bytes; a 1 B message counts 1 byte of its 16
 *   tcp      the same windows over one TCP connection: W write()s of S
 *            bytes, then a 1-byte ack read back
 *   shm      (node 1 in our neighbourhood) memcpy of S bytes (raw_probe_shm.h)
 * ROUNDS (default 3) rounds of raw, put_nbi, put_nb per size, interleaved;
 * each figure is the median of its rounds, and the ratios are those of
 * the medians. Over udp each size's line also gives, per put of the
 * put_nbi rounds on node 0, the datagrams sent, the frames that rode in an
 * aggregate, the requests refused for credits (send_blocked),
 * retransmissions, and the core's send retries (gasnetc_stat_get deltas).
 * Figures only; nothing is asserted.
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <gasnet_coll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raw_probe.h"
#include "raw_probe_shm.h"
#ifdef GASNET_CONDUIT_TCP
#include "raw_probe_tcp.h"
#endif

#define H_PORT 128
#define H_ACK_REQ 129
#define H_ACK_REP 130
#define MiB (1024u * 1024u)
#define MAX_ROUNDS 15
#define BYTES_PER_FIGURE (16u * MiB) /* payload per round and form, about */

static gex_TM_t tm;
static void *peer_seg;
static char *src;
static volatile int acks;

static void ack_req(gex_Token_t t) { gex_AM_ReplyShort0(t, H_ACK_REP, 0); }
static void ack_rep(gex_Token_t t) { (void)t; acks++; }

static void bar(void) {
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* Windows of W puts of n bytes, each followed by the ack: MB/s. */
static double lib_windows(int nb, size_t n, int w, int reps) {
  gex_Event_t *ev = malloc(sizeof *ev * (size_t)w);
  double t0 = 0;
  for (int r = -1; r < reps; r++) { /* one window of warm-up */
    if (r == 0) t0 = raw_probe_now_us();
    for (int i = 0; i < w; i++) {
      if (nb) ev[i] = gex_RMA_PutNB(tm, 1, peer_seg, src, n, GEX_EVENT_DEFER, 0);
      else gex_RMA_PutNBI(tm, 1, peer_seg, src, n, GEX_EVENT_NOW, 0);
    }
    if (nb) gex_Event_WaitAll(ev, (size_t)w, 0);
    else gex_NBI_Wait(GEX_EC_PUT, 0);
    int want = acks + 1;
    gex_AM_RequestShort0(tm, 1, H_ACK_REQ, 0);
    GASNET_BLOCKUNTIL(acks == want);
  }
  free(ev);
  return (double)n * w * reps / (raw_probe_now_us() - t0);
}

/* The raw probe's MB/s for messages of n bytes (node 0; 0 on node 1). */
typedef struct {
  int shm;
  raw_probe_t udp;
  int tcp;
} raw_t;

static inline double raw_udp(raw_t *rw, int initiator, size_t n, int w, int reps) {
  size_t per = (n + 64999) / 65000, dgram = n < 16 ? 16 : (n + per - 1) / per;
  int count = (int)(per * (size_t)w * (size_t)reps), lost;
  int big = dgram >= 16384;
  char junk[64]; /* what the last stream left (a repeated END, its answers) */
  while (recv(rw->udp.fd, junk, sizeof junk, MSG_DONTWAIT) >= 0) {}
  bar();
  double mbps = raw_probe_stream_n(&rw->udp, initiator, count, dgram,
                                   big ? RAW_PROBE_WINDOW : RAW_PROBE_FLOOD_WINDOW,
                                   big ? RAW_PROBE_ACK_EVERY : RAW_PROBE_FLOOD_ACK_EVERY, &lost);
  return mbps * (double)n / (double)(dgram * per); /* bytes of messages, not of datagrams */
}

#ifdef GASNET_CONDUIT_TCP
static double raw_tcp(raw_t *rw, int initiator, size_t n, int w, int reps) {
  char *buf = malloc(n * (size_t)w), ack = 'k';
  memset(buf, 1, n * (size_t)w);
  bar();
  double t0 = raw_probe_now_us();
  for (int r = 0; r < reps; r++) {
    if (initiator) {
      for (int i = 0; i < w; i++) raw_probe_tcp_io(rw->tcp, buf, n, 1);
      raw_probe_tcp_spin_read(rw->tcp, &ack, 1);
    } else {
      raw_probe_tcp_spin_read(rw->tcp, buf, n * (size_t)w);
      raw_probe_tcp_io(rw->tcp, &ack, 1, 1);
    }
  }
  double mbps = (double)n * w * reps / (raw_probe_now_us() - t0);
  free(buf);
  return initiator ? mbps : 0;
}
#endif

static double raw_run(raw_t *rw, gasnet_node_t me, size_t n, int w, int reps) {
  if (rw->shm) return me == 0 ? raw_memcpy_gbps(n, 21) * 1000.0 : 0;
#ifdef GASNET_CONDUIT_TCP
  return raw_tcp(rw, me == 0, n, w, reps);
#else
  return raw_udp(rw, me == 0, n, w, reps);
#endif
}

static uint64_t stat(const char *name) {
  uint64_t v = 0;
  gasnetc_stat_get(name, &v);
  return v;
}

static const char *stat_names[] = { "udp_datagrams_sent", "udp_agg_frames", "udp_send_blocked",
                                    "udp_retransmitted", "core.send_retries" };
#define NSTATS (sizeof stat_names / sizeof stat_names[0])

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return v[n / 2];
}

/* One size: ROUNDS rounds of raw, put_nbi, put_nb; node 0 prints a line. */
static void one_size(raw_t *rw, gasnet_node_t me, size_t n, int w, int rounds, int udp) {
  size_t per_window = n * (size_t)w;
  int reps = (int)(BYTES_PER_FIGURE / per_window);
  if (reps < 2) reps = 2;
  if (reps > 400) reps = 400;
  double raw[MAX_ROUNDS], nbi[MAX_ROUNDS], nb[MAX_ROUNDS];
  uint64_t s0[NSTATS], s1[NSTATS] = { 0 };
  for (int r = 0; r < rounds; r++) {
    raw[r] = raw_run(rw, me, n, w, reps);
    bar();
    for (size_t k = 0; k < NSTATS; k++) s0[k] = stat(stat_names[k]);
    nbi[r] = me == 0 ? lib_windows(0, n, w, reps) : 0;
    for (size_t k = 0; k < NSTATS; k++) s1[k] += stat(stat_names[k]) - s0[k];
    bar();
    nb[r] = me == 0 ? lib_windows(1, n, w, reps) : 0;
    bar();
  }
  if (me != 0) return;
  double mr = median(raw, rounds), mi = median(nbi, rounds), mb = median(nb, rounds);
  char label[16];
  if (n >= MiB) snprintf(label, sizeof label, "%zu MiB", n / MiB);
  else if (n >= 1024) snprintf(label, sizeof label, "%zu KiB", n / 1024);
  else snprintf(label, sizeof label, "%zu B", n);
  printf("%-8s %10.2f %10.2f %10.2f %7.2fx %7.2fx", label, mr, mi, mb, mi / mr, mb / mr);
  if (udp) {
    double puts = (double)(reps + 1) * w * rounds;
    printf("   %6.2f %6.2f %6.3f %6.3f %6.3f", s1[0] / puts, s1[1] / puts, s1[2] / puts,
           s1[3] / puts, s1[4] / puts);
  }
  printf("\n");
  fflush(stdout);
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t segment;
  gex_AM_Entry_t table[] = {
    { H_PORT, (gex_AM_Fn_t)raw_probe_port_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, NULL },
    { H_ACK_REQ, (gex_AM_Fn_t)ack_req, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, NULL },
    { H_ACK_REP, (gex_AM_Fn_t)ack_rep, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, NULL },
  };
  if (gex_Client_Init(&client, &ep, &tm, "window_bw", &argc, &argv, GEX_FLAG_USES_GASNET1) != GASNET_OK)
    return 1;
  int w = argc > 1 ? atoi(argv[1]) : 64, rounds = argc > 2 ? atoi(argv[2]) : 3;
  size_t maxsize = argc > 3 ? (size_t)strtoull(argv[3], NULL, 0) : 4 * MiB;
  gasnet_node_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  if (n != 2 || w < 1 || w > 4096 || rounds < 1 || rounds > MAX_ROUNDS || maxsize < 1 ||
      maxsize > 4 * MiB) {
    if (me == 0)
      fprintf(stderr, "window_bw: run on 2 nodes; W 1..4096 (got %d), ROUNDS 1..%d (got %d), "
              "MAXSIZE 1..4194304 (got %zu)\n", w, MAX_ROUNDS, rounds, maxsize);
    gasnet_exit(1);
  }
  if (gex_Segment_Attach(&segment, tm, 4 * MiB + 4096) != GASNET_OK ||
      gex_EP_RegisterHandlers(ep, table, sizeof table / sizeof table[0]) != GASNET_OK)
    gasnet_exit(1);
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, 1 - me, &peer_seg, NULL, NULL, 0));
  src = malloc(4 * MiB);
  memset(src, 7, 4 * MiB);
  bar(); /* the handlers are registered everywhere before the probe's AM */

  gex_Rank_t nbrhd;
  gex_System_QueryNbrhdInfo(NULL, &nbrhd, NULL);
  raw_t rw = { .shm = nbrhd == 2 };
  const char *kind = rw.shm ? "shm (memcpy)" : "udp";
#ifdef GASNET_CONDUIT_TCP
  if (!rw.shm) { rw.tcp = raw_probe_tcp_connect(1 - me, H_PORT, me == 0); kind = "tcp"; }
#else
  if (!rw.shm) { raw_probe_open(&rw.udp); raw_probe_connect(&rw.udp, 1 - me, H_PORT); }
#endif
  int udp = !rw.shm && !strcmp(kind, "udp");
  bar();
  if (me == 0) {
    printf("# window_bw: node 0 -> node 1 %s, window %d puts + ack, %d rounds interleaved "
           "(medians); MB/s = 10^6 B/s\n", rw.shm ? "through shared memory" : "over the network",
           w, rounds);
    printf("%-8s %10s %10s %10s %8s %8s", "size", kind, "put_nbi", "put_nb", "nbi/raw", "nb/raw");
    if (udp) printf("   per put (put_nbi, node 0): dgrams agg'd blockd retx retry");
    printf("\n");
    fflush(stdout);
  }
  for (size_t sz = 1; sz <= maxsize; sz *= 2) one_size(&rw, me, sz, w, rounds, udp);
  bar();
#ifdef GASNET_CONDUIT_TCP
  if (!rw.shm) close(rw.tcp);
#else
  if (!rw.shm) raw_probe_close(&rw.udp);
#endif
  free(src);
  gasnet_exit(0);
}
