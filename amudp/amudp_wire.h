/*
 * amudp_wire.h - the one definition of the amudp datagram format.
 *
 * Every datagram starts with a fixed 64-byte header, all integers
 * LITTLE-ENDIAN, at the offsets below. Encoding and decoding happen only in
 * amudp_wire.c (amudp_wire_encode / amudp_wire_decode); nothing else reads
 * header bytes.
 *
 *  off size field
 *    0   2  magic      AMUDP_MAGIC
 *    2   1  version    AMUDP_VERSION
 *    3   1  type       amudp_type_t
 *    4   8  tag        the job's tag (keyed hash of the job key)
 *   12   4  src        sender's rank
 *   16   4  dst        receiver's rank
 *   20   4  seq        DATA: this datagram's sequence number (per peer, from
 *                        GASNET_UDP_ISN, wrapping); else 0
 *   24   4  ack        every type: all seq < ack from dst have been received
 *   28   8  sack       bit i set: seq ack+1+i has been received too
 *   36   2  hdrlen     DATA: core header bytes following this header; else 0
 *   38   2  flags      AMUDP_F_*
 *   40   4  msg_id     DATA: frame number, per (src,dst)
 *   44   4  frag_off   DATA: offset of this datagram's payload in the frame
 *   48   4  msg_len    DATA: whole frame payload length
 *   52   4  reserved   0 (NOTE: word 4 of its notice)
 *   56   8  mac        SipHash-2-4 of bytes 0..55 under the job's MAC key
 *
 * A DATA datagram is: header, hdrlen bytes of core header (repeated in every
 * fragment, so any fragment may arrive first), then payload bytes
 * [frag_off, frag_off + datagram_len - 64 - hdrlen) of the frame.
 * ACK, PING and BYE datagrams are the bare header.
 *
 * A NOTE datagram (a notice, core/transport.h: sent once, never
 * retransmitted, never acked) is the bare header too, its notice in fields
 * that a bare header otherwise leaves 0, so that the MAC covers it: the
 * notice's kind in hdrlen, its words 0..4 in seq, msg_id, frag_off, msg_len
 * and reserved (amudp_wire_note_put / _get). Its ack and sack are the
 * sender's current ones, as on every type.
 *
 * An AGG datagram carries several whole frames under one sequence number
 * (the reliability layer's unit is the datagram, so the frames in it are
 * delivered exactly once together). Its header has hdrlen 0, frag_off 0,
 * msg_id = the number of records (1..AMUDP_AGG_MAX_RECS) and msg_len = the
 * bytes after the header; then that many records, each starting 16-byte
 * aligned (so a payload lands congruent to its core header's length mod 16,
 * as in a DATA datagram):
 *
 *  off size field      (record header, AMUDP_REC_LEN bytes, little-endian)
 *    0   4  paylen     payload bytes
 *    4   2  hdrlen     core header bytes
 *    6   2  flags      AMUDP_F_REPLY or 0
 *    8   4  msg_id     the frame's number (as in DATA)
 *   12   4  reserved   0
 *
 * followed by hdrlen bytes of core header, paylen bytes of payload, and
 * zero bytes up to the next multiple of 16. The last record ends the
 * datagram exactly. amudp_wire_decode checks every record; a datagram with
 * one bad record is dropped whole (AMUDP_BAD_AGG) and none is delivered.
 */
#ifndef AMUDP_WIRE_H
#define AMUDP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define AMUDP_MAGIC       0x5541u /* "AU" little-endian */
#define AMUDP_VERSION     8u      /* 2: AMUDP_T_AGG, 3: AMUDP_F_IDLE, 4: AMUDP_F_ACKREQ on an
                                     ACK, 5: datagrams also from the send port (amudp.c),
                                     6: AMUDP_T_NOTE, 7: AMUDP_F_ACKRETX, 8: AMUDP_F_RTO;
                                     raise at every change of what a datagram means or
                                     where it may come from */
#define AMUDP_HDR_LEN     64u
#define AMUDP_SACK_BITS   64u     /* so the window is at most 64 datagrams */

typedef enum {
  AMUDP_T_DATA = 1, /* carries (a fragment of) a frame; reliable */
  AMUDP_T_ACK  = 2, /* standalone ack; also the answer to PING */
  AMUDP_T_PING = 3, /* liveness probe; answered by an ACK */
  AMUDP_T_BYE  = 4, /* sender is closing: no more traffic, do not probe */
  AMUDP_T_AGG  = 5, /* several whole frames, one seq; reliable like DATA */
  AMUDP_T_NOTE = 6, /* a notice in the header; sent once, not acked */
} amudp_type_t;

#define AMUDP_REC_LEN      16u  /* aggregate record header */
#define AMUDP_AGG_MAX_RECS 128u /* frames per aggregate (bounds the iovec) */

enum {
  AMUDP_F_REPLY = 1u << 0, /* the frame is an AM reply (informational) */
  AMUDP_F_RETX  = 1u << 1, /* a retransmission: its ack may be stale, so the
                              receiver takes no RTT sample from it */
  AMUDP_F_LATE  = 1u << 2, /* this ack answers a retransmission of a datagram
                              whose ack we still owed: the retransmission was
                              spurious (our ack was late, not lost), so the
                              receiver may time the ack from the first
                              transmission */
  AMUDP_F_ACKREQ = 1u << 3, /* DATA/AGG: the sender waits on acks (its window
                              is half full or more, a retransmission,
                              closing): ack within the ack delay counted
                              from arrival; without it the delay counts from
                              when the receiver read it, so traffic back may
                              carry it. On an ACK: it answers such a
                              datagram, so it goes to the data socket, which
                              its receiver reads at every poll, not to the
                              lazily read ack socket (amudp_fault.c, dest_of) */
  AMUDP_F_ACKRETX = 1u << 5, /* the ack carried answers a retransmission or a
                              duplicate (the first since our last ack): it
                              may come only now because earlier acks were
                              lost, so the receiver takes no RTT sample from
                              it (unlike AMUDP_F_RETX, it says nothing of the
                              datagram itself) */
  AMUDP_F_RTO   = 1u << 6, /* DATA/AGG: a retransmission at its timeout (the
                              sender waited a whole RTO for its ack): the ack
                              it carries was written after anything the
                              receiver sent well before it had time to
                              arrive, so what that ack does not cover is lost
                              (amudp_reliable.c, rel_ack_age) */
  AMUDP_F_IDLE  = 1u << 4, /* this ack was held for the idle ack delay (none
                              of the datagrams it covers asked for it): its
                              timing is ours, not the network's, so the
                              receiver takes no RTT sample from it, and
                              allows that delay before it retransmits what
                              does not ask (amudp_reliable.c: holds_acks) */
};

/* Decoded header: host byte order. */
typedef struct amudp_wire_hdr {
  uint8_t  type;
  uint8_t  version;  /* decoded only to report AMUDP_BAD_VERSION */
  uint32_t src, dst;
  uint32_t seq, ack;
  uint64_t sack;
  uint16_t hdrlen, flags;
  uint32_t msg_id, frag_off, msg_len, reserved;
} amudp_wire_hdr_t;

/* A NOTE's notice: kind and AMUDP_NOTE_WORDS words, in and out of a header. */
#define AMUDP_NOTE_WORDS 5
void amudp_wire_note_put(amudp_wire_hdr_t *h, uint16_t kind, const uint32_t *w);
uint16_t amudp_wire_note_get(const amudp_wire_hdr_t *h, uint32_t *w);

/* What a datagram is checked against (fixed at open/connect). */
typedef struct amudp_wire_keys {
  uint64_t tag;
  uint64_t mac_k0, mac_k1;
  uint32_t myrank, nranks;
  uint32_t max_hdr;      /* GASNETC_HDR_MAX */
  uint32_t max_payload;  /* largest frame payload */
} amudp_wire_keys_t;

/* Why a datagram was dropped (each one a counter). 0 = accepted. */
typedef enum {
  AMUDP_BAD_NONE      = 0,
  AMUDP_BAD_SHORT     = 1, /* shorter than the header, or truncated by us */
  AMUDP_BAD_MAGIC     = 2, /* wrong magic */
  AMUDP_BAD_TAG       = 3, /* another job's tag */
  AMUDP_BAD_MAC       = 4, /* header MAC does not verify: forged/corrupt */
  AMUDP_BAD_TYPE      = 5, /* unknown type */
  AMUDP_BAD_RANK      = 6, /* src out of range or ourselves, dst not us */
  AMUDP_BAD_LENGTH    = 7, /* length fields inconsistent */
  AMUDP_BAD_AGG       = 8, /* an aggregate's records are inconsistent */
  AMUDP_BAD_VERSION   = 9, /* this job's (tag and MAC verify) but another wire
                              version: a rank runs another build (h->version) */
} amudp_bad_t;

/* One record of an AGG datagram, decoded. */
typedef struct amudp_wire_rec {
  uint32_t paylen;
  uint16_t hdrlen, flags;
  uint32_t msg_id;
} amudp_wire_rec_t;

_Static_assert(AMUDP_HDR_LEN == 2 + 1 + 1 + 8 + 4 + 4 + 4 + 4 + 8 + 2 + 2 + 4 + 4 + 4 + 4 + 8,
               "header field sizes must add up to AMUDP_HDR_LEN");
_Static_assert(AMUDP_HDR_LEN % 8 == 0, "header keeps the core header 8-byte aligned");
_Static_assert(AMUDP_REC_LEN == 4 + 2 + 2 + 4 + 4, "record field sizes add up");
_Static_assert(AMUDP_HDR_LEN % 16 == 0 && AMUDP_REC_LEN == 16,
               "records start 16-aligned: payload alignment as in DATA");

/* Write h (plus tag and MAC) into buf[0..AMUDP_HDR_LEN). */
void amudp_wire_encode(unsigned char *buf, const amudp_wire_hdr_t *h,
                       const amudp_wire_keys_t *k);

/* Check and decode a received datagram of len bytes. Returns AMUDP_BAD_NONE
 * and fills *h, or the reason to drop it. Every field used afterwards has been
 * bounds-checked here: for DATA, hdrlen <= max_hdr,
 * AMUDP_HDR_LEN + hdrlen <= len, msg_len <= max_payload and the payload slice
 * lies within [0, msg_len). */
amudp_bad_t amudp_wire_decode(const unsigned char *buf, size_t len,
                              amudp_wire_hdr_t *h, const amudp_wire_keys_t *k);

/* The type, flags and msg_id of a header amudp_wire_encode wrote (one of
 * ours, about to leave): where it goes depends on them (amudp_fault.c,
 * dest_of), and what fault injection drops (amudp_fault_drop_agg). */
static inline unsigned amudp_wire_peek_type(const unsigned char *buf) { return buf[3]; }
static inline unsigned amudp_wire_peek_flags(const unsigned char *buf) {
  return buf[38] | (unsigned)buf[39] << 8;
}
static inline uint32_t amudp_wire_peek_msg_id(const unsigned char *buf) {
  return buf[40] | (uint32_t)buf[41] << 8 | (uint32_t)buf[42] << 16 | (uint32_t)buf[43] << 24;
}

/* Bytes a record of that core header and payload takes, padding included. */
static inline size_t amudp_wire_rec_size(size_t hdrlen, size_t paylen) {
  return (AMUDP_REC_LEN + hdrlen + paylen + 15) & ~(size_t)15;
}

/* Write a record header at p[0..AMUDP_REC_LEN). */
void amudp_wire_rec_encode(unsigned char *p, const amudp_wire_rec_t *r);

/* Read the record at buf[off] of an AGG datagram amudp_wire_decode accepted
 * (so it is in bounds); returns the offset of the next record. */
size_t amudp_wire_rec_decode(const unsigned char *buf, size_t off, amudp_wire_rec_t *r);

/* Derive the tag and MAC key of a job from its key (any length). */
void amudp_wire_keys_init(amudp_wire_keys_t *k, const unsigned char *job_key,
                          size_t keylen);

/* SipHash-2-4 (Aumasson & Bernstein): a fast keyed hash for short inputs. */
uint64_t amudp_siphash(uint64_t k0, uint64_t k1, const void *data, size_t len);

#endif /* AMUDP_WIRE_H */
