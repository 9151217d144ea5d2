/*
 * t_amudp_stress - every frame arrives exactly once, intact.
 *
 * usage: t_amudp_stress NRANKS FRAMES_PER_PEER [LARGE_PERCENT]
 *
 * Every rank sends FRAMES_PER_PEER frames to every other rank, in an
 * interleaved order, with payload sizes drawn from 0..max_payload (mostly
 * small, some medium, LARGE_PERCENT large; frame 0 is empty and frame 1 is
 * exactly max_payload). Contents are a deterministic function of
 * (src, dst, idx), so the receiver regenerates and compares every byte.
 * Some frames are requests: their handler replies from inside deliver()
 * (GASNETC_SEND_REPLY) with a payload of its own, checked by the requester.
 * Some ask to be placed (cfg->place) and must arrive at the placed address.
 * Each rank checks it saw every expected frame and reply exactly once.
 * AMUDP_TEST_BURST=B makes frames 2..B+1 small and sends them back to back
 * without polling, so that they leave aggregated (GASNET_UDP_AGG).
 */
#include "amudp_tjob.h"

enum { K_ONEWAY = 0, K_REQUEST = 1, K_REPLY = 2, K_PLACED = 3 };

typedef struct fhdr {
  uint32_t magic, src, dst, idx, kind, len;
  uint64_t csum;
} fhdr_t;
#define FMAGIC 0x57524553u

static uint32_t g_frames, g_large_pct, g_burst;
static size_t g_max;
static unsigned char **g_seen;      /* [src][idx] frames; */
static unsigned char *g_replied;    /* [dst*frames + idx] replies received */
static void ***g_placed;            /* [src][idx] where place() put it */
static uint64_t g_errors, g_frames_in, g_replies_in, g_bytes_in, g_placed_in;
static tjob_t *g_job;

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* The frame src sends dst as number idx: its kind and length. */
static void frame_plan(uint32_t src, uint32_t dst, uint32_t idx, uint32_t *kind, size_t *len) {
  uint64_t r = mix(((uint64_t)src << 42) ^ ((uint64_t)dst << 21) ^ idx);
  *kind = (uint32_t)(r % 10) < 4 ? K_REQUEST : (uint32_t)(r % 10) < 6 ? K_PLACED : K_ONEWAY;
  uint32_t cls = (uint32_t)((r >> 8) % 100);
  uint64_t s = r >> 20;
  if (idx == 0) *len = 0;
  else if (idx == 1) *len = g_max;
  else if (idx < 2 + g_burst) *len = s % 257; /* the burst: small, to be aggregated */
  else if (cls < g_large_pct) *len = 65001 + s % (g_max - 65001 + 1);
  else if (cls < g_large_pct + 25) *len = 257 + s % (65000 - 257 + 1);
  else *len = s % 257;
}

static void fill(unsigned char *p, size_t len, uint64_t seed) {
  uint64_t x = mix(seed);
  size_t i = 0;
  for (; i + 8 <= len; i += 8) { x = mix(x); memcpy(p + i, &x, 8); }
  x = mix(x);
  for (; i < len; i++) p[i] = (unsigned char)(x >> (8 * (i & 7)));
}

static uint64_t seed_of(uint32_t kind, uint32_t src, uint32_t dst, uint32_t idx) {
  return ((uint64_t)kind << 60) ^ ((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ idx;
}

static uint64_t csum(const unsigned char *p, size_t len) { /* FNV-1a */
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

static unsigned char *g_scratch;

static int check_payload(const fhdr_t *h, const void *payload, size_t paylen) {
  if (paylen != h->len) return 0;
  fill(g_scratch, paylen, seed_of(h->kind == K_REPLY ? K_REPLY : 0, h->src, h->dst, h->idx));
  return (paylen == 0 || memcmp(g_scratch, payload, paylen) == 0) &&
         csum(payload, paylen) == h->csum;
}

static void *on_place(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, size_t paylen) {
  (void)ctx;
  fhdr_t h;
  if (hdrlen != sizeof h) return NULL;
  memcpy(&h, hdr, sizeof h);
  if (h.kind != K_PLACED || h.src != src || h.idx >= g_frames) return NULL;
  if (g_placed[src][h.idx]) { g_errors++; fprintf(stderr, "place() twice for %u/%u\n", src, h.idx); }
  return g_placed[src][h.idx] = malloc(paylen);
}

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                       void *payload, size_t paylen) {
  (void)ctx;
  fhdr_t h;
  if (hdrlen != sizeof h) { g_errors++; fprintf(stderr, "bad hdrlen %zu\n", hdrlen); return; }
  memcpy(&h, hdr, sizeof h);
  uint32_t me = g_job->rank;
  if (h.magic != FMAGIC || h.src != src || h.dst != me || h.idx >= g_frames) {
    g_errors++;
    fprintf(stderr, "rank %u: bad frame header from %u\n", me, src);
    return;
  }
  if (!check_payload(&h, payload, paylen)) {
    g_errors++;
    fprintf(stderr, "rank %u: corrupt payload from %u idx %u kind %u len %zu (want %u)\n", me,
            src, h.idx, h.kind, paylen, h.len);
  }
  g_bytes_in += paylen;
  if (h.kind == K_REPLY) {
    unsigned char *s = &g_replied[(size_t)src * g_frames + h.idx];
    if ((*s)++) { g_errors++; fprintf(stderr, "rank %u: duplicate reply %u/%u\n", me, src, h.idx); }
    g_replies_in++;
    return;
  }
  if (g_seen[src][h.idx]++) {
    g_errors++;
    fprintf(stderr, "rank %u: duplicate frame %u/%u\n", me, src, h.idx);
    return;
  }
  g_frames_in++;
  if (h.kind == K_PLACED) {
    if (!g_placed[src][h.idx] || payload != g_placed[src][h.idx]) {
      if (paylen) { g_errors++; fprintf(stderr, "rank %u: frame %u/%u not delivered in place\n", me, src, h.idx); }
    } else {
      g_placed_in++;
    }
    free(g_placed[src][h.idx]);
    g_placed[src][h.idx] = NULL;
  }
  if (h.kind == K_REQUEST) { /* reply from inside the handler */
    fhdr_t r = {FMAGIC, me, src, h.idx, K_REPLY, 0, 0};
    size_t rlen = (mix(h.idx ^ ((uint64_t)src << 32)) % 4) == 0 ? 70000 + h.idx * 13 % 50000
                                                                 : h.idx * 37 % 600;
    unsigned char *buf = malloc(rlen ? rlen : 1);
    fill(buf, rlen, seed_of(K_REPLY, me, src, h.idx));
    r.len = (uint32_t)rlen;
    r.csum = csum(buf, rlen);
    int rc = tt_send(&amudp_ops, g_job->t, src, &r, sizeof r, buf, rlen, GASNETC_SEND_REPLY);
    if (rc) { g_errors++; fprintf(stderr, "rank %u: reply send: %d\n", me, rc); }
    free(buf);
  }
}

static void on_dead(void *ctx, uint32_t rank, const char *why) {
  (void)ctx;
  fprintf(stderr, "rank %u: peer %u declared dead (%s)\n", g_job->rank, rank, why);
  _exit(3);
}

static void setup(tjob_t *j, void *arg) {
  (void)arg;
  j->cfg.deliver = on_deliver;
  j->cfg.place = on_place;
  j->cfg.peer_dead = on_dead;
}

static int body(tjob_t *j, void *arg) {
  (void)arg;
  g_job = j;
  uint32_t n = j->n, me = j->rank;
  g_max = amudp_ops.max_payload(j->t);
  if (g_max < (1u << 20) + 65536) { fprintf(stderr, "max_payload %zu too small\n", g_max); return 1; }
  g_scratch = malloc(g_max);
  unsigned char *out = malloc(g_max);
  g_seen = calloc(n, sizeof *g_seen);
  g_placed = calloc(n, sizeof *g_placed);
  for (uint32_t r = 0; r < n; r++) {
    g_seen[r] = calloc(g_frames, 1);
    g_placed[r] = calloc(g_frames, sizeof(void *));
  }
  g_replied = calloc((size_t)n * g_frames, 1);
  uint64_t requests = 0, sent_bytes = 0;
  double t0 = tjob_now();
  for (uint32_t i = 0; i < g_frames; i++) {
    for (uint32_t k = 1; k < n; k++) {
      uint32_t dst = (me + 1 + (k - 1 + i) % (n - 1)) % n; /* each peer once per i */
      uint32_t kind; size_t len;
      frame_plan(me, dst, i, &kind, &len);
      fill(out, len, seed_of(0, me, dst, i));
      fhdr_t h = {FMAGIC, me, dst, i, kind, (uint32_t)len, csum(out, len)};
      int rc = tt_send(&amudp_ops, j->t, dst, &h, sizeof h, out, len, 0);
      if (rc) { fprintf(stderr, "rank %u: send to %u: %d\n", me, dst, rc); return 1; }
      requests += kind == K_REQUEST;
      sent_bytes += len;
      if ((i & 3) == 0 && (i < 2 || i >= 2 + g_burst)) amudp_ops.poll(j->t);
    }
  }
  /* Receive until everything addressed to us, and every reply, is in. */
  uint64_t want_frames = (uint64_t)(n - 1) * g_frames;
  double deadline = tjob_now() + 60;
  while (g_frames_in < want_frames || g_replies_in < requests) {
    if (tt_wait(&amudp_ops, j->t, 10) < 0 || tjob_now() > deadline) {
      fprintf(stderr, "rank %u: timed out: %llu/%llu frames, %llu/%llu replies\n", me,
              (unsigned long long)g_frames_in, (unsigned long long)want_frames,
              (unsigned long long)g_replies_in, (unsigned long long)requests);
      int shown = 0;
      for (uint32_t r = 0; r < n; r++)
        for (uint32_t i = 0; r != me && i < g_frames; i++)
          if (!g_seen[r][i] && shown++ < 10) fprintf(stderr, "  missing %u->%u idx %u\n", r, me, i);
      return 1;
    }
  }
  double secs = tjob_now() - t0;
  if (tjob_barrier(j)) return 1;
  /* Verify exactly-once against the plan. */
  for (uint32_t r = 0; r < n; r++) {
    if (r == me) continue;
    for (uint32_t i = 0; i < g_frames; i++) {
      if (g_seen[r][i] != 1) { g_errors++; fprintf(stderr, "rank %u: frame %u/%u seen %u times\n", me, r, i, g_seen[r][i]); }
      uint32_t kind; size_t len;
      frame_plan(me, r, i, &kind, &len);
      if (kind == K_REQUEST && g_replied[(size_t)r * g_frames + i] != 1) {
        g_errors++;
        fprintf(stderr, "rank %u: reply %u/%u seen %u times\n", me, r, i, g_replied[(size_t)r * g_frames + i]);
      }
    }
  }
  printf("rank %u: sent %u frames/peer (%llu requests, %.1f MB) in %.2f s; received %llu/%llu frames "
         "(%llu placed in place) + %llu/%llu replies, %.1f MB; compared every byte: %llu errors; "
         "retransmitted %lld, fast %lld, dup_dropped %lld, bad %lld, fault drop/dup/reorder %lld/%lld/%lld; "
         "aggregates %lld carrying %lld frames; aggregates lost once %lld carrying %lld frames; "
         "gso sends %lld carrying %lld datagrams, gro reads %lld; send calls %lld, recv calls %lld; "
         "cc cuts loss/delay/rto %lld/%lld/%lld; peer sockets %lld (errors %lld)\n",
         me, g_frames, (unsigned long long)requests, sent_bytes / 1e6, secs,
         (unsigned long long)g_frames_in, (unsigned long long)want_frames,
         (unsigned long long)g_placed_in, (unsigned long long)g_replies_in,
         (unsigned long long)requests, g_bytes_in / 1e6, (unsigned long long)g_errors,
         tjob_stat(j->t, "udp_retransmitted"), tjob_stat(j->t, "udp_fast_retransmits"),
         tjob_stat(j->t, "udp_dup_dropped"), tjob_stat(j->t, "udp_bad_datagrams"),
         tjob_stat(j->t, "udp_fault_dropped"), tjob_stat(j->t, "udp_fault_duplicated"),
         tjob_stat(j->t, "udp_fault_reordered"), tjob_stat(j->t, "udp_agg_sent"),
         tjob_stat(j->t, "udp_agg_frames"), tjob_stat(j->t, "udp_fault_agg_dropped"),
         tjob_stat(j->t, "udp_fault_agg_frames"), tjob_stat(j->t, "udp_gso_sends"),
         tjob_stat(j->t, "udp_gso_segments"), tjob_stat(j->t, "udp_gro_datagrams"),
         tjob_stat(j->t, "udp_sendmsg_calls") + tjob_stat(j->t, "udp_sendmmsg_calls"),
         tjob_stat(j->t, "udp_recv_calls"), tjob_stat(j->t, "udp_cc_cuts_loss"),
         tjob_stat(j->t, "udp_cc_cuts_delay"), tjob_stat(j->t, "udp_cc_cuts_rto"),
         tjob_stat(j->t, "udp_peer_sockets"), tjob_stat(j->t, "udp_peer_socket_errors"));
  if (getenv("AMUDP_TEST_STATS") && me == 0) amudp_ops.stats(j->t, stdout);
  for (uint32_t r = 0; r < n; r++) { free(g_seen[r]); free(g_placed[r]); }
  free(g_seen); free(g_placed); free(g_replied); free(g_scratch); free(out);
  return g_errors ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s NRANKS FRAMES_PER_PEER [LARGE_PERCENT]\n", argv[0]); return 2; }
  uint32_t n = (uint32_t)atoi(argv[1]);
  g_frames = (uint32_t)atoi(argv[2]);
  g_large_pct = argc > 3 ? (uint32_t)atoi(argv[3]) : 5;
  /* AMUDP_TEST_BURST=B: frames 2..B+1 to each peer are small and sent back
   * to back without polling, so that they queue and leave aggregated. */
  g_burst = getenv("AMUDP_TEST_BURST") ? (uint32_t)atoi(getenv("AMUDP_TEST_BURST")) : 0;
  if (n < 2 || g_frames < 2) return 2;
  const char *d = getenv("GASNET_UDP_DROP"), *u = getenv("GASNET_UDP_DUP"), *r = getenv("GASNET_UDP_REORDER");
  printf("t_amudp_stress: %u ranks, %u frames per ordered pair, %u%% large; faults drop=%s dup=%s reorder=%s\n",
         n, g_frames, g_large_pct, d ? d : "0", u ? u : "0", r ? r : "0");
  double t0 = tjob_now();
  int rc = tjob_run(n, setup, body, NULL, NULL);
  printf("t_amudp_stress: %s (%.2f s)\n", rc ? "FAILED" : "all frames and replies exactly once, intact",
         tjob_now() - t0);
  return rc;
}
