/*
 * t_ptl.c - Portals 3.2 semantics over a real job (tests/portals/t-portals.sh).
 * Ranks pair up (0-1, 2-3, ...): the even rank initiates, the odd one is
 * the target; a last odd rank out only joins and leaves. Each case's data
 * and events are checked exactly on both sides; a phase ends with a sync
 * message from one side to the other on portal SYNC_PT (the spec orders the
 * requests of one initiator at its target, so the target has processed
 * every earlier request when the sync arrives).
 *
 * Cases: put + ack (events, link, hdr_data, data); match/ignore bits,
 * source ids and wildcards, insertion order (BEFORE/AFTER, PtlMEInsert);
 * thresholds reaching 0 and PTL_EVENT_UNLINK; max_offset recycling a
 * buffer for short messages; truncation (mlength in events and ack);
 * unlink_nofit; ACK_DISABLE; get with remote offset and a truncated
 * reply; rejected requests (bad portal, AC denied, no match) counted and
 * eventless; EQ overflow (PTL_EQ_DROPPED); PtlMDUpdate's test queue;
 * argument errors. Prints "t_ptl: rank R: all N checks passed".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "portals3.h"

#define SYNC_PT 63
static ptl_handle_ni_t ni;
static ptl_handle_eq_t syncq;
static unsigned me_rank, nranks;
static ptl_process_id_t peer;
static int checks;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    checks++;                                                              \
    if (!(cond)) {                                                         \
      fprintf(stderr, "t_ptl: rank %u: FAILED %s (line %d): ", me_rank, #cond, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                        \
      fprintf(stderr, "\n");                                               \
      exit(3);                                                             \
    }                                                                      \
  } while (0)
#define OK(call)                                                           \
  do {                                                                     \
    int rc_ = (call);                                                      \
    CHECK(rc_ == PTL_OK, "%s", PtlErrorStr(rc_));                          \
  } while (0)

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The next event, waiting at most 20 s. */
static int next_event(ptl_handle_eq_t eq, ptl_event_t *ev) {
  double end = now_s() + 20;
  int rc;
  while ((rc = PtlEQGet(eq, ev)) == PTL_EQ_EMPTY && now_s() < end) usleep(50);
  return rc;
}

static void expect_event_at(ptl_handle_eq_t eq, ptl_event_kind_t kind, ptl_event_t *ev, int line) {
  int rc = next_event(eq, ev);
  if (rc != PTL_OK) {
    ptl_sr_value_t d = -1, m = -1;
    PtlNIStatus(ni, PTL_SR_DROP_COUNT, &d);
    PtlNIStatus(ni, PTL_SR_MALFORMED_COUNT, &m);
    fprintf(stderr, "t_ptl: rank %u: no %s for the call at line %d (drops %lld, malformed %lld)\n",
            me_rank, PtlEventKindStr(kind), line, (long long)d, (long long)m);
  }
  CHECK(rc == PTL_OK, "waiting for %s: %s", PtlEventKindStr(kind), PtlErrorStr(rc));
  CHECK(ev->type == kind, "got %s, wanted %s", PtlEventKindStr(ev->type), PtlEventKindStr(kind));
}

#define expect_event(q, k, e) expect_event_at(q, k, e, __LINE__)

static void expect_empty(ptl_handle_eq_t eq, const char *what) {
  ptl_event_t ev;
  int rc = PtlEQGet(eq, &ev);
  CHECK(rc == PTL_EQ_EMPTY, "%s: expected no event, got %s (%s)", what, PtlErrorStr(rc),
        rc == PTL_OK ? PtlEventKindStr(ev.type) : "-");
}

static ptl_md_t md_of(void *buf, ptl_size_t len, int thresh, unsigned opts, ptl_handle_eq_t eq) {
  ptl_md_t d = {buf, len, thresh, len, opts, NULL, eq};
  return d;
}

/* ---- sync: a 0-byte put to the peer's SYNC_PT, waited for there ---------- */
static void sync_send(void) {
  ptl_handle_md_t md;
  OK(PtlMDBind(ni, md_of(NULL, 0, 1, 0, PTL_EQ_NONE), &md));
  OK(PtlPut(md, PTL_NOACK_REQ, peer, SYNC_PT, 0, 0, 0, 0));
  usleep(1000); /* the send has completed once the transport copied it */
  int rc;
  while ((rc = PtlMDUnlink(md)) == PTL_MD_INUSE) usleep(100);
  OK(rc);
}
#define sync_wait() sync_wait_at(__LINE__)
/* The first message: the peer may not have attached its SYNC_PT entry yet
 * (a request nothing matches is dropped), so it goes again until acked. */
static void sync_first(void) {
  ptl_handle_eq_t q;
  ptl_handle_md_t md;
  ptl_event_t ev;
  OK(PtlEQAlloc(ni, 8, &q));
  OK(PtlMDBind(ni, md_of(NULL, 0, PTL_MD_THRESH_INF, 0, q), &md));
  int acked = 0;
  for (int tries = 0; tries < 100 && !acked; tries++) {
    OK(PtlPut(md, PTL_ACK_REQ, peer, SYNC_PT, 0, 0, 0, 0));
    double end = now_s() + 0.2;
    while (!acked && now_s() < end)
      if (PtlEQGet(q, &ev) == PTL_OK) acked = ev.type == PTL_EVENT_ACK;
      else usleep(100);
  }
  CHECK(acked, "the peer took the first message");
  OK(PtlMDUnlink(md));
  OK(PtlEQFree(q));
}

static void sync_wait_at(int line) {
  ptl_event_t ev;
  expect_event_at(syncq, PTL_EVENT_PUT_START, &ev, line);
  expect_event_at(syncq, PTL_EVENT_PUT_END, &ev, line);
}

static void fill(unsigned char *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(seed * 31 + i * 7);
}
static int same(const unsigned char *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    if (b[i] != (unsigned char)(seed * 31 + i * 7)) return 0;
  return 1;
}

static ptl_sr_value_t drops(void) {
  ptl_sr_value_t v;
  OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &v));
  return v;
}

static ptl_process_id_t any_id(void) {
  ptl_process_id_t a = {PTL_NID_ANY, PTL_PID_ANY};
  return a;
}

/* ---- initiator side helpers ------------------------------------------------- */
static ptl_handle_eq_t ieq;
static ptl_event_t early_ack; /* an ack may come before SEND_END: kept here */
static int have_early_ack;

static void expect_ack(ptl_event_t *ev) {
  if (have_early_ack) {
    *ev = early_ack;
    have_early_ack = 0;
    return;
  }
  expect_event(ieq, PTL_EVENT_ACK, ev);
}

/* put len bytes of pattern seed; returns the MD (threshold INF, not unlinked) */
static ptl_handle_md_t iput(void *buf, size_t len, unsigned seed, ptl_ack_req_t ack,
                            ptl_pt_index_t pt, ptl_ac_index_t cookie, ptl_match_bits_t bits,
                            ptl_size_t off, ptl_hdr_data_t hdr) {
  ptl_handle_md_t md;
  fill(buf, len, seed);
  OK(PtlMDBind(ni, md_of(buf, len, PTL_MD_THRESH_INF, 0, ieq), &md));
  OK(PtlPut(md, ack, peer, pt, cookie, bits, off, hdr));
  ptl_event_t ev;
  expect_event(ieq, PTL_EVENT_SEND_START, &ev);
  ptl_seq_t link = ev.link;
  int rc = next_event(ieq, &ev);
  if (rc == PTL_OK && ev.type == PTL_EVENT_ACK && ack == PTL_ACK_REQ) {
    early_ack = ev;
    have_early_ack = 1;
    rc = next_event(ieq, &ev);
  }
  CHECK(rc == PTL_OK && ev.type == PTL_EVENT_SEND_END, "SEND_END: %s %s", PtlErrorStr(rc), PtlEventKindStr(ev.type));
  CHECK(ev.link == link, "SEND_START and SEND_END share link (%u, %u)", link, ev.link);
  CHECK(ev.md_handle == md && ev.rlength == len, "send event names its MD and length");
  return md;
}

static void initiator(void) {
  static unsigned char buf[8192], got[8192];
  ptl_event_t ev;
  OK(PtlEQAlloc(ni, 64, &ieq));
  sync_wait(); /* the target is ready */

  /* 1. put with ack */
  ptl_handle_md_t md = iput(buf, 4096, 1, PTL_ACK_REQ, 1, 0, 0x11, 0, 0xfeedULL);
  expect_ack(&ev);
  CHECK(ev.mlength == 4096 && ev.match_bits == 0x11 && ev.portal == 1 && ev.md_handle == md,
        "ack: mlength %llu bits %llx", (unsigned long long)ev.mlength, (unsigned long long)ev.match_bits);
  OK(PtlMDUnlink(md));

  /* 2. match bits: 0x1ab matches A (ignore 0xff, our id); 0x200 B (any source) */
  OK(PtlMDUnlink(iput(buf, 16, 2, PTL_NOACK_REQ, 2, 0, 0x1ab, 0, 0)));
  OK(PtlMDUnlink(iput(buf, 16, 3, PTL_NOACK_REQ, 2, 0, 0x200, 0, 0)));
  OK(PtlMDUnlink(iput(buf, 16, 4, PTL_NOACK_REQ, 2, 0, 0x300, 0, 0))); /* insertion order */

  /* 3. thresholds: three puts at an MD of threshold 2 */
  for (int i = 0; i < 3; i++) OK(PtlMDUnlink(iput(buf, 32, 10 + i, PTL_NOACK_REQ, 3, 0, 7, 0, 0)));

  /* 4. max_offset: ten 100-byte messages appended at one MD */
  for (int i = 0; i < 10; i++) OK(PtlMDUnlink(iput(buf, 100, 20 + i, PTL_NOACK_REQ, 4, 0, 0, 0, 0)));

  /* 5. truncation: 100 bytes into 64, ack mlength 64; then into a 64-byte MD
   * without TRUNCATE (unlink_nofit): dropped, no ack */
  md = iput(buf, 100, 40, PTL_ACK_REQ, 5, 0, 0, 0, 0);
  expect_ack(&ev);
  CHECK(ev.mlength == 64 && ev.rlength == 100, "truncated ack: mlength %llu rlength %llu",
        (unsigned long long)ev.mlength, (unsigned long long)ev.rlength);
  OK(PtlMDUnlink(md));
  OK(PtlMDUnlink(iput(buf, 100, 41, PTL_ACK_REQ, 6, 0, 0, 0, 0)));

  /* 6. ACK_DISABLE: asked for, not sent */
  OK(PtlMDUnlink(iput(buf, 8, 42, PTL_ACK_REQ, 7, 0, 0, 0, 0)));

  /* 7. rejected: bad portal, AC denied (empty entry 5; entry 6 for another
   * uid), no match */
  OK(PtlMDUnlink(iput(buf, 8, 43, PTL_NOACK_REQ, 60, 0, 0, 0, 0)));
  OK(PtlMDUnlink(iput(buf, 8, 44, PTL_NOACK_REQ, 1, 5, 0x11, 0, 0)));
  OK(PtlMDUnlink(iput(buf, 8, 45, PTL_NOACK_REQ, 1, 6, 0x11, 0, 0)));
  OK(PtlMDUnlink(iput(buf, 8, 46, PTL_NOACK_REQ, 1, 0, 0x99, 0, 0)));

  /* 8. EQ overflow: 3 puts into a queue of 4 (6 events) */
  for (int i = 0; i < 3; i++) OK(PtlMDUnlink(iput(buf, 8, 50 + i, PTL_NOACK_REQ, 8, 0, 0, 0, 0)));
  sync_send(); /* all of the above sent: the target checks */
  sync_wait(); /* the target drained its queue */
  OK(PtlMDUnlink(iput(buf, 8, 53, PTL_NOACK_REQ, 8, 0, 0, 0, 0)));

  /* 9. get: 500 bytes at remote offset 1000; then 5000 from a 4096-byte
   * TRUNCATE MD: the reply is truncated to 4096 */
  ptl_handle_md_t gmd;
  memset(got, 0, sizeof got);
  OK(PtlMDBind(ni, md_of(got, 500, 1, 0, ieq), &gmd));
  OK(PtlGet(gmd, peer, 9, 0, 0x9, 1000));
  expect_event(ieq, PTL_EVENT_REPLY_START, &ev);
  ptl_seq_t link = ev.link;
  expect_event(ieq, PTL_EVENT_REPLY_END, &ev);
  CHECK(ev.link == link && ev.mlength == 500, "reply: mlength %llu", (unsigned long long)ev.mlength);
  for (int i = 0; i < 500; i++)
    CHECK(got[i] == (unsigned char)(60 * 31 + (1000 + i) * 7), "get data at %d", i);
  CHECK(PtlGet(gmd, peer, 9, 0, 0x9, 0) == PTL_INV_MD, "threshold 0: the MD is inactive");
  OK(PtlMDUnlink(gmd));
  OK(PtlMDBind(ni, md_of(got, 5000, 1, 0, ieq), &gmd));
  OK(PtlGet(gmd, peer, 10, 0, 0, 0));
  expect_event(ieq, PTL_EVENT_REPLY_START, &ev);
  expect_event(ieq, PTL_EVENT_REPLY_END, &ev);
  CHECK(ev.mlength == 4096 && ev.rlength == 5000, "truncated reply: mlength %llu rlength %llu",
        (unsigned long long)ev.mlength, (unsigned long long)ev.rlength);
  CHECK(same(got, 4096, 61), "truncated reply data");
  OK(PtlMDUnlink(gmd));
  sync_send();
  sync_wait();
  expect_empty(ieq, "after ACK_DISABLE and nofit: no ack");
  OK(PtlEQFree(ieq));
}

/* ---- target side --------------------------------------------------------- */
static ptl_handle_me_t attach(ptl_pt_index_t pt, ptl_process_id_t src, ptl_match_bits_t bits,
                              ptl_match_bits_t ign, ptl_unlink_t u, ptl_ins_pos_t pos) {
  ptl_handle_me_t h;
  OK(PtlMEAttach(ni, pt, src, bits, ign, u, pos, &h));
  return h;
}

static void target(void) {
  static unsigned char b1[4096], b2[3][64], b3[64], b4[1024], b5[64], b6[64], b7[8], b8[64],
      b9[4096], b10[4096];
  ptl_handle_eq_t q, q8;
  ptl_handle_md_t h;
  ptl_event_t ev;
  OK(PtlEQAlloc(ni, 256, &q));
  OK(PtlEQAlloc(ni, 4, &q8));
  ptl_md_t d;
  /* 1 */
  OK(PtlMDAttach(attach(1, any_id(), 0x11, 0, PTL_RETAIN, PTL_INS_AFTER),
                 md_of(b1, sizeof b1, PTL_MD_THRESH_INF, PTL_MD_OP_PUT, q), PTL_RETAIN, PTL_RETAIN, &h));
  /* 2: C (inserted before A, wrong source), A, B; then two for 0x300 */
  ptl_process_id_t other = peer;
  other.pid += 1000;
  ptl_handle_me_t a = attach(2, peer, 0x100, 0xff, PTL_RETAIN, PTL_INS_AFTER), c, x;
  ptl_handle_me_t b = attach(2, any_id(), 0x200, 0, PTL_RETAIN, PTL_INS_AFTER);
  OK(PtlMEInsert(a, other, 0x100, 0xff, PTL_INS_BEFORE, &c));
  d = md_of(b2[0], 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT, q);
  d.user_ptr = (void *)"A";
  OK(PtlMDAttach(a, d, PTL_RETAIN, PTL_RETAIN, NULL));
  d.start = b2[1];
  d.user_ptr = (void *)"B";
  OK(PtlMDAttach(b, d, PTL_RETAIN, PTL_RETAIN, NULL));
  d.start = b2[2];
  d.user_ptr = (void *)"C";
  OK(PtlMDAttach(c, d, PTL_RETAIN, PTL_RETAIN, NULL));
  x = attach(2, any_id(), 0x300, 0, PTL_RETAIN, PTL_INS_AFTER); /* attached first, but AFTER */
  d.user_ptr = (void *)"late";
  OK(PtlMDAttach(x, d, PTL_RETAIN, PTL_RETAIN, NULL));
  x = attach(2, any_id(), 0x300, 0, PTL_RETAIN, PTL_INS_BEFORE); /* BEFORE: wins */
  d.user_ptr = (void *)"early";
  OK(PtlMDAttach(x, d, PTL_RETAIN, PTL_RETAIN, NULL));
  CHECK(PtlMDAttach(x, d, PTL_RETAIN, PTL_RETAIN, NULL) == PTL_INUSE, "a second MD: PTL_INUSE");
  /* 3: threshold 2, unlinked when used up */
  OK(PtlMDAttach(attach(3, any_id(), 7, 0, PTL_UNLINK, PTL_INS_AFTER),
                 md_of(b3, 64, 2, PTL_MD_OP_PUT | PTL_MD_TRUNCATE, q), PTL_UNLINK, PTL_RETAIN, &h));
  ptl_handle_md_t h3 = h;
  /* 4: 1024 bytes, max_offset 924 */
  d = md_of(b4, 1024, PTL_MD_THRESH_INF, PTL_MD_OP_PUT, q);
  d.max_offset = 924;
  OK(PtlMDAttach(attach(4, any_id(), 0, 0, PTL_UNLINK, PTL_INS_AFTER), d, PTL_UNLINK, PTL_RETAIN, NULL));
  /* 5: truncate; 6: no room, unlink_nofit; 7: ACK_DISABLE; 8: small queue */
  OK(PtlMDAttach(attach(5, any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER),
                 md_of(b5, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT | PTL_MD_TRUNCATE, q), PTL_RETAIN, PTL_RETAIN, NULL));
  OK(PtlMDAttach(attach(6, any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER),
                 md_of(b6, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT, q), PTL_RETAIN, PTL_UNLINK, NULL));
  OK(PtlMDAttach(attach(7, any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER),
                 md_of(b7, 8, PTL_MD_THRESH_INF, PTL_MD_OP_PUT | PTL_MD_ACK_DISABLE, q), PTL_RETAIN, PTL_RETAIN, NULL));
  d = md_of(b8, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, q8);
  OK(PtlMDAttach(attach(8, any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER), d, PTL_RETAIN, PTL_RETAIN, NULL));
  /* 9, 10: get sources */
  fill(b9, 4096, 0);
  for (int i = 0; i < 4096; i++) b9[i] = (unsigned char)(60 * 31 + i * 7);
  OK(PtlMDAttach(attach(9, any_id(), 0x9, 0, PTL_RETAIN, PTL_INS_AFTER),
                 md_of(b9, 4096, PTL_MD_THRESH_INF, PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE, q), PTL_RETAIN, PTL_RETAIN, NULL));
  fill(b10, 4096, 61);
  OK(PtlMDAttach(attach(10, any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER),
                 md_of(b10, 4096, 1, PTL_MD_OP_GET | PTL_MD_TRUNCATE, q), PTL_UNLINK, PTL_RETAIN, NULL));
  /* AC entry 6: only for another user */
  ptl_uid_t uid;
  OK(PtlGetUid(ni, &uid));
  OK(PtlACEntry(ni, 6, any_id(), uid + 1, PTL_PT_INDEX_ANY));
  CHECK(PtlACEntry(ni, 64, any_id(), uid, 1) == PTL_AC_INV_INDEX, "AC index 64");
  CHECK(PtlACEntry(ni, 1, any_id(), uid, 64) == PTL_PT_INV_INDEX, "Portal index 64");
  ptl_sr_value_t drops0 = drops();
  sync_first(); /* ready */
  sync_wait(); /* the initiator sent cases 1-8 */

  /* 1 */
  expect_event(q, PTL_EVENT_PUT_START, &ev);
  ptl_seq_t link = ev.link;
  expect_event(q, PTL_EVENT_PUT_END, &ev);
  CHECK(ev.link == link && ev.mlength == 4096 && ev.hdr_data == 0xfeed && ev.offset == 0,
        "put events: link %u/%u mlength %llu", link, ev.link, (unsigned long long)ev.mlength);
  CHECK(ev.initiator.nid == peer.nid && ev.initiator.pid == peer.pid && ev.uid == uid, "initiator id");
  CHECK(same(b1, 4096, 1), "put data");
  /* 2 */
  const char *want[3] = {"A", "B", "early"};
  for (int i = 0; i < 3; i++) {
    expect_event(q, PTL_EVENT_PUT_START, &ev);
    expect_event(q, PTL_EVENT_PUT_END, &ev);
    CHECK(!strcmp(ev.mem_desc.user_ptr, want[i]), "match %d went to %s, not %s", i,
          (const char *)ev.mem_desc.user_ptr, want[i]);
  }
  CHECK(same(b2[0], 16, 2) && same(b2[1], 16, 3) && same(b2[2], 16, 4), "match data");
  /* 3: two puts, then UNLINK linked to the second; the third dropped */
  for (int i = 0; i < 2; i++) {
    expect_event(q, PTL_EVENT_PUT_START, &ev);
    expect_event(q, PTL_EVENT_PUT_END, &ev);
    CHECK(ev.mem_desc.threshold == 1 - i, "threshold after put %d: %d", i, ev.mem_desc.threshold);
  }
  link = ev.link;
  expect_event(q, PTL_EVENT_UNLINK, &ev);
  CHECK(ev.link == link && ev.md_handle == h3, "UNLINK linked to the put that used the MD up");
  CHECK(PtlMDUnlink(h3) == PTL_INV_MD, "an unlinked MD's handle is stale");
  CHECK(same(b3, 32, 10) && same(b3 + 32, 32, 11), "threshold data, appended");
  /* 4 */
  for (int i = 0; i < 10; i++) {
    expect_event(q, PTL_EVENT_PUT_START, &ev);
    expect_event(q, PTL_EVENT_PUT_END, &ev);
    CHECK(ev.offset == (ptl_size_t)i * 100, "append offset %llu", (unsigned long long)ev.offset);
    CHECK(same(b4 + i * 100, 100, 20 + i), "appended message %d", i);
  }
  expect_event(q, PTL_EVENT_UNLINK, &ev); /* local offset 1000 > max_offset 924 */
  /* 5, 6 */
  expect_event(q, PTL_EVENT_PUT_START, &ev);
  expect_event(q, PTL_EVENT_PUT_END, &ev);
  CHECK(ev.mlength == 64 && ev.rlength == 100 && same(b5, 64, 40), "truncated put");
  expect_event(q, PTL_EVENT_UNLINK, &ev); /* no room, unlink_nofit */
  CHECK(ev.rlength == 100 && ev.mlength == 0, "nofit unlink event");
  /* 7 */
  expect_event(q, PTL_EVENT_PUT_START, &ev);
  expect_event(q, PTL_EVENT_PUT_END, &ev);
  /* rejected ones: counted, eventless */
  expect_empty(q, "rejected requests");
  ptl_sr_value_t d1 = drops();
  CHECK(d1 - drops0 == 6, "drop count rose by %lld (threshold 1, nofit 1, bad portal 1, AC 2, no match 1), wanted 6",
        (long long)(d1 - drops0));
  /* 8: the queue of 4 held the first 4 events; 2 were dropped */
  for (int i = 0; i < 4; i++) {
    int rc = next_event(q8, &ev);
    CHECK(rc == PTL_OK, "overflowed queue event %d: %s", i, PtlErrorStr(rc));
    CHECK(ev.sequence == (ptl_seq_t)i + 1, "sequence %u", ev.sequence);
  }
  expect_empty(q8, "overflowed queue drained");
  sync_send();
  int rc = next_event(q8, &ev);
  CHECK(rc == PTL_EQ_DROPPED && ev.type == PTL_EVENT_PUT_START && ev.sequence == 7,
        "after the overflow: %s, sequence %u", PtlErrorStr(rc), ev.sequence);
  CHECK(next_event(q8, &ev) == PTL_OK, "the next one is PTL_OK");
  /* 9, 10: get events */
  expect_event(q, PTL_EVENT_GET_START, &ev);
  link = ev.link;
  expect_event(q, PTL_EVENT_GET_END, &ev);
  CHECK(ev.link == link && ev.offset == 1000 && ev.mlength == 500, "get events: offset %llu",
        (unsigned long long)ev.offset);
  expect_event(q, PTL_EVENT_GET_START, &ev);
  expect_event(q, PTL_EVENT_GET_END, &ev);
  CHECK(ev.mlength == 4096 && ev.rlength == 5000, "truncated get");
  expect_event(q, PTL_EVENT_UNLINK, &ev); /* threshold 1 used up */
  sync_wait(); /* the initiator is done */
  /* PtlMDUpdate's test queue, with puts to myself (loopback) */
  static unsigned char b11[16];
  ptl_handle_eq_t tq;
  ptl_handle_me_t me11;
  ptl_handle_md_t src;
  ptl_process_id_t self;
  ptl_md_t old, nw;
  OK(PtlGetId(ni, &self));
  OK(PtlEQAlloc(ni, 8, &tq));
  OK(PtlMEAttach(ni, 11, any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER, &me11));
  OK(PtlMDAttach(me11, md_of(b11, 16, 0, PTL_MD_OP_PUT, tq), PTL_RETAIN, PTL_RETAIN, &h));
  OK(PtlMDBind(ni, md_of(b7, 8, PTL_MD_THRESH_INF, 0, PTL_EQ_NONE), &src));
  ptl_sr_value_t d2 = drops();
  OK(PtlPut(src, PTL_NOACK_REQ, self, 11, 0, 0, 0, 0)); /* threshold 0: inactive, dropped */
  CHECK(drops() == d2 + 1, "a put to an inactive MD is dropped");
  expect_empty(tq, "inactive MD");
  nw = md_of(b11, 16, 1, PTL_MD_OP_PUT, tq);
  OK(PtlMDUpdate(h, &old, &nw, tq));
  CHECK(old.threshold == 0, "old threshold %d", old.threshold);
  OK(PtlPut(src, PTL_NOACK_REQ, self, 11, 0, 0, 0, 0));
  nw.threshold = 3;
  CHECK(PtlMDUpdate(h, NULL, &nw, tq) == PTL_NOUPDATE, "no update while the test queue has events");
  expect_event(tq, PTL_EVENT_PUT_START, &ev);
  expect_event(tq, PTL_EVENT_PUT_END, &ev);
  CHECK(same(b11, 8, 42), "loopback data");
  OK(PtlMDUpdate(h, &old, &nw, tq));
  CHECK(old.threshold == 0, "used up: threshold %d", old.threshold);
  OK(PtlMDUpdate(h, &old, NULL, PTL_EQ_NONE));
  CHECK(old.threshold == 3, "updated threshold %d", old.threshold);
  OK(PtlMEUnlink(me11));
  CHECK(PtlMDUnlink(h) == PTL_INV_MD, "PtlMEUnlink took its MD");
  OK(PtlMDUnlink(src));
  OK(PtlEQFree(tq));
  sync_send();
  expect_empty(q, "the end");
}

int main(void) {
  int maxif;
  ptl_handle_ni_t ni2;
  ptl_ni_limits_t lim;
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_PID_ANY, NULL, &lim, &ni) == PTL_NOINIT, "before PtlInit");
  OK(PtlInit(&maxif));
  OK(PtlInit(&maxif)); /* may be called again */
  CHECK(PtlNIInit(1, PTL_PID_ANY, NULL, &lim, &ni) == PTL_INIT_INV, "interface 1");
  OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_PID_ANY, NULL, &lim, &ni));
  CHECK(lim.max_ptable_index == 63 && lim.max_atable_index == 63, "limits");
  OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_PID_ANY, NULL, NULL, &ni2)); /* the same one again */
  CHECK(ni2 == ni, "a second PtlNIInit returns the same interface");
  OK(PtlNIFini(ni2));
  OK(PtlGetRank(ni, &me_rank, &nranks));
  ptl_process_id_t id, rid;
  OK(PtlGetId(ni, &id));
  OK(PtlGetRankId(ni, me_rank, &rid));
  CHECK(id.nid == rid.nid && id.pid == rid.pid, "PtlGetRankId of my rank is my id");
  CHECK(PtlGetRankId(ni, nranks, &rid) == PTL_INV_PROC, "rank out of range");
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, id.pid + 1, NULL, NULL, &ni2) == PTL_INIT_DUP, "another pid");
  unsigned long dist;
  OK(PtlNIDist(ni, id, &dist));
  CHECK(dist == 0, "distance to myself %lu", dist);
  ptl_handle_me_t sme;
  OK(PtlEQAlloc(ni, 64, &syncq));
  OK(PtlMEAttach(ni, SYNC_PT, any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER, &sme));
  OK(PtlMDAttach(sme, md_of(NULL, 0, PTL_MD_THRESH_INF, PTL_MD_OP_PUT | PTL_MD_TRUNCATE, syncq),
                 PTL_RETAIN, PTL_RETAIN, NULL));
  ptl_handle_ni_t back;
  OK(PtlNIHandle(sme, &back));
  CHECK(back == ni, "PtlNIHandle of an ME");
  CHECK(PtlNIHandle(sme + 1, &back) == PTL_INV_HANDLE, "a bad handle");
  CHECK(PtlEQGet(PTL_EQ_NONE, NULL) == PTL_INV_EQ, "PTL_EQ_NONE is no queue");
  if (getenv("T_PTL_KILL")) { /* a peer killed mid-operation: the job ends, naming it */
    if (me_rank == 1) raise(SIGKILL);
    ptl_event_t ev;
    int rc = PtlEQWait(syncq, &ev); /* blocks: nothing will come */
    printf("t_ptl: rank %u: PtlEQWait returned %s\n", me_rank, PtlErrorStr(rc));
    return 1;
  }
  unsigned partner = me_rank ^ 1u;
  if (partner < nranks) {
    OK(PtlGetRankId(ni, partner, &peer));
    OK(PtlNIDist(ni, peer, &dist));
    printf("t_ptl: rank %u: id (%u,%u), peer rank %u (%u,%u) at distance %lu\n", me_rank, id.nid,
           id.pid, partner, peer.nid, peer.pid, dist);
    if (me_rank % 2 == 0) initiator();
    else target();
  }
  OK(PtlNIFini(ni));
  CHECK(PtlGetId(ni, &id) == PTL_INV_NI, "after PtlNIFini");
  PtlFini();
  printf("t_ptl: rank %u: all %d checks passed\n", me_rank, checks);
  return 0;
}
