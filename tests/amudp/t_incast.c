/*
 * t_incast.c - incast: every rank but the last sends to the last one at
 * once, and the receiver reports goodput, per-sender shares and whether
 * every byte arrived intact (issue 15 item 4; tests/amudp/t-incast.sh runs
 * it through a tbf-limited veth, tests/bench/incast.sh at several rates).
 *
 * usage: t_incast MIB_PER_SENDER [RAW_IP RATE_MBIT]   (MIB 0: the raw probe only)
 *
 * Each sender sends MIB_PER_SENDER MiB in CHUNK-byte pieces, up to WINDOW
 * unanswered: three of four as a Long request into its own slot of the
 * receiver's segment (NSLOT slots per sender, so a slot is rewritten only
 * after its handler replied), every fourth as a Medium request. Each
 * payload follows from a seed (t_fill) that the handler checks against
 * (sender, index) and byte for byte (t_verify), then replies Short. The
 * receiver times the arrivals: goodput = payload bytes / (last arrival -
 * first arrival); a sender's share = its fraction of the bytes that had
 * arrived when the first sender finished (all were sending until then).
 * Output of the receiver, read by the scripts:
 *   incast: verified C of C chunks, B bytes, 0 bad, 0 duplicate
 *   incast: goodput G Mbit/s over T s
 *   incast: shares s0 s1 ... (fair F)
 * With RAW_IP (the receiver's address) and RATE_MBIT (the link's nominal
 * rate), first the raw probe of the same path: rank 0 sends the receiver
 * plain UDP datagrams of RAW_DGRAM bytes, paced at RAW_STEPS fractions of
 * RATE_MBIT for RAW_STEP_S each, and the receiver prints per step
 *   incast: raw paced P Mbit/s: got G Mbit/s, loss L%
 * and the best, the link's usable rate for one plain stream:
 *   incast: raw usable U Mbit/s
 */
#define GASNET_SEQ
#include "../core/t_util.h"
#include "../bench/raw_probe.h"
#include <time.h>

#define CHUNK  (64u * 1024)
#define NSLOT  8u
#define WINDOW NSLOT
#define MAXSENDERS 64
#define H_LONG 201
#define H_MEDIUM 202
#define H_DONE 203
#define H_RAWPORT 204
#define RAW_DGRAM 1472u  /* a full Ethernet-MTU UDP payload, as amudp sends */
#define RAW_STEP_S 0.4
static const double raw_steps[] = { 0.8, 0.9, 0.95, 1.0, 1.05, 1.1 };
#define RAW_NSTEPS (sizeof raw_steps / sizeof raw_steps[0])

static gasnet_node_t me, nodes, rcv;
static uint32_t nchunks;           /* per sender */
static volatile uint32_t outstanding;
/* receiver side, per sender */
static uint64_t got_bytes[MAXSENDERS], share_bytes[MAXSENDERS];
static uint32_t got_chunks[MAXSENDERS], finished;
static unsigned char *seen[MAXSENDERS];
static uint64_t bad, dups;
static double t_first, t_last, t_first_done;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint32_t seed_of(uint32_t src, uint32_t idx) { return t_mix(src * 0x10001u + idx + 1); }

static void arrived(gasnet_token_t token, void *buf, size_t n, uint32_t idx) {
  gasnet_node_t src;
  T_CHECK(gasnet_AMGetMsgSource(token, &src));
  double t = now_s();
  if (!t_first) t_first = t;
  t_last = t;
  uint32_t seed;
  int ok = src < nodes - 1 && idx < nchunks && n == CHUNK;
  if (ok) memcpy(&seed, buf, 4);
  if (!ok || seed != seed_of(src, idx) || !t_verify(buf, n)) {
    bad++;
  } else if (seen[src][idx]++) {
    dups++;
  } else {
    got_bytes[src] += n;
    if (++got_chunks[src] == nchunks && finished++ == 0) {
      t_first_done = t;
      memcpy(share_bytes, got_bytes, sizeof share_bytes);
    }
  }
  T_CHECK(gasnet_AMReplyShort0(token, H_DONE));
}

static void long_handler(gasnet_token_t token, void *buf, size_t n, gasnet_handlerarg_t idx) {
  arrived(token, buf, n, (uint32_t)idx);
}
static void medium_handler(gasnet_token_t token, void *buf, size_t n, gasnet_handlerarg_t idx) {
  arrived(token, buf, n, (uint32_t)idx);
}
static void done_handler(gasnet_token_t token) {
  (void)token;
  outstanding--;
}

static void send_all(gasnet_seginfo_t *seg) {
  unsigned char *buf = malloc((size_t)NSLOT * CHUNK);
  T_EXPECT(buf != NULL, "out of memory");
  unsigned char *region = (unsigned char *)seg[rcv].addr + (size_t)me * NSLOT * CHUNK;
  for (uint32_t i = 0; i < nchunks; i++) {
    GASNET_BLOCKUNTIL(outstanding < WINDOW); /* so slot i % NSLOT is free again */
    unsigned char *p = buf + (size_t)(i % NSLOT) * CHUNK;
    t_fill(p, CHUNK, seed_of(me, i));
    outstanding++;
    if (i % 4 == 3)
      T_CHECK(gasnet_AMRequestMedium1(rcv, H_MEDIUM, p, CHUNK, (gasnet_handlerarg_t)i));
    else
      T_CHECK(gasnet_AMRequestLong1(rcv, H_LONG, p, CHUNK, region + (size_t)(i % NSLOT) * CHUNK,
                                    (gasnet_handlerarg_t)i));
  }
  GASNET_BLOCKUNTIL(outstanding == 0);
  free(buf);
}

/* ---- the raw probe: one paced plain-UDP stream over the same path ---- */
typedef struct { uint32_t step, seq, end, sent; } raw_hdr_t;

static double raw_send_step(raw_probe_t *p, uint32_t step, double mbit) {
  unsigned char buf[RAW_DGRAM] = {0};
  double gap = RAW_DGRAM * 8 / (mbit * 1e6), t0 = now_s(), next = t0;
  raw_hdr_t h = { step, 0, 0, 0 };
  while (now_s() - t0 < RAW_STEP_S) {
    while (now_s() < next) {}
    memcpy(buf, &h, sizeof h);
    if (sendto(p->fd, buf, sizeof buf, 0, (struct sockaddr *)&p->peer, sizeof p->peer) > 0) h.seq++;
    next += gap;
  }
  h.end = 1; h.sent = h.seq;
  for (int i = 0; i < 5; i++) { /* the end marker, repeated: it may be dropped too */
    memcpy(buf, &h, sizeof h);
    sendto(p->fd, buf, sizeof h, 0, (struct sockaddr *)&p->peer, sizeof p->peer);
    usleep(20000);
  }
  return mbit;
}

/* Receive one step; returns the rate received (Mbit/s of UDP payload). */
static double raw_recv_step(raw_probe_t *p, uint32_t step, double mbit) {
  unsigned char buf[RAW_DGRAM];
  uint64_t got = 0;
  uint32_t sent = 0;
  double first = 0, last = 0, quiet = now_s() + 5;
  while (now_s() < quiet) {
    ssize_t r = recv(p->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (r < (ssize_t)sizeof(raw_hdr_t)) { gasnet_AMPoll(); continue; }
    raw_hdr_t h;
    memcpy(&h, buf, sizeof h);
    if (h.step != step) continue;
    if (h.end) { sent = h.sent; break; }
    double t = now_s();
    if (!got) first = t;
    last = t;
    got++;
    quiet = t + 1;
  }
  double rate = got > 1 && last > first ? (got - 1) * RAW_DGRAM * 8 / (last - first) / 1e6 : 0;
  printf("incast: raw paced %.1f Mbit/s: got %.1f Mbit/s, loss %.1f%%\n", mbit, rate,
         sent ? 100.0 * (sent > got ? sent - got : 0) / sent : 100.0);
  return rate;
}

static void raw_probe_path(const char *ip, double rate_mbit) {
  raw_probe_t p = { -1, { 0 }, 0 };
  if (me == 0 || me == rcv) {
    raw_probe_open(&p);
    raw_probe_connect(&p, me == 0 ? rcv : 0, H_RAWPORT);
    inet_pton(AF_INET, ip, &p.peer.sin_addr);
  }
  double best = 0;
  for (uint32_t i = 0; i < RAW_NSTEPS; i++) {
    t_barrier();
    double mbit = raw_steps[i] * rate_mbit, got = 0;
    if (me == 0) raw_send_step(&p, i, mbit);
    else if (me == rcv) got = raw_recv_step(&p, i, mbit);
    if (got > best) best = got;
  }
  if (me == rcv) printf("incast: raw usable %.1f Mbit/s\n", best);
  fflush(stdout);
  if (p.fd >= 0) raw_probe_close(&p);
}

static void report(void) {
  uint32_t ns = nodes - 1;
  uint64_t total = 0, chunks = 0, at_first = 0;
  for (uint32_t s = 0; s < ns; s++) {
    total += got_bytes[s];
    chunks += got_chunks[s];
    at_first += share_bytes[s];
  }
  printf("incast: verified %llu of %llu chunks, %llu bytes, %llu bad, %llu duplicate\n",
         (unsigned long long)chunks, (unsigned long long)ns * nchunks,
         (unsigned long long)total, (unsigned long long)bad, (unsigned long long)dups);
  double secs = t_last - t_first;
  printf("incast: goodput %.1f Mbit/s over %.2f s\n", secs > 0 ? total * 8 / secs / 1e6 : 0, secs);
  printf("incast: shares");
  for (uint32_t s = 0; s < ns; s++)
    printf(" %.3f", at_first ? (double)share_bytes[s] / at_first : 0);
  printf(" (fair %.3f)\n", 1.0 / ns);
  fflush(stdout);
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  me = gasnet_mynode();
  nodes = gasnet_nodes();
  rcv = nodes - 1;
  double mib = argc > 1 ? atof(argv[1]) : 8;
  nchunks = (uint32_t)(mib * 1048576 / CHUNK);
  if (nodes < 2 || nodes - 1 > MAXSENDERS || (nchunks == 0 && argc < 4) ||
      CHUNK > gasnet_AMMaxMedium()) {
    fprintf(stderr, "t_incast: need 2..%d ranks, MIB_PER_SENDER >= 1/16 (0: the raw probe "
            "only), Medium >= %u B\n",
            MAXSENDERS + 1, CHUNK);
    gasnet_exit(2);
  }
  gasnet_handlerentry_t table[] = {
    { H_LONG, (void (*)())long_handler },
    { H_MEDIUM, (void (*)())medium_handler },
    { H_DONE, (void (*)())done_handler },
    RAW_PROBE_HANDLER_ENTRY(H_RAWPORT),
    T_BARRIER_HANDLERS
  };
  uintptr_t segsz = (uintptr_t)nodes * NSLOT * CHUNK;
  T_CHECK(gasnet_attach(table, sizeof table / sizeof table[0], segsz, 0));
  gasnet_seginfo_t *seg = malloc(nodes * sizeof *seg);
  T_EXPECT(seg != NULL, "out of memory");
  T_CHECK(gasnet_getSegmentInfo(seg, (int)nodes));
  if (me == rcv)
    for (uint32_t s = 0; s < nodes - 1u; s++) T_EXPECT((seen[s] = calloc(nchunks, 1)) != NULL, "out of memory");
  if (argc > 3) raw_probe_path(argv[2], atof(argv[3]));
  t_barrier();
  if (nchunks == 0) {
    /* the raw probe only */
  } else if (me != rcv) {
    send_all(seg);
  } else {
    GASNET_BLOCKUNTIL(finished == nodes - 1u || bad || dups);
    report();
  }
  t_barrier();
  int rc = me == rcv && (bad || dups) ? 1 : 0;
  gasnet_exit(rc);
  return rc;
}
