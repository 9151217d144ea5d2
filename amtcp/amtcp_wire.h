/*
 * amtcp_wire.h - the one definition of the amtcp byte stream.
 *
 * A connection carries, in each direction, one HELLO record (connector ->
 * acceptor) or one WELCOME record (acceptor -> connector), then frames until
 * a BYE frame or the end of the stream. All integers are LITTLE-ENDIAN.
 * Every record is a multiple of AMTCP_ALIGN bytes long, so a frame's payload
 * starts AMTCP_ALIGN-aligned in the receiver's buffer (a Medium handler gets
 * it without a realigning copy). Encoding and decoding happen only here
 * (amtcp_wire_*): nothing else reads header bytes.
 *
 * Handshake record (HELLO, WELCOME), 48 bytes:
 *  off size field
 *    0   2  magic    AMTCP_MAGIC
 *    2   1  type     AMTCP_T_HELLO / AMTCP_T_WELCOME
 *    3   1  version  AMTCP_VERSION
 *    4   4  src      sender's rank
 *    8   4  dst      the rank it means to reach
 *   12   4  reserved 0
 *   16  32  mac      HMAC-SHA256(job key, label | src | dst), label
 *                    "amtcp hello v1" or "amtcp welcome v1": proves the
 *                    sender holds this job's key, without sending it
 *
 * Frame header, 16 bytes, then the core header padded with zeros to a
 * multiple of 16, then the payload padded with zeros to a multiple of 16:
 *  off size field
 *    0   2  magic    AMTCP_MAGIC
 *    2   1  type     AMTCP_T_DATA / AMTCP_T_BYE
 *    3   1  flags    AMTCP_F_*
 *    4   2  hdrlen   core header bytes (DATA: 1..GASNETC_HDR_MAX; BYE: 0)
 *    6   2  reserved 0
 *    8   4  paylen   payload bytes (DATA: 0..max payload; BYE: 0)
 *   12   4  reserved 0
 */
#ifndef AMTCP_WIRE_H
#define AMTCP_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gasneti_bytes.h"
#include "transport.h"

#define AMTCP_MAGIC      0x5441u /* "AT" little-endian */
#define AMTCP_VERSION    1u
#define AMTCP_ALIGN      16u
#define AMTCP_FRAME_HDR  16u
#define AMTCP_SHAKE_LEN  48u
#define AMTCP_MAC_LEN    32u

typedef enum {
  AMTCP_T_DATA    = 1, /* a frame for the core */
  AMTCP_T_BYE     = 2, /* sender is closing: the end of stream that follows is no failure */
  AMTCP_T_HELLO   = 3, /* handshake, connector -> acceptor */
  AMTCP_T_WELCOME = 4, /* handshake answer, acceptor -> connector */
} amtcp_type_t;

enum {
  AMTCP_F_REPLY = 1u << 0, /* the frame is an AM reply (informational) */
};

/* Why a frame header or handshake record was refused. 0 = accepted. */
typedef enum {
  AMTCP_BAD_NONE    = 0,
  AMTCP_BAD_MAGIC   = 1, /* wrong magic or version: not amtcp */
  AMTCP_BAD_TYPE    = 2, /* a type not allowed here */
  AMTCP_BAD_LENGTH  = 3, /* hdrlen / paylen out of range, reserved bytes set */
  AMTCP_BAD_RANK    = 4, /* handshake: src/dst not what this connection needs */
  AMTCP_BAD_MAC     = 5, /* handshake: MAC does not verify (another job) */
} amtcp_bad_t;

static inline const char *amtcp_bad_name(amtcp_bad_t b) {
  static const char *const names[] = {
    [AMTCP_BAD_NONE] = "ok", [AMTCP_BAD_MAGIC] = "bad magic or version",
    [AMTCP_BAD_TYPE] = "unexpected record type", [AMTCP_BAD_LENGTH] = "bad length",
    [AMTCP_BAD_RANK] = "wrong rank", [AMTCP_BAD_MAC] = "bad MAC (not this job)",
  };
  return (unsigned)b < sizeof names / sizeof names[0] ? names[b] : "?";
}

_Static_assert(AMTCP_FRAME_HDR == 2 + 1 + 1 + 2 + 2 + 4 + 4, "frame header fields add up");
_Static_assert(AMTCP_SHAKE_LEN == 2 + 1 + 1 + 4 + 4 + 4 + AMTCP_MAC_LEN, "handshake fields add up");
_Static_assert(AMTCP_FRAME_HDR % AMTCP_ALIGN == 0 && AMTCP_SHAKE_LEN % AMTCP_ALIGN == 0,
               "records keep the stream aligned");
_Static_assert(GASNETC_HDR_MAX <= 0xffff, "hdrlen fits its field");

/* Decoded frame header, host order. */
typedef struct amtcp_frame {
  uint8_t type, flags;
  uint16_t hdrlen;
  uint32_t paylen;
} amtcp_frame_t;

static inline size_t amtcp_pad(size_t n) { return (AMTCP_ALIGN - (n & (AMTCP_ALIGN - 1))) & (AMTCP_ALIGN - 1); }
static inline size_t amtcp_round(size_t n) { return n + amtcp_pad(n); }

/* Write a frame header into buf[0..AMTCP_FRAME_HDR). */
static inline void amtcp_wire_frame_encode(unsigned char *buf, const amtcp_frame_t *f) {
  memset(buf, 0, AMTCP_FRAME_HDR);
  gasneti_put_le16(buf, AMTCP_MAGIC);
  buf[2] = f->type;
  buf[3] = f->flags;
  gasneti_put_le16(buf + 4, f->hdrlen);
  gasneti_put_le32(buf + 8, f->paylen);
}

/* Check and decode a frame header. Every field used afterwards is bounded
 * here: DATA has 1 <= hdrlen <= GASNETC_HDR_MAX and paylen <= max_payload;
 * BYE has both 0. */
static inline amtcp_bad_t amtcp_wire_frame_decode(const unsigned char *buf, amtcp_frame_t *f,
                                                  size_t max_payload) {
  if (gasneti_get_le16(buf) != AMTCP_MAGIC) return AMTCP_BAD_MAGIC;
  f->type = buf[2];
  f->flags = buf[3];
  f->hdrlen = gasneti_get_le16(buf + 4);
  f->paylen = gasneti_get_le32(buf + 8);
  if (gasneti_get_le16(buf + 6) || gasneti_get_le32(buf + 12)) return AMTCP_BAD_LENGTH;
  switch (f->type) {
  case AMTCP_T_DATA:
    if (f->hdrlen == 0 || f->hdrlen > GASNETC_HDR_MAX || f->paylen > max_payload)
      return AMTCP_BAD_LENGTH;
    return AMTCP_BAD_NONE;
  case AMTCP_T_BYE:
    return f->hdrlen || f->paylen ? AMTCP_BAD_LENGTH : AMTCP_BAD_NONE;
  default:
    return AMTCP_BAD_TYPE;
  }
}

/* Handshake records: amtcp_conn.c computes the MAC (common/'s HMAC-SHA256)
 * over the label and the 8 bytes at offset 4 (src, dst). */
static inline void amtcp_wire_shake_encode(unsigned char *buf, uint8_t type, uint32_t src,
                                           uint32_t dst, const unsigned char mac[AMTCP_MAC_LEN]) {
  memset(buf, 0, AMTCP_SHAKE_LEN);
  gasneti_put_le16(buf, AMTCP_MAGIC);
  buf[2] = type;
  buf[3] = AMTCP_VERSION;
  gasneti_put_le32(buf + 4, src);
  gasneti_put_le32(buf + 8, dst);
  memcpy(buf + 16, mac, AMTCP_MAC_LEN);
}

/* Decode a handshake record's fields (the caller checks ranks and MAC). */
static inline amtcp_bad_t amtcp_wire_shake_decode(const unsigned char *buf, uint8_t want_type,
                                                  uint32_t *src, uint32_t *dst) {
  if (gasneti_get_le16(buf) != AMTCP_MAGIC || buf[3] != AMTCP_VERSION) return AMTCP_BAD_MAGIC;
  if (buf[2] != want_type) return AMTCP_BAD_TYPE;
  if (gasneti_get_le32(buf + 12)) return AMTCP_BAD_LENGTH;
  *src = gasneti_get_le32(buf + 4);
  *dst = gasneti_get_le32(buf + 8);
  return AMTCP_BAD_NONE;
}

#endif /* AMTCP_WIRE_H */
