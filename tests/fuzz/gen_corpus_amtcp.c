/*
 * gen_corpus_amtcp.c - the amtcp part of gen_corpus.c (a file of its own:
 * amtcp's struct gasnetc_transport is not amudp's).
 */
#include "amtcp_internal.h"
#include "spawn_proto.h"

#include <string.h>

void put_file(const char *harness, const char *name, const void *p, size_t len);
void gen_amtcp(void);

/* ---- amtcp: u8 piece seed, u8 place mode, stream ---- */
static void tcp_frame(spawn_buf_t *b, uint8_t type, const char *hdr, size_t hdrlen, size_t paylen) {
  unsigned char fh[AMTCP_FRAME_HDR];
  amtcp_frame_t f = {.type = type, .hdrlen = (uint16_t)hdrlen, .paylen = (uint32_t)paylen};
  amtcp_wire_frame_encode(fh, &f);
  spawn_buf_put(b, fh, sizeof fh);
  static const unsigned char zeros[AMTCP_ALIGN];
  spawn_buf_put(b, hdr, hdrlen);
  spawn_buf_put(b, zeros, amtcp_pad(hdrlen));
  for (size_t i = 0; i < paylen; i++) spawn_buf_put(b, (unsigned char[]){(unsigned char)i}, 1);
  spawn_buf_put(b, zeros, amtcp_pad(paylen));
}

void gen_amtcp(void) {
  spawn_buf_t b = {0};
  spawn_buf_put(&b, "\x07\x01", 2);
  tcp_frame(&b, AMTCP_T_DATA, "SHORT", 5, 0);
  tcp_frame(&b, AMTCP_T_DATA, "MEDIUM", 6, 100);
  tcp_frame(&b, AMTCP_T_BYE, "", 0, 0);
  put_file("amtcp_stream", "seed-short-medium-bye", b.p, b.len);
  b.len = 0;
  /* placed: the start of a Long of 20000 bytes (the rest goes in place) */
  spawn_buf_put(&b, "\x03\x01", 2);
  tcp_frame(&b, AMTCP_T_DATA, "LONG", 4, 20000);
  b.len = 2 + AMTCP_FRAME_HDR + AMTCP_ALIGN + 200;
  put_file("amtcp_stream", "seed-long-placed", b.p, b.len);
  b.len = 0;
  /* a large frame not placed: the transport buffers it; only its start */
  spawn_buf_put(&b, "\x05\x00", 2);
  tcp_frame(&b, AMTCP_T_DATA, "BIG", 3, 0);
  unsigned char fh[AMTCP_FRAME_HDR];
  amtcp_frame_t f = {.type = AMTCP_T_DATA, .hdrlen = 3, .paylen = 200000};
  amtcp_wire_frame_encode(fh, &f);
  spawn_buf_put(&b, fh, sizeof fh);
  spawn_buf_put(&b, "BIG\0\0\0\0\0\0\0\0\0\0\0\0\0" "0123456789abcdef", 32);
  put_file("amtcp_stream", "seed-big-unplaced", b.p, b.len);
  spawn_buf_free(&b);

  /* handshakes: rank 1's HELLO to rank 2, rank 3's WELCOME to rank 2 */
  gasnetc_transport_t t;
  memset(&t, 0, sizeof t);
  memset(t.cfg.job_key, 0x5a, GASNETC_KEY_LEN);
  t.cfg.nranks = 4;
  unsigned char rec[AMTCP_SHAKE_LEN];
  t.cfg.myrank = 1;
  amtcp_shake_make(&t, rec, AMTCP_T_HELLO, 2);
  put_file("amtcp_shake", "seed-hello", rec, sizeof rec);
  t.cfg.myrank = 3;
  amtcp_shake_make(&t, rec, AMTCP_T_WELCOME, 2);
  put_file("amtcp_shake", "seed-welcome", rec, sizeof rec);
}
