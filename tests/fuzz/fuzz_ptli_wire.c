/*
 * fuzz_ptli_wire.c - libFuzzer harness for the Portals wire decoder
 * (portals/ptli_wire.c, ptli_wire_decode: the one place a received Portals
 * header is read, against the length of the payload that came with it).
 *
 * Input: u32 payload length (little-endian; the frame's, as the transport
 * reports it), then the header bytes (any length: the decoder must refuse
 * all but PTLI_WIRE_LEN). Checks beyond "no crash": a refused frame names
 * its fault; an accepted one keeps each op's rules (a put's data lies
 * within its rlength, a reply's part within its mlength, no more than
 * rlength; an ack or get carries none; reserved bytes zero) and encodes back to the same bytes.
 */
#include "ptli_wire.h"

#include <stdlib.h>
#include <string.h>

#include "gasneti_bytes.h"

static void ptli_fuzz_rules(const ptli_msg_t *m, size_t paylen) {
  switch (m->op) {
  case PTLI_OP_PUT:
    if (paylen > m->rlength || m->mlength || (m->flags & ~(PTLI_WF_ACK | PTLI_WF_CONT))) abort();
    if ((m->flags & PTLI_WF_CONT) && (!paylen || m->offset + paylen > m->rlength ||
                                      m->offset + paylen < m->offset)) abort();
    break;
  case PTLI_OP_REPLY:
    if (m->mlength > m->rlength || m->flags || m->cookie) abort();
    if (m->hdr_data + paylen > m->mlength || m->hdr_data + paylen < m->hdr_data) abort();
    break;
  case PTLI_OP_ACK:
    if (paylen || m->mlength > m->rlength || m->flags || m->seq || m->cookie) abort();
    break;
  case PTLI_OP_GET:
    if (paylen || m->mlength || m->flags || m->hdr_data) abort();
    break;
  default:
    abort(); /* an unknown op accepted */
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  size_t paylen = gasneti_get_le32(data);
  const uint8_t *hdr = data + 4;
  size_t hdrlen = size - 4;
  ptli_msg_t m;
  const char *why = NULL;
  if (ptli_wire_decode(hdr, hdrlen, paylen, &m, &why) != 0) {
    if (!why || !*why) abort(); /* a refusal names its fault */
    return 0;
  }
  if (why || hdrlen != PTLI_WIRE_LEN) abort();
  ptli_fuzz_rules(&m, paylen);
  uint8_t again[PTLI_WIRE_LEN];
  ptli_wire_encode(&m, again);
  if (memcmp(again, hdr, PTLI_WIRE_LEN) != 0) abort(); /* decoded = what was sent */
  return 0;
}
