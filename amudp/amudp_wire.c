/*
 * amudp_wire.c - encode and decode the datagram header (format in
 * amudp_wire.h). The only place header bytes are read or written.
 */
#include "amudp_wire.h"

#include <string.h>

#include "gasneti_bytes.h"
#include "gasneti_hot.h"

/* ---- SipHash-2-4, after the reference implementation (CC0) ---- */
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                           \
  do {                                                                     \
    v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);              \
    v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                                 \
    v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                                 \
    v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);              \
  } while (0)

GASNETI_HOT
uint64_t amudp_siphash(uint64_t k0, uint64_t k1, const void *data, size_t len) {
  const unsigned char *in = data;
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  size_t left = len & 7;
  const unsigned char *end = in + len - left;
  for (; in != end; in += 8) {
    uint64_t m = gasneti_get_le64(in);
    v3 ^= m; SIPROUND; SIPROUND; v0 ^= m;
  }
  uint64_t b = (uint64_t)len << 56;
  for (size_t i = 0; i < left; i++) b |= (uint64_t)in[i] << (8 * i);
  v3 ^= b; SIPROUND; SIPROUND; v0 ^= b;
  v2 ^= 0xff;
  SIPROUND; SIPROUND; SIPROUND; SIPROUND;
  return v0 ^ v1 ^ v2 ^ v3;
}

void amudp_wire_keys_init(amudp_wire_keys_t *k, const unsigned char *job_key,
                          size_t keylen) {
  /* Fold the job key into a 128-bit SipHash key, then derive two
   * independent values from it: the tag (public on the wire, tells jobs
   * apart) and the MAC key (never on the wire). */
  unsigned char fold[16] = {0};
  for (size_t i = 0; i < keylen; i++) fold[i % 16] ^= job_key[i];
  uint64_t a = gasneti_get_le64(fold), b = gasneti_get_le64(fold + 8);
  k->tag = amudp_siphash(a, b, "amudp tag v1", 12);
  k->mac_k0 = amudp_siphash(a, b, "amudp mac k0 v1", 15);
  k->mac_k1 = amudp_siphash(a, b, "amudp mac k1 v1", 15);
}

GASNETI_HOT
void amudp_wire_encode(unsigned char *buf, const amudp_wire_hdr_t *h,
                       const amudp_wire_keys_t *k) {
  gasneti_put_le16(buf + 0, AMUDP_MAGIC);
  buf[2] = AMUDP_VERSION;
  buf[3] = h->type;
  gasneti_put_le64(buf + 4, k->tag);
  gasneti_put_le32(buf + 12, h->src);
  gasneti_put_le32(buf + 16, h->dst);
  gasneti_put_le32(buf + 20, h->seq);
  gasneti_put_le32(buf + 24, h->ack);
  gasneti_put_le64(buf + 28, h->sack);
  gasneti_put_le16(buf + 36, h->hdrlen);
  gasneti_put_le16(buf + 38, h->flags);
  gasneti_put_le32(buf + 40, h->msg_id);
  gasneti_put_le32(buf + 44, h->frag_off);
  gasneti_put_le32(buf + 48, h->msg_len);
  gasneti_put_le32(buf + 52, h->reserved);
  gasneti_put_le64(buf + 56, amudp_siphash(k->mac_k0, k->mac_k1, buf, 56));
}

void amudp_wire_note_put(amudp_wire_hdr_t *h, uint16_t kind, const uint32_t *w) {
  h->hdrlen = kind;
  h->seq = w[0];
  h->msg_id = w[1];
  h->frag_off = w[2];
  h->msg_len = w[3];
  h->reserved = w[4];
}

uint16_t amudp_wire_note_get(const amudp_wire_hdr_t *h, uint32_t *w) {
  w[0] = h->seq;
  w[1] = h->msg_id;
  w[2] = h->frag_off;
  w[3] = h->msg_len;
  w[4] = h->reserved;
  return h->hdrlen;
}

void amudp_wire_rec_encode(unsigned char *p, const amudp_wire_rec_t *r) {
  gasneti_put_le32(p + 0, r->paylen);
  gasneti_put_le16(p + 4, r->hdrlen);
  gasneti_put_le16(p + 6, r->flags);
  gasneti_put_le32(p + 8, r->msg_id);
  gasneti_put_le32(p + 12, 0);
}

size_t amudp_wire_rec_decode(const unsigned char *buf, size_t off, amudp_wire_rec_t *r) {
  const unsigned char *p = buf + off;
  r->paylen = gasneti_get_le32(p + 0);
  r->hdrlen = gasneti_get_le16(p + 4);
  r->flags = gasneti_get_le16(p + 6);
  r->msg_id = gasneti_get_le32(p + 8);
  return off + amudp_wire_rec_size(r->hdrlen, r->paylen);
}

/* Walk every record of an AGG datagram once: each must lie within the
 * datagram, with sane lengths, zero reserved bits and zero padding, and
 * the records must end the datagram exactly. Only then is any delivered. */
static amudp_bad_t agg_check(const unsigned char *buf, size_t len, const amudp_wire_hdr_t *h,
                             const amudp_wire_keys_t *k) {
  if (h->hdrlen != 0 || h->frag_off != 0 || h->msg_len != len - AMUDP_HDR_LEN ||
      h->msg_id == 0 || h->msg_id > AMUDP_AGG_MAX_RECS)
    return AMUDP_BAD_AGG;
  size_t off = AMUDP_HDR_LEN;
  for (uint32_t i = 0; i < h->msg_id; i++) {
    if (len - off < AMUDP_REC_LEN) return AMUDP_BAD_AGG;
    const unsigned char *p = buf + off;
    uint32_t paylen = gasneti_get_le32(p);
    uint16_t hdrlen = gasneti_get_le16(p + 4), flags = gasneti_get_le16(p + 6);
    if (hdrlen > k->max_hdr || (flags & ~(unsigned)AMUDP_F_REPLY) ||
        gasneti_get_le32(p + 12) != 0 || paylen > len)
      return AMUDP_BAD_AGG;
    size_t end = off + AMUDP_REC_LEN + hdrlen + paylen, next = off + amudp_wire_rec_size(hdrlen, paylen);
    if (next > len) return AMUDP_BAD_AGG;
    for (size_t j = end; j < next; j++)
      if (buf[j]) return AMUDP_BAD_AGG;
    off = next;
  }
  return off == len ? AMUDP_BAD_NONE : AMUDP_BAD_AGG;
}

GASNETI_HOT
amudp_bad_t amudp_wire_decode(const unsigned char *buf, size_t len,
                              amudp_wire_hdr_t *h, const amudp_wire_keys_t *k) {
  if (len < AMUDP_HDR_LEN) return AMUDP_BAD_SHORT;
  if (gasneti_get_le16(buf) != AMUDP_MAGIC) return AMUDP_BAD_MAGIC;
  if (gasneti_get_le64(buf + 4) != k->tag) return AMUDP_BAD_TAG;
  if (gasneti_get_le64(buf + 56) != amudp_siphash(k->mac_k0, k->mac_k1, buf, 56))
    return AMUDP_BAD_MAC;
  /* The version after the MAC (tag, MAC and their offsets are the same in
   * every version): only a rank of this job can make us report another. */
  h->version = buf[2];
  if (h->version != AMUDP_VERSION) return AMUDP_BAD_VERSION;
  /* From here on the header is authentic; still check every field. */
  h->type = buf[3];
  h->src = gasneti_get_le32(buf + 12);
  h->dst = gasneti_get_le32(buf + 16);
  h->seq = gasneti_get_le32(buf + 20);
  h->ack = gasneti_get_le32(buf + 24);
  h->sack = gasneti_get_le64(buf + 28);
  h->hdrlen = gasneti_get_le16(buf + 36);
  h->flags = gasneti_get_le16(buf + 38);
  h->msg_id = gasneti_get_le32(buf + 40);
  h->frag_off = gasneti_get_le32(buf + 44);
  h->msg_len = gasneti_get_le32(buf + 48);
  h->reserved = gasneti_get_le32(buf + 52);
  if (h->type < AMUDP_T_DATA || h->type > AMUDP_T_NOTE) return AMUDP_BAD_TYPE;
  if (h->src >= k->nranks || h->src == k->myrank || h->dst != k->myrank)
    return AMUDP_BAD_RANK;
  if (h->type == AMUDP_T_AGG) return agg_check(buf, len, h, k);
  if (h->type != AMUDP_T_DATA) /* a NOTE's hdrlen is its kind */
    return (len == AMUDP_HDR_LEN && (h->hdrlen == 0 || h->type == AMUDP_T_NOTE))
               ? AMUDP_BAD_NONE
               : AMUDP_BAD_LENGTH;
  if (h->hdrlen > k->max_hdr || AMUDP_HDR_LEN + (size_t)h->hdrlen > len ||
      h->msg_len > k->max_payload)
    return AMUDP_BAD_LENGTH;
  size_t frag = len - AMUDP_HDR_LEN - h->hdrlen;
  if (h->frag_off > h->msg_len || frag > (size_t)(h->msg_len - h->frag_off))
    return AMUDP_BAD_LENGTH;
  if (frag == 0 && h->msg_len != 0) return AMUDP_BAD_LENGTH; /* empty fragment */
  return AMUDP_BAD_NONE;
}
