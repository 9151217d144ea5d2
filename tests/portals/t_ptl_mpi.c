/*
 * t_ptl_mpi.c - the MPI-style layer over Portals (ptl_mpi.c) in a real job
 * of any size (tests/portals/t-portals-mpi.sh: 2, 4 and 16 ranks), every
 * byte and status checked:
 *
 *   ring       each rank sends to the next and receives from the previous,
 *              sizes across the eager/rendezvous boundary (0 .. 100000 B);
 *   a2a        all-to-all (self included) of T_PTL_MPI_K messages per pair
 *              with pseudo-random sizes and tags, received by (source, tag):
 *              half the receives posted before the sends (posted path), half
 *              after (unexpected path);
 *   anysource  the same traffic received with PM_ANY_SOURCE / PM_ANY_TAG:
 *              source, tag and length come from the status, and the messages
 *              of each source arrive in their order (non-overtaking);
 *   truncate   a message longer than its receive: the status says both;
 *   big        (T_PTL_MPI_BIG) 9 MiB, more than a transport frame: by
 *              rendezvous, and a raw put with an ack (whole and truncated).
 *
 * No request is dropped after start-up (PTL_SR_DROP_COUNT unchanged: every
 * message found a posted receive or an unexpected buffer). Prints
 * "t_ptl_mpi: rank R: all N checks passed" and the layer's counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptl_mpi.h"

static unsigned me, n;
static int checks;

#define CHECK(cond, ...)                                                            \
  do {                                                                              \
    checks++;                                                                       \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "t_ptl_mpi: rank %u: FAILED %s (line %d): ", me, #cond, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                                 \
      fprintf(stderr, "\n");                                                        \
      exit(3);                                                                      \
    }                                                                               \
  } while (0)

static uint32_t mix(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t h = a * 0x9e3779b1u ^ b * 0x85ebca77u ^ c * 0xc2b2ae3du;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  return h ^ h >> 12;
}
static void fill(unsigned char *b, size_t len, uint32_t seed) {
  for (size_t i = 0; i < len; i++) b[i] = (unsigned char)(seed + i * 13 + (i >> 8));
}
static size_t first_bad(const unsigned char *b, size_t len, uint32_t seed) {
  for (size_t i = 0; i < len; i++)
    if (b[i] != (unsigned char)(seed + i * 13 + (i >> 8))) return i;
  return len;
}

/* ---- ring ---------------------------------------------------------------- */
static void ring(void) {
  static const size_t sizes[] = {0, 1, 100, PM_EAGER, PM_EAGER + 1, 100000};
  unsigned next = (me + 1) % n, prev = (me + n - 1) % n;
  for (int round = 0; round < 2; round++)
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
      size_t len = sizes[k];
      unsigned char *out = malloc(len + 1), *in = malloc(len + 1);
      fill(out, len, mix(me, (uint32_t)k, (uint32_t)round));
      memset(in, 0xee, len + 1);
      int tag = (int)(round * 100 + k);
      pm_status_t st;
      pm_req_t *r = pm_irecv(in, len + 1, (int)prev, tag);
      pm_req_t *s = pm_isend(out, len, next, tag);
      pm_wait(s, NULL);
      pm_wait(r, &st);
      CHECK(st.source == (int)prev && st.tag == tag && st.len == len && st.sent == len,
            "ring status: source %d tag %d len %zu sent %zu (len %zu)", st.source, st.tag, st.len, st.sent, len);
      size_t bad = first_bad(in, len, mix(prev, (uint32_t)k, (uint32_t)round));
      CHECK(bad == len, "ring data of %zu bytes from %u: byte %zu", len, prev, bad);
      CHECK(in[len] == 0xee, "ring: nothing past the message");
      free(out);
      free(in);
    }
}

/* ---- all-to-all ---------------------------------------------------------------- */
static unsigned K = 3;
#define MAXLEN 40000

static size_t msg_len(unsigned src, unsigned dst, unsigned i, unsigned phase) {
  uint32_t h = mix(src, dst * 64 + phase, i);
  return h % 4 == 0 ? h % 40 : h % 4 == 1 ? (h >> 4) % (PM_EAGER + 1) : (h >> 4) % MAXLEN;
}
/* tag: the message's index in the high bits, a random part below */
static int msg_tag(unsigned src, unsigned dst, unsigned i, unsigned phase) {
  return (int)(i << 16 | (mix(dst, src, i + phase * 1000) & 0xffff));
}
static uint32_t msg_seed(unsigned src, unsigned dst, unsigned i, unsigned phase) {
  return mix(src + 1000 * phase, dst, i);
}

typedef struct {
  pm_req_t *r;
  unsigned char *buf;
  unsigned src, i;
} rx_t;

static void send_all(unsigned phase, pm_req_t **sr, unsigned char **sb) {
  for (unsigned d = 0; d < n; d++)
    for (unsigned i = 0; i < K; i++) {
      unsigned d2 = (me + d) % n, x = d2 * K + i; /* start with different peers */
      size_t len = msg_len(me, d2, i, phase);
      sb[x] = malloc(len ? len : 1);
      fill(sb[x], len, msg_seed(me, d2, i, phase));
      sr[x] = pm_isend(sb[x], len, d2, msg_tag(me, d2, i, phase));
    }
}

static void wait_sends(pm_req_t **sr, unsigned char **sb) {
  for (unsigned x = 0; x < n * K; x++) {
    pm_wait(sr[x], NULL);
    free(sb[x]);
  }
}

static void check_rx(unsigned src, unsigned i, unsigned phase, const pm_status_t *st,
                     const unsigned char *buf) {
  size_t len = msg_len(src, me, i, phase);
  CHECK(st->source == (int)src && st->tag == msg_tag(src, me, i, phase) && st->len == len &&
            st->sent == len,
        "a2a status from %u #%u: source %d tag %x len %zu (want %zu)", src, i, st->source,
        st->tag, st->len, len);
  size_t bad = first_bad(buf, len, msg_seed(src, me, i, phase));
  CHECK(bad == len, "a2a data from %u #%u (%zu bytes): byte %zu", src, i, len, bad);
}

static void a2a(void) {
  unsigned total = n * K;
  pm_req_t **sr = calloc(total, sizeof *sr);
  unsigned char **sb = calloc(total, sizeof *sb);
  rx_t *rx = calloc(total, sizeof *rx);
  for (unsigned x = 0; x < total; x++) {
    rx[x].src = x / K;
    rx[x].i = x % K;
    rx[x].buf = malloc(MAXLEN);
  }
  /* even-numbered messages posted before the sends, odd ones after */
  for (unsigned x = 0; x < total; x++)
    if (rx[x].i % 2 == 0) rx[x].r = pm_irecv(rx[x].buf, MAXLEN, (int)rx[x].src, msg_tag(rx[x].src, me, rx[x].i, 0));
  pm_barrier();
  send_all(0, sr, sb);
  usleep(1000 * (me % 3)); /* let some arrive first */
  for (unsigned x = 0; x < total; x++)
    if (rx[x].i % 2) rx[x].r = pm_irecv(rx[x].buf, MAXLEN, (int)rx[x].src, msg_tag(rx[x].src, me, rx[x].i, 0));
  for (unsigned x = total; x-- > 0;) { /* wait in another order */
    pm_status_t st;
    pm_wait(rx[x].r, &st);
    check_rx(rx[x].src, rx[x].i, 0, &st, rx[x].buf);
  }
  wait_sends(sr, sb);

  /* any source, any tag: source, tag and length from the status */
  unsigned *next_i = calloc(n, sizeof *next_i);
  for (unsigned x = 0; x < total / 2; x++) rx[x].r = pm_irecv(rx[x].buf, MAXLEN, PM_ANY_SOURCE, PM_ANY_TAG);
  pm_barrier();
  send_all(1, sr, sb);
  for (unsigned x = total / 2; x < total; x++) rx[x].r = pm_irecv(rx[x].buf, MAXLEN, PM_ANY_SOURCE, PM_ANY_TAG);
  for (unsigned x = 0; x < total; x++) {
    pm_status_t st;
    pm_wait(rx[x].r, &st);
    CHECK(st.source >= 0 && (unsigned)st.source < n, "any-source status source %d", st.source);
    unsigned src = (unsigned)st.source, i = (unsigned)st.tag >> 16;
    CHECK(i == next_i[src], "from %u: message #%u before #%u (non-overtaking)", src, i, next_i[src]);
    next_i[src]++;
    check_rx(src, i, 1, &st, rx[x].buf);
  }
  for (unsigned s = 0; s < n; s++) CHECK(next_i[s] == K, "%u messages from %u", next_i[s], s);
  wait_sends(sr, sb);
  free(next_i);
  for (unsigned x = 0; x < total; x++) free(rx[x].buf);
  free(rx);
  free(sr);
  free(sb);
}

/* ---- truncation: 1000 bytes (eager) and 20000 (rendezvous) into 500 ---------- */
static void truncate_case(void) {
  static unsigned char out[20000], in[600];
  unsigned next = (me + 1) % n, prev = (me + n - 1) % n;
  const size_t lens[2] = {1000, 20000};
  for (int k = 0; k < 2; k++) {
    fill(out, lens[k], mix(me, 77, (uint32_t)k));
    memset(in, 0xee, sizeof in);
    pm_status_t st;
    pm_req_t *r = pm_irecv(in, 500, (int)prev, 9000 + k);
    pm_req_t *s = pm_isend(out, lens[k], next, 9000 + k);
    pm_wait(r, &st);
    pm_wait(s, NULL);
    CHECK(st.len == 500 && st.sent == lens[k], "truncated: len %zu sent %zu", st.len, st.sent);
    CHECK(first_bad(in, 500, mix(prev, 77, (uint32_t)k)) == 500 && in[500] == 0xee, "truncated data");
  }
}

/* ---- larger than a transport frame (4 MiB): T_PTL_MPI_BIG=1 --------------------
 * A rendezvous of BIG bytes through the layer (a get whose reply comes in
 * 3 frames); then raw Portals: a put of BIG bytes with an ack to the next
 * rank, into an MD of BIG (whole) then one of 6 MiB with TRUNCATE: one
 * PUT_START and one PUT_END, mlength the whole (or the truncated) length
 * in the target's events and in the ack, the data checked. */
#define BIG (9u * 1024 * 1024 + 5)
#define BIG_PT 7
static ptl_event_t next_ev(ptl_handle_eq_t q) {
  ptl_event_t ev;
  int rc = PtlEQWait(q, &ev);
  CHECK(rc == PTL_OK, "PtlEQWait: %s", PtlErrorStr(rc));
  return ev;
}

static void big_case(void) {
  unsigned next = (me + 1) % n, prev = (me + n - 1) % n;
  unsigned char *out = malloc(BIG), *in = malloc(BIG);
  CHECK(out && in, "memory");
  fill(out, BIG, mix(me, 5, 5));
  memset(in, 0, BIG);
  pm_status_t st;
  pm_req_t *r = pm_irecv(in, BIG, (int)prev, 5);
  pm_req_t *s = pm_isend(out, BIG, next, 5);
  pm_wait(r, &st);
  pm_wait(s, NULL);
  CHECK(st.len == BIG && first_bad(in, BIG, mix(prev, 5, 5)) == BIG, "9 MiB by rendezvous");
  ptl_handle_ni_t ni = pm_ni();
  ptl_handle_eq_t q;
  ptl_handle_me_t me_h;
  ptl_handle_md_t src, dst;
  ptl_process_id_t to, any = {PTL_NID_ANY, PTL_PID_ANY};
  CHECK(PtlGetRankId(ni, next, &to) == PTL_OK, "id");
  CHECK(PtlEQAlloc(ni, 64, &q) == PTL_OK, "EQ");
  const ptl_size_t cap[2] = {BIG, 6u << 20};
  for (int k = 0; k < 2; k++) {
    memset(in, 0, BIG);
    ptl_md_t d = {in, cap[k], 1, cap[k], PTL_MD_OP_PUT | PTL_MD_TRUNCATE, NULL, q};
    CHECK(PtlMEAttach(ni, BIG_PT, any, 0, 0, PTL_UNLINK, PTL_INS_AFTER, &me_h) == PTL_OK, "ME");
    CHECK(PtlMDAttach(me_h, d, PTL_UNLINK, PTL_RETAIN, &dst) == PTL_OK, "MD");
    pm_barrier(); /* every target ready */
    ptl_md_t sd = {out, BIG, 1, BIG, 0, NULL, q};
    CHECK(PtlMDBind(ni, sd, &src) == PTL_OK, "bind");
    CHECK(PtlPut(src, PTL_ACK_REQ, to, BIG_PT, 0, 0, 0, 42) == PTL_OK, "put of %u bytes", BIG);
    int got[16] = {0};
    ptl_size_t ack_m = 0, put_m = 0;
    for (int e = 0; e < 6; e++) { /* SEND_START/END, ACK; PUT_START/END, UNLINK */
      ptl_event_t ev = next_ev(q);
      CHECK(ev.type <= PTL_EVENT_UNLINK && !got[ev.type], "event %s once", PtlEventKindStr(ev.type));
      got[ev.type] = 1;
      if (ev.type == PTL_EVENT_ACK) ack_m = ev.mlength;
      if (ev.type == PTL_EVENT_PUT_END) {
        put_m = ev.mlength;
        CHECK(ev.rlength == BIG && ev.hdr_data == 42, "PUT_END rlength %llu", (unsigned long long)ev.rlength);
      }
    }
    CHECK(got[PTL_EVENT_SEND_END] && got[PTL_EVENT_ACK] && got[PTL_EVENT_PUT_START] && got[PTL_EVENT_UNLINK], "the events");
    CHECK(put_m == cap[k] && ack_m == cap[k], "mlength: put %llu, ack %llu, wanted %llu",
          (unsigned long long)put_m, (unsigned long long)ack_m, (unsigned long long)cap[k]);
    size_t bad = first_bad(in, (size_t)cap[k], mix(prev, 5, 5));
    CHECK(bad == cap[k], "%llu bytes put: byte %zu", (unsigned long long)cap[k], bad);
    if (k == 1) CHECK(in[cap[k]] == 0, "nothing past the truncated length");
    CHECK(PtlMDUnlink(src) == PTL_OK, "unlink");
    pm_barrier();
  }
  CHECK(PtlEQFree(q) == PTL_OK, "EQ free");
  free(out);
  free(in);
}

int main(void) {
  alarm(150); /* the watchdog: every wait below is bounded by it */
  const char *k = getenv("T_PTL_MPI_K");
  if (k && atoi(k) > 0) K = (unsigned)atoi(k);
  const char *delay = getenv("T_PTL_MPI_POST_DELAY_US");
  if (delay) pm_post_delay_us = (unsigned)atoi(delay);
  pm_init(&me, &n);
  /* Start-up pings that came before a rank's entries were attached were
   * dropped (that is how pm_init knows a peer is ready); none after. */
  ptl_sr_value_t drops0 = -1;
  PtlNIStatus(pm_ni(), PTL_SR_DROP_COUNT, &drops0);
  ring();
  pm_barrier();
  a2a();
  pm_barrier();
  truncate_case();
  pm_barrier();
  if (getenv("T_PTL_MPI_BIG")) big_case();
  ptl_sr_value_t drops = -1, bad = -1;
  PtlNIStatus(pm_ni(), PTL_SR_DROP_COUNT, &drops);
  PtlNIStatus(pm_ni(), PTL_SR_MALFORMED_COUNT, &bad);
  drops -= drops0;
  CHECK(drops == 0 && bad == 0, "drops %lld, malformed %lld", (long long)drops, (long long)bad);
  const pm_stats_t *s = pm_stats();
  printf("t_ptl_mpi: rank %u of %u: posted %lu, unexpected %lu, rendezvous %lu, PtlMDUpdate refused %lu, buffers recycled %lu\n",
         me, n, s->posted, s->unexpected, s->rndv, s->noupdate, s->recycled);
  pm_fini();
  printf("t_ptl_mpi: rank %u: all %d checks passed\n", me, checks);
  return 0;
}
