/*
 * amudp_frag.c - frames to datagrams and back (part of the engine,
 * amudp_engine.h).
 *
 * A frame (core header + payload of up to AMUDP_MAX_PAYLOAD bytes) goes out
 * as one or more DATA datagrams of at most the peer's MTU. Each carries the
 * frame's msg_id, its payload offset, the frame's total length and a copy of
 * the core header, so whichever fragment arrives first can open the
 * reassembly and ask the core where the payload goes (cfg->place). Payload
 * bytes are then copied straight to that place; the frame is delivered when
 * all its bytes are in. Duplicates never get here (amudp_rel_on_data drops
 * them), so a completed frame cannot be delivered twice.
 *
 * Small payloads (<= AMUDP_PKT_INLINE) are copied into the datagram's own
 * buffer; larger ones once into a shared amudp_msg_t (from a cache of reused
 * buffers, amudp_msg_get) that the fragments point into until all are
 * acknowledged. A borrowed payload (amudp_msg_borrow) is not copied at all:
 * the fragments point into the caller's memory.
 */
#include "amudp_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

GASNETI_HOT
int amudp_frag_send(amudp_engine_t *e, amudp_peer_t *p, const void *hdr,
                    size_t hdrlen, const void *payload, size_t paylen,
                    amudp_msg_t *lent, int is_reply, uint64_t now) {
  size_t room = p->mtu - AMUDP_HDR_LEN - hdrlen; /* >= AMUDP_PKT_INLINE */
  size_t nfrag = paylen ? (paylen + room - 1) / room : 1;
  amudp_pkt_t *first = NULL, *last = NULL;
  amudp_msg_t *m = lent;
  if (lent && paylen <= AMUDP_PKT_INLINE) m = NULL; /* inline after all */
  else if (!m && paylen > AMUDP_PKT_INLINE && !(m = amudp_msg_get(e, paylen))) return -ENOMEM;
  for (size_t i = 0; i < nfrag; i++) {
    amudp_pkt_t *pkt = amudp_pkt_get(e);
    if (!pkt) { /* give back what we took; nothing was queued */
      while (first) { amudp_pkt_t *n = first->next; amudp_pkt_put(e, first); first = n; }
      if (m && m != lent) amudp_msg_put(e, m); /* the caller gives lent back */
      return -ENOMEM;
    }
    if (last) last->next = pkt; else first = pkt;
    last = pkt;
  }
  uint32_t id = p->msg_id++;
  const unsigned char *base = NULL; /* where the fragments read the payload */
  if (m) {
    if (m != lent) memcpy(m->data, payload, paylen);
    m->refs = (uint32_t)nfrag;
    base = m->ext ? m->ext : m->data;
  }
  size_t off = 0;
  for (amudp_pkt_t *pkt = first, *next; pkt; pkt = next, off += room) {
    next = pkt->next;
    memset(&pkt->h, 0, sizeof pkt->h);
    pkt->h.type = AMUDP_T_DATA;
    pkt->h.src = e->cfg.myrank;
    pkt->h.dst = p->rank;
    pkt->h.hdrlen = (uint16_t)hdrlen;
    pkt->h.flags = is_reply ? AMUDP_F_REPLY : 0;
    pkt->h.msg_id = id;
    pkt->h.frag_off = (uint32_t)off;
    pkt->h.msg_len = (uint32_t)paylen;
    memcpy(pkt->buf + AMUDP_HDR_LEN, hdr, hdrlen);
    pkt->datalen = paylen - off < room ? paylen - off : room;
    pkt->wirelen = AMUDP_HDR_LEN + hdrlen + pkt->datalen;
    if (m) {
      pkt->msg = m;
      pkt->data = base + off;
    } else {
      unsigned char *in = pkt->buf + AMUDP_HDR_LEN + hdrlen;
      if (paylen) memcpy(in, payload, paylen);
      pkt->data = in;
    }
    /* A frame of one datagram that finds nothing queued and the window
     * open leaves now; anything else waits its turn in the queues. */
    if (nfrag > 1 || !amudp_rel_send_now(e, p, pkt, is_reply, now))
      amudp_rel_enqueue(e, p, pkt, is_reply);
  }
  if (lent && !m) amudp_msg_put(e, lent); /* copied inline above */
  AMUDP_COUNT(e, frames_sent, 1);
  p->last_data_ns = now;
  amudp_rel_pump(e, p, now);
  return 0;
}

static void amudp_frag_nomem(size_t n) {
  fprintf(stderr, "amudp: out of memory reassembling a frame of %zu bytes\n", n);
  abort();
}

/* A whole frame from one datagram: to place()'s destination if it has one,
 * else delivered where it lies in the receive buffer. */
GASNETI_HOT
static void deliver_whole(const gasnetc_transport_config_t *c, uint32_t src,
                          const unsigned char *hdr, size_t hdrlen, unsigned char *data,
                          size_t len) {
  void *pl = data;
  if (c->place && len) {
    void *d = c->place(c->ctx, src, hdr, hdrlen, len);
    if (d) {
      memcpy(d, data, len);
      pl = d;
    }
  }
  c->deliver(c->ctx, src, hdr, hdrlen, pl, len);
}

/* An AGG datagram, split into its frames in order (amudp_wire_decode has
 * checked every record). Returns the number delivered. */
int amudp_frag_deliver_agg(amudp_engine_t *e, uint32_t src, amudp_rxitem_t *it) {
  unsigned char *buf = it->data - AMUDP_HDR_LEN; /* the datagram */
  size_t off = AMUDP_HDR_LEN;
  for (uint32_t i = 0; i < it->h.msg_id; i++) {
    amudp_wire_rec_t r;
    size_t next = amudp_wire_rec_decode(buf, off, &r);
    unsigned char *hdr = buf + off + AMUDP_REC_LEN;
    deliver_whole(&e->cfg, src, hdr, r.hdrlen, hdr + r.hdrlen, r.paylen);
    off = next;
  }
  return (int)it->h.msg_id;
}

/* The reassembly of the frame that fragment it belongs to, opened at its
 * first fragment to arrive; NULL (counted) when it disagrees with the
 * frame's first one or brings more bytes than the frame lacks (an
 * overlap): malformed, dropped. Lock held. */
static amudp_reasm_t *reasm_find(amudp_engine_t *e, amudp_peer_t *p,
                                 const amudp_rxitem_t *it) {
  const amudp_wire_hdr_t *h = &it->h;
  amudp_reasm_t *r = p->reasm;
  while (r && r->msg_id != h->msg_id) r = r->next;
  if (!r) {
    if (!(r = calloc(1, sizeof *r))) amudp_frag_nomem(sizeof *r);
    r->msg_id = h->msg_id;
    r->msg_len = h->msg_len;
    r->hdrlen = h->hdrlen;
    memcpy(r->hdr, it->hdr, h->hdrlen);
    r->next = p->reasm;
    p->reasm = r;
  }
  if (r->msg_len != h->msg_len || r->hdrlen != h->hdrlen || it->len > r->msg_len - r->got) {
    AMUDP_COUNT(e, bad_frag, 1);
    return NULL;
  }
  return r;
}

/* Where r's payload goes: place()'s destination, asked once per frame
 * (with the lock released: place runs the core's code), or a buffer from
 * the payload cache, as for sends. Lock held. */
static void reasm_dest(amudp_engine_t *e, amudp_reasm_t *r, uint32_t src) {
#if GASNETC_THREADS
  while (r->state == 1) { /* another thread is in place() for this frame */
    e->out->pause(e->out_ctx); /* releases the lock while it waits */
  }
#endif
  if (r->state != 0) return;
  const gasnetc_transport_config_t *c = &e->cfg;
  r->state = 1;
  amudp_port_unlock(e);
  void *d = c->place ? c->place(c->ctx, src, r->hdr, r->hdrlen, r->msg_len) : NULL;
  amudp_port_lock(e);
  if (!d) {
    if (!(r->owned = amudp_msg_get(e, r->msg_len))) amudp_frag_nomem(r->msg_len);
    d = r->owned->data;
  }
  r->dest = d;
  r->state = 2;
}

GASNETI_HOT
int amudp_frag_deliver(amudp_engine_t *e, uint32_t src, amudp_rxitem_t *it) {
  const gasnetc_transport_config_t *c = &e->cfg;
  const amudp_wire_hdr_t *h = &it->h;

  /* Whole frame in one datagram (decode made sure frag_off == 0 then). */
  if (h->msg_len == it->len) {
    deliver_whole(c, src, it->hdr, h->hdrlen, it->data, it->len);
    return 1;
  }

  amudp_peer_t *p = &e->peers[src];
  amudp_port_lock(e);
  amudp_reasm_t *r = reasm_find(e, p, it);
  if (!r) {
    amudp_port_unlock(e);
    return 0;
  }
  reasm_dest(e, r, src);
  unsigned char *dest = r->dest;
  amudp_port_unlock(e);

  memcpy(dest + h->frag_off, it->data, it->len); /* fragments are disjoint */

  amudp_port_lock(e);
  r->got += (uint32_t)it->len;
  int done = r->got >= r->msg_len;
  if (done) {
    amudp_reasm_t **pp = &p->reasm;
    while (*pp != r) pp = &(*pp)->next;
    *pp = r->next;
  }
  amudp_port_unlock(e);
  if (!done) return 0;
  c->deliver(c->ctx, src, r->hdr, r->hdrlen, r->dest, r->msg_len);
  if (r->owned) {
    amudp_port_lock(e);
    amudp_msg_put(e, r->owned);
    amudp_port_unlock(e);
  }
  free(r);
  return 1;
}

void amudp_frag_peer_free(amudp_peer_t *p) {
  amudp_reasm_t *r;
  while ((r = p->reasm)) {
    p->reasm = r->next;
    free(r->owned); /* at close, before the cache is emptied: straight to free */
    free(r);
  }
}
