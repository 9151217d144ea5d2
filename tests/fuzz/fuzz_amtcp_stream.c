/*
 * fuzz_amtcp_stream.c - libFuzzer harness for amtcp's receive path: the
 * byte stream of one connection cut into frames (amtcp_rx_parse, with
 * amtcp_wire_frame_decode) and big payloads read in place
 * (amtcp_rx_big_done), the production functions. Only recv() is played
 * here: the stream arrives in pieces whose sizes come from the input, into
 * the connection's buffer as rx_read would put them.
 *
 * Input: u8 seed of the piece sizes, u8 place mode (bit 0: place() gives
 * a destination to frames whose core header starts with 'L'; bit 1: we are
 * closing), then the stream (what follows the handshake).
 */
#include "amtcp_internal.h"

#include <stdlib.h>
#include <string.h>

#include "gasnett_internal.h"

/* amtcp_tunables_read reports through tools/, whose crash handling would come
 * along; this harness sets no tunables and reports nothing. */
void gasnett__envreport(const char *name, const char *value, const char *dflt) {
  (void)name; (void)value; (void)dflt;
}

static unsigned char *place_buf;
static uint64_t delivered_sum;
static int place_on;

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, void *payload,
                       size_t paylen) {
  (void)ctx;
  const unsigned char *h = hdr, *p = payload;
  for (size_t i = 0; i < hdrlen; i++) delivered_sum += h[i]; /* ASan checks the ranges */
  for (size_t i = 0; i < paylen; i++) delivered_sum += p[i];
  delivered_sum += src;
}

static void *on_place(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, size_t paylen) {
  (void)ctx; (void)src;
  if (place_on && hdrlen && *(const unsigned char *)hdr == 'L' && paylen <= AMTCP_MAX_PAYLOAD)
    return place_buf;
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gasnetc_transport_t *t;
  if (!t) {
    t = calloc(1, sizeof *t);
    t->cfg.myrank = 0;
    t->cfg.nranks = 2;
    t->cfg.deliver = on_deliver;
    t->cfg.place = on_place;
    place_buf = malloc(AMTCP_MAX_PAYLOAD);
  }
  if (size < 2) return 0;
  uint32_t rng = data[0] * 2654435761u + 1;
  place_on = data[1] & 1;
  t->closing = (data[1] >> 1) & 1;
  data += 2, size -= 2;

  amtcp_conn_t *c = calloc(1, sizeof *c);
  c->rank = 1;
  c->fd = -1;
  c->state = AMTCP_CONN_UP;
  c->rbuf = aligned_alloc(AMTCP_ALIGN, AMTCP_RXBUF);
  const char *fail = NULL;
  int bad = 0, bye = 0;
  amtcp_frame_t badf = {0};
  size_t io[4] = {0, 0, 0, 0};
  while (size && !fail) {
    rng = rng * 1103515245u + 12345u;
    size_t piece = 1 + (rng >> 16) % (rng & 0x100 ? 4096 : 64); /* what one recv() returns */
    if (piece > size) piece = size;
    if (c->big) {
      size_t want = c->big_len - c->big_got;
      if (piece > want) piece = want;
      memcpy(c->big + c->big_got, data, piece);
      c->big_got += piece;
      if (c->big_got == c->big_len) amtcp_rx_big_done(t, c);
    } else {
      size_t room = AMTCP_RXBUF - c->rend;
      if (c->rx_small && c->rpos == c->rend && room > AMTCP_PEEK) room = AMTCP_PEEK;
      if (piece > room) piece = room;
      if (!piece) __builtin_trap(); /* the parser left no room: it would stall */
      memcpy(c->rbuf + c->rend, data, piece);
      c->rend += piece;
      amtcp_rx_parse(t, c, &fail, &bad, &badf, &bye, io);
    }
    data += piece, size -= piece;
  }
  if (c->big && c->big_owned) free(c->big);
  free(c->rbuf);
  free(c);
  return 0;
}
