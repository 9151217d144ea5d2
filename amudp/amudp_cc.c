/*
 * amudp_cc.c - congestion control: a congestion window per peer.
 *
 * Credits (amudp_reliable.c) keep a sender from overrunning its receiver;
 * the congestion window keeps several senders from overrunning the network
 * between them: many ranks sending to one through a switch port (incast)
 * would otherwise each fill their whole credit window into the port's
 * buffer, lose the bursts and retransmit them into the same full buffer.
 * A datagram may leave when the bytes in flight to its peer stay within
 * min(credit window, cwnd) (amudp_cc_window; an empty window still admits
 * one datagram, however large). The window, in bytes (RFC 5681 style, with
 * MSS = the peer's MTU):
 *
 *  - Starts at AMUDP_CC_INIT_MSS datagrams (RFC 6928's 10) in slow start:
 *    each ack grows it by the bytes it acked (doubling per round trip)
 *    while below ssthresh; above it, by one MSS per window acked (additive
 *    increase). It grows only when it limited the sender (half of it or
 *    more was in flight) and never past the credit window (more would
 *    never be used), and not within the round trip after a cut.
 *  - Loss (amudp_cc_on_loss): a datagram the acks show lost (RACK, fast
 *    retransmit, or the first expiry, a probe) while the queueing delay is
 *    above half the bound (our queue was building) halves the window
 *    (multiplicative decrease, ssthresh = the new window), once per window
 *    of data: losses among datagrams sent before the last cut are the same
 *    congestion event (NewReno's "recover" point). A loss without a queue
 *    is taken for random (TCP Veno's distinction: a lossy link, not a full
 *    buffer): the first of a round gives up one MSS, and growth goes on;
 *    at 20% random loss nearly every round has one, and halving each time
 *    kept the window at its floor. More than half of such a round lost is
 *    no longer random: it halves.
 *  - Timeout (a second expiry with no ack between): a harder cut, to the
 *    floor, with ssthresh at half the old window, so slow start climbs back
 *    quickly when it was only a burst (further timeouts of the same stall
 *    leave ssthresh alone). Undone when the peer's ack says the timeout was
 *    spurious (AMUDP_F_LATE:
 *    its ack was late, not lost; like Eifel, RFC 3522): a receiver that was
 *    busy says nothing about the network.
 *  - Delay (LEDBAT/Vegas-like, RFC 6817): queueing delay = smoothed RTT -
 *    the minimum RTT seen (the path with empty queues; kept over two
 *    epochs of AMUDP_CC_BASE_EPOCH_NS so it follows a changed path). When
 *    it exceeds the bound GASNET_UDP_CC_DELAY_US, the window shrinks by
 *    1/8, at most once per round trip; above half the bound it stops
 *    growing. So a switch or tbf queue levels off near the bound instead
 *    of filling to its limit and dropping.
 *  - Never below AMUDP_CC_FLOOR_MSS datagrams, so no sender starves: a
 *    peer cut to the floor still gets its share of the queue.
 *
 * Senders sharing a bottleneck see the same losses and the same queueing
 * delay and cut by the same factors, which drives their windows toward
 * equal shares (Chiu & Jain's AIMD argument).
 *
 * Peers on this host (loopback, or our own address) are not congestion
 * controlled by default: there is no network queue between them, and the
 * one queue there is, the receiver's socket buffer, is what the credit
 * window sizes (GASNET_UDP_CC=2 includes them, to measure its cost;
 * GASNET_UDP_CC=0 turns it off). Each cut has a counter (cc_cuts_loss,
 * cc_cuts_delay, cc_cuts_rto; cc_undos; cc_random_losses); amudp_cc_summary
 * gives the current windows. Part of the engine (amudp_engine.h), called with
 * the port's lock held, from amudp_reliable.c only (amudp_cc_init and
 * amudp_cc_summary from the port).
 */
#include "amudp_engine.h"


#define AMUDP_CC_INIT_MSS  10u  /* initial window, datagrams (RFC 6928) */
#define AMUDP_CC_FLOOR_MSS 4u   /* the window never goes below this, datagrams:
                                   a loss among 4 is seen by SACK (3 later
                                   ones, fast retransmit), not by a timeout */
#define AMUDP_CC_BASE_EPOCH_NS 10000000000ull /* base RTT = min over this and
                                   the previous 10 s: follows a path change */

static inline int seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }

static size_t cc_floor(const amudp_peer_t *p) { return (size_t)AMUDP_CC_FLOOR_MSS * p->mtu; }

/* The first seq not yet acked: the window's left edge. */
static uint32_t cc_una(const amudp_peer_t *p) { return p->fl_head ? p->fl_head->seq : p->snd_nxt; }

/* A cut is a new congestion event only once everything sent before the
 * last cut has been acked (one cut per window of data). */
static int cc_may_cut(const amudp_peer_t *p) { return !seq_lt(cc_una(p), p->cc.recover); }

static void cc_set(amudp_peer_t *p, size_t cwnd, size_t ssthresh) {
  size_t lo = cc_floor(p);
  p->cc.cwnd = cwnd < lo ? lo : cwnd;
  p->cc.ssthresh = ssthresh < lo ? lo : ssthresh;
  p->cc.acc = 0;
  p->cc.recover = p->snd_nxt;
}

void amudp_cc_init(amudp_engine_t *e, amudp_peer_t *p, int on_host) {
  p->cc.on = e->tun.cc == 2 || (e->tun.cc == 1 && !on_host);
  p->cc.cwnd = (size_t)AMUDP_CC_INIT_MSS * p->mtu;
  p->cc.ssthresh = SIZE_MAX;
  p->cc.acc = 0;
  p->cc.recover = p->snd_nxt;
  p->cc.rnd_begin = p->cc.rnd_end = p->snd_nxt;
  p->cc.rnd_lost = 0;
  p->cc.base_ns = p->cc.base_prev_ns = UINT64_MAX;
  p->cc.epoch_ns = 0;
}

GASNETI_HOT
void amudp_cc_on_rtt(amudp_engine_t *e, amudp_peer_t *p, uint64_t rtt, uint64_t now) {
  (void)e;
  if (!p->cc.on) return;
  if (now - p->cc.epoch_ns >= AMUDP_CC_BASE_EPOCH_NS) { /* a new epoch */
    p->cc.base_prev_ns = p->cc.base_ns;
    p->cc.base_ns = UINT64_MAX;
    p->cc.epoch_ns = now;
  }
  if (rtt < p->cc.base_ns) p->cc.base_ns = rtt;
}

/* Queueing delay now: SRTT over the least RTT of this and the last epoch. */
static uint64_t cc_qdelay(const amudp_peer_t *p) {
  uint64_t base = p->cc.base_ns < p->cc.base_prev_ns ? p->cc.base_ns : p->cc.base_prev_ns;
  return base != UINT64_MAX && p->srtt_ns > base ? p->srtt_ns - base : 0;
}

GASNETI_HOT
void amudp_cc_on_ack(amudp_engine_t *e, amudp_peer_t *p, size_t acked) {
  if (!p->cc.on || !acked) return;
  p->cc.undo_cwnd = 0; /* the timeout stands (amudp_cc_on_late came first if not) */
  uint64_t q = cc_qdelay(p), bound = e->tun.cc_delay_ns;
  if (q > bound && cc_may_cut(p)) {
    AMUDP_COUNT(e, cc_cuts_delay, 1);
    size_t w = p->cc.cwnd - p->cc.cwnd / 8;
    cc_set(p, w, w); /* and leave slow start */
    return;
  }
  size_t cap = e->tun.window_bytes;
  /* Grow only a window that limits the sender, not within a round trip of
   * a cut, not while the queue is building, not past the credit window. */
  if (p->fl_bytes + acked < p->cc.cwnd / 2 || !cc_may_cut(p) || q > bound / 2 ||
      p->cc.cwnd >= cap)
    return;
  if (p->cc.cwnd < p->cc.ssthresh) {
    p->cc.cwnd += acked;                      /* slow start */
  } else if ((p->cc.acc += acked) >= p->cc.cwnd) {
    p->cc.acc -= p->cc.cwnd;
    p->cc.cwnd += p->mtu;                     /* additive increase */
  }
  if (p->cc.cwnd > cap) p->cc.cwnd = cap;
}

static void cc_halve(amudp_engine_t *e, amudp_peer_t *p) {
  AMUDP_COUNT(e, cc_cuts_loss, 1);
  cc_set(p, p->cc.cwnd / 2, p->cc.cwnd / 2);
}

/* A loss that looked random (no queue): the first of a round starts the
 * round (the seqs sent by then) and gives up one MSS; more than half of the
 * round's datagrams lost is no longer random. */
static void cc_random_loss(amudp_engine_t *e, amudp_peer_t *p, uint32_t seq) {
  if (!seq_lt(seq, p->cc.rnd_end)) { /* a new round */
    AMUDP_COUNT(e, cc_random_losses, 1);
    p->cc.rnd_begin = p->cc.rnd_end;
    p->cc.rnd_end = p->snd_nxt;
    p->cc.rnd_lost = 0;
    size_t lo = cc_floor(p);
    p->cc.cwnd = p->cc.cwnd > lo + p->mtu ? p->cc.cwnd - p->mtu : lo;
  }
  if (seq_lt(seq, p->cc.rnd_begin)) return;
  uint32_t n = p->cc.rnd_end - p->cc.rnd_begin;
  if (++p->cc.rnd_lost >= AMUDP_CC_FLOOR_MSS && p->cc.rnd_lost * 2 > n) cc_halve(e, p);
}

void amudp_cc_on_loss(amudp_engine_t *e, amudp_peer_t *p, uint32_t seq) {
  if (!p->cc.on || seq_lt(seq, p->cc.recover)) return; /* same event as the last cut */
  if (cc_qdelay(p) > e->tun.cc_delay_ns / 2) cc_halve(e, p); /* our queue overflowed */
  else cc_random_loss(e, p, seq);
}

/* After amudp_rel_timers counted the timeout in p->backoff. */
void amudp_cc_on_rto(amudp_engine_t *e, amudp_peer_t *p) {
  if (!p->cc.on) return;
  AMUDP_COUNT(e, cc_cuts_rto, 1);
  if (p->backoff > 2) { /* the same stall again: ssthresh stays (RFC 5681 3.1) */
    cc_set(p, 0, p->cc.ssthresh);
    return;
  }
  p->cc.undo_cwnd = p->cc.cwnd; /* what an undo restores */
  p->cc.undo_ssthresh = p->cc.ssthresh;
  cc_set(p, 0, p->cc.cwnd / 2);
}

void amudp_cc_on_late(amudp_engine_t *e, amudp_peer_t *p) {
  if (!p->cc.on || !p->cc.undo_cwnd) return;
  AMUDP_COUNT(e, cc_undos, 1);
  if (p->cc.undo_cwnd > p->cc.cwnd) p->cc.cwnd = p->cc.undo_cwnd;
  if (p->cc.undo_ssthresh > p->cc.ssthresh) p->cc.ssthresh = p->cc.undo_ssthresh;
  p->cc.undo_cwnd = 0;
}

uint32_t amudp_cc_summary(const amudp_engine_t *e, size_t *lo, size_t *hi) {
  uint32_t n = 0;
  *lo = SIZE_MAX;
  *hi = 0;
  for (uint32_t r = 0; e->peers && r < e->cfg.nranks; r++) {
    const amudp_peer_t *p = &e->peers[r];
    if (!p->cc.on || p->gone || r == e->cfg.myrank) continue;
    n++;
    if (p->cc.cwnd < *lo) *lo = p->cc.cwnd;
    if (p->cc.cwnd > *hi) *hi = p->cc.cwnd;
  }
  if (!n) *lo = 0;
  return n;
}
