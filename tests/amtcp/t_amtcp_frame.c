/*
 * t_amtcp_frame - unit tests of amtcp's byte stream without a socket: the
 * frame header and handshake record codecs (amtcp_wire.h), the handshake's
 * authentication (amtcp_shake_make / amtcp_shake_check) and the receive
 * path's reassembly (amtcp_rx_parse, amtcp_rx_big_done: the production
 * functions; only recv() is played here, as rx_read would call it).
 *
 * Streams of random frames (core headers of 1..GASNETC_HDR_MAX bytes,
 * payloads from 0 bytes to past the 128 KiB receive buffer, some placed by
 * place(), a BYE at the end of some) are cut at every point near each
 * frame's boundaries and into random chunks, and must give back exactly
 * the frames sent, in order, byte for byte, payloads 16-aligned or where
 * place() said, each place() asked at most once. A malformed header after
 * good frames (each of the ways amtcp_wire_frame_decode refuses one) stops
 * the stream with that reason after exactly the frames before it; a
 * truncated stream delivers the frames complete before the cut and no
 * other. Everything comes from one seeded PRNG: a run replays exactly.
 *
 * Usage: t_amtcp_frame [STREAMS [SEED]] (default 2000, 1).
 */
#include "amtcp_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gasneti_sha256.h"

#include "t_unit.h"

/* ---------------------------------------------------------------- PRNG */

static uint64_t rng_range(uint64_t *s, uint64_t lo, uint64_t hi) { /* [lo, hi] */
  return lo + rng_below(s, hi - lo + 1);
}
static void rng_fill(uint64_t *s, unsigned char *p, size_t n) {
  while (n >= 8) {
    uint64_t v = rng_next(s);
    memcpy(p, &v, 8);
    p += 8, n -= 8;
  }
  for (uint64_t v = rng_next(s); n; n--, v >>= 8) *p++ = (unsigned char)v;
}

/* ---------------------------------------------------------------- header codec */

/* Valid headers round-trip, the bytes are where amtcp_wire.h's table says,
 * flags are free, and each way of breaking one is refused with its reason. */
static uint32_t t_frame_codec(uint64_t *rng) {
  uint32_t cases = 0;
  for (int i = 0; i < 20000; i++, cases++) {
    amtcp_frame_t f = {AMTCP_T_DATA, (uint8_t)rng_next(rng),
                       (uint16_t)rng_range(rng, 1, GASNETC_HDR_MAX),
                       (uint32_t)rng_below(rng, AMTCP_MAX_PAYLOAD + 1)};
    if (i % 8 == 0) f = (amtcp_frame_t){AMTCP_T_BYE, f.flags, 0, 0};
    unsigned char b[AMTCP_FRAME_HDR], c[AMTCP_FRAME_HDR];
    amtcp_wire_frame_encode(b, &f);
    CHECK(b[0] == 0x41 && b[1] == 0x54 && b[2] == f.type && b[3] == f.flags &&
          b[4] == (f.hdrlen & 0xff) && b[5] == f.hdrlen >> 8 && b[8] == (f.paylen & 0xff) &&
          b[11] == f.paylen >> 24 && !b[6] && !b[7] && !b[12] && !b[15],
          "layout of type %u hdrlen %u paylen %u", f.type, f.hdrlen, f.paylen);
    amtcp_frame_t g;
    amtcp_bad_t r = amtcp_wire_frame_decode(b, &g, AMTCP_MAX_PAYLOAD);
    CHECK(r == AMTCP_BAD_NONE && g.type == f.type && g.flags == f.flags &&
          g.hdrlen == f.hdrlen && g.paylen == f.paylen, "round trip: %s", amtcp_bad_name(r));
    /* one field broken at a time */
    memcpy(c, b, sizeof c);
    uint16_t m = (uint16_t)rng_next(rng);
    if (m == AMTCP_MAGIC) m ^= 1;
    gasneti_put_le16(c, m);
    CHECK(amtcp_wire_frame_decode(c, &g, AMTCP_MAX_PAYLOAD) == AMTCP_BAD_MAGIC, "magic %#x", m);
    memcpy(c, b, sizeof c);
    static const int reserved[] = {6, 7, 12, 13, 14, 15};
    c[reserved[rng_below(rng, 6)]] |= (uint8_t)(1u << rng_below(rng, 8));
    CHECK(amtcp_wire_frame_decode(c, &g, AMTCP_MAX_PAYLOAD) == AMTCP_BAD_LENGTH, "reserved set");
    memcpy(c, b, sizeof c);
    do c[2] = (uint8_t)rng_next(rng); while (c[2] == AMTCP_T_DATA || c[2] == AMTCP_T_BYE);
    CHECK(amtcp_wire_frame_decode(c, &g, AMTCP_MAX_PAYLOAD) == AMTCP_BAD_TYPE, "type %u", c[2]);
    memcpy(c, b, sizeof c);
    if (f.type == AMTCP_T_DATA) {
      uint32_t big = (uint32_t)rng_range(rng, AMTCP_MAX_PAYLOAD + 1, UINT32_MAX);
      gasneti_put_le32(c + 8, big); /* oversize */
      CHECK(amtcp_wire_frame_decode(c, &g, AMTCP_MAX_PAYLOAD) == AMTCP_BAD_LENGTH, "paylen %u", big);
      gasneti_put_le32(c + 8, f.paylen);
      uint16_t hl = i & 1 ? 0 : (uint16_t)rng_range(rng, GASNETC_HDR_MAX + 1, 0xffff);
      gasneti_put_le16(c + 4, hl);
      CHECK(amtcp_wire_frame_decode(c, &g, AMTCP_MAX_PAYLOAD) == AMTCP_BAD_LENGTH, "hdrlen %u", hl);
    } else {
      gasneti_put_le16(c + 4 + (i & 1) * 4, (uint16_t)rng_range(rng, 1, 0xffff));
      CHECK(amtcp_wire_frame_decode(c, &g, AMTCP_MAX_PAYLOAD) == AMTCP_BAD_LENGTH, "BYE with lengths");
    }
  }
  return cases;
}

/* ---------------------------------------------------------------- handshake */

static const char label_hello[] = "amtcp hello v1", label_welcome[] = "amtcp welcome v1";

static void mk_transport(gasnetc_transport_t *t, uint32_t me, uint32_t n, const unsigned char *key) {
  memset(t, 0, sizeof *t);
  t->cfg.myrank = me;
  t->cfg.nranks = n;
  memcpy(t->cfg.job_key, key, GASNETC_KEY_LEN);
}

/* What checking a record whose byte `pos` was changed must say, as `me`
 * expecting `want_src`: the reason of that field (ranks before the MAC). */
static amtcp_bad_t shake_expect(const unsigned char *rec, size_t pos, uint32_t me, uint32_t n,
                                uint32_t want_src) {
  if (pos < 2 || pos == 3) return AMTCP_BAD_MAGIC;
  if (pos == 2) return AMTCP_BAD_TYPE;
  if (pos >= 12 && pos < 16) return AMTCP_BAD_LENGTH;
  uint32_t src = gasneti_get_le32(rec + 4), dst = gasneti_get_le32(rec + 8);
  if (pos < 12 && (dst != me || src >= n || (want_src == UINT32_MAX ? src == me : src != want_src)))
    return AMTCP_BAD_RANK;
  return AMTCP_BAD_MAC;
}

/* HELLO and WELCOME between random ranks verify both ways, carry the
 * documented MAC (HMAC-SHA256(key, label | src | dst)), and any change to
 * any byte, another job's key, a reflected or a relabelled record is
 * refused with the reason of the field. */
static uint32_t t_shake(uint64_t *rng) {
  uint32_t cases = 0;
  gasnetc_transport_t ta, tb, tx;
  for (int i = 0; i < 1500; i++) {
    unsigned char key[GASNETC_KEY_LEN], rec[AMTCP_SHAKE_LEN], bad[AMTCP_SHAKE_LEN];
    rng_fill(rng, key, sizeof key);
    uint32_t n = (uint32_t)rng_range(rng, 2, i % 4 ? 64 : 1u << 20);
    uint32_t a = (uint32_t)rng_below(rng, n), b = (uint32_t)rng_below(rng, n - 1);
    if (b >= a) b++;
    mk_transport(&ta, a, n, key);
    mk_transport(&tb, b, n, key);
    uint32_t src = UINT32_MAX;
    amtcp_shake_make(&ta, rec, AMTCP_T_HELLO, b);
    CHECK(amtcp_shake_check(&tb, rec, AMTCP_T_HELLO, UINT32_MAX, &src) == AMTCP_BAD_NONE &&
          src == a, "HELLO %u -> %u of %u", a, b, n);
    CHECK(amtcp_shake_check(&tb, rec, AMTCP_T_HELLO, a, &src) == AMTCP_BAD_NONE, "want_src");
    uint32_t other = (a + 1 + (uint32_t)rng_below(rng, n - 1)) % n;
    if (other != a)
      CHECK(amtcp_shake_check(&tb, rec, AMTCP_T_HELLO, other, &src) == AMTCP_BAD_RANK,
            "HELLO from %u taken for %u's", a, other);
    CHECK(amtcp_shake_check(&ta, rec, AMTCP_T_HELLO, UINT32_MAX, &src) == AMTCP_BAD_RANK,
          "a HELLO reflected to its sender");
    CHECK(amtcp_shake_check(&tb, rec, AMTCP_T_WELCOME, a, &src) == AMTCP_BAD_TYPE,
          "a HELLO taken for a WELCOME");
    /* the documented MAC, computed here from the format alone */
    unsigned char mac[AMTCP_MAC_LEN];
    const void *piece[2] = {label_hello, rec + 4};
    size_t plen[2] = {strlen(label_hello), 8};
    gasneti_hmac_sha256(key, GASNETC_KEY_LEN, 2, piece, plen, mac);
    CHECK(!memcmp(mac, rec + 16, AMTCP_MAC_LEN) && gasneti_get_le32(rec + 4) == a &&
          gasneti_get_le32(rec + 8) == b && rec[3] == AMTCP_VERSION && rec[2] == AMTCP_T_HELLO,
          "HELLO's bytes differ from amtcp_wire.h's format");
    /* relabelled: the type byte says WELCOME, the MAC is a HELLO's */
    memcpy(bad, rec, sizeof bad);
    bad[2] = AMTCP_T_WELCOME;
    CHECK(amtcp_shake_check(&tb, bad, AMTCP_T_WELCOME, a, &src) == AMTCP_BAD_MAC,
          "a HELLO relabelled WELCOME");
    /* another job */
    key[rng_below(rng, sizeof key)] ^= (unsigned char)(1u << rng_below(rng, 8));
    mk_transport(&tx, b, n, key);
    CHECK(amtcp_shake_check(&tx, rec, AMTCP_T_HELLO, UINT32_MAX, &src) == AMTCP_BAD_MAC,
          "another job's key");
    cases += 7;
    /* the answer */
    amtcp_shake_make(&tb, rec, AMTCP_T_WELCOME, a);
    piece[0] = label_welcome, plen[0] = strlen(label_welcome);
    gasneti_hmac_sha256(ta.cfg.job_key, GASNETC_KEY_LEN, 2, piece, plen, mac);
    CHECK(amtcp_shake_check(&ta, rec, AMTCP_T_WELCOME, b, &src) == AMTCP_BAD_NONE && src == b &&
          !memcmp(mac, rec + 16, AMTCP_MAC_LEN), "WELCOME %u -> %u", b, a);
    cases++;
    /* every byte changed, in one random bit or a random value */
    for (size_t pos = 0; pos < AMTCP_SHAKE_LEN; pos++, cases++) {
      memcpy(bad, rec, sizeof bad);
      unsigned char x = i & 1 ? (unsigned char)(1u << rng_below(rng, 8))
                              : (unsigned char)rng_range(rng, 1, 255);
      bad[pos] ^= x;
      amtcp_bad_t want = shake_expect(bad, pos, a, n, b);
      amtcp_bad_t got = amtcp_shake_check(&ta, bad, AMTCP_T_WELCOME, b, &src);
      CHECK(got == want, "WELCOME byte %zu ^ %#x: %s, expected %s", pos, x, amtcp_bad_name(got),
            amtcp_bad_name(want));
    }
    /* and a HELLO, checked as an acceptor does (from any rank but us) */
    amtcp_shake_make(&ta, rec, AMTCP_T_HELLO, b);
    for (size_t pos = 0; pos < AMTCP_SHAKE_LEN; pos++, cases++) {
      memcpy(bad, rec, sizeof bad);
      bad[pos] ^= (unsigned char)rng_range(rng, 1, 255);
      amtcp_bad_t want = shake_expect(bad, pos, b, n, UINT32_MAX);
      amtcp_bad_t got = amtcp_shake_check(&tb, bad, AMTCP_T_HELLO, UINT32_MAX, &src);
      CHECK(got == want, "HELLO byte %zu: %s, expected %s", pos, amtcp_bad_name(got),
            amtcp_bad_name(want));
    }
  }
  return cases;
}

/* ---------------------------------------------------------------- streams */

typedef struct sframe {
  amtcp_frame_t f;
  size_t off;    /* of its header in the stream */
  size_t done;   /* stream bytes after which it is complete (header, core header, payload) */
} sframe_t;

typedef struct stream {
  unsigned char *buf;
  size_t len, cap;
  sframe_t *fr;
  uint32_t n, ncap;
  int bye;                /* ends with a BYE */
  amtcp_bad_t bad;        /* the frame after the last one is malformed so (NONE: none) */
  size_t bad_off;         /* where that header starts */
} stream_t;

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q) { fprintf(stderr, "t_amtcp_frame: out of memory\n"); exit(1); }
  return q;
}

static unsigned char *s_grow(stream_t *s, size_t n) {
  if (s->len + n > s->cap) {
    s->cap = (s->len + n) * 2;
    s->buf = xrealloc(s->buf, s->cap);
  }
  unsigned char *p = s->buf + s->len;
  s->len += n;
  return p;
}

/* A payload size: mostly small, some at the thresholds of amtcp_rx_parse
 * (AMTCP_PLACE_MIN, the receive buffer), a few well past it. */
static uint32_t pick_paylen(uint64_t *rng, uint16_t hdrlen, int big_ok) {
  size_t fixed = AMTCP_FRAME_HDR + amtcp_round(hdrlen);
  switch (rng_below(rng, 16)) {
  case 0: case 1: case 2: case 3: case 4: return 0 + (uint32_t)rng_below(rng, 64);
  case 5: case 6: case 7: case 8: return (uint32_t)rng_range(rng, 64, 4096);
  case 9: case 10: return (uint32_t)rng_range(rng, 4096, AMTCP_PLACE_MIN + 64);
  case 11: return (uint32_t)rng_range(rng, AMTCP_PLACE_MIN - 64, AMTCP_PLACE_MIN + 64);
  case 12: /* the largest that fits the buffer, and just past it */
    return (uint32_t)(AMTCP_RXBUF - fixed - 48 + rng_below(rng, 96));
  case 13: return (uint32_t)rng_range(rng, AMTCP_PLACE_MIN, AMTCP_RXBUF);
  default: return big_ok ? (uint32_t)rng_range(rng, AMTCP_RXBUF, 3 * AMTCP_RXBUF)
                         : (uint32_t)rng_below(rng, 256);
  }
}

/* A DATA frame of paylen bytes; its core header starts with 'L' (place()
 * gives it a destination, when placing is on) if `placed`. */
static void s_frame_sized(stream_t *s, uint64_t *rng, uint16_t hl, uint32_t paylen, int placed) {
  if (s->n == s->ncap) {
    s->ncap = s->ncap ? 2 * s->ncap : 16;
    s->fr = xrealloc(s->fr, s->ncap * sizeof *s->fr);
  }
  sframe_t *x = &s->fr[s->n++];
  x->f = (amtcp_frame_t){AMTCP_T_DATA, (uint8_t)rng_next(rng), hl, paylen};
  x->off = s->len;
  amtcp_wire_frame_encode(s_grow(s, AMTCP_FRAME_HDR), &x->f);
  unsigned char *h = s_grow(s, amtcp_round(hl));
  memset(h, 0, amtcp_round(hl));
  rng_fill(rng, h, hl);
  h[0] = placed ? 'L' : (h[0] == 'L' ? 'M' : h[0]);
  unsigned char *p = s_grow(s, amtcp_round(x->f.paylen));
  memset(p + x->f.paylen, 0, amtcp_pad(x->f.paylen));
  rng_fill(rng, p, x->f.paylen);
  x->done = x->off + AMTCP_FRAME_HDR + amtcp_round(hl) + x->f.paylen;
}

static void s_frame(stream_t *s, uint64_t *rng, int big_ok) {
  uint16_t hl = (uint16_t)(rng_below(rng, 4) ? rng_range(rng, 1, 48)
                                             : rng_range(rng, 1, GASNETC_HDR_MAX));
  s_frame_sized(s, rng, hl, pick_paylen(rng, hl, big_ok), (int)rng_below(rng, 2));
}

/* A header refused for `why`, appended after the good frames. */
static void s_bad(stream_t *s, uint64_t *rng) {
  amtcp_frame_t f = {AMTCP_T_DATA, 0, (uint16_t)rng_range(rng, 1, GASNETC_HDR_MAX),
                     (uint32_t)rng_below(rng, 1024)};
  s->bad_off = s->len;
  unsigned char *b = s_grow(s, AMTCP_FRAME_HDR);
  s->bad = AMTCP_BAD_LENGTH;
  uint64_t how = rng_below(rng, 7);
  switch (how) {
  case 0: f.hdrlen = 0; break;
  case 1: f.hdrlen = (uint16_t)rng_range(rng, GASNETC_HDR_MAX + 1, 0xffff); break;
  case 2: f.paylen = (uint32_t)rng_range(rng, AMTCP_MAX_PAYLOAD + 1, UINT32_MAX); break;
  case 3: f = (amtcp_frame_t){AMTCP_T_BYE, 0, 0, (uint32_t)rng_range(rng, 1, 99)}; break;
  case 4: f.type = (uint8_t)rng_range(rng, AMTCP_T_HELLO, 255); s->bad = AMTCP_BAD_TYPE; break;
  default: break;
  }
  amtcp_wire_frame_encode(b, &f);
  if (how == 5) { /* not amtcp: the magic */
    b[rng_below(rng, 2)] ^= (unsigned char)rng_range(rng, 1, 255);
    s->bad = AMTCP_BAD_MAGIC;
  } else if (how == 6) { /* reserved bytes set */
    static const int reserved[] = {6, 7, 12, 13, 14, 15};
    b[reserved[rng_below(rng, 6)]] = (unsigned char)rng_range(rng, 1, 255);
  }
  rng_fill(rng, s_grow(s, 64), 64); /* what follows is never looked at */
}

static void s_reset(stream_t *s) {
  s->len = 0, s->n = 0, s->bye = 0, s->bad = AMTCP_BAD_NONE, s->bad_off = 0;
}

static void s_make(stream_t *s, uint64_t *rng, uint32_t nframes, int big_ok) {
  s_reset(s);
  for (uint32_t i = 0; i < nframes; i++) s_frame(s, rng, big_ok);
  uint64_t end = rng_below(rng, 6);
  if (end == 0) {
    s->bye = 1;
    amtcp_frame_t f = {AMTCP_T_BYE, 0, 0, 0};
    amtcp_wire_frame_encode(s_grow(s, AMTCP_FRAME_HDR), &f);
  } else if (end == 1) {
    s_bad(s, rng);
  }
}

/* ---------------------------------------------------------------- the receiver */

typedef struct rx {
  const stream_t *s;
  uint32_t got;           /* frames delivered */
  uint32_t placed_idx;    /* frame place() gave a destination to, or UINT32_MAX */
  uint32_t asked_idx;     /* last frame place() was asked for */
  int place_on;
  unsigned char *dst;     /* place()'s destination (AMTCP_MAX_PAYLOAD + canary) */
  const char *why;        /* first problem seen */
} rx_t;

#define CANARY 64

static uint64_t n_frames, n_placed, n_malloced; /* paths taken, over the run */

static void *on_place(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, size_t paylen) {
  rx_t *r = ctx;
  const sframe_t *x = r->got < r->s->n ? &r->s->fr[r->got] : NULL;
  if (!r->why && (!x || src != 1 || hdrlen != x->f.hdrlen || paylen != x->f.paylen ||
                  memcmp(hdr, r->s->buf + x->off + AMTCP_FRAME_HDR, hdrlen)))
    r->why = "place() asked for a frame that is not the next one";
  if (!r->why && r->asked_idx == r->got) r->why = "place() asked twice for one frame";
  r->asked_idx = r->got;
  if (!r->place_on || *(const unsigned char *)hdr != 'L') return NULL;
  memset(r->dst + paylen, 0xa5, CANARY);
  r->placed_idx = r->got;
  return r->dst;
}

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, void *payload,
                       size_t paylen) {
  rx_t *r = ctx;
  if (r->why) return;
  if (r->got >= r->s->n) { r->why = "a frame delivered that was not sent"; return; }
  const sframe_t *x = &r->s->fr[r->got];
  const unsigned char *h = r->s->buf + x->off + AMTCP_FRAME_HDR;
  if (src != 1 || hdrlen != x->f.hdrlen || paylen != x->f.paylen || memcmp(hdr, h, hdrlen))
    r->why = "a frame's core header or lengths differ from what was sent";
  else if (memcmp(payload, h + amtcp_round(hdrlen), paylen))
    r->why = "a frame's payload differs from what was sent";
  else if (AMTCP_FRAME_HDR + amtcp_round(hdrlen) + amtcp_round(paylen) > AMTCP_RXBUF &&
           r->asked_idx != r->got)
    r->why = "a frame larger than the receive buffer delivered without asking place()";
  else if (r->placed_idx == r->got && payload != r->dst)
    r->why = "a placed frame delivered elsewhere than place() said";
  else if (r->placed_idx != r->got && paylen && ((uintptr_t)payload & (AMTCP_ALIGN - 1)))
    r->why = "a payload delivered not 16-aligned";
  else if (r->placed_idx == r->got) {
    for (int i = 0; i < CANARY; i++)
      if (r->dst[paylen + i] != 0xa5) { r->why = "written past the placed payload"; break; }
  }
  r->got++;
}

/* Feed s[0, end) to a fresh connection as recv() would return it: the
 * bytes arrive at the cut points cuts[0..ncut) (increasing, then end), and
 * each read takes what has arrived, up to the room rx_read gives it.
 * Returns 0 when everything checked out. */
static int feed(gasnetc_transport_t *t, amtcp_conn_t *c, rx_t *r, const stream_t *s,
                const size_t *cuts, size_t ncut, size_t end, int closing) {
  t->closing = closing;
  c->rpos = c->rend = c->skip = 0;
  c->place_tried = c->rx_small = 0;
  c->big = NULL;
  r->s = s, r->got = 0, r->placed_idx = r->asked_idx = UINT32_MAX, r->why = NULL;
  const char *fail = NULL;
  int bad = 0, bye = 0, n = 0;
  amtcp_frame_t badf = {0};
  size_t io[4] = {0, 0, 0, 0}, pos = 0, arrived = 0, ci = 0;
  while (!fail && !r->why && pos < end) {
    while (arrived <= pos) arrived = ci < ncut ? cuts[ci++] : end;
    if (arrived > end) arrived = end;
    size_t avail = arrived - pos;
    if (c->big) {
      size_t k = c->big_len - c->big_got < avail ? c->big_len - c->big_got : avail;
      memcpy(c->big + c->big_got, s->buf + pos, k);
      c->big_got += k, pos += k;
      if (c->big_got == c->big_len) n += amtcp_rx_big_done(t, c);
      continue;
    }
    size_t room = AMTCP_RXBUF - c->rend; /* as rx_read */
    if (c->rx_small && c->rpos == c->rend && room > AMTCP_PEEK) room = AMTCP_PEEK;
    if (!room) { r->why = "the parser left no room in the buffer: the stream would stall"; break; }
    size_t k = avail < room ? avail : room;
    memcpy(c->rbuf + c->rend, s->buf + pos, k);
    c->rend += k, pos += k;
    n += amtcp_rx_parse(t, c, &fail, &bad, &badf, &bye, io);
  }
  if (c->big && c->big_owned) free(c->big);
  n_frames += r->got, n_placed += io[2], n_malloced += io[3];
  uint32_t want = 0; /* frames complete in s[0, end) */
  while (want < s->n && s->fr[want].done <= end) want++;
  int whole = end == s->len, refused = s->bad && end >= s->bad_off + AMTCP_FRAME_HDR;
  if (!r->why && closing && r->got) r->why = "frames delivered while closing";
  if (!r->why && (uint32_t)n != want) r->why = "the parser's count differs from the frames sent";
  if (!r->why && !closing && r->got != want) r->why = "frames lost";
  if (!r->why && refused && (!fail || bad != (int)s->bad))
    r->why = "a malformed header not refused with its reason";
  if (!r->why && !refused && fail) r->why = "a good stream refused";
  if (!r->why && bye != (whole && s->bye)) r->why = "BYE not seen, or seen when not sent";
  if (!r->why && whole && !s->bad && (c->big || c->rpos != c->rend || c->skip))
    r->why = "bytes left over after the whole stream";
  if (r->why) {
    CHECK(0, "%s (frames %u, delivered %u/%u, count %d, stream %zu bytes cut at %zu, closing %d, "
          "place %d, failure: %s %s)", r->why, s->n, r->got, want, n, s->len, end, closing,
          r->place_on, fail ? fail : "none", amtcp_bad_name((amtcp_bad_t)bad));
    return 1;
  }
  return 0;
}

/* Cut points: around every frame's start, header end and payload end
 * (+-span bytes), or `k` random ones. Sorted, within (0, end). */
static size_t cuts_near(const stream_t *s, size_t *cuts, size_t cap, size_t span) {
  size_t n = 0;
  for (uint32_t i = 0; i < s->n && n + 6 * span < cap; i++) {
    size_t mark[3] = {s->fr[i].off, s->fr[i].off + AMTCP_FRAME_HDR + amtcp_round(s->fr[i].f.hdrlen),
                      s->fr[i].done};
    for (int m = 0; m < 3; m++)
      for (size_t d = 0; d <= 2 * span; d++)
        if (mark[m] + d >= span && mark[m] + d - span > 0 && mark[m] + d - span < s->len)
          cuts[n++] = mark[m] + d - span;
  }
  return n;
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

static size_t cuts_random(uint64_t *rng, const stream_t *s, size_t *cuts, size_t cap) {
  size_t n = 0, pos = 0;
  size_t maxchunk = rng_below(rng, 3) == 0 ? 32 : rng_below(rng, 2) ? 4096 : 200000;
  while (n < cap) {
    pos += 1 + rng_below(rng, maxchunk);
    if (pos >= s->len) break;
    cuts[n++] = pos;
  }
  return n;
}

#define NEAR_BYTES (2u << 20) /* stream bytes fed cut at one point, per stream */

/* Every stream: in random chunks (also while closing, now and then), then
 * cut once at each point near a frame's boundaries (at every point, and
 * byte by byte, when it is short), and truncated at a random point. */
static uint32_t t_streams(uint64_t *rng, uint32_t count) {
  gasnetc_transport_t *t = calloc(1, sizeof *t);
  amtcp_conn_t *c = calloc(1, sizeof *c);
  rx_t r = {0};
  stream_t s = {0};
  size_t cap = 1 << 16, *cuts = malloc(cap * sizeof *cuts), *near = malloc(cap * sizeof *near);
  r.dst = malloc(AMTCP_MAX_PAYLOAD + CANARY);
  c->rbuf = aligned_alloc(AMTCP_ALIGN, AMTCP_RXBUF);
  if (!t || !c || !cuts || !near || !r.dst || !c->rbuf) { fprintf(stderr, "out of memory\n"); exit(1); }
  t->cfg.myrank = 0;
  t->cfg.nranks = 2;
  t->cfg.deliver = on_deliver;
  t->cfg.place = on_place;
  t->cfg.ctx = &r;
  c->rank = 1;
  c->fd = -1;
  c->state = AMTCP_CONN_UP;
  uint32_t runs = 0;
  for (uint32_t k = 0; k < count && failures < 20; k++) {
    int big_ok = k % 8 == 0, small = k % 4 == 1;
    r.place_on = (int)rng_below(rng, 2);
    t->tun.agg = (int)rng_below(rng, 2);
    s_make(&s, rng, small ? (uint32_t)rng_range(rng, 1, 6) : (uint32_t)rng_range(rng, 1, 24),
           big_ok);
    size_t n = cuts_random(rng, &s, cuts, cap);
    runs++, feed(t, c, &r, &s, cuts, n, s.len, 0);
    if (rng_below(rng, 8) == 0) runs++, feed(t, c, &r, &s, cuts, n, s.len, 1);
    size_t nn = cuts_near(&s, near, cap, small ? 24 : 3);
    if (s.len <= 4096) { /* every point */
      nn = 0;
      for (size_t p = 1; p < s.len && nn < cap; p++) near[nn++] = p;
    }
    if (nn > NEAR_BYTES / s.len + 4) { /* long streams: a random sample of those points */
      size_t keep = NEAR_BYTES / s.len + 4;
      for (size_t i = 0; i < keep; i++) {
        size_t j = i + rng_below(rng, nn - i), x = near[i];
        near[i] = near[j], near[j] = x;
      }
      nn = keep;
    }
    qsort(near, nn, sizeof *near, cmp_size);
    for (size_t i = 0; i < nn && failures < 20; i++) {
      if (i && near[i] == near[i - 1]) continue;
      runs++, feed(t, c, &r, &s, &near[i], 1, s.len, 0);
    }
    if (s.len <= 4096) { /* byte by byte */
      for (size_t p = 0; p + 1 < s.len && p < cap; p++) cuts[p] = p + 1;
      runs++, feed(t, c, &r, &s, cuts, s.len - 1, s.len, 0);
    }
    size_t end = (size_t)rng_below(rng, s.len); /* truncated */
    n = cuts_random(rng, &s, cuts, cap);
    runs++, feed(t, c, &r, &s, cuts, n, end, 0);
  }
  free(s.buf), free(s.fr), free(cuts), free(near), free(r.dst), free(c->rbuf), free(c), free(t);
  return runs;
}

/* The largest payload, 4 MiB, placed and not, in chunks as a socket gives them. */
static uint32_t t_max(uint64_t *rng) {
  gasnetc_transport_t *t = calloc(1, sizeof *t);
  amtcp_conn_t *c = calloc(1, sizeof *c);
  rx_t r = {0};
  stream_t s = {0};
  size_t cap = 4096, *cuts = malloc(cap * sizeof *cuts);
  r.dst = malloc(AMTCP_MAX_PAYLOAD + CANARY);
  c->rbuf = aligned_alloc(AMTCP_ALIGN, AMTCP_RXBUF);
  if (!t || !c || !cuts || !r.dst || !c->rbuf) { fprintf(stderr, "out of memory\n"); exit(1); }
  t->cfg.nranks = 2, t->cfg.deliver = on_deliver, t->cfg.place = on_place, t->cfg.ctx = &r;
  c->rank = 1, c->fd = -1, c->state = AMTCP_CONN_UP;
  for (int i = 0; i < 4; i++) { /* placed, malloc'd, placed with a core header of 192, closing */
    s_reset(&s);
    s_frame_sized(&s, rng, i == 2 ? GASNETC_HDR_MAX : 8, AMTCP_MAX_PAYLOAD, i != 1);
    s_frame(&s, rng, 0); /* and a small one after it */
    r.place_on = 1;
    size_t n = cuts_random(rng, &s, cuts, cap);
    feed(t, c, &r, &s, cuts, n, s.len, i == 3);
  }
  free(s.buf), free(s.fr), free(cuts), free(r.dst), free(c->rbuf), free(c), free(t);
  return 4;
}

int main(int argc, char **argv) {
  uint32_t count = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 2000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1, rng = seed;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  uint32_t codec = t_frame_codec(&rng);
  uint32_t shake = t_shake(&rng);
  uint32_t big = t_max(&rng);
  uint32_t runs = t_streams(&rng, count);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("t_amtcp_frame: %u headers, %u handshake records, %u streams fed %u ways "
         "(seed %llu) and %u of 4 MiB: %llu frames delivered (%llu placed, %llu in a buffer "
         "of their own) in %.2f s: %s\n", codec, shake, count, runs, (unsigned long long)seed,
         big, (unsigned long long)n_frames, (unsigned long long)n_placed,
         (unsigned long long)n_malloced, secs, failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
