/*
 * amudp_reliable.c - reliable delivery over UDP, per peer (part of the
 * engine, amudp_engine.h: its datagrams leave through e->out).
 *
 * Sending. Every DATA datagram gets the next sequence number of its peer
 * when it is first transmitted, and stays on the peer's in-flight list
 * (seq order) until acknowledged. A datagram that finds the window open
 * and nothing queued for its peer leaves at once (amudp_rel_send_now);
 * others wait in one of two queues until the window admits them
 * (amudp_rel_pump): replies first, up to `window` datagrams in flight;
 * requests only up to `credits` in flight, so the rest of the window is
 * always free for replies (a request handler's reply never waits behind
 * requests, and amudp_send never blocks a reply). The bytes in flight stay
 * within the congestion window too (amudp_cc.c: amudp_cc_window), which
 * acks grow and losses, timeouts and queueing delay cut.
 *
 * Acknowledging. Every datagram we send carries our cumulative ack (all
 * seq < ack received) and a 64-bit selective-ack bitmap for the 64 seqs
 * after it, so acks ride on replies for free. Otherwise a standalone ACK
 * goes out ack_delay after the datagram could first have been read (the end
 * of our previous receive phase) when its sender waits on it
 * (AMUDP_F_ACKREQ), else ack_idle after it arrived; or at once after
 * ack_every datagrams, a duplicate, a gap, or a PING; or, for an ack its
 * sender waits on, when we go to sleep (nothing we send while asleep could
 * carry it: amudp_rel_flush_acks). A sender allows ack_idle more before it
 * retransmits a datagram it did not ask to be acked promptly, while the
 * peer's acks come held (AMUDP_F_IDLE: holds_acks).
 *
 * Retransmitting (loss may be random, not only congestion: every step
 * works from whatever acks arrive, and a lost ack or retransmission costs
 * no timeout while later acks come). Each ack carries the whole receive
 * window (cumulative ack + 64 SACK bits = the largest window), so a lost ack
 * is made good by the next. A datagram in flight is lost, and resent at
 * once, when (RACK, RFC 8985) one transmitted at least a reordering window
 * (min RTT / 4) after it has been acknowledged, or, on its first
 * transmission, when 3 later seqs have been (fast retransmit): a lost
 * retransmission is found like a lost original, by the acks of what was
 * sent after it (rel_detect_losses). Each in-flight datagram also has a
 * deadline: its last transmission + the peer's RTO << backoff (capped at
 * rto_max) + a drain allowance for what is in flight ahead of it (per
 * datagram and per byte), and no earlier than that of the last datagram of
 * the same burst (they are read and acked together). When one expires (no
 * ack of anything sent after it: the tail of a burst was lost, or the peer
 * is stalled) only the oldest expired datagram is resent and the peer's
 * backoff doubles; the ack it draws shows what else is missing, resent then
 * by the rule above. The first expiry is a probe (congestion control takes
 * it as one loss); a second with no ack in between is a timeout
 * (amudp_cc_on_rto). Any ack of something new resets the backoff. RTO =
 * SRTT + 4 RTTVAR (RFC 6298), floored at rto_min, from RTT
 * samples of datagrams acked after exactly one transmission (Karn), or
 * after two when the ack says the peer had not acked the original yet
 * (AMUDP_F_LATE: timed from the first transmission), and only from acks
 * that did not ride on a retransmission (AMUDP_F_RETX: that ack waited for
 * the peer's own loss recovery, not for the network) nor answer one of
 * ours (AMUDP_F_ACKRETX: it covers what arrived while the acks before it
 * were lost, so it times the loss).
 *
 * Receiving. A 64-bit ring marks which seqs in (rcv_next, rcv_next+64) have
 * arrived; anything below rcv_next or already marked is a duplicate and is
 * dropped (counted) before any delivery, so each datagram is delivered once.
 *
 * Liveness (amudp_live.c). A peer silent for ping_interval (timeout/4) gets
 * a PING (answered by an ACK) and a probe of its liveness thread each
 * ping_interval; one that answered neither for the timeout is dead. Only
 * peers we owe data or exchanged data with in the last
 * AMUDP_ACTIVE_TIMEOUTS timeouts are probed, whether or not anything is
 * unacked, so a rank blocked waiting on a stopped peer still notices;
 * peers unused for longer cost nothing.
 */
#include "amudp_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline int seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }

static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* ---- pkt free list: the common case allocates nothing ---- */
#define AMUDP_PKT_FREE_MAX 1024

GASNETI_HOT
amudp_pkt_t *amudp_pkt_get(amudp_engine_t *e) {
  amudp_pkt_t *pkt = e->pkt_free;
  if (pkt) {
    e->pkt_free = pkt->next;
    e->npkt_free--;
  } else if (!(pkt = malloc(sizeof *pkt))) {
    return NULL;
  }
  pkt->next = pkt->prev = NULL;
  pkt->seq = 0; pkt->ntx = 0; pkt->is_req = 0; pkt->ackreq = 0; pkt->at_rto = 0;
  pkt->nagg = 0; pkt->agg = NULL;
  pkt->first_tx_ns = pkt->tx_ns = pkt->due_ns = 0;
  pkt->msg = NULL; pkt->data = NULL; pkt->datalen = 0;
  return pkt;
}

/* ---- payload buffers: reused, not malloc'd per frame ----
 * A large malloc is served by mmap (or by heap the allocator trimmed after
 * the last large free), so a fresh 1 MiB buffer costs 256 page faults and
 * zeroing: more than copying the payload into it, and it made back-to-back
 * large sends several times slower than one. Buffers come in power-of-two
 * classes and up to AMUDP_MSG_CACHE bytes of them are kept. */
_Static_assert((AMUDP_MSG_MIN << (AMUDP_MSG_CLASSES - 1)) == AMUDP_MAX_PAYLOAD,
               "the largest payload class holds a whole frame");

amudp_msg_t *amudp_msg_get(amudp_engine_t *e, size_t len) {
  unsigned cls = 0;
  while ((size_t)AMUDP_MSG_MIN << cls < len) cls++;
  amudp_msg_t *m = e->msg_free[cls];
  if (m) {
    e->msg_free[cls] = m->next;
    e->msg_cached -= (size_t)AMUDP_MSG_MIN << cls;
  } else if ((m = malloc(sizeof *m + ((size_t)AMUDP_MSG_MIN << cls)))) {
    m->cls = (uint8_t)cls;
    m->ext = NULL;
  }
  return m;
}

void amudp_msg_put(amudp_engine_t *e, amudp_msg_t *m) {
  if (m->ext) { /* borrowed: acknowledged, or dropped with its peer */
    e->borrowed--;
    m->next = e->borrow_done;
    __atomic_store_n(&e->borrow_done, m, __ATOMIC_RELEASE); /* amudp_borrow_owed peeks */
    return;
  }
  size_t cap = (size_t)AMUDP_MSG_MIN << m->cls;
  if (e->msg_cached + cap > AMUDP_MSG_CACHE) {
    free(m);
    return;
  }
  m->next = e->msg_free[m->cls];
  e->msg_free[m->cls] = m;
  e->msg_cached += cap;
}

/* A borrowed payload: the fragments point into the caller's memory, and
 * the caller hears through send_done when they all are acknowledged. A
 * retransmission reads it again, so it is not copied either. */
amudp_msg_t *amudp_msg_borrow(amudp_engine_t *e, const void *payload, void *cookie) {
  amudp_msg_t *m = malloc(sizeof *m);
  if (!m) return NULL;
  m->refs = 0;
  m->rc = 0;
  m->cookie = cookie;
  m->ext = payload;
  e->borrowed++;
  return m;
}

amudp_msg_t *amudp_borrow_take(amudp_engine_t *e) {
  amudp_msg_t *m = e->borrow_done;
  __atomic_store_n(&e->borrow_done, NULL, __ATOMIC_RELAXED);
  return m;
}

void amudp_borrow_done(amudp_engine_t *e, amudp_msg_t *m) {
  while (m) {
    amudp_msg_t *next = m->next;
    e->cfg.send_done(e->cfg.ctx, m->cookie, m->rc);
    free(m);
    m = next;
  }
}

void amudp_msg_cache_free(amudp_engine_t *e) {
  for (int c = 0; c < AMUDP_MSG_CLASSES; c++) {
    amudp_msg_t *m;
    while ((m = e->msg_free[c])) {
      e->msg_free[c] = m->next;
      free(m);
    }
  }
  e->msg_cached = 0;
}

GASNETI_HOT
void amudp_pkt_put(amudp_engine_t *e, amudp_pkt_t *pkt) {
  for (amudp_pkt_t *m = pkt->agg, *n; m; m = n) { /* an AGG container's frames */
    n = m->next;
    m->agg = NULL;
    amudp_pkt_put(e, m);
  }
  if (pkt->msg && --pkt->msg->refs == 0) amudp_msg_put(e, pkt->msg);
  if (e->npkt_free < AMUDP_PKT_FREE_MAX) {
    pkt->next = e->pkt_free;
    e->pkt_free = pkt;
    e->npkt_free++;
  } else {
    free(pkt);
  }
}

static void fifo_push(amudp_fifo_t *q, amudp_pkt_t *pkt) {
  pkt->next = NULL;
  if (q->tail) q->tail->next = pkt; else q->head = pkt;
  q->tail = pkt;
}

static amudp_pkt_t *fifo_pop(amudp_fifo_t *q) {
  amudp_pkt_t *pkt = q->head;
  if (pkt && !(q->head = pkt->next)) q->tail = NULL;
  return pkt;
}

static void flight_unlink(amudp_engine_t *e, amudp_peer_t *p, amudp_pkt_t *pkt) {
  e->nfl--;
  e->fl_bytes -= pkt->wirelen;
  p->fl_bytes -= pkt->wirelen;
  if (pkt->prev) pkt->prev->next = pkt->next; else p->fl_head = pkt->next;
  if (pkt->next) pkt->next->prev = pkt->prev; else p->fl_tail = pkt->prev;
}

void amudp_rel_peer_init(amudp_engine_t *e, amudp_peer_t *p, uint64_t now) {
  p->snd_nxt = e->tun.isn;
  p->rcv_next = e->tun.isn;
  p->ack_sent_next = e->tun.isn;
  p->rto_ns = e->tun.rto_init_ns;
  p->last_heard_ns = now;
  p->last_data_ns = now;
  p->ping_due_ns = now + e->tun.ping_ns;
}

/* Selective acks: bit i = seq rcv_next+1+i, i.e. ring bit (rcv_next+1+i)%64. */
static uint64_t sack_bits(const amudp_peer_t *p) {
  unsigned r = (p->rcv_next + 1) & 63;
  return r ? (p->rcv_ring >> r) | (p->rcv_ring << (64 - r)) : p->rcv_ring;
}

/* A peer's RTO. Until the peer has RTT samples of its own: the ensemble's
 * (all peers' samples together, RFC 2140 section 2.2) when that is longer
 * than rto_init. In a large job a rank exchanges only a few datagrams with
 * each peer, and on a crowded host the round trip is scheduling-bound (256
 * ranks on 2 cores: tens of ms): from a fixed 5 ms start, nearly every
 * first datagram to every peer would time out and be resent (tests/core
 * t-scale.sh). */
static uint64_t peer_rto(const amudp_engine_t *e, const amudp_peer_t *p) {
  if (p->srtt_ns || !e->ens_srtt_ns) return p->rto_ns;
  uint64_t ens = e->ens_srtt_ns + 4 * e->ens_rttvar_ns;
  return min_u64(ens > p->rto_ns ? ens : p->rto_ns, e->tun.rto_max_ns);
}

/* Doublings of the RTO at most while the peer was heard from within
 * rto_max. Its datagram lost again and again at random (the head of the
 * window, which nothing later can show lost once the window is full) is
 * resent each time after a timeout; with no cap, at 30% loss each way a
 * probe fails half the time and the expected wait of unbounded doubling
 * diverges (single puts stalled for seconds). One datagram per 8 RTOs
 * loads no network; a peer that went silent gets the full backoff. */
#define AMUDP_BACKOFF_HEARD 3

/* The peer's RTO, doubled per timeout since it last acked anything. */
static uint64_t rto_backed_off(const amudp_engine_t *e, const amudp_peer_t *p, uint64_t now) {
  unsigned b = p->backoff < 20 ? p->backoff : 20;
  if (b > AMUDP_BACKOFF_HEARD && now < p->last_heard_ns + e->tun.rto_max_ns) b = AMUDP_BACKOFF_HEARD;
  return min_u64(peer_rto(e, p) << b, e->tun.rto_max_ns);
}

/* The flags our ack for p carries: AMUDP_F_LATE, and AMUDP_F_IDLE when it
 * was held past the ack delay for datagrams that did not ask for it. */
static unsigned ack_flags(const amudp_engine_t *e, const amudp_peer_t *p, uint64_t now) {
  unsigned f = (p->ack_late ? AMUDP_F_LATE : 0) | (p->ack_retx ? AMUDP_F_ACKRETX : 0);
  if (p->ack_pending && p->ack_idle && now > p->ack_first_ns + e->tun.ack_delay_ns)
    f |= AMUDP_F_IDLE;
  return f;
}

/* Our ack for p is on its way (alone or riding on DATA). */
static void ack_sent(amudp_engine_t *e, amudp_peer_t *p) {
  if (p->ack_pending) e->acks_delayed--;
  if (p->ack_pending && p->ack_idle) e->acks_idle--;
  p->ack_idle = 0;
  p->ack_pending = 0;
  p->ack_now = 0;
  p->ack_req = 0;
  p->ack_late = 0;
  p->ack_retx = 0;
  p->ack_sent_next = p->rcv_next;
  p->ack_sent_sack = sack_bits(p);
}

/* RFC 6298 section 2: SRTT and RTTVAR from a new sample r. */
static void rtt_smooth(uint64_t *srtt, uint64_t *rttvar, uint64_t r) {
  if (!*srtt) {
    *srtt = r;
    *rttvar = r / 2;
  } else {
    uint64_t diff = *srtt > r ? *srtt - r : r - *srtt;
    *rttvar = (3 * *rttvar + diff) / 4;
    *srtt = (7 * *srtt + r) / 8;
  }
}

static void rtt_sample(amudp_engine_t *e, amudp_peer_t *p, uint64_t r) {
  rtt_smooth(&p->srtt_ns, &p->rttvar_ns, r);
  rtt_smooth(&e->ens_srtt_ns, &e->ens_rttvar_ns, r);
  if (!p->min_rtt_ns || r < p->min_rtt_ns) p->min_rtt_ns = r;
  uint64_t rto = p->srtt_ns + 4 * p->rttvar_ns;
  if (rto < e->tun.rto_min_ns) rto = e->tun.rto_min_ns;
  p->rto_ns = min_u64(rto, e->tun.rto_max_ns);
  AMUDP_COUNT(e, rtt_samples, 1);
}

static int agg_iov(amudp_pkt_t *m, struct iovec *iov, int n);

/* (Re)transmit one DATA datagram with our current ack for its peer. */
GASNETI_HOT
static void transmit(amudp_engine_t *e, amudp_peer_t *p, amudp_pkt_t *pkt,
                     uint64_t now) {
  amudp_wire_hdr_t h = pkt->h;
  h.seq = pkt->seq;
  h.ack = p->rcv_next;
  h.sack = sack_bits(p);
  if (pkt->ntx) h.flags |= AMUDP_F_RETX;
  if (pkt->at_rto) h.flags |= AMUDP_F_RTO;
  pkt->at_rto = 0;
  h.flags |= (uint16_t)ack_flags(e, p, now);
  /* Do we wait on this ack? A retransmission, a window half full or with
   * more queued behind it, or a closing endpoint does; a lone message does
   * not, and its peer may keep the ack until traffic back carries it. */
  uint32_t una = p->fl_head ? p->fl_head->seq : p->snd_nxt;
  int ackreq = pkt->ntx || e->closing || p->rep_q.head || p->req_q.head ||
               (p->snd_nxt - una) * 2 >= e->tun.credits;
  pkt->ackreq = (uint8_t)ackreq;
  if (ackreq) {
    h.flags |= AMUDP_F_ACKREQ;
    AMUDP_COUNT(e, ackreq_sent, 1);
  }
  amudp_wire_encode(pkt->buf, &h, &e->keys);
  struct iovec iov[1 + 3 * AMUDP_AGG_MAX_RECS];
  size_t head = AMUDP_HDR_LEN + h.hdrlen;
  int n = 1;
  iov[0].iov_base = pkt->buf;
  iov[0].iov_len = head + (pkt->msg ? 0 : pkt->datalen);
  if (pkt->msg && pkt->datalen) {
    iov[1].iov_base = (void *)pkt->data;
    iov[1].iov_len = pkt->datalen;
    n = 2;
  }
  for (amudp_pkt_t *m = pkt->agg; m; m = m->next) n = agg_iov(m, iov, n);
  e->out->emit(e->out_ctx, p, iov, n);
  if (!pkt->ntx) pkt->first_tx_ns = now;
  pkt->ntx++;
  pkt->tx_ns = now;
  /* + the time the receiver needs to drain what is in flight ahead of this
   * datagram (AMUDP_DRAIN_NS per datagram and 1 ns per byte, ~1 GB/s), so a
   * burst does not time out just for being queued behind itself. */
  uint32_t ahead = p->snd_nxt - (p->fl_head ? p->fl_head->seq : p->snd_nxt);
  pkt->due_ns = now + rto_backed_off(e, p, now) + p->fl_bytes + (uint64_t)ahead * AMUDP_DRAIN_NS;
  if (!ackreq && p->holds_acks) pkt->due_ns += p->ack_idle_ns; /* its ack may wait that long */
  e->next_deadline_ns = min_u64(e->next_deadline_ns, pkt->due_ns);
  ack_sent(e, p); /* it rode along */
  AMUDP_COUNT(e, data_sent, 1);
}

/* Out of request credits: the caller makes progress (acks return them)
 * and tries again. Replies are never refused, so handlers replying cannot
 * deadlock; their number is bounded by the requests peers may have in
 * flight (their credits). */
int amudp_rel_refuse(amudp_engine_t *e, amudp_peer_t *p, int is_reply) {
  if (is_reply || p->gone) return 0;
  /* Aggregating, small frames may queue beyond the credits (a bounded
   * number): they will leave together in the next datagrams the window
   * admits. Large frames' fragments still get the credits alone. */
  int out = p->nreq >= e->tun.credits &&
            !(e->tun.agg && p->nreq_q < AMUDP_AGG_QUEUE && p->reqq_bytes < AMUDP_AGG_QUEUE_BYTES &&
              e->queued < AMUDP_AGG_QUEUE_ALL);
  e->refused = (uint8_t)out; /* until a request is taken, we wait on acks */
  if (out) AMUDP_COUNT(e, send_blocked, 1);
  return out;
}

GASNETI_HOT
void amudp_rel_enqueue(amudp_engine_t *e, amudp_peer_t *p, amudp_pkt_t *pkt,
                       int is_reply) {
  (void)e;
  pkt->is_req = !is_reply;
  e->queued++;
  if (is_reply) {
    fifo_push(&p->rep_q, pkt);
  } else {
    fifo_push(&p->req_q, pkt);
    p->nreq++;
    p->nreq_q++;
    p->reqq_bytes += pkt->wirelen;
  }
}

static amudp_pkt_t *queue_pop(amudp_engine_t *e, amudp_peer_t *p, amudp_fifo_t *q) {
  amudp_pkt_t *pkt = fifo_pop(q);
  if (pkt) e->queued--;
  if (pkt && q == &p->req_q) {
    p->nreq_q--;
    p->reqq_bytes -= pkt->wirelen;
  }
  return pkt;
}

/* ---- aggregation ----
 * When the window admits a datagram and more than one small whole frame is
 * queued for the peer (in the same queue: replies never wait on request
 * credits), they leave together in one AGG datagram under one sequence
 * number, so loss, duplication and reordering are recovered per datagram
 * and each frame inside is delivered exactly once. Nothing waits to be
 * aggregated: a frame finding the window open leaves at once, alone; only
 * what queued while the window was full is combined. */

/* A frame that fits a record of an aggregate of at most `room` bytes. */
static size_t agg_rec_bytes(const amudp_pkt_t *pkt) {
  if (pkt->h.type != AMUDP_T_DATA || pkt->h.frag_off != 0 || pkt->datalen != pkt->h.msg_len)
    return (size_t)1 << 40; /* a fragment of a larger frame: fits no aggregate */
  return amudp_wire_rec_size(pkt->h.hdrlen, pkt->datalen);
}

/* Append member m's record (header, core header, payload, padding) to iov. */
static int agg_iov(amudp_pkt_t *m, struct iovec *iov, int n) {
  static const unsigned char zeros[16];
  size_t body = AMUDP_REC_LEN + m->h.hdrlen;
  iov[n].iov_base = m->buf + AMUDP_HDR_LEN - AMUDP_REC_LEN;
  iov[n++].iov_len = body + (m->msg ? 0 : m->datalen);
  if (m->msg && m->datalen) {
    iov[n].iov_base = (void *)m->data;
    iov[n++].iov_len = m->datalen;
  }
  size_t pad = amudp_wire_rec_size(m->h.hdrlen, m->datalen) - body - m->datalen;
  if (pad) {
    iov[n].iov_base = (void *)zeros;
    iov[n++].iov_len = pad;
  }
  return n;
}

/* Pop first's company from q into an AGG container of at most `room`
 * bytes; returns the container, or first alone when nothing joins it (or
 * no container can be had). */
static amudp_pkt_t *agg_build(amudp_engine_t *e, amudp_peer_t *p, amudp_fifo_t *q,
                              amudp_pkt_t *first, size_t room) {
  size_t bytes = AMUDP_HDR_LEN + agg_rec_bytes(first);
  if (!q->head || bytes > room || bytes + agg_rec_bytes(q->head) > room) return first;
  amudp_pkt_t *c = amudp_pkt_get(e);
  if (!c) return first;
  memset(&c->h, 0, sizeof c->h);
  c->h.type = AMUDP_T_AGG;
  c->h.src = e->cfg.myrank;
  c->h.dst = p->rank;
  c->h.flags = first->h.flags & AMUDP_F_REPLY;
  c->is_req = first->is_req;
  amudp_pkt_t *tail = NULL;
  for (amudp_pkt_t *m = first; m;) {
    amudp_wire_rec_t r = {(uint32_t)m->datalen, m->h.hdrlen, (uint16_t)(m->h.flags & AMUDP_F_REPLY),
                          m->h.msg_id};
    amudp_wire_rec_encode(m->buf + AMUDP_HDR_LEN - AMUDP_REC_LEN, &r);
    m->next = NULL;
    if (tail) tail->next = m; else c->agg = m;
    tail = m;
    c->nagg++;
    if (c->nagg >= AMUDP_AGG_MAX_RECS || !q->head || bytes + agg_rec_bytes(q->head) > room) break;
    bytes += agg_rec_bytes(q->head);
    m = queue_pop(e, p, q);
  }
  c->wirelen = bytes;
  c->h.msg_id = c->nagg;
  c->h.msg_len = (uint32_t)(bytes - AMUDP_HDR_LEN);
  if (c->is_req) p->nreq -= c->nagg - 1u; /* now one request datagram */
  AMUDP_COUNT(e, agg_sent, 1);
  AMUDP_COUNT(e, agg_frames, c->nagg);
  return c;
}

/* The bytes of one class that may be in flight to p: replies may fill the
 * whole window, requests only their share of it; either way no more than
 * the congestion window (amudp_cc.c). */
static size_t window_cap(const amudp_engine_t *e, const amudp_peer_t *p, int is_reply) {
  return amudp_cc_window(p, is_reply ? e->tun.window_bytes : e->tun.req_window_bytes);
}

/* Does the window admit a datagram of `wirelen` bytes of this class now?
 * Replies may fill the whole window (datagrams and bytes); requests only
 * `credits` datagrams and the same share of the bytes. An empty window
 * always admits one datagram, however large. */
static int window_admits(const amudp_engine_t *e, const amudp_peer_t *p, int is_reply,
                         size_t wirelen) {
  uint32_t una = p->fl_head ? p->fl_head->seq : p->snd_nxt;
  if (p->snd_nxt - una >= (is_reply ? e->tun.window : e->tun.credits)) return 0;
  return !p->fl_head || p->fl_bytes + wirelen <= window_cap(e, p, is_reply);
}

/* pkt takes the next seq and joins the in-flight list. */
static void flight_push(amudp_engine_t *e, amudp_peer_t *p, amudp_pkt_t *pkt, uint64_t now) {
  pkt->seq = p->snd_nxt++;
  pkt->next = NULL;
  pkt->prev = p->fl_tail;
  if (p->fl_tail) p->fl_tail->next = pkt; else p->fl_head = pkt;
  p->fl_tail = pkt;
  p->fl_bytes += pkt->wirelen;
  e->fl_bytes += pkt->wirelen;
  if (e->nfl++ == 0) e->fl_since_ns = now;
}

GASNETI_HOT
int amudp_rel_send_now(amudp_engine_t *e, amudp_peer_t *p, amudp_pkt_t *pkt,
                       int is_reply, uint64_t now) {
  if (p->gone || p->rep_q.head || p->req_q.head || !window_admits(e, p, is_reply, pkt->wirelen))
    return 0;
  pkt->is_req = !is_reply;
  if (!is_reply) p->nreq++;
  flight_push(e, p, pkt, now);
  transmit(e, p, pkt, now);
  return 1;
}

GASNETI_HOT
void amudp_rel_pump(amudp_engine_t *e, amudp_peer_t *p, uint64_t now) {
  if (p->gone || (!p->rep_q.head && !p->req_q.head)) return; /* an ack freed room, none wait */
  amudp_pkt_t *burst = NULL; /* first datagram sent by this call */
  e->out->batch_begin(e->out_ctx); /* the burst leaves in one sendmmsg() */
  for (;;) {
    amudp_fifo_t *q;
    if (p->rep_q.head && window_admits(e, p, 1, p->rep_q.head->wirelen))
      q = &p->rep_q;
    else if (p->req_q.head && window_admits(e, p, 0, p->req_q.head->wirelen))
      q = &p->req_q;
    else
      break;
    amudp_pkt_t *pkt = queue_pop(e, p, q);
    if (e->tun.agg && q->head) {
      size_t room = p->mtu < e->tun.agg_bytes ? p->mtu : e->tun.agg_bytes;
      size_t cap = window_cap(e, p, q == &p->rep_q);
      if (p->fl_head) { /* the bytes window still binds */
        size_t left = cap > p->fl_bytes ? cap - p->fl_bytes : 0;
        if (left < room) room = left;
      }
      pkt = agg_build(e, p, q, pkt, room);
    }
    flight_push(e, p, pkt, now);
    transmit(e, p, pkt, now);
    if (!burst) burst = pkt;
  }
  e->out->batch_end(e->out_ctx);
  /* Datagrams sent back to back are read and acked together (the receiver
   * acks once per batch it reads): none is due before the last of its burst,
   * whose drain allowance covers them all. */
  for (amudp_pkt_t *pkt = burst; pkt && pkt != p->fl_tail; pkt = pkt->next)
    if (pkt->due_ns < p->fl_tail->due_ns) pkt->due_ns = p->fl_tail->due_ns;
}

/* What one ack acknowledged (ack_scan). */
typedef struct ack_result {
  uint64_t newest_tx;    /* the latest transmission it times (Karn), or 0 */
  uint32_t high;         /* highest seq selectively acked */
  int sacked, progress, asked;
  size_t bytes;
} ack_result_t;

/* When the transmission of pkt that an ack just covered left, for RACK:
 * its last one, unless it was resent so recently that the ack must be for
 * an earlier copy (sooner than the least RTT: RFC 8985 section 6.2). */
static uint64_t acked_tx(const amudp_peer_t *p, const amudp_pkt_t *pkt, uint64_t now) {
  if (pkt->ntx == 1) return pkt->tx_ns;
  return now >= pkt->tx_ns + p->min_rtt_ns ? pkt->tx_ns : 0;
}

/* Was pkt transmitted before the latest transmission known to have arrived
 * (at the same time: a burst, then before it in seq)? */
static int rack_sent_before(const amudp_peer_t *p, const amudp_pkt_t *pkt) {
  return pkt->tx_ns < p->rack_tx_ns || (pkt->tx_ns == p->rack_tx_ns && seq_lt(pkt->seq, p->rack_seq));
}

/* An acked datagram whose transmission at `sent` (0: unknown) arrived. */
static void rack_advance(amudp_peer_t *p, const amudp_pkt_t *pkt, uint64_t sent, uint64_t now) {
  if (!sent || sent < p->rack_tx_ns || (sent == p->rack_tx_ns && !seq_lt(p->rack_seq, pkt->seq)))
    return;
  p->rack_tx_ns = sent;
  p->rack_seq = pkt->seq;
  p->rack_rtt_ns = now > sent ? now - sent : 0;
}

/* Unlink and free every datagram the ack (cumulative `ack`, `sack` bits
 * after it) covers; the peer's RACK time advances to the latest of them. */
static void ack_scan(amudp_engine_t *e, amudp_peer_t *p, uint32_t ack, uint64_t sack,
                     int late, uint64_t now, ack_result_t *res) {
  amudp_pkt_t *pkt = p->fl_head, *next;
  for (; pkt; pkt = next) {
    next = pkt->next;
    if (!seq_lt(pkt->seq, ack)) {
      uint32_t d = pkt->seq - ack - 1; /* pkt->seq == ack: d wraps, not acked */
      if (d >= AMUDP_SACK_BITS) {
        if (pkt->seq != ack) break;    /* beyond the bitmap: nothing more */
        continue;
      }
      if (!((sack >> d) & 1)) continue;
      res->sacked = 1;
      res->high = pkt->seq;
    }
    /* Karn, and AMUDP_F_LATE: see amudp_rel_on_ack */
    uint64_t sent = pkt->ntx == 1 ? pkt->tx_ns : late && pkt->ntx == 2 ? pkt->first_tx_ns : 0;
    if (sent > res->newest_tx) res->newest_tx = sent;
    rack_advance(p, pkt, acked_tx(p, pkt, now), now);
    if (late && pkt->ntx > 1) {
      AMUDP_COUNT(e, spurious_retx, 1);
      amudp_cc_on_late(e, p); /* the timeout was spurious: undo its cut */
    }
    res->progress = 1;
    res->asked |= pkt->ackreq;
    res->bytes += pkt->wirelen;
    flight_unlink(e, p, pkt);
    if (pkt->is_req) p->nreq--;
    amudp_pkt_put(e, pkt);
  }
}

/* RACK's reordering window: a datagram overtaken by less is not yet lost. */
static uint64_t reo_window(const amudp_engine_t *e, const amudp_peer_t *p) {
  return (p->min_rtt_ns ? p->min_rtt_ns : e->tun.rto_min_ns) / 4;
}

/* Resend every datagram in flight the acks show lost (RACK, RFC 8985
 * section 6.2): one sent before a datagram that arrived, and whose own ack
 * is overdue by the reordering window (it would have come as quickly);
 * until then its deadline waits for that (amudp_rel_timers calls this
 * again). Or, not yet resent, one 3 or more seqs below the highest just
 * sacked (`high`), at once. A resent datagram is timed anew: it is resent
 * again only when something sent after the resend arrives without it. */
static void rel_detect_losses(amudp_engine_t *e, amudp_peer_t *p, uint32_t high,
                              int sacked, uint64_t fresh_ns, uint64_t now) {
  uint64_t wait = p->rack_rtt_ns + reo_window(e, p);
  int resent = 0;
  for (amudp_pkt_t *pkt = p->fl_head; pkt; pkt = pkt->next) {
    int dup3 = sacked && pkt->ntx == 1 && seq_lt(pkt->seq, high) && high - pkt->seq >= 3;
    if (fresh_ns && pkt->tx_ns + fresh_ns <= now) dup3 = 1; /* see rel_ack_age */
    /* A first transmission neither rule takes is the RACK frontier: all
     * after it in the list left later (first transmissions in seq order,
     * resends later still), so none is lost either. */
    if (!dup3 && !rack_sent_before(p, pkt)) {
      if (pkt->ntx == 1) break;
      continue;
    }
    if (!dup3 && now < pkt->tx_ns + wait) {
      pkt->due_ns = min_u64(pkt->due_ns, pkt->tx_ns + wait);
      e->next_deadline_ns = min_u64(e->next_deadline_ns, pkt->due_ns);
      continue;
    }
    if (!resent++) e->out->batch_begin(e->out_ctx);
    amudp_cc_on_loss(e, p, pkt->seq);
    AMUDP_COUNT(e, fast_retransmits, 1);
    AMUDP_COUNT(e, retransmitted, 1);
    transmit(e, p, pkt, now);
  }
  if (resent) e->out->batch_end(e->out_ctx);
}

/* The peer resends a datagram at its timeout (AMUDP_F_RTO on what carries
 * this ack, read fresh, not late): it waited a whole RTO on us, for a reply
 * it misses, say, so its ack was written after anything of ours sent long
 * enough before had arrived: a datagram sent 2 SRTT + the reordering
 * window before that ack came and not covered by it is lost. This finds
 * the loss of a lone datagram (the reply whose request the peer resends)
 * without waiting for its own timeout, which a ping-pong's held acks make
 * long. Other acks say nothing of the kind: under a flood the peer acks
 * what it has read while more of ours waits, unread, in its socket queue
 * (far longer than 2 SRTT on a busy host); and a retransmission for any
 * other reason may have left before our datagram arrived, so taking its
 * ack so would make each spurious resend draw another from the peer, back
 * and forth. Returns that age, or 0: no such test. */
static uint64_t rel_ack_age(const amudp_engine_t *e, const amudp_peer_t *p, unsigned flags) {
  if (!(flags & AMUDP_F_RTO) || (flags & AMUDP_RX_LATE) || !p->srtt_ns) return 0;
  return 2 * p->srtt_ns + reo_window(e, p);
}

GASNETI_HOT
void amudp_rel_on_ack(amudp_engine_t *e, amudp_peer_t *p, uint32_t ack,
                      uint64_t sack, unsigned flags, uint64_t now) {
  if (!p->fl_head || p->gone) return;
  if (seq_lt(p->snd_nxt, ack)) return; /* acks what we never sent: stale or bogus */
  int late = (flags & AMUDP_F_LATE) != 0; /* it answers a spurious retransmission */
  int may_sample = !(flags & AMUDP_F_IDLE) && (late || !(flags & (AMUDP_F_RETX | AMUDP_F_ACKRETX)));
  /* Karn: time samples only from ntx == 1, unless the peer says its ack was
   * late (AMUDP_F_LATE) after one retransmission: that one was spurious and
   * the time since the first transmission is what an ack really took.
   * Without this, exactly the slow acks would never be sampled and the RTO
   * never learn them: each would cost a spurious retransmission again. (A
   * peer late through several backed-off timeouts was stalled, not slow:
   * backoff covers that, and one stall should not inflate the RTO.) */
  ack_result_t res = {0, 0, 0, 0, 0, 0};
  ack_scan(e, p, ack, sack, late, now, &res);
  /* An ack of datagrams that asked for it is prompt whatever the peer
   * would do with the others: only one that did not ask tells. */
  if (flags & AMUDP_F_IDLE) p->holds_acks = AMUDP_HOLDS_MEMORY;
  else if (res.progress && !res.asked && p->holds_acks) p->holds_acks--;
  if (may_sample && res.newest_tx && now > res.newest_tx) {
    rtt_sample(e, p, now - res.newest_tx);
    amudp_cc_on_rtt(e, p, now - res.newest_tx, now);
  }
  amudp_cc_on_ack(e, p, res.bytes);
  if (res.progress) {
    e->fl_since_ns = now;
    p->backoff = 0; /* the peer answers: no timeout stands */
  }
  rel_detect_losses(e, p, res.high, res.sacked, rel_ack_age(e, p, flags), now);
  amudp_rel_pump(e, p, now);
}

/* Did our last ack (cumulative or selective) cover seq? Then a duplicate
 * of it means that ack was lost, not that we were late to send it. */
static int ack_covered(const amudp_peer_t *p, uint32_t seq) {
  uint32_t d = seq - p->ack_sent_next - 1;
  return seq_lt(seq, p->ack_sent_next) || (d < 64 && ((p->ack_sent_sack >> d) & 1));
}

GASNETI_HOT
int amudp_rel_on_data(amudp_engine_t *e, amudp_peer_t *p, uint32_t seq,
                      unsigned flags, uint64_t now) {
  uint32_t d = seq - p->rcv_next;
  uint64_t bit = 1ULL << (seq & 63);
  /* An ack drawn by a retransmission also covers what arrived while the
   * acks before it were lost: it times our loss, not the network's RTT. */
  if (flags & AMUDP_F_RETX) p->ack_retx = 1;
  p->ack_again_ns = 0; /* more came: the ack it draws supersedes */
  if ((int32_t)d < 0 || (d > 0 && d < 64 && (p->rcv_ring & bit))) {
    AMUDP_COUNT(e, dup_dropped, 1);
    p->ack_retx = 1;
    p->ack_now = 1; /* our ack may have been lost: repeat it */
    /* Or it never left: we had not acked this seq yet (we were busy, or
     * the ack was delayed), so the sender timed out on us, not on the
     * network. Tell it, so its RTO learns how long our acks really take. */
    if (!ack_covered(p, seq)) p->ack_late = 1;
    return 0;
  }
  if (d >= 64) {
    AMUDP_COUNT(e, out_of_window, 1);
    p->ack_now = 1;
    return 0;
  }
  if (d == 0) {
    p->rcv_next++;
    while (p->rcv_ring & (1ULL << (p->rcv_next & 63))) {
      p->rcv_ring &= ~(1ULL << (p->rcv_next & 63));
      p->rcv_next++;
    }
  } else {
    p->rcv_ring |= bit;
    p->ack_now = 1; /* a gap: let the sender see it now */
  }
  /* The ack delay adapts to whether the sender waits on it. When it does
   * (AMUDP_F_ACKREQ), the delay counts from when the datagram could first
   * have been read, not from when we got round to it: after a long send or
   * compute burst the peer has been waiting already, so the ack goes out at
   * once (after this poll's deliveries, which may still carry it). When
   * nobody waits, the ack waits the idle delay (ack_idle, ~1 ms) from now
   * for traffic back to carry it, and is not flushed when we sleep: in a
   * dissemination barrier nothing goes back to the sender of a round, and
   * one ack per idle delay then covers many barriers. Such an ack says so
   * (AMUDP_F_IDLE): its receiver takes no RTT sample from it, and allows
   * the idle delay before it retransmits what it sends us next without
   * asking (holds_acks), until acks come back promptly again: a
   * ping-pong, whose replies carry the acks, still recovers a lost request
   * after one RTO; a barrier's rounds are not retransmitted spuriously. */
  int prompt = (flags & AMUDP_F_ACKREQ) != 0;
  uint64_t since = e->rx_last_ns && e->rx_last_ns < now ? e->rx_last_ns : now;
  if (p->ack_pending++ == 0) {
    e->acks_delayed++;
    p->ack_first_ns = now;
    p->ack_idle = !prompt;
    if (!prompt) e->acks_idle++;
    p->ack_due_ns = prompt ? since + e->tun.ack_delay_ns : now + e->tun.ack_idle_ns;
    e->next_deadline_ns = min_u64(e->next_deadline_ns, p->ack_due_ns);
  } else if (prompt && since + e->tun.ack_delay_ns < p->ack_due_ns) {
    p->ack_due_ns = since + e->tun.ack_delay_ns;
    e->next_deadline_ns = min_u64(e->next_deadline_ns, p->ack_due_ns);
  }
  if (prompt && p->ack_idle) {
    p->ack_idle = 0;
    e->acks_idle--;
  }
  if (prompt) p->ack_req = 1;
  if (p->ack_pending >= e->tun.ack_every) p->ack_now = 1;
  return 1;
}

/* Send p a bare header (h: its type and what the type carries), with our
 * current ack for p, which rides on it as on DATA. */
static void bare_send(amudp_engine_t *e, amudp_peer_t *p, amudp_wire_hdr_t *h, uint64_t now) {
  unsigned char buf[AMUDP_HDR_LEN];
  h->src = e->cfg.myrank;
  h->dst = p->rank;
  h->ack = p->rcv_next;
  h->sack = sack_bits(p);
  h->flags |= (uint16_t)ack_flags(e, p, now);
  amudp_wire_encode(buf, h, &e->keys);
  struct iovec iov = {buf, sizeof buf};
  e->out->emit(e->out_ctx, p, &iov, 1);
  ack_sent(e, p);
}

/* A notice (transport.h) is sent once. If it is lost, so is the ack it
 * carried, as a lost standalone ACK's: the peer's retransmission asks again. */
void amudp_rel_send_note(amudp_engine_t *e, amudp_peer_t *p, uint16_t kind,
                         const uint32_t *w, uint64_t now) {
  amudp_wire_hdr_t h;
  memset(&h, 0, sizeof h);
  h.type = AMUDP_T_NOTE;
  amudp_wire_note_put(&h, kind, w);
  bare_send(e, p, &h, now);
  AMUDP_COUNT(e, notices_sent, 1);
}

/* An ack its sender waits on that is lost leaves it waiting for a timeout
 * when nothing follows to draw another (the end of a burst its window
 * allows): such an ack goes again after the ack delay (or the least RTT, if
 * longer) if no more data has come from the peer by then (rel_ack_again).
 * Each ack carries the whole receive window, so the repeat is as good as
 * the original; its loss too costs the timeout. */
static void ack_again_arm(amudp_engine_t *e, amudp_peer_t *p, uint64_t now) {
  uint64_t wait = e->tun.ack_delay_ns > p->min_rtt_ns ? e->tun.ack_delay_ns : p->min_rtt_ns;
  p->ack_again_ns = now + (wait ? wait : 1);
  e->next_deadline_ns = min_u64(e->next_deadline_ns, p->ack_again_ns);
}

static void rel_ack_again(amudp_engine_t *e, amudp_peer_t *p, uint64_t now, uint64_t *next) {
  if (!p->ack_again_ns) return;
  if (now < p->ack_again_ns) {
    *next = min_u64(*next, p->ack_again_ns);
    return;
  }
  p->ack_again_ns = 0;
  amudp_wire_hdr_t h;
  memset(&h, 0, sizeof h);
  h.type = AMUDP_T_ACK;
  h.flags = AMUDP_F_ACKREQ; /* to the data socket, read at once */
  bare_send(e, p, &h, now);
  AMUDP_COUNT(e, acks_repeated, 1);
}

void amudp_rel_send_ctrl(amudp_engine_t *e, amudp_peer_t *p, int type, uint64_t now) {
  amudp_wire_hdr_t h;
  memset(&h, 0, sizeof h);
  h.type = (uint8_t)type;
  int waited = type == AMUDP_T_ACK && p->ack_req;
  if (waited) h.flags |= AMUDP_F_ACKREQ;
  bare_send(e, p, &h, now);
  if (waited) ack_again_arm(e, p, now);
  if (type == AMUDP_T_ACK) AMUDP_COUNT(e, acks_sent, 1);
  else if (type == AMUDP_T_PING) AMUDP_COUNT(e, pings_sent, 1);
  else if (type == AMUDP_T_BYE) AMUDP_COUNT(e, byes_sent, 1);
}

/* A datagram that will never be acknowledged: a borrowed payload it
 * carries is lost with the peer, and its send_done says so. */
static void drop(amudp_engine_t *e, amudp_pkt_t *pkt) {
  if (pkt->msg) pkt->msg->rc = -EPIPE;
  amudp_pkt_put(e, pkt);
}

void amudp_rel_gone(amudp_engine_t *e, amudp_peer_t *p, int dead, const char *why) {
  if (p->gone) return;
  p->gone = 1;
  ack_sent(e, p); /* it owes no more acks */
  if (dead) {
    p->dead = 1;
    p->dead_why = why;
    e->dead_unreported++;
    AMUDP_COUNT(e, peers_dead, 1);
  }
  amudp_pkt_t *pkt;
  while ((pkt = p->fl_head)) {
    flight_unlink(e, p, pkt);
    drop(e, pkt);
  }
  while ((pkt = queue_pop(e, p, &p->rep_q))) drop(e, pkt);
  while ((pkt = queue_pop(e, p, &p->req_q))) drop(e, pkt);
  p->nreq = 0;
  p->nreq_q = 0;
  p->reqq_bytes = 0;
  p->fl_bytes = 0;
}

int amudp_rel_unacked(amudp_engine_t *e) {
  for (uint32_t r = 0; e->peers && r < e->cfg.nranks; r++) {
    amudp_peer_t *p = &e->peers[r];
    if (!p->gone && (p->fl_head || p->rep_q.head || p->req_q.head)) return 1;
  }
  return 0;
}

void amudp_rel_flush_acks(amudp_engine_t *e, uint64_t now) {
  int all = e->closing != 0;
  for (uint32_t r = 0; e->acks_delayed > (all ? 0 : e->acks_idle) && r < e->cfg.nranks; r++) {
    amudp_peer_t *p = &e->peers[r];
    if (p->ack_pending && !p->gone && (all || !p->ack_idle)) amudp_rel_send_ctrl(e, p, AMUDP_T_ACK, now);
  }
}

/* A datagram's deadline passed with no ack of anything sent after it: the
 * tail of a burst was lost, or the peer is stalled. Like TCP, resend only
 * the oldest expired datagram and back off the peer's RTO, pushing the
 * others' deadlines past it: a stalled receiver costs one datagram per
 * (doubling) RTO, not a window's worth each time; a live one acks the
 * resend, and that ack shows what else to resend (rel_detect_losses). The
 * first expiry is a probe (RFC 8985's tail loss probe, at the RTO): one
 * loss to congestion control; another with no ack in between is a
 * timeout, which cuts the congestion window to its floor. */
static void rel_expire(amudp_engine_t *e, amudp_peer_t *p, amudp_pkt_t *old, uint64_t now) {
  AMUDP_COUNT(e, rto_expiries, 1);
  AMUDP_COUNT(e, retransmitted, 1);
  if (p->backoff < 20) p->backoff++;
  if (p->backoff == 1) amudp_cc_on_loss(e, p, old->seq);
  else amudp_cc_on_rto(e, p);
  old->at_rto = 1;
  uint64_t later = now + rto_backed_off(e, p, now);
  for (amudp_pkt_t *pkt = p->fl_head; pkt; pkt = pkt->next)
    if (pkt->due_ns < later) pkt->due_ns = later;
  transmit(e, p, old, now);
}

void amudp_rel_timers(amudp_engine_t *e, uint64_t now) {
  uint64_t next = now + e->tun.ping_ns;
  for (uint32_t r = 0; r < e->cfg.nranks; r++) {
    amudp_peer_t *p = &e->peers[r];
    if (r == e->cfg.myrank || p->gone) continue;
    /* 1. delayed acks */
    if (p->ack_pending) {
      if (now >= p->ack_due_ns) {
        if (!p->ack_req) AMUDP_COUNT(e, acks_lazy, 1);
        amudp_rel_send_ctrl(e, p, AMUDP_T_ACK, now);
      }
      else next = min_u64(next, p->ack_due_ns);
    }
    rel_ack_again(e, p, now, &next);
    /* 2. losses RACK waited out the reordering window for, then the
     * retransmission timeout (rel_expire) */
    if (p->fl_head) rel_detect_losses(e, p, 0, 0, 0, now);
    amudp_pkt_t *old = p->fl_head;
    while (old && now < old->due_ns) old = old->next;
    if (old) rel_expire(e, p, old, now);
    for (amudp_pkt_t *pkt = p->fl_head; pkt; pkt = pkt->next)
      next = min_u64(next, pkt->due_ns);
    /* 3. liveness: probe the silent, bury the dead (amudp_live.c) */
    amudp_live_timer(e, p, now, &next);
  }
  e->next_deadline_ns = next; /* the port lowers it for its own timers */
}
