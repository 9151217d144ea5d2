/*
 * gasnetc_wire.h - the core's frame header: the opaque "hdr" a transport
 * carries in front of each AM payload (core/transport.h). Defined, encoded
 * and decoded here only.
 *
 * Byte order: every multi-byte field is little-endian on the wire.
 *
 *   offset size field
 *   0      1    category   GASNETC_WIRE_SHORT / _MEDIUM / _LONG
 *   1      1    handler    index in the target's handler table (1..255)
 *   2      1    nargs      0..16
 *   3      1    flags      GASNETC_WIRE_F_REPLY | GASNETC_WIRE_F_ASYNC
 *   4      1    version    GASNETC_WIRE_VERSION
 *   5      1    pad        zero bytes after the args (0..15)
 *   6      1    dst_ep     index of the target's endpoint (0: primordial)
 *   7      1    src_ep     index of the sender's endpoint (a reply goes there)
 *   8      8    dest       Long only: the destination address in the target,
 *                          which checks it against the bound segment of its
 *                          endpoint dst_ep (an address, not an offset: a
 *                          reply's sender need not know that segment)
 *   8/16   4*n  args       gasnet_handlerarg_t, n = nargs
 *   ...    pad  zeros      Medium only: the header is padded to a multiple
 *                          of 16 bytes, so that its payload, which follows
 *                          the header, is delivered 16-byte aligned
 *                          (transport.h, "Alignment"; spec 2.3.3.2)
 *
 * The payload (Medium, Long) is the frame's payload, not part of the header.
 */
#ifndef GASNETC_WIRE_H
#define GASNETC_WIRE_H

#include <stdint.h>
#include <string.h>
#include <stddef.h>

#include "gasneti_bytes.h"
#include "gasnet_fwd.h" /* GASNET_MAXEPS */
#include "transport.h"

enum {
  GASNETC_WIRE_SHORT = 1,
  GASNETC_WIRE_MEDIUM = 2,
  GASNETC_WIRE_LONG = 3,
};

enum {
  GASNETC_WIRE_F_REPLY = 1u << 0, /* a reply; else a request */
  GASNETC_WIRE_F_ASYNC = 1u << 1, /* sent by RequestLongAsync (informational) */
};

#define GASNETC_WIRE_VERSION 3
#define GASNETC_WIRE_MAX_ARGS 16

typedef struct {
  uint8_t category, handler, nargs, flags;
  uint8_t version, pad, dst_ep, src_ep;
} gasnetc_wire_fixed_t;

#define GASNETC_WIRE_FIXED_LEN 8
#define GASNETC_WIRE_DEST_LEN 8
#define GASNETC_WIRE_MAX_LEN \
  (GASNETC_WIRE_FIXED_LEN + GASNETC_WIRE_DEST_LEN + 4 * GASNETC_WIRE_MAX_ARGS)

_Static_assert(sizeof(gasnetc_wire_fixed_t) == GASNETC_WIRE_FIXED_LEN,
               "fixed header is 8 bytes");
_Static_assert(GASNETC_WIRE_MAX_LEN == 80, "largest header is 80 bytes");
_Static_assert(GASNETC_WIRE_MAX_LEN % 16 == 0, "a padded Medium header fits too");
_Static_assert(GASNETC_WIRE_MAX_LEN <= GASNETC_HDR_MAX,
               "header fits the transport's limit");

/* A decoded header, in host form. */
typedef struct {
  uint8_t category, handler, nargs, flags;
  uint8_t dst_ep, src_ep; /* endpoint indexes, < GASNET_MAXEPS */
  uint64_t dest; /* Long only */
  int32_t args[GASNETC_WIRE_MAX_ARGS];
} gasnetc_wire_msg_t;

/* Length of the header for this category and argument count, without
 * padding. */
static inline size_t gasnetc_wire_len(unsigned category, unsigned nargs) {
  return GASNETC_WIRE_FIXED_LEN +
         (category == GASNETC_WIRE_LONG ? GASNETC_WIRE_DEST_LEN : 0) +
         4 * (size_t)nargs;
}

/* Padding bytes after the args: Medium headers end 16-aligned. */
static inline size_t gasnetc_wire_pad(unsigned category, unsigned nargs) {
  return category == GASNETC_WIRE_MEDIUM ? -gasnetc_wire_len(category, nargs) & 15 : 0;
}

/* Encode m (its args from args) into buf (GASNETC_WIRE_MAX_LEN bytes);
 * returns the length. */
static inline size_t gasnetc_wire_encode(uint8_t *buf, const gasnetc_wire_msg_t *m,
                                         const int32_t *args) {
  uint8_t *p = buf;
  p[0] = m->category; p[1] = m->handler;
  p[2] = m->nargs; p[3] = m->flags;
  size_t pad = gasnetc_wire_pad(m->category, m->nargs);
  p[4] = GASNETC_WIRE_VERSION; p[5] = (uint8_t)pad;
  p[6] = m->dst_ep; p[7] = m->src_ep;
  p += GASNETC_WIRE_FIXED_LEN;
  if (m->category == GASNETC_WIRE_LONG) {
    gasneti_put_le64(p, m->dest);
    p += GASNETC_WIRE_DEST_LEN;
  }
  for (unsigned i = 0; i < m->nargs; i++, p += 4)
    gasneti_put_le32(p, (uint32_t)args[i]);
  memset(p, 0, pad);
  return (size_t)(p + pad - buf);
}

/* Decode; 0, or -1 when the header is malformed (the caller names it). */
static inline int gasnetc_wire_decode(const void *hdr, size_t len,
                                      gasnetc_wire_msg_t *m) {
  const uint8_t *p = (const uint8_t *)hdr;
  if (len < GASNETC_WIRE_FIXED_LEN || p[4] != GASNETC_WIRE_VERSION) return -1;
  m->category = p[0]; m->handler = p[1]; m->nargs = p[2]; m->flags = p[3];
  m->dst_ep = p[6]; m->src_ep = p[7];
  if (m->category < GASNETC_WIRE_SHORT || m->category > GASNETC_WIRE_LONG ||
      m->dst_ep >= GASNET_MAXEPS || m->src_ep >= GASNET_MAXEPS ||
      m->nargs > GASNETC_WIRE_MAX_ARGS ||
      p[5] != gasnetc_wire_pad(m->category, m->nargs) ||
      len != gasnetc_wire_len(m->category, m->nargs) + p[5])
    return -1;
  p += GASNETC_WIRE_FIXED_LEN;
  m->dest = 0;
  if (m->category == GASNETC_WIRE_LONG) {
    m->dest = gasneti_get_le64(p);
    p += GASNETC_WIRE_DEST_LEN;
  }
  for (unsigned i = 0; i < m->nargs; i++, p += 4)
    m->args[i] = (int32_t)gasneti_get_le32(p);
  return 0;
}

#endif /* GASNETC_WIRE_H */
