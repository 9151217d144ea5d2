/*
 * amudp_engine.c - the engine's receive entry (amudp_rx_datagram: one
 * datagram's bytes and its source in, acks and sequence state updated),
 * the delivery of what it accepted (amudp_item_deliver), and freeing an
 * engine (amudp_engine_fini). See amudp_engine.h for what the engine owns
 * and what its port does.
 */
#include "amudp_engine.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- addresses */


/* Sent by p: from its data socket, or from one of its peer sockets (its
 * send port). */
static int from_peer(const struct sockaddr_storage *from, const amudp_peer_t *p) {
  uint16_t port = amudp_sa_port(from);
  return amudp_sa_same_ip(from, &p->addr) &&
         (port == amudp_sa_port(&p->addr) || (port == p->send_port && port != 0));
}

/* ---------------------------------------------------------------- receiving */

static const int amudp_bad_counter[] = {
  [AMUDP_BAD_SHORT] = AMUDP_C_bad_short,   [AMUDP_BAD_MAGIC] = AMUDP_C_bad_magic,
  [AMUDP_BAD_TAG] = AMUDP_C_bad_tag,       [AMUDP_BAD_MAC] = AMUDP_C_bad_mac,
  [AMUDP_BAD_TYPE] = AMUDP_C_bad_type,     [AMUDP_BAD_RANK] = AMUDP_C_bad_rank,
  [AMUDP_BAD_LENGTH] = AMUDP_C_bad_length, [AMUDP_BAD_AGG] = AMUDP_C_bad_agg,
  [AMUDP_BAD_VERSION] = AMUDP_C_bad_version,
};

GASNETI_HOT
int amudp_rx_datagram(amudp_engine_t *e, unsigned char *buf, size_t len, int truncated,
                      const struct sockaddr_storage *from, int late, uint64_t now,
                      amudp_rxitem_t *it) {
  AMUDP_COUNT(e, datagrams_received, 1);
  AMUDP_COUNT(e, bytes_received, len);
  amudp_bad_t why = truncated ? AMUDP_BAD_SHORT : amudp_wire_decode(buf, len, &it->h, &e->keys);
  if (why != AMUDP_BAD_NONE) {
    e->ctr[amudp_bad_counter[why]]++;
    AMUDP_COUNT(e, bad_datagrams, 1);
    return why == AMUDP_BAD_VERSION ? AMUDP_RX_VERSION : -1;
  }
  amudp_peer_t *p = &e->peers[it->h.src];
  if (!from_peer(from, p)) { /* right key, wrong sender address */
    AMUDP_COUNT(e, bad_addr, 1);
    AMUDP_COUNT(e, bad_datagrams, 1);
    return -1;
  }
  if (p->gone) {
    AMUDP_COUNT(e, from_gone_peer, 1);
    return -1;
  }
  p->last_heard_ns = now;
  p->probes = 0;
  /* An ack read late (it waited in the ack socket while we slept) times
   * our sleep, not the path: no RTT sample from it (as from a RETX one),
   * and what it does not cover may have arrived since (AMUDP_RX_LATE). */
  amudp_rel_on_ack(e, p, it->h.ack, it->h.sack,
                   (it->h.flags & ~AMUDP_RX_LATE) | (late ? AMUDP_F_RETX | AMUDP_RX_LATE : 0), now);
  if (it->h.type == AMUDP_T_AGG) AMUDP_COUNT(e, agg_received, 1);
  switch (it->h.type) {
  case AMUDP_T_AGG: /* the same reliability as DATA; records split at delivery */
  case AMUDP_T_DATA:
    p->last_data_ns = now;
    if (!amudp_rel_on_data(e, p, it->h.seq, it->h.flags, now)) return 0;
    it->hdr = buf + AMUDP_HDR_LEN;
    it->data = buf + AMUDP_HDR_LEN + it->h.hdrlen;
    it->len = len - AMUDP_HDR_LEN - it->h.hdrlen;
    return 1;
  case AMUDP_T_NOTE: /* delivered as an item, like a frame (amudp_note_deliver) */
    AMUDP_COUNT(e, notices_received, 1);
    return 1;
  case AMUDP_T_PING:
    p->ack_now = 1;
    return 0;
  case AMUDP_T_BYE:
    amudp_rel_gone(e, p, 0, NULL);
    return 0;
  default: /* AMUDP_T_ACK: all done above */
    return 0;
  }
}

/* Hand a NOTE datagram's notice to the core; no lock held. */
static int amudp_note_deliver(amudp_engine_t *e, uint32_t src, const amudp_rxitem_t *it) {
  gasnetc_notice_t n;
  n.kind = amudp_wire_note_get(&it->h, n.w);
  if (e->cfg.notice) e->cfg.notice(e->cfg.ctx, src, &n);
  return 1;
}

GASNETI_HOT
int amudp_item_deliver(amudp_engine_t *e, uint32_t src, amudp_rxitem_t *it) {
  switch (it->h.type) {
  case AMUDP_T_AGG: return amudp_frag_deliver_agg(e, src, it);
  case AMUDP_T_NOTE: return amudp_note_deliver(e, src, it);
  default: return amudp_frag_deliver(e, src, it);
  }
}

/* ---------------------------------------------------------------- the end */

void amudp_engine_fini(amudp_engine_t *e) {
  for (uint32_t r = 0; e->peers && r < e->cfg.nranks; r++) {
    amudp_rel_gone(e, &e->peers[r], 0, NULL);
    e->peers[r].gone = 1;
    amudp_frag_peer_free(&e->peers[r]);
  }
  amudp_borrow_done(e, amudp_borrow_take(e)); /* what was dropped unacknowledged */
  while (e->pkt_free) {
    amudp_pkt_t *pkt = e->pkt_free;
    e->pkt_free = pkt->next;
    free(pkt);
  }
  e->npkt_free = 0;
  amudp_msg_cache_free(e);
}
