/*
 * ptli_wire.c - encode and decode the Portals messages (ptli_wire.h): the
 * one place a received header is read. A frame is refused when it is not
 * exactly a header of this version, has an unknown op, a flag or a zero
 * field set where none may be, or a payload that disagrees with its
 * lengths (a part of a put or reply outside the whole). The caller counts and drops what is refused.
 */
#include "ptli_wire.h"
#include "gasneti_bytes.h"

void ptli_wire_encode(const ptli_msg_t *m, uint8_t *b) {
  b[PTLI_W_VERSION] = PTLI_WIRE_VERSION;
  b[PTLI_W_OP] = m->op;
  b[PTLI_W_FLAGS] = m->flags;
  b[PTLI_W_ZERO8] = 0;
  gasneti_put_be32(b + PTLI_W_PORTAL, m->portal);
  gasneti_put_be32(b + PTLI_W_COOKIE, m->cookie);
  gasneti_put_be32(b + PTLI_W_TNID, m->tnid);
  gasneti_put_be32(b + PTLI_W_TPID, m->tpid);
  gasneti_put_be32(b + PTLI_W_SEQ, m->seq);
  gasneti_put_be32(b + PTLI_W_ZERO32, 0);
  gasneti_put_be64(b + PTLI_W_BITS, m->bits);
  gasneti_put_be64(b + PTLI_W_OFFSET, m->offset);
  gasneti_put_be64(b + PTLI_W_MD, m->md);
  gasneti_put_be64(b + PTLI_W_RLEN, m->rlength);
  gasneti_put_be64(b + PTLI_W_MLEN, m->mlength);
  gasneti_put_be64(b + PTLI_W_HDRDATA, m->hdr_data);
}

/* Each op's rules on flags and lengths. NULL when m is consistent. */
static const char *ptli_wire_check(const ptli_msg_t *m, size_t paylen) {
  switch (m->op) {
  case PTLI_OP_PUT:
    if (m->flags & ~(PTLI_WF_ACK | PTLI_WF_CONT)) return "unknown flags";
    if (paylen > m->rlength || m->mlength) return "put length disagrees with its data";
    if ((m->flags & PTLI_WF_CONT) && (!paylen || m->offset > m->rlength - paylen))
      return "put continuation outside its operation";
    return NULL;
  case PTLI_OP_GET:
    if (m->flags || m->mlength || m->hdr_data) return "get with put-only fields";
    return paylen ? "get with data" : NULL;
  case PTLI_OP_ACK:
    if (m->flags || m->cookie || m->seq || m->hdr_data) return "ack with request fields";
    if (paylen || m->mlength > m->rlength) return "ack lengths";
    return NULL;
  case PTLI_OP_REPLY:
    if (m->flags || m->cookie) return "reply with request fields";
    if (m->mlength > m->rlength || paylen > m->mlength || m->hdr_data > m->mlength - paylen)
      return "reply length disagrees with its data";
    return NULL;
  default:
    return "unknown op";
  }
}

int ptli_wire_decode(const void *hdr, size_t hdrlen, size_t paylen, ptli_msg_t *m,
                     const char **why) {
  const uint8_t *b = hdr;
  *why = NULL;
  if (hdrlen != PTLI_WIRE_LEN) *why = "header length";
  else if (b[PTLI_W_VERSION] != PTLI_WIRE_VERSION) *why = "version";
  else if (b[PTLI_W_ZERO8] || gasneti_get_be32(b + PTLI_W_ZERO32)) *why = "reserved bits set";
  if (*why) return -1;
  m->op = b[PTLI_W_OP];
  m->flags = b[PTLI_W_FLAGS];
  m->portal = gasneti_get_be32(b + PTLI_W_PORTAL);
  m->cookie = gasneti_get_be32(b + PTLI_W_COOKIE);
  m->tnid = gasneti_get_be32(b + PTLI_W_TNID);
  m->tpid = gasneti_get_be32(b + PTLI_W_TPID);
  m->seq = gasneti_get_be32(b + PTLI_W_SEQ);
  m->bits = gasneti_get_be64(b + PTLI_W_BITS);
  m->offset = gasneti_get_be64(b + PTLI_W_OFFSET);
  m->md = gasneti_get_be64(b + PTLI_W_MD);
  m->rlength = gasneti_get_be64(b + PTLI_W_RLEN);
  m->mlength = gasneti_get_be64(b + PTLI_W_MLEN);
  m->hdr_data = gasneti_get_be64(b + PTLI_W_HDRDATA);
  *why = ptli_wire_check(m, paylen);
  return *why ? -1 : 0;
}
