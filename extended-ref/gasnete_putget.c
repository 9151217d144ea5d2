/*
 * gasnete_putget.c - the protocol of remote memory access: the AMs of one
 * put, get or memset and their handlers. gasnete_rma.c turns the calls of
 * GASNet-EX (and, through it, GASNet-1) into these.
 *
 * Protocols (one AM round trip per chunk, counted in a gasnete_counter_t):
 *   put     Long request of <= gasnet_AMMaxLongRequest() bytes straight into
 *           the target's segment; the handler replies Short ACK.
 *   get     Short request; the target replies with the bytes: a Long reply
 *           (<= gasnet_AMMaxLongReply()) when the whole local destination
 *           lies in our own segment (the core only lets a Long land there),
 *           else Medium replies (<= gasnet_AMMaxMedium()) that the reply
 *           handler copies out.
 *   memset  one Short request; the target runs memset and replies ACK.
 * A transfer larger than a chunk (min(1 MiB, GASNET_EXT_PIPELINE_BYTES / 2)
 * for puts and Long gets, 64 KiB for Medium gets) is split; chunks are sent
 * back to back, keeping at most GASNET_EXT_PIPELINE_BYTES of payload in
 * flight per counter, so a 16 MiB put is a pipeline of at least two chunks
 * in flight, not 16 serialized round trips. A transfer whose
 * node is this node is a plain memmove/memset (spec 3.1: loopback must work;
 * it costs no message). nbytes == 0 is a no-op everywhere.
 */
#include <string.h>

#include "gasnete_internal.h"

/* ---- handlers (64..127) -------------------------------------------------- */

void gasnete_put_req_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                             gasnete_arg_t clo) {
  (void)buf; /* the core already wrote the payload to its destination */
  gex_AM_ReplyShort3(t, GASNETE_H_ACK, 0, chi, clo, (gasnet_handlerarg_t)n);
}

void gasnete_ack_handler(gasnet_token_t t, gasnete_arg_t chi, gasnete_arg_t clo,
                         gasnete_arg_t nbytes) {
  (void)t;
  gasnete_counter_t *c = GASNETE_PTR(chi, clo);
  GASNETE_BYTES_SUB(c, (uint32_t)nbytes);
  GASNETE_CTR_SUB1(c); /* last touch: the owner may reuse c right after */
}

void gasnete_get_req_handler(gasnet_token_t t, gasnete_arg_t shi, gasnete_arg_t slo,
                             gasnete_arg_t n, gasnete_arg_t dhi, gasnete_arg_t dlo,
                             gasnete_arg_t chi, gasnete_arg_t clo, gasnete_arg_t uselong) {
  void *src = GASNETE_PTR(shi, slo);
  size_t nbytes = (uint32_t)n;
  if (uselong)
    gex_AM_ReplyLong2(t, GASNETE_H_GET_REP_LONG, src, nbytes, GASNETE_PTR(dhi, dlo),
                      GEX_EVENT_NOW, 0, chi, clo);
  else
    gex_AM_ReplyMedium4(t, GASNETE_H_GET_REP_MED, src, nbytes, GEX_EVENT_NOW, 0, dhi, dlo,
                        chi, clo);
}

void gasnete_get_rep_med_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t dhi,
                                 gasnete_arg_t dlo, gasnete_arg_t chi, gasnete_arg_t clo) {
  (void)t;
  memcpy(GASNETE_PTR(dhi, dlo), buf, n);
  gasnete_counter_t *c = GASNETE_PTR(chi, clo);
  GASNETE_BYTES_SUB(c, n);
  GASNETE_CTR_SUB1(c); /* release: the copy is visible before the count */
}

void gasnete_get_rep_long_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                                  gasnete_arg_t clo) {
  (void)t; (void)buf;
  gasnete_counter_t *c = GASNETE_PTR(chi, clo);
  GASNETE_BYTES_SUB(c, n);
  GASNETE_CTR_SUB1(c);
}

void gasnete_memset_req_handler(gasnet_token_t t, gasnete_arg_t dhi, gasnete_arg_t dlo,
                                gasnete_arg_t val, gasnete_arg_t nhi, gasnete_arg_t nlo,
                                gasnete_arg_t chi, gasnete_arg_t clo) {
  memset(GASNETE_PTR(dhi, dlo), (int)val, (size_t)GASNETE_U64(nhi, nlo));
  gex_AM_ReplyShort3(t, GASNETE_H_ACK, 0, chi, clo, 0);
}

/* ---- starting the AMs of one operation ----------------------------------- */

/* The pipeline window and the counting are gasnete_internal.h's
 * (gasnete_window_wait, gasnete_count), shared with gasnete_vis.c. */

/* Only the first AM of an operation may be refused: IMMEDIATE asks whether
 * the operation can start now, not whether it can finish without waiting.
 * borrow: the source stays unchanged until c is done (a blocking put, or a
 * bulk one synced through c), so the transport may send from it rather
 * than copy it, counting on c until it lets go (core/gasnetc_ext.h). */
int gasnete_put_start(gasnete_counter_t *c, const gasnete_peer_t *p, void *dest,
                      const void *src, size_t nbytes, int immediate, int borrow) {
  const size_t chunk = gasnete_g.put_chunk;
  for (size_t off = 0; off < nbytes; off += chunk, immediate = 0) {
    size_t len = nbytes - off < chunk ? nbytes - off : chunk;
    if (gasnete_window_wait(c, len, immediate)) return 1;
    gasnete_count(c, len);
    gex_AM_Arg_t args[2] = { GASNETE_HI(c), GASNETE_LO(c) };
    if (gasnetc_am_request_long_lc(p->pair, p->node, GASNETE_H_PUT_REQ, (const char *)src + off, len,
                                   (char *)dest + off, immediate ? GEX_FLAG_IMMEDIATE : 0,
                                   borrow ? &c->pending : NULL, 2, args)) {
      gasnete_uncount(c, len);
      return 1;
    }
  }
  return 0;
}

int gasnete_get_start(gasnete_counter_t *c, void *dest, const gasnete_peer_t *p, void *src,
                      size_t nbytes, int immediate) {
  const int uselong = gasnete_peer_own_has(p, dest, nbytes);
  const size_t chunk = uselong ? gasnete_g.get_chunk : gasnet_AMMaxMedium();
  for (size_t off = 0; off < nbytes; off += chunk, immediate = 0) {
    size_t len = nbytes - off < chunk ? nbytes - off : chunk;
    if (gasnete_window_wait(c, len, immediate)) return 1;
    char *s = (char *)src + off, *d = (char *)dest + off;
    gasnete_count(c, len);
    if (gex_AM_RequestShort8(p->pair, p->node, GASNETE_H_GET_REQ,
                             immediate ? GEX_FLAG_IMMEDIATE : 0, GASNETE_HI(s), GASNETE_LO(s),
                             (gasnet_handlerarg_t)len, GASNETE_HI(d), GASNETE_LO(d),
                             GASNETE_HI(c), GASNETE_LO(c), uselong)) {
      gasnete_uncount(c, len);
      return 1;
    }
  }
  return 0;
}

int gasnete_memset_start(gasnete_counter_t *c, const gasnete_peer_t *p, void *dest, int val,
                         size_t nbytes, int immediate) {
  gasnete_count(c, 0);
  if (gex_AM_RequestShort7(p->pair, p->node, GASNETE_H_MEMSET_REQ,
                           immediate ? GEX_FLAG_IMMEDIATE : 0, GASNETE_HI(dest),
                           GASNETE_LO(dest), (gasnet_handlerarg_t)val, GASNETE_HI(nbytes),
                           GASNETE_LO(nbytes), GASNETE_HI(c), GASNETE_LO(c))) {
    gasnete_uncount(c, 0);
    return 1;
  }
  return 0;
}

