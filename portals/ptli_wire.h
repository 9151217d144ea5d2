/*
 * ptli_wire.h - the four Portals messages (spec "The Semantics of Message
 * Transmission": put request, acknowledgement, get request, reply), defined
 * once. Each travels as one transport frame: this header (the frame's
 * header part, PTLI_WIRE_LEN bytes, network byte order at fixed offsets)
 * and, for a put or a reply, the data as the frame's payload.
 *
 *  off len field         put        ack          get        reply
 *   0   1  version       1          1            1          1
 *   1   1  op            1          2            3          4
 *   2   1  flags         put: bit 0 ack wanted, bit 1 a continuation frame; else 0
 *   3   1  zero
 *   4   4  portal        requested  echoed       requested  echoed
 *   8   4  cookie        AC index   0            AC index   0
 *  12   4  target nid    whom the sender means (checked on arrival)
 *  16   4  target pid
 *  20   4  seq           per (initiator, target) request order; reply: the get's; ack: 0
 *  24   4  zero
 *  28   8  match bits    requested  echoed       requested  echoed
 *  36   8  offset        remote (*) used         remote     used
 *  44   8  md handle     initiator's MD (for the ack / reply), echoed back
 *  52   8  rlength       requested length (put: the data's length)
 *  60   8  mlength       0          manipulated  0          manipulated
 *  68   8  hdr_data      user's     0            0          place (**)
 *  76                    end: PTLI_WIRE_LEN
 *
 * The initiator's id and uid are not carried: the receiver knows them
 * from the (authenticated) transport's source rank. Ack and get carry no
 * payload. A put or reply longer than one transport frame (ni->max_msg)
 * goes as several frames:
 *   put    the first frame is the request (rlength the whole length, the
 *          first part of the data); continuation frames (flag bit 1) take
 *          the next request sequence numbers, so they follow it at the
 *          target with nothing between, and (*) their offset is the place
 *          of their data in the operation (offset + payload <= rlength);
 *   reply  every frame has mlength the whole reply and (**) hdr_data the
 *          place of its data in it (hdr_data + payload <= mlength), and
 *          the get's seq: the initiator counts the parts of (target, seq).
 * A single-frame put carries exactly rlength bytes, a reply mlength.
 * ptli_wire_decode (ptli_wire.c) is the one place a received header is
 * read; everything it refuses is counted (PTL_SR_MALFORMED_COUNT) and
 * dropped.
 */
#ifndef PTLI_WIRE_H
#define PTLI_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "transport.h"

#define PTLI_WIRE_VERSION 2
#define PTLI_WIRE_LEN 76

enum { PTLI_OP_PUT = 1, PTLI_OP_ACK = 2, PTLI_OP_GET = 3, PTLI_OP_REPLY = 4 };
#define PTLI_WF_ACK 0x01u
#define PTLI_WF_CONT 0x02u /* a put's continuation frame */

enum { /* byte offsets of the fields above */
  PTLI_W_VERSION = 0, PTLI_W_OP = 1, PTLI_W_FLAGS = 2, PTLI_W_ZERO8 = 3,
  PTLI_W_PORTAL = 4, PTLI_W_COOKIE = 8, PTLI_W_TNID = 12, PTLI_W_TPID = 16,
  PTLI_W_SEQ = 20, PTLI_W_ZERO32 = 24, PTLI_W_BITS = 28, PTLI_W_OFFSET = 36,
  PTLI_W_MD = 44, PTLI_W_RLEN = 52, PTLI_W_MLEN = 60, PTLI_W_HDRDATA = 68,
};
_Static_assert(PTLI_W_HDRDATA + 8 == PTLI_WIRE_LEN, "the fields fill the header exactly");
_Static_assert(PTLI_WIRE_LEN <= GASNETC_HDR_MAX, "the header fits a transport frame's");

/* A message, decoded (host byte order). */
typedef struct ptli_msg {
  uint8_t op, flags;
  uint32_t portal, cookie, tnid, tpid, seq;
  uint64_t bits, offset, md, rlength, mlength, hdr_data;
} ptli_msg_t;

/* Encode m into b[PTLI_WIRE_LEN]. */
void ptli_wire_encode(const ptli_msg_t *m, uint8_t *b);
/* Decode a received frame's header, checking it against its payload's
 * length. 0, or -1 for a malformed frame (then *why names the fault). */
int ptli_wire_decode(const void *hdr, size_t hdrlen, size_t paylen, ptli_msg_t *m,
                     const char **why);

#endif /* PTLI_WIRE_H */
