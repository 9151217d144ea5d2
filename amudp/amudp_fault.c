/*
 * amudp_fault.c - the engine's output (amudp_port_ops: emit, batch_begin,
 * batch_end; amudp_engine.h), the one place datagrams leave the process:
 * batched by sendmmsg and GSO, with the built-in fault injection wrapped
 * around it (port_emit).
 *
 * GASNET_UDP_DROP, GASNET_UDP_DUP and GASNET_UDP_REORDER are probabilities
 * (0..1) applied to every outgoing datagram, data and control alike:
 * dropped, sent twice, or held back and sent after the next datagram (or
 * after AMUDP_REORDER_HOLD_NS if no other comes). GASNET_UDP_SEED fixes the
 * random sequence. All are read once, at open; with all three at 0 the cost
 * is one branch per datagram. GASNET_UDP_DROP_AGG=K (a test knob) loses the
 * first transmission of the first aggregate datagram carrying K frames or
 * more, so a test can show that every frame of a lost aggregate is
 * recovered exactly once.
 */
#include "amudp_port.h"
#include "gasneti_sys.h" /* the message path's system calls */
#include "gasneti_time.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AMUDP_REORDER_HOLD_NS 1000000ULL /* 1 ms */
#define AMUDP_EAGAIN_TRIES    100        /* 1 ms waits for socket buffer room */
#define AMUDP_GATHER_MAX      512        /* bytes: a datagram gathered for sendto() */

void amudp_fault_init(gasnetc_transport_t *t) {
  amudp_fault_t *f = &t->fault;
  f->drop = amudp_env_num(t, "GASNET_UDP_DROP", 0, 0, 1);
  f->dup = amudp_env_num(t, "GASNET_UDP_DUP", 0, 0, 1);
  f->reorder = amudp_env_num(t, "GASNET_UDP_REORDER", 0, 0, 1);
  double seed = amudp_env_num(t, "GASNET_UDP_SEED", 0, 0, 1e18);
  uint64_t s = seed > 0 ? (uint64_t)seed
                        : ((uint64_t)getpid() << 32) ^ gasneti_now_ns() ^ t->e.cfg.myrank;
  /* splitmix64 step so that small seeds still give a well-mixed state */
  s += 0x9e3779b97f4a7c15ULL;
  s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ULL;
  s = (s ^ (s >> 27)) * 0x94d049bb133111ebULL;
  f->rng = (s ^ (s >> 31)) | 1;
  f->drop_agg = (uint32_t)amudp_env_num(t, "GASNET_UDP_DROP_AGG", 0, 0, 1e9);
  f->active = f->drop > 0 || f->dup > 0 || f->reorder > 0;
  if (f->reorder > 0) f->held = malloc(AMUDP_MTU_MAX);
  if (!f->held) f->reorder = 0;
}

void amudp_fault_free(gasnetc_transport_t *t) {
  free(t->fault.held);
  t->fault.held = NULL;
}

static double fault_rand(amudp_fault_t *f) { /* xorshift64* in [0,1) */
  f->rng ^= f->rng >> 12;
  f->rng ^= f->rng << 25;
  f->rng ^= f->rng >> 27;
  return (double)((f->rng * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

/* Where a datagram goes: ACKs nobody waits on to the peer's ack socket (its
 * address with the ack port it advertised, amudp_connect), which it reads
 * lazily; everything else, and an ACK answering a datagram that asked for
 * it (AMUDP_F_ACKREQ), to its data socket, read at every poll. An answer
 * left on the ack socket kept a barrier's windows half full, so that every
 * later round asked too (0.16 standalone ACKs per message, 4 ranks). The
 * type byte and flags are the wire header's (amudp_wire.h). */
static const struct sockaddr_storage *dest_of(const amudp_peer_t *p, const struct iovec *iov) {
  const unsigned char *b = iov[0].iov_base;
  int lazy = iov[0].iov_len >= AMUDP_HDR_LEN && amudp_wire_peek_type(b) == AMUDP_T_ACK &&
             !(amudp_wire_peek_flags(b) & AMUDP_F_ACKREQ);
  return lazy ? &p->ack_addr : &p->addr;
}

/* The datagram as one buffer for sendto(): its only piece as it lies, or
 * its pieces copied into buf (AMUDP_GATHER_MAX bytes); NULL when it has
 * several and they are larger. */
static const void *flatten(unsigned char *buf, const struct iovec *iov, int iovcnt,
                           size_t *len) {
  *len = iov[0].iov_len;
  if (iovcnt == 1) return iov[0].iov_base;
  for (int i = 1; i < iovcnt; i++) *len += iov[i].iov_len;
  if (*len > AMUDP_GATHER_MAX) return NULL;
  for (size_t i = 0, off = 0; i < (size_t)iovcnt; off += iov[i++].iov_len)
    memcpy(buf + off, iov[i].iov_base, iov[i].iov_len);
  return buf;
}

/* Send one datagram. A full socket buffer is waited out briefly; any
 * other failure is counted and treated as a loss (retransmission covers it).
 * One in one piece (a Short or small Medium AM, an ACK) leaves by sendto()
 * as it lies, a small one in pieces is gathered on the stack first
 * (flatten): sendmsg() has the kernel read the msghdr, the iovec array and
 * every piece, each on a page of its own, and in a VM that empties the TLB
 * at each system call each is a page walk in the kernel (measured:
 * docs/rationale.md, "amudp/amudp_fault.c (raw_send_now)"). */
GASNETI_HOT
static void raw_send_now(gasnetc_transport_t *t, amudp_peer_t *p,
                         const struct iovec *iov, int iovcnt) {
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_name = (void *)dest_of(p, iov);
  mh.msg_namelen = p->addrlen;
  int fd = mh.msg_name == (void *)&p->addr ? amudp_peer_socket(t, p) : -1;
  if (fd >= 0) { /* connected to it (amudp.c, amudp_send_port) */
    mh.msg_name = NULL;
    mh.msg_namelen = 0;
  } else {
    fd = t->fd;
  }
  mh.msg_iov = (struct iovec *)iov;
  mh.msg_iovlen = (size_t)iovcnt;
  unsigned char buf[AMUDP_GATHER_MAX];
  size_t len;
  const void *flat = flatten(buf, iov, iovcnt, &len);
  for (int tries = 0, refused = 0;;) {
    ssize_t n = flat ? gasneti_sys_sendto(fd, flat, len, 0, mh.msg_name, mh.msg_namelen)
                     : gasneti_sys_sendmsg(fd, &mh, 0);
    AMUDP_COUNT(&t->e, sendmsg_calls, 1);
    if (n >= 0) {
      AMUDP_COUNT(&t->e, datagrams_sent, 1);
      AMUDP_COUNT(&t->e, bytes_sent, (uint64_t)n);
      return;
    }
    if (errno == EINTR) continue;
    /* A connected socket reports here the ICMP error an earlier datagram
     * drew: no socket at the peer (port unreachable: it has closed) or no
     * way to its host. This one was not sent: send it, as the data socket,
     * which hears of no ICMP error, would have, and leave the peer's fate
     * to retransmission and liveness. */
    if (fd != t->fd && !refused++ &&
        (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH ||
         errno == EHOSTDOWN)) {
      AMUDP_COUNT(&t->e, send_refused, 1);
      continue;
    }
    if ((errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) &&
        tries++ < AMUDP_EAGAIN_TRIES) {
      struct pollfd pf = {fd, POLLOUT, 0};
      poll(&pf, 1, 1);
      continue;
    }
    AMUDP_COUNT(&t->e, send_errors, 1);
    return;
  }
}

/* ---- send batches ----
 * Between amudp_tx_begin and amudp_tx_end (amudp_rel_pump: a burst of
 * fragments or aggregates) datagrams are queued, their iovecs pointing at
 * buffers that stay put until then (pkts in flight), and leave in one
 * sendmmsg(); a run of datagrams to one peer of one size (the last may be
 * shorter) leaves as one UDP_SEGMENT send the kernel cuts (GSO: one trip
 * down the stack for up to 64 datagrams). If the kernel refuses GSO, it is
 * turned off and the batch goes out datagram by datagram. */

GASNETI_HOT
static void amudp_tx_begin(gasnetc_transport_t *t) {
  if (t->txq) t->txq->open++;
}

static void tx_flush(gasnetc_transport_t *t) {
  amudp_txq_t *q = t->txq;
  int nout = 0, first[AMUDP_TX_BATCH + 1], cnt[AMUDP_TX_BATCH];
  for (int i = 0; i < q->n;) {
    int j = i + 1;
    size_t total = q->len[i];
    if (t->e.tun.gso)
      while (j < q->n && q->peer[j] == q->peer[i] && j - i < AMUDP_GSO_MAX_SEGS &&
             dest_of(q->peer[j], &q->iov[q->iov0[j]]) == dest_of(q->peer[i], &q->iov[q->iov0[i]]) &&
             q->len[j] <= q->len[i] && total + q->len[j] <= AMUDP_GSO_MAX_BYTES &&
             q->len[j - 1] == q->len[i]) {
        total += q->len[j];
        j++;
      }
    struct msghdr *mh = &q->out[nout].msg_hdr;
    memset(mh, 0, sizeof *mh);
    mh->msg_name = (void *)dest_of(q->peer[i], &q->iov[q->iov0[i]]);
    mh->msg_namelen = q->peer[i]->addrlen;
    mh->msg_iov = &q->iov[q->iov0[i]];
    mh->msg_iovlen = (size_t)((j < q->n ? q->iov0[j] : q->niov) - q->iov0[i]);
    if (j - i > 1) {
      memset(q->cmsg[nout], 0, sizeof q->cmsg[nout]);
      mh->msg_control = q->cmsg[nout];
      mh->msg_controllen = CMSG_SPACE(sizeof(uint16_t));
      struct cmsghdr *c = CMSG_FIRSTHDR(mh);
      c->cmsg_level = SOL_UDP;
      c->cmsg_type = UDP_SEGMENT;
      c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
      uint16_t seg = (uint16_t)q->len[i];
      memcpy(CMSG_DATA(c), &seg, sizeof seg);
    }
    first[nout] = i;
    cnt[nout++] = j - i;
    i = j;
  }
  first[nout] = q->n;
  int done = 0;
  while (done < nout) {
    int k = gasneti_sys_sendmmsg(t->fd, q->out + done, (unsigned)(nout - done), 0);
    AMUDP_COUNT(&t->e, sendmmsg_calls, 1);
    if (k > 0) {
      for (int m = done; m < done + k; m++) {
        AMUDP_COUNT(&t->e, datagrams_sent, (uint64_t)cnt[m]);
        AMUDP_COUNT(&t->e, bytes_sent, q->out[m].msg_len);
        if (cnt[m] > 1) {
          AMUDP_COUNT(&t->e, gso_sends, 1);
          AMUDP_COUNT(&t->e, gso_segments, (uint64_t)cnt[m]);
        }
      }
      done += k;
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    /* Not now (a full buffer), or the kernel refuses a GSO send: the rest
     * one datagram at a time, with raw_send_now's waiting and counting. */
    if (k < 0 && cnt[done] > 1 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS)
      t->e.tun.gso = 0;
    for (int d = first[done]; d < q->n; d++)
      raw_send_now(t, q->peer[d], &q->iov[q->iov0[d]],
                   (d + 1 < q->n ? q->iov0[d + 1] : q->niov) - q->iov0[d]);
    break;
  }
  q->n = q->niov = 0;
}

GASNETI_HOT
static void amudp_tx_end(gasnetc_transport_t *t) {
  amudp_txq_t *q = t->txq;
  if (!q || --q->open > 0) return;
  if (q->n == 1) { /* one datagram: sendmsg is the cheaper call */
    raw_send_now(t, q->peer[0], q->iov, q->niov);
    q->n = q->niov = 0;
  } else if (q->n) {
    tx_flush(t);
  }
}

GASNETI_HOT
static void raw_send(gasnetc_transport_t *t, amudp_peer_t *p,
                     const struct iovec *iov, int iovcnt) {
  amudp_txq_t *q = t->txq;
  if (!q || !q->open) {
    raw_send_now(t, p, iov, iovcnt);
    return;
  }
  if (q->n == AMUDP_TX_BATCH || q->niov + iovcnt > AMUDP_TX_IOV) {
    int open = q->open;
    q->open = 1;
    amudp_tx_end(t);
    q->open = open;
  }
  size_t len = 0;
  q->iov0[q->n] = q->niov;
  for (int i = 0; i < iovcnt; i++) {
    q->iov[q->niov++] = iov[i];
    len += iov[i].iov_len;
  }
  q->peer[q->n] = p;
  q->len[q->n++] = len;
}

static void release_held(gasnetc_transport_t *t) {
  amudp_fault_t *f = &t->fault;
  struct iovec iov = {f->held, f->held_len};
  amudp_peer_t *p = f->held_peer;
  f->held_peer = NULL;
  raw_send(t, p, &iov, 1);
  if (t->txq && t->txq->open) { /* f->held is reused by the next hold: send now */
    int open = t->txq->open;
    t->txq->open = 1;
    amudp_tx_end(t);
    t->txq->open = open;
  }
}

GASNETI_HOT
static void amudp_xmit(gasnetc_transport_t *t, amudp_peer_t *p, const struct iovec *iov,
                       int iovcnt) {
  amudp_fault_t *f = &t->fault;
  if (!f->active) {
    raw_send(t, p, iov, iovcnt);
    return;
  }
  if (f->drop > 0 && fault_rand(f) < f->drop) {
    AMUDP_COUNT(&t->e, fault_dropped, 1);
    return;
  }
  if (f->reorder > 0 && !f->held_peer && fault_rand(f) < f->reorder) {
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++) {
      memcpy(f->held + len, iov[i].iov_base, iov[i].iov_len);
      len += iov[i].iov_len;
    }
    f->held_len = len;
    f->held_peer = p;
    f->held_due_ns = gasneti_now_ns() + AMUDP_REORDER_HOLD_NS;
    if (f->held_due_ns < t->e.next_deadline_ns) t->e.next_deadline_ns = f->held_due_ns;
    AMUDP_COUNT(&t->e, fault_reordered, 1);
    return;
  }
  raw_send(t, p, iov, iovcnt);
  if (f->dup > 0 && fault_rand(f) < f->dup) {
    raw_send(t, p, iov, iovcnt);
    AMUDP_COUNT(&t->e, fault_duplicated, 1);
  }
  if (f->held_peer) release_held(t); /* goes out after a later datagram */
}

uint64_t amudp_fault_timers(gasnetc_transport_t *t, uint64_t now) {
  amudp_fault_t *f = &t->fault;
  if (!f->held_peer) return UINT64_MAX;
  if (now < f->held_due_ns) return f->held_due_ns;
  release_held(t);
  return UINT64_MAX;
}

/* GASNET_UDP_DROP_AGG: the first transmission (no AMUDP_F_RETX) of the
 * first aggregate of that many frames (its msg_id) or more is lost. */
static int amudp_fault_drop_agg(gasnetc_transport_t *t, const struct iovec *iov) {
  const unsigned char *b = iov[0].iov_base;
  if (!t->fault.drop_agg || amudp_wire_peek_type(b) != AMUDP_T_AGG ||
      (amudp_wire_peek_flags(b) & AMUDP_F_RETX))
    return 0;
  uint32_t nframes = amudp_wire_peek_msg_id(b);
  if (nframes < t->fault.drop_agg) return 0;
  t->fault.drop_agg = 0;
  AMUDP_COUNT(&t->e, fault_agg_dropped, 1);
  AMUDP_COUNT(&t->e, fault_agg_frames, nframes);
  return 1;
}

/* ---- the engine's output (amudp_engine.h: amudp_port_ops_t), ctx = t ---- */

GASNETI_HOT
static void port_emit(void *ctx, amudp_peer_t *p, const struct iovec *iov, int iovcnt) {
  gasnetc_transport_t *t = ctx;
  if (!amudp_fault_drop_agg(t, iov)) amudp_xmit(t, p, iov, iovcnt);
}

GASNETI_HOT
static void port_batch_begin(void *ctx) { amudp_tx_begin(ctx); }

GASNETI_HOT
static void port_batch_end(void *ctx) { amudp_tx_end(ctx); }

#if GASNETC_THREADS
static void port_unlock(void *ctx) { AMUDP_UNLOCK((gasnetc_transport_t *)ctx); }
static void port_lock(void *ctx) { AMUDP_LOCK((gasnetc_transport_t *)ctx); }
static void port_pause(void *ctx) {
  AMUDP_UNLOCK((gasnetc_transport_t *)ctx);
  sched_yield();
  AMUDP_LOCK((gasnetc_transport_t *)ctx);
}
#endif

const amudp_port_ops_t amudp_port_ops = {
  .emit = port_emit,
  .batch_begin = port_batch_begin,
  .batch_end = port_batch_end,
#if GASNETC_THREADS
  .unlock = port_unlock,
  .lock = port_lock,
  .pause = port_pause,
#endif
};
