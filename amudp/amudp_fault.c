/*
 * amudp_fault.c - built-in fault injection, and the one place datagrams
 * leave the process (amudp_xmit).
 *
 * GASNET_UDP_DROP, GASNET_UDP_DUP and GASNET_UDP_REORDER are probabilities
 * (0..1) applied to every outgoing datagram, data and control alike:
 * dropped, sent twice, or held back and sent after the next datagram (or
 * after AMUDP_REORDER_HOLD_NS if no other comes). GASNET_UDP_SEED fixes the
 * random sequence. All are read once, at open; with all three at 0 the cost
 * is one branch per datagram. GASNET_UDP_DROP_AGG=N (a test knob) loses the
 * first transmission of the first N aggregate datagrams, so a test can show
 * that every frame of a lost aggregate is recovered exactly once.
 */
#include "amudp_internal.h"
#include "gasneti_time.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AMUDP_REORDER_HOLD_NS 1000000ULL /* 1 ms */
#define AMUDP_EAGAIN_TRIES    100        /* 1 ms waits for socket buffer room */

void amudp_fault_init(gasnetc_transport_t *t) {
  amudp_fault_t *f = &t->fault;
  f->drop = amudp_env_num(t, "GASNET_UDP_DROP", 0, 0, 1);
  f->dup = amudp_env_num(t, "GASNET_UDP_DUP", 0, 0, 1);
  f->reorder = amudp_env_num(t, "GASNET_UDP_REORDER", 0, 0, 1);
  double seed = amudp_env_num(t, "GASNET_UDP_SEED", 0, 0, 1e18);
  uint64_t s = seed > 0 ? (uint64_t)seed
                        : ((uint64_t)getpid() << 32) ^ gasneti_now_ns() ^ t->cfg.myrank;
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

/* sendmsg() one datagram. A full socket buffer is waited out briefly; any
 * other failure is counted and treated as a loss (retransmission covers it). */
static void raw_send(gasnetc_transport_t *t, amudp_peer_t *p,
                     const struct iovec *iov, int iovcnt) {
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_name = &p->addr;
  mh.msg_namelen = p->addrlen;
  mh.msg_iov = (struct iovec *)iov;
  mh.msg_iovlen = (size_t)iovcnt;
  for (int tries = 0;;) {
    ssize_t n = sendmsg(t->fd, &mh, 0);
    if (n >= 0) {
      AMUDP_COUNT(t, datagrams_sent, 1);
      AMUDP_COUNT(t, bytes_sent, (uint64_t)n);
      return;
    }
    if (errno == EINTR) continue;
    if ((errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) &&
        tries++ < AMUDP_EAGAIN_TRIES) {
      struct pollfd pf = {t->fd, POLLOUT, 0};
      poll(&pf, 1, 1);
      continue;
    }
    AMUDP_COUNT(t, send_errors, 1);
    return;
  }
}

static void release_held(gasnetc_transport_t *t) {
  amudp_fault_t *f = &t->fault;
  struct iovec iov = {f->held, f->held_len};
  amudp_peer_t *p = f->held_peer;
  f->held_peer = NULL;
  raw_send(t, p, &iov, 1);
}

void amudp_xmit(gasnetc_transport_t *t, amudp_peer_t *p, const struct iovec *iov,
                int iovcnt) {
  amudp_fault_t *f = &t->fault;
  if (!f->active) {
    raw_send(t, p, iov, iovcnt);
    return;
  }
  if (f->drop > 0 && fault_rand(f) < f->drop) {
    AMUDP_COUNT(t, fault_dropped, 1);
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
    if (f->held_due_ns < t->next_deadline_ns) t->next_deadline_ns = f->held_due_ns;
    AMUDP_COUNT(t, fault_reordered, 1);
    return;
  }
  raw_send(t, p, iov, iovcnt);
  if (f->dup > 0 && fault_rand(f) < f->dup) {
    raw_send(t, p, iov, iovcnt);
    AMUDP_COUNT(t, fault_duplicated, 1);
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

int amudp_fault_drop_agg(gasnetc_transport_t *t, unsigned nframes) {
  if (!t->fault.drop_agg) return 0;
  t->fault.drop_agg--;
  AMUDP_COUNT(t, fault_agg_dropped, 1);
  AMUDP_COUNT(t, fault_agg_frames, nframes);
  return 1;
}
