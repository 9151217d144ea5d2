/*
 * t_amshm_unit - the shared-memory transport (amshm/amshm.c) in one
 * process: two transports, ranks 0 and 1 of a job of two, connected to
 * each other through their own memfds and pipes (/proc/<our pid>/fd) as two
 * processes are. The test makes every call itself (send, poll, idle), in
 * an order drawn from the seed, so a failure replays.
 *
 * 1. Streams of frames both ways, requests and replies, headers of 0 to
 *    192 bytes and payloads of 0 to 4 MiB (one in 16 above 64 KiB), a third
 *    of the requests lent (GASNETC_SEND_BORROW): every frame arrives once,
 *    in order in its stream, byte for byte; a request refused (-EAGAIN) is
 *    sent again later; every GASNETC_SEND_INFLIGHT gets exactly one
 *    send_done, and the test then scribbles over the buffer at once (a
 *    frame still read from it would arrive corrupt). Every fourth frame
 *    of 64 KiB or more lands where place() says, checked there. Three
 *    runs: direct reads on (lent requests of 64 KiB or more go by
 *    process_vm_readv; the counters must show them), off
 *    (GASNET_SHM_CMA=0: none), and 4 KiB rings (fragments, refused
 *    requests, replies waiting in the overflow queue).
 * 2. Malformed records written into the receiver's ring by hand (a length
 *    past the ring's end; a direct-read record to a receiver that did not
 *    welcome them): poll returns -EPROTO and nothing is delivered.
 *
 * Usage: t_amshm_unit [FRAMES [SEED]] (default 3000, 1).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "transport.h"
#include "amshm_ring.h"
#include "t_unit.h"

extern const gasnetc_transport_ops_t amshm_ops;


static uint64_t rng_state;
static uint64_t rng(void) { return rng_next(&rng_state); }
static size_t below(size_t n) { return (size_t)rng_below(&rng_state, n); }

static uint8_t pattern(uint32_t seed, size_t i) { return (uint8_t)(seed * 131u + i * 7u + (i >> 8)); }

/* ---- the environment each transport reads at open ------------------------- */

static const char *env_ring, *env_cma;
static const char *test_getenv(const char *name) {
  if (!strcmp(name, "GASNET_SHM_RING")) return env_ring;
  if (!strcmp(name, "GASNET_SHM_CMA")) return env_cma;
  return NULL;
}

/* ---- frames ---------------------------------------------------------------- */

/* A frame's header: who and which, then filler to hdrlen. */
typedef struct {
  uint32_t seq, seed, len, kind; /* kind: 0 request, 1 reply */
} frame_id_t;
#define HDR_MIN ((size_t)sizeof(frame_id_t))

typedef struct frame {
  struct frame *next;
  frame_id_t id;
  size_t hdrlen;
  int lent, inflight, returned, dones;
  uint8_t *hdr, *pay;
} frame_t;

/* One stream: frames from rank `from` of one kind, in order. */
typedef struct {
  frame_t *head, *tail; /* made, not yet accepted by send */
  uint32_t made, sent, got;
} stream_t;

typedef struct {
  int rank;
  gasnetc_transport_t *t;
  uint8_t *place_buf[2]; /* place()'s destination per kind (the two rings
                          * reassemble at once), 4 MiB + 16 each */
  uint64_t placed_seen;
} end_t;

static end_t ends[2];
static stream_t streams[2][2]; /* [from][kind] */
static size_t live_frames, inflight_frames;
static size_t big_max = (size_t)4 << 20; /* the largest payload made */

static frame_t *frame_new(int from, int kind) {
  stream_t *s = &streams[from][kind];
  frame_t *f = calloc(1, sizeof *f);
  size_t len = below(16) == 0 ? ((size_t)64 << 10) + below(big_max) : below(3000);
  if (len > big_max) len = big_max;
  f->id = (frame_id_t){s->made++, (uint32_t)rng(), (uint32_t)len, (uint32_t)kind};
  f->hdrlen = HDR_MIN + below(GASNETC_HDR_MAX - HDR_MIN + 1);
  f->lent = kind == 0 && below(3) == 0;
  f->hdr = malloc(f->hdrlen);
  f->pay = malloc(len ? len : 1);
  memcpy(f->hdr, &f->id, sizeof f->id);
  for (size_t i = sizeof f->id; i < f->hdrlen; i++) f->hdr[i] = pattern(f->id.seed ^ 0x55, i);
  for (size_t i = 0; i < len; i++) f->pay[i] = pattern(f->id.seed, i);
  if (s->tail) s->tail->next = f;
  else s->head = f;
  s->tail = f;
  live_frames++;
  return f;
}

static void frame_free(frame_t *f) {
  free(f->hdr);
  free(f->pay);
  free(f);
  live_frames--;
}

/* The caller may reuse the payload: scribble over it, then free it. */
static void frame_done(frame_t *f) {
  memset(f->pay, 0xee, f->id.len ? f->id.len : 1);
  frame_free(f);
}

/* ---- callbacks --------------------------------------------------------------- */

static void *cb_place(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, size_t paylen) {
  end_t *e = ctx;
  (void)src;
  frame_id_t id;
  if (hdrlen < HDR_MIN) return NULL;
  memcpy(&id, hdr, sizeof id);
  if (paylen < ((size_t)64 << 10) || id.seq % 4 || id.kind > 1) return NULL;
  return e->place_buf[id.kind] + (hdrlen & 15); /* the alignment a transport keeps */
}

static void cb_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, void *payload,
                       size_t paylen) {
  end_t *e = ctx;
  frame_id_t id;
  CHECK(hdrlen >= HDR_MIN && src == (uint32_t)(1 - e->rank), "a frame from rank %u, header of %zu", src, hdrlen);
  if (hdrlen < HDR_MIN || src > 1) return;
  memcpy(&id, hdr, sizeof id);
  CHECK(id.kind < 2, "kind %u", id.kind);
  if (id.kind > 1) return;
  stream_t *s = &streams[src][id.kind];
  CHECK(id.seq == s->got, "stream %u->%d kind %u: frame %u arrived, %u expected", src, e->rank,
        id.kind, id.seq, s->got);
  s->got = id.seq + 1;
  CHECK(paylen == id.len, "frame %u: %zu bytes, sent %u", id.seq, paylen, id.len);
  const uint8_t *h = hdr, *p = payload;
  for (size_t i = sizeof id; i < hdrlen; i++)
    if (h[i] != pattern(id.seed ^ 0x55, i)) {
      CHECK(0, "frame %u: header byte %zu", id.seq, i);
      break;
    }
  for (size_t i = 0; i < paylen && i < id.len; i++)
    if (p[i] != pattern(id.seed, i)) {
      CHECK(0, "frame %u (%u bytes, %s): payload byte %zu is %#x, sent %#x", id.seq, id.len,
            id.kind ? "reply" : "request", i, p[i], pattern(id.seed, i));
      break;
    }
  int want_placed = paylen >= ((size_t)64 << 10) && id.seq % 4 == 0;
  if (want_placed) {
    CHECK(p == e->place_buf[id.kind] + (hdrlen & 15), "frame %u: not at place()'s destination", id.seq);
    e->placed_seen++;
  }
}

static void cb_send_done(void *ctx, void *cookie, int rc) {
  (void)ctx;
  frame_t *f = cookie;
  CHECK(rc == 0, "send_done(%d)", rc);
  CHECK(f->inflight && f->dones == 0, "frame %u: send_done %d times, lent %d", f->id.seq,
        f->dones + 1, f->inflight);
  f->dones++;
  if (!f->returned) return; /* inside send: send_one finishes it */
  inflight_frames--;
  frame_done(f);
}

static void cb_dead(void *ctx, uint32_t rank, const char *why) {
  (void)ctx;
  CHECK(0, "peer_dead(%u, %s)", rank, why);
}
static int cb_watch(void *ctx, int fd, unsigned events) {
  (void)ctx, (void)fd, (void)events;
  return 0;
}

/* ---- set-up -------------------------------------------------------------------- */

static int pair_open(const char *ring, const char *cma) {
  env_ring = ring;
  env_cma = cma;
  uint8_t blobs[2][GASNETC_ADDR_MAX];
  for (int r = 0; r < 2; r++) {
    gasnetc_transport_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.myrank = (uint32_t)r;
    cfg.nranks = 2;
    memset(cfg.job_key, 0x42, sizeof cfg.job_key);
    cfg.getenv = test_getenv;
    ends[r].rank = r;
    for (int k = 0; k < 2; k++) ends[r].place_buf[k] = aligned_alloc(16, ((size_t)4 << 20) + 16);
    cfg.ctx = &ends[r];
    cfg.deliver = cb_deliver;
    cfg.place = cb_place;
    cfg.peer_dead = cb_dead;
    cfg.send_done = cb_send_done;
    cfg.watch = cb_watch;
    size_t len = GASNETC_ADDR_MAX;
    if (amshm_ops.open(&ends[r].t, &cfg) != 0 || amshm_ops.address(ends[r].t, blobs[r], &len) != 0)
      return -1;
  }
  for (int r = 0; r < 2; r++) {
    uint8_t serves[2] = {r != 0, r != 1};
    if (amshm_ops.connect(ends[r].t, blobs, sizeof blobs[0], serves) != 0) return -1;
  }
  memset(streams, 0, sizeof streams);
  return 0;
}

static void pair_close(void) {
  for (int r = 0; r < 2; r++) {
    amshm_ops.close(ends[r].t);
    for (int k = 0; k < 2; k++) free(ends[r].place_buf[k]);
    ends[r].t = NULL;
    ends[r].placed_seen = 0;
  }
}

/* A transport's counter (its stats lines), -1 when absent. */
static long long counter(int r, const char *name) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  amshm_ops.stats(ends[r].t, f);
  fclose(f);
  long long v = -1;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char k[64];
    long long x;
    if (sscanf(line, "%63s %lld", k, &x) == 2 && !strcmp(k, name)) v = x;
  }
  free(text);
  return v;
}

/* ---- 1. streams ------------------------------------------------------------------- */

/* Offer the oldest frame of stream (from, kind) to send; 1 if it was taken. */
static int send_one(int from, int kind) {
  stream_t *s = &streams[from][kind];
  frame_t *f = s->head;
  if (!f) return 0;
  unsigned flags = (kind ? GASNETC_SEND_REPLY : 0) | (f->lent ? GASNETC_SEND_BORROW : 0);
  f->inflight = f->lent; /* its send_done may come inside send */
  int rc = amshm_ops.send(ends[from].t, (uint32_t)(1 - from), f->hdr, f->hdrlen, f->pay, f->id.len,
                          flags, f);
  if (rc == -EAGAIN) {
    CHECK(kind == 0 && !f->dones, "a reply refused, or a refused send completed");
    return 0;
  }
  s->head = f->next;
  if (!s->head) s->tail = NULL;
  s->sent++;
  CHECK(rc == 0 || (rc == GASNETC_SEND_INFLIGHT && f->lent), "send of frame %u: %d", f->id.seq, rc);
  if (rc != GASNETC_SEND_INFLIGHT) {
    CHECK(!f->dones, "frame %u: send_done for a send that returned %d", f->id.seq, rc);
    frame_done(f);
  } else if (f->dones) {
    frame_done(f);
  } else {
    f->returned = 1;
    inflight_frames++;
  }
  return 1;
}

static int all_arrived(void) {
  for (int r = 0; r < 2; r++)
    for (int k = 0; k < 2; k++)
      if (streams[r][k].got != streams[r][k].made) return 0;
  return 1;
}

static void run_streams(const char *label, const char *ring, const char *cma, unsigned frames) {
  if (pair_open(ring, cma) != 0) {
    CHECK(0, "%s: cannot open the pair", label);
    return;
  }
  unsigned made = 0;
  for (unsigned step = 0; made < frames || !all_arrived() || live_frames; step++) {
    int r = (int)below(2), k = (int)below(2);
    switch (below(8)) {
    case 0: case 1: case 2:
      if (made < frames && streams[r][k].made - streams[r][k].sent < 8) {
        frame_new(r, k);
        made++;
      }
      send_one(r, k);
      break;
    case 3: case 4: case 5: case 6:
      CHECK(amshm_ops.poll(ends[r].t) >= 0, "%s: poll", label);
      break;
    default:
      amshm_ops.idle(ends[r].t);
      amshm_ops.poll(ends[r].t); /* as the core does after its wait */
    }
    if (step > 20u * frames + 100000u) {
      CHECK(0, "%s: no progress after %u steps: %zu frames live, %zu in flight", label, step,
            live_frames, inflight_frames);
      break;
    }
  }
  long long cs = counter(0, "shm_cma_sent") + counter(1, "shm_cma_sent");
  long long cr = counter(0, "shm_cma_read") + counter(1, "shm_cma_read");
  long long fr = counter(0, "shm_fragments_sent") + counter(1, "shm_fragments_sent");
  long long fs = counter(0, "shm_frames_sent") + counter(1, "shm_frames_sent");
  long long ea = counter(0, "shm_eagain") + counter(1, "shm_eagain");
  long long ov = counter(0, "shm_reply_overflow") + counter(1, "shm_reply_overflow");
  printf("t_amshm_unit: %s: %u frames in 4 streams arrived in order, byte for byte "
         "(%llu placed); frames %lld, records %lld, direct reads %lld sent / %lld read, "
         "-EAGAIN %lld, replies in overflow %lld\n", label, frames,
         (unsigned long long)(ends[0].placed_seen + ends[1].placed_seen), fs, fr, cs, cr, ea, ov);
  CHECK(cs == cr, "%s: direct reads sent %lld, read %lld", label, cs, cr);
  if (cma && !strcmp(cma, "0")) CHECK(cs == 0, "%s: direct reads with GASNET_SHM_CMA=0", label);
  else if (!ring) CHECK(cs > 0, "%s: no direct read", label);
  if (ring) CHECK(ea > 0 && ov > 0 && fr > fs, "%s: the rings never ran full", label);
  CHECK(inflight_frames == 0, "%s: %zu sends never completed", label, inflight_frames);
  pair_close();
}

/* ---- 2. malformed records ----------------------------------------------------------- */

/* Write one record by hand into rank 0's request ring in rank 1's region
 * (mapped afresh from rank 1's memfd), then poll rank 1. */
static void bad_record(const char *label, const char *cma, const amshm_rec_t *rec, size_t extra) {
  if (pair_open(NULL, cma) != 0) {
    CHECK(0, "%s: cannot open the pair", label);
    return;
  }
  uint8_t blob[GASNETC_ADDR_MAX];
  size_t len = sizeof blob;
  amshm_ops.address(ends[1].t, blob, &len);
  struct { uint32_t magic, pid; int32_t memfd, wakefd; uint32_t ring; } b;
  memcpy(&b, blob, sizeof b); /* amshm_blob_t's first fields */
  uint64_t off = amshm_slot_off(b.ring, 0), size = amshm_slot_size(b.ring);
  uint8_t *slot = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, b.memfd, (off_t)off);
  CHECK(slot != MAP_FAILED, "%s: mmap", label);
  if (slot == MAP_FAILED) return;
  amshm_ring_t r = {&((amshm_slot_t *)slot)->ring[AMSHM_REQ], slot + AMSHM_PAGE, b.ring};
  uint64_t head;
  uint8_t *at = amshm_ring_reserve(&r, amshm_align16(sizeof *rec + extra), &head);
  memset(at, 0, amshm_align16(sizeof *rec + extra));
  memcpy(at, rec, sizeof *rec);
  amshm_ring_publish(&r, head, amshm_align16(sizeof *rec + extra));
  uint32_t got = streams[0][0].got;
  int rc = amshm_ops.poll(ends[1].t);
  printf("t_amshm_unit: %s: poll returned %d (want %d)\n", label, rc, -EPROTO);
  CHECK(rc == -EPROTO && streams[0][0].got == got, "%s: poll %d, %u delivered", label, rc,
        streams[0][0].got - got);
  munmap(slot, size);
  pair_close();
}

int main(int argc, char **argv) {
  unsigned frames = argc > 1 ? (unsigned)atoi(argv[1]) : 3000;
  rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
  run_streams("direct reads on", NULL, NULL, frames);
  run_streams("direct reads off (GASNET_SHM_CMA=0)", NULL, "0", frames);
  big_max = (size_t)256 << 10; /* 4 MiB in 800-byte fragments: too many polls */
  run_streams("4 KiB rings, frames up to 256 KiB", "4096", NULL, frames);
  amshm_rec_t past = {.len = 1u << 20, .flags = AMSHM_REC_FIRST | AMSHM_REC_LAST, .hdrlen = 16};
  bad_record("a record longer than the ring", NULL, &past, 16);
  amshm_rec_t cma = {.len = 48, .flags = AMSHM_REC_FIRST | AMSHM_REC_LAST | AMSHM_REC_CMA,
                     .hdrlen = 16, .fraglen = sizeof(amshm_cma_t), .total = 1 << 20};
  bad_record("a direct-read record to a receiver that did not welcome them", "0", &cma, 32);
  if (failures) {
    printf("t_amshm_unit: %d failures\n", failures);
    return 1;
  }
  printf("t_amshm_unit: all passed\n");
  return 0;
}
