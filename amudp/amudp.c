/*
 * amudp.c - the UDP transport's ops table (amudp_ops): open/close,
 * address/connect, send, poll/wait and stats. The protocol itself is in
 * amudp_reliable.c (reliability), amudp_frag.c (fragments) and
 * amudp_wire.h (datagram format).
 *
 * One non-blocking UDP socket per rank. The hot path reads it directly
 * (recvfrom, or recvmmsg while datagrams keep coming) and writes it with
 * sendmsg() from an iovec; timers are a deadline checked on each poll. The
 * libuv loop (a uv_poll_t on the socket) is what a caller that wants to
 * sleep (wait) sleeps in, until the earliest protocol deadline.
 */
#include "amudp_internal.h"
#include "transport_addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "gasnett_internal.h" /* gasnett__envreport */

#define AMUDP_CLOSE_FLUSH_NS 2000000000ULL /* close waits at most 2 s for acks */
#define AMUDP_BYES         3   /* BYE is sent this many times: it is not acked */

uint64_t amudp_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- tunables */

static const char *amudp_getenv(gasnetc_transport_t *t, const char *name) {
  return t->cfg.getenv ? t->cfg.getenv(name) : getenv(name);
}

double amudp_env_num(gasnetc_transport_t *t, const char *name, double dflt,
                     double lo, double hi) {
  const char *s = amudp_getenv(t, name);
  char dtext[32];
  snprintf(dtext, sizeof dtext, "%g", dflt);
  gasnett__envreport(name, s, dtext); /* GASNET_VERBOSEENV */
  if (!s || !*s) return dflt;
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || !(v >= lo && v <= hi)) {
    if (t->cfg.myrank == 0)
      fprintf(stderr, "amudp: ignoring %s=%s (want a number in [%g, %g]); using %g\n",
              name, s, lo, hi, dflt);
    return dflt;
  }
  return v;
}

/* Every amudp tunable but the fault-injection ones (amudp_fault_init). */
static void amudp_tunables_read(gasnetc_transport_t *t) {
  amudp_tun_t *u = &t->tun;
  const char *mtu = amudp_getenv(t, "GASNET_UDP_MTU");
  u->mtu = (!mtu || !*mtu || !strcmp(mtu, "auto"))
               ? 0
               : (uint32_t)amudp_env_num(t, "GASNET_UDP_MTU", AMUDP_MTU_ETHERNET,
                                         AMUDP_MTU_MIN, AMUDP_MTU_MAX);
  double timeout = amudp_env_num(t, "GASNET_UDP_TIMEOUT", 30, 0.1, 86400);
  u->timeout_ns = (uint64_t)(timeout * 1e9);
  u->ping_ns = u->timeout_ns / (AMUDP_PROBES + 1);
  u->window = (uint32_t)amudp_env_num(t, "GASNET_UDP_WINDOW", 64, 4, AMUDP_SACK_BITS);
  u->credits = (uint32_t)amudp_env_num(t, "GASNET_UDP_CREDITS", u->window * 3 / 4, 1,
                                       u->window);
  u->ack_every = u->window / 4;
  u->isn = (uint32_t)amudp_env_num(t, "GASNET_UDP_ISN", 1, 0, 4294967295.0);
  u->window_bytes = (size_t)amudp_env_num(t, "GASNET_UDP_WINDOW_BYTES", 0, 0, 1 << 30);
  u->rto_min_ns = (uint64_t)(amudp_env_num(t, "GASNET_UDP_RTO_MIN_US", 50, 10, 1e7) * 1e3);
  u->rto_init_ns = (uint64_t)(amudp_env_num(t, "GASNET_UDP_RTO_INIT_MS", 5, 0.01, 1e5) * 1e6);
  u->rto_max_ns = (uint64_t)(amudp_env_num(t, "GASNET_UDP_RTO_MAX_MS", 1000, 1, 1e6) * 1e6);
  if (u->rto_init_ns < u->rto_min_ns) u->rto_init_ns = u->rto_min_ns;
  if (u->rto_max_ns < u->rto_init_ns) u->rto_max_ns = u->rto_init_ns;
  u->ack_delay_ns = (uint64_t)(amudp_env_num(t, "GASNET_UDP_ACK_DELAY_US", 50, 0, 1e6) * 1e3);
  u->sockbuf = (int)amudp_env_num(t, "GASNET_UDP_SOCKBUF", 4 << 20, 65536, 1 << 30);
  snprintf(t->dead_msg, sizeof t->dead_msg,
           "no answer for %g s: dead, stopped, or not polling", timeout);
}

/* ---------------------------------------------------------------- addresses */

static int sa_is_wildcard(const struct sockaddr_storage *ss) {
  if (ss->ss_family == AF_INET)
    return ((const struct sockaddr_in *)ss)->sin_addr.s_addr == htonl(INADDR_ANY);
  return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

static int sa_is_loopback(const struct sockaddr_storage *ss) {
  if (ss->ss_family == AF_INET)
    return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
  return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* Same family and IP (port ignored unless with_port). */
static int sa_equal(const struct sockaddr_storage *a, const struct sockaddr_storage *b,
                    int with_port) {
  if (a->ss_family != b->ss_family) return 0;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    return x->sin_addr.s_addr == y->sin_addr.s_addr &&
           (!with_port || x->sin_port == y->sin_port);
  }
  const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
  return !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr) &&
         (!with_port || x->sin6_port == y->sin6_port);
}

/* The blob is defined in core/transport_addr.h. */
static int amudp_address(gasnetc_transport_t *t, void *blob, size_t *len) {
  *len = gasnetc_addr_encode(&t->self, blob);
  return 0;
}

static int addr_decode(const unsigned char *b, amudp_peer_t *p) {
  return gasnetc_addr_decode(b, &p->addr, &p->addrlen);
}

/* ---------------------------------------------------------------- open/close */

static void amudp_close(gasnetc_transport_t *t);

static void amudp_sockbufs(gasnetc_transport_t *t) {
  int want = t->tun.sockbuf;
  socklen_t sl = sizeof(int);
  /* The FORCE variants pass rmem_max/wmem_max when we may (root). */
  if (setsockopt(t->fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof want) != 0)
    setsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof want);
  if (setsockopt(t->fd, SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof want) != 0)
    setsockopt(t->fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof want);
  getsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &t->rcvbuf_got, &sl);
  sl = sizeof(int);
  getsockopt(t->fd, SOL_SOCKET, SO_SNDBUF, &t->sndbuf_got, &sl);
  /* Linux reports twice the size asked (bookkeeping): less means capped. */
  if (t->cfg.myrank == 0 && (t->rcvbuf_got < want || t->sndbuf_got < want))
    fprintf(stderr, "amudp: asked %d-byte socket buffers, got receive %d, send %d "
            "(raise net.core.rmem_max/wmem_max for fewer drops under load)\n",
            want, t->rcvbuf_got / 2, t->sndbuf_got / 2);
}

static int amudp_open(gasnetc_transport_t **tp, const gasnetc_transport_config_t *cfg) {
  *tp = NULL;
  gasnetc_transport_t *t = calloc(1, sizeof *t);
  if (!t) {
    fprintf(stderr, "amudp: out of memory opening the endpoint\n");
    return -ENOMEM;
  }
  int rc = 0;
  t->fd = -1;
  t->cfg = *cfg;
  t->next_deadline_ns = UINT64_MAX;
#if GASNETC_THREADS
  pthread_mutex_init(&t->lock, NULL);
#endif
  if (cfg->nranks == 0 || cfg->myrank >= cfg->nranks || !cfg->deliver) {
    fprintf(stderr, "amudp: bad config (rank %u of %u, deliver %s)\n", cfg->myrank,
            cfg->nranks, cfg->deliver ? "set" : "NULL");
    rc = -EINVAL;
    goto fail;
  }
  amudp_wire_keys_init(&t->keys, cfg->job_key, GASNETC_KEY_LEN);
  t->keys.myrank = cfg->myrank;
  t->keys.nranks = cfg->nranks;
  t->keys.max_hdr = GASNETC_HDR_MAX;
  t->keys.max_payload = AMUDP_MAX_PAYLOAD;
  amudp_tunables_read(t);
  amudp_fault_init(t);

  struct sockaddr_storage ba;
  socklen_t balen;
  memset(&ba, 0, sizeof ba);
  if (cfg->bind_addr.ss_family == AF_INET || cfg->bind_addr.ss_family == AF_INET6) {
    memcpy(&ba, &cfg->bind_addr, sizeof ba);
  } else {
    struct sockaddr_in *s = (void *)&ba;
    s->sin_family = AF_INET;
    s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }
  if (ba.ss_family == AF_INET) {
    ((struct sockaddr_in *)&ba)->sin_port = 0;
    balen = sizeof(struct sockaddr_in);
  } else {
    ((struct sockaddr_in6 *)&ba)->sin6_port = 0;
    balen = sizeof(struct sockaddr_in6);
  }
  char name[INET6_ADDRSTRLEN] = "?";
  inet_ntop(ba.ss_family,
            ba.ss_family == AF_INET ? (void *)&((struct sockaddr_in *)&ba)->sin_addr
                                    : (void *)&((struct sockaddr_in6 *)&ba)->sin6_addr,
            name, sizeof name);
  t->fd = socket(ba.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (t->fd < 0 || bind(t->fd, (struct sockaddr *)&ba, balen) != 0) {
    rc = -errno;
    fprintf(stderr, "amudp: cannot bind a UDP socket to %s: %s\n", name, strerror(errno));
    goto fail;
  }
  t->selflen = sizeof t->self;
  if (getsockname(t->fd, (struct sockaddr *)&t->self, &t->selflen) != 0) {
    rc = -errno;
    fprintf(stderr, "amudp: getsockname: %s\n", strerror(errno));
    goto fail;
  }
  if (sa_is_wildcard(&t->self)) { /* advertise something peers can reach */
    if (t->self.ss_family == AF_INET)
      ((struct sockaddr_in *)&t->self)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    else
      ((struct sockaddr_in6 *)&t->self)->sin6_addr = in6addr_loopback;
  }
  amudp_sockbufs(t);

  if ((rc = uv_loop_init(&t->loop)) != 0) goto uv_fail;
  t->uv_loop_ok = 1;
  if ((rc = uv_poll_init(&t->loop, &t->uvpoll, t->fd)) != 0) goto uv_fail;
  t->uv_poll_ok = 1;
  *tp = t;
  return 0;
uv_fail:
  fprintf(stderr, "amudp: libuv: %s\n", uv_strerror(rc));
fail:
  amudp_close(t);
  return rc < 0 ? rc : -EIO;
}

/* The loop only wakes us: reading happens in amudp_progress. */
static void amudp_uv_poll_cb(uv_poll_t *h, int status, int events) {
  (void)h; (void)status; (void)events;
}

static int amudp_connect(gasnetc_transport_t *t, const void *blobs, size_t stride) {
  if (t->connected) return -EALREADY;
  if (!(t->peers = calloc(t->cfg.nranks, sizeof *t->peers))) {
    fprintf(stderr, "amudp: out of memory for %u peers\n", t->cfg.nranks);
    return -ENOMEM;
  }
  uint64_t now = amudp_now_ns();
  for (uint32_t r = 0; r < t->cfg.nranks; r++) {
    amudp_peer_t *p = &t->peers[r];
    p->rank = r;
    if (r == t->cfg.myrank) {
      p->gone = 1; /* the core handles loopback */
      continue;
    }
    if (addr_decode((const unsigned char *)blobs + (size_t)r * stride, p) != 0) {
      fprintf(stderr, "amudp: rank %u's address blob is not a UDP address\n", r);
      free(t->peers);
      t->peers = NULL;
      return -EINVAL;
    }
    p->mtu = t->tun.mtu ? t->tun.mtu
             : (sa_is_loopback(&p->addr) || sa_equal(&p->addr, &t->self, 0))
                 ? AMUDP_MTU_LOOPBACK
                 : AMUDP_MTU_ETHERNET;
    amudp_rel_peer_init(t, p, now);
  }
  if (!t->tun.window_bytes) {
    /* Auto: all peers together may fill about half our receive buffer (the
     * kernel reports twice what it accounts as data), which the peers'
     * buffers are assumed to match, so a flood from everyone is not dropped;
     * but never under AMUDP_WINDOW_BYTES_MIN, so that one pair in a large job
     * still streams (an all-to-all flood there is left to retransmission). */
    size_t rb = t->rcvbuf_got > 0 ? (size_t)t->rcvbuf_got / 2 : (size_t)t->tun.sockbuf;
    t->tun.window_bytes = t->cfg.nranks > 1 ? rb / (t->cfg.nranks - 1) : rb;
    if (t->tun.window_bytes < AMUDP_WINDOW_BYTES_MIN) t->tun.window_bytes = AMUDP_WINDOW_BYTES_MIN;
  }
  if (t->tun.window_bytes > (size_t)4 << 20) t->tun.window_bytes = (size_t)4 << 20;
  t->next_deadline_ns = now + t->tun.ping_ns;
  /* One pass of the loop puts the socket into its epoll set, which is what
   * amudp_sleep waits on from now on. */
  if (uv_poll_start(&t->uvpoll, UV_READABLE, amudp_uv_poll_cb) == 0 &&
      uv_run(&t->loop, UV_RUN_NOWAIT) >= 0)
    t->uv_poll_on = 1;
  t->connected = 1;
  return 0;
}

static size_t amudp_max_payload(gasnetc_transport_t *t) {
  (void)t;
  return AMUDP_MAX_PAYLOAD;
}

/* ---------------------------------------------------------------- receiving */

static const int amudp_bad_counter[] = {
  [AMUDP_BAD_SHORT] = AMUDP_C_bad_short,   [AMUDP_BAD_MAGIC] = AMUDP_C_bad_magic,
  [AMUDP_BAD_TAG] = AMUDP_C_bad_tag,       [AMUDP_BAD_MAC] = AMUDP_C_bad_mac,
  [AMUDP_BAD_TYPE] = AMUDP_C_bad_type,     [AMUDP_BAD_RANK] = AMUDP_C_bad_rank,
  [AMUDP_BAD_LENGTH] = AMUDP_C_bad_length,
};

static amudp_rxbatch_t *rx_batch_get(gasnetc_transport_t *t) { /* lock held */
  amudp_rxbatch_t *b = t->rx_free;
  if (b) {
    t->rx_free = b->next;
    return b;
  }
  if (!(b = calloc(1, sizeof *b))) return NULL;
  if (!(b->buf = malloc((size_t)AMUDP_RX_BATCH * AMUDP_RXBUF))) {
    free(b);
    return NULL;
  }
  for (int i = 0; i < AMUDP_RX_BATCH; i++) {
    b->iov[i].iov_base = b->buf + (size_t)i * AMUDP_RXBUF;
    b->iov[i].iov_len = AMUDP_RXBUF;
    b->msgs[i].msg_hdr.msg_iov = &b->iov[i];
    b->msgs[i].msg_hdr.msg_iovlen = 1;
    b->msgs[i].msg_hdr.msg_name = &b->from[i];
  }
  return b;
}

/* Check one datagram and run its protocol part (acks, seq). Returns -1 if
 * it was dropped, 0 if it was good but carries nothing to deliver, 1 when it
 * carries frame bytes to deliver, filled into *it. Lock held. */
static int rx_datagram(gasnetc_transport_t *t, amudp_rxbatch_t *b, int i, uint64_t now,
                       amudp_rxitem_t *it) {
  struct msghdr *mh = &b->msgs[i].msg_hdr;
  size_t len = b->msgs[i].msg_len;
  unsigned char *buf = b->iov[i].iov_base;
  AMUDP_COUNT(t, datagrams_received, 1);
  AMUDP_COUNT(t, bytes_received, len);
  amudp_bad_t why = (mh->msg_flags & MSG_TRUNC) ? AMUDP_BAD_SHORT
                                                 : amudp_wire_decode(buf, len, &it->h, &t->keys);
  if (why != AMUDP_BAD_NONE) {
    t->ctr[amudp_bad_counter[why]]++;
    AMUDP_COUNT(t, bad_datagrams, 1);
    return -1;
  }
  amudp_peer_t *p = &t->peers[it->h.src];
  if (!sa_equal(&b->from[i], &p->addr, 1)) { /* right key, wrong sender address */
    AMUDP_COUNT(t, bad_addr, 1);
    AMUDP_COUNT(t, bad_datagrams, 1);
    return -1;
  }
  if (p->gone) {
    AMUDP_COUNT(t, from_gone_peer, 1);
    return -1;
  }
  p->last_heard_ns = now;
  p->probes = 0;
  amudp_rel_on_ack(t, p, it->h.ack, it->h.sack, it->h.flags, now);
  switch (it->h.type) {
  case AMUDP_T_DATA:
    p->last_data_ns = now;
    if (!amudp_rel_on_data(t, p, it->h.seq, now)) return 0;
    it->hdr = buf + AMUDP_HDR_LEN;
    it->data = buf + AMUDP_HDR_LEN + it->h.hdrlen;
    it->len = len - AMUDP_HDR_LEN - it->h.hdrlen;
    return 1;
  case AMUDP_T_PING:
    p->ack_now = 1;
    return 0;
  case AMUDP_T_BYE:
    amudp_rel_gone(t, p, 0, NULL);
    return 0;
  default: /* AMUDP_T_ACK: all done above */
    return 0;
  }
}

/* One receive pass: read, check, ack, then deliver with the lock released.
 * Returns the number of datagrams read; adds frames delivered to *delivered. */
static int rx_once(gasnetc_transport_t *t, int *delivered) {
  AMUDP_LOCK(t);
  amudp_rxbatch_t *b = rx_batch_get(t);
  int streaming = t->rx_hits >= 2;
  AMUDP_UNLOCK(t);
  if (!b) return 0;
  for (int i = 0; i < AMUDP_RX_BATCH; i++) {
    b->msgs[i].msg_hdr.msg_namelen = sizeof b->from[i];
    b->msgs[i].msg_hdr.msg_flags = 0;
  }
  /* recvfrom() is the cheapest call when datagrams come one at a time (a
   * ping-pong); once consecutive polls keep finding data, recvmmsg() takes
   * up to AMUDP_RX_BATCH per call. */
  int m;
  do {
    if (streaming) {
      m = recvmmsg(t->fd, b->msgs, AMUDP_RX_BATCH, MSG_DONTWAIT, NULL);
    } else {
      struct msghdr *mh = &b->msgs[0].msg_hdr;
      ssize_t k = recvfrom(t->fd, b->iov[0].iov_base, AMUDP_RXBUF, MSG_DONTWAIT | MSG_TRUNC,
                           (struct sockaddr *)mh->msg_name, &mh->msg_namelen);
      m = k < 0 ? -1 : 1;
      if (k > (ssize_t)AMUDP_RXBUF) mh->msg_flags = MSG_TRUNC; /* k is the real length */
      if (k >= 0) b->msgs[0].msg_len = (unsigned)(k > (ssize_t)AMUDP_RXBUF ? AMUDP_RXBUF : k);
    }
  } while (m < 0 && errno == EINTR);
  if (m < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
    AMUDP_LOCK(t);
    AMUDP_COUNT(t, recv_errors, 1);
    AMUDP_UNLOCK(t);
  }
  int nitem = 0, n = 0, nseen = 0;
  uint32_t src[AMUDP_RX_BATCH], seen[AMUDP_RX_BATCH];
  if (m > 0) {
    uint64_t now = amudp_now_ns();
    AMUDP_LOCK(t);
    for (int i = 0; i < m; i++) {
      amudp_rxitem_t *it = &b->items[nitem];
      int r = rx_datagram(t, b, i, now, it);
      if (r >= 0) seen[nseen++] = it->h.src;
      if (r > 0) src[nitem++] = it->h.src;
    }
    /* Acks owed at once (duplicates, gaps, pings, ack_every): one per peer. */
    for (int i = 0; i < nseen; i++) {
      amudp_peer_t *p = &t->peers[seen[i]];
      if (p->ack_now && !p->gone) amudp_rel_send_ctrl(t, p, AMUDP_T_ACK);
    }
    if (t->closing) { /* acked above, so peers can finish; not delivered */
      AMUDP_COUNT(t, discarded_closing, (uint64_t)nitem);
      nitem = 0;
    }
    AMUDP_UNLOCK(t);
    for (int k = 0; k < nitem; k++) n += amudp_frag_deliver(t, src[k], &b->items[k]);
  }
  AMUDP_LOCK(t);
  t->rx_hits = m > 0 ? t->rx_hits + 1 : 0;
  AMUDP_COUNT(t, frames_delivered, (uint64_t)n);
  b->next = t->rx_free;
  t->rx_free = b;
  AMUDP_UNLOCK(t);
  *delivered += n;
  return m > 0 ? m : 0;
}

static void report_dead(gasnetc_transport_t *t) {
  for (;;) {
    amudp_peer_t *p = NULL;
    AMUDP_LOCK(t);
    if (t->dead_unreported) {
      for (uint32_t r = 0; r < t->cfg.nranks; r++) {
        if (t->peers[r].dead && !t->peers[r].dead_reported) {
          p = &t->peers[r];
          p->dead_reported = 1;
          t->dead_unreported--;
          break;
        }
      }
    }
    AMUDP_UNLOCK(t);
    if (!p) return;
    if (t->cfg.peer_dead) t->cfg.peer_dead(t->cfg.ctx, p->rank, p->dead_why);
  }
}

/* The progress engine, in phases: (1) read and deliver, at most
 * AMUDP_RX_ROUNDS batches so a flood cannot starve the caller; (2) timers
 * (retransmit, delayed acks, pings, death) if the earliest is due;
 * (3) tell the core about dead peers. */
static int amudp_progress(gasnetc_transport_t *t) {
  if (!t->connected) return 0;
  int delivered = 0;
  for (int round = 0; round < AMUDP_RX_ROUNDS; round++)
    if (rx_once(t, &delivered) < AMUDP_RX_BATCH) break;
  uint64_t now = amudp_now_ns();
  AMUDP_LOCK(t);
  t->rx_last_ns = now;
  if (now >= t->next_deadline_ns) amudp_rel_timers(t, now);
  int dead = t->dead_unreported != 0 && !t->closing;
  AMUDP_UNLOCK(t);
  if (dead) report_dead(t);
  return delivered;
}

static int amudp_poll(gasnetc_transport_t *t) { return amudp_progress(t); }


/* Sleep until the socket is readable, the earliest protocol deadline, or
 * timeout_ms (-1: none).
 * - Delayed acks go out first: nothing we send while asleep could carry
 *   them, and a timer that wakes us only to ack costs a context switch,
 *   dear on a host with more ranks than cores.
 * - The deadline is kept to the microsecond (RTOs and acks fall due tens of
 *   us ahead, below the 1 ms tick of libuv's timers, and spinning through
 *   them steals the core from the ranks we wait for), so the sleep is a
 *   ppoll() on the loop's epoll fd rather than a uv_run with a timer. Any
 *   number of threads may sleep there at once (PAR). */
static void amudp_sleep(gasnetc_transport_t *t, int timeout_ms) {
  AMUDP_LOCK(t);
  amudp_rel_flush_acks(t);
  uint64_t dl = t->next_deadline_ns;
  AMUDP_UNLOCK(t);
  uint64_t now = amudp_now_ns();
  if (dl <= now || !t->uv_poll_on) return;
  uint64_t ns = dl - now;
  if (timeout_ms >= 0 && (uint64_t)timeout_ms * 1000000ULL < ns) ns = (uint64_t)timeout_ms * 1000000ULL;
  struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };
  struct pollfd pf = { uv_backend_fd(&t->loop), POLLIN, 0 };
  ppoll(&pf, 1, &ts, NULL);
  AMUDP_LOCK(t);
  t->rx_last_ns = amudp_now_ns(); /* we were watching the socket until now */
  AMUDP_UNLOCK(t);
}

static int amudp_wait(gasnetc_transport_t *t, int timeout_ms) {
  if (!t->connected) return 0;
  if (timeout_ms != 0) amudp_sleep(t, timeout_ms);
  return amudp_progress(t);
}

/* ---------------------------------------------------------------- sending */

static int amudp_send(gasnetc_transport_t *t, uint32_t dest, const void *hdr,
                      size_t hdrlen, const void *payload, size_t paylen, unsigned flags) {
  if (!t->connected || dest >= t->cfg.nranks || dest == t->cfg.myrank) return -EINVAL;
  if (hdrlen > GASNETC_HDR_MAX || paylen > AMUDP_MAX_PAYLOAD) return -EMSGSIZE;
  amudp_peer_t *p = &t->peers[dest];
  int is_reply = (flags & GASNETC_SEND_REPLY) != 0;
  AMUDP_LOCK(t);
  if (!is_reply && p->nreq >= t->tun.credits && !p->gone) {
    /* Out of credits: make progress (delivering, acking) until some return.
     * Replies never wait here, so handlers replying cannot deadlock. */
    AMUDP_COUNT(t, send_blocked, 1);
    do {
      AMUDP_UNLOCK(t);
      amudp_wait(t, 1);
      AMUDP_LOCK(t);
    } while (p->nreq >= t->tun.credits && !p->gone);
  }
  int rc = p->gone ? -EPIPE
                   : amudp_frag_send(t, p, hdr, hdrlen, payload, paylen, is_reply,
                                     amudp_now_ns());
  AMUDP_UNLOCK(t);
  return rc;
}

/* ---------------------------------------------------------------- stats, close */

static void amudp_stats(gasnetc_transport_t *t, FILE *out) {
  static const char *const names[] = {
#define AMUDP_X_NAME(name) #name,
    AMUDP_COUNTERS(AMUDP_X_NAME)
#undef AMUDP_X_NAME
  };
  uint64_t c[AMUDP_NCOUNTERS];
  AMUDP_LOCK(t);
  memcpy(c, t->ctr, sizeof c);
  AMUDP_UNLOCK(t);
  for (int i = 0; i < AMUDP_NCOUNTERS; i++)
    fprintf(out, "udp_%s %llu\n", names[i], (unsigned long long)c[i]);
  fprintf(out, "udp_sockbuf_rcv %d\nudp_sockbuf_snd %d\n", t->rcvbuf_got, t->sndbuf_got);
}

static void amudp_close(gasnetc_transport_t *t) {
  if (!t) return;
  if (t->connected) {
    /* Flush: keep acking and retransmitting until our data is acked. No
     * callbacks from here on: the core is tearing down. */
    AMUDP_LOCK(t);
    t->closing = 1;
    AMUDP_UNLOCK(t);
    uint64_t end = amudp_now_ns() +
                   (t->tun.timeout_ns < AMUDP_CLOSE_FLUSH_NS ? t->tun.timeout_ns
                                                             : AMUDP_CLOSE_FLUSH_NS);
    for (;;) {
      AMUDP_LOCK(t);
      int busy = amudp_rel_unacked(t);
      AMUDP_UNLOCK(t);
      if (!busy || amudp_now_ns() >= end) break;
      amudp_wait(t, 10);
    }
    AMUDP_LOCK(t);
    for (uint32_t r = 0; r < t->cfg.nranks; r++)
      for (int k = 0; k < AMUDP_BYES && !t->peers[r].gone; k++)
        amudp_rel_send_ctrl(t, &t->peers[r], AMUDP_T_BYE);
    AMUDP_UNLOCK(t);
  }
  for (uint32_t r = 0; t->peers && r < t->cfg.nranks; r++) {
    amudp_rel_gone(t, &t->peers[r], 0, NULL);
    t->peers[r].gone = 1;
    amudp_frag_peer_free(&t->peers[r]);
  }
  while (t->pkt_free) {
    amudp_pkt_t *pkt = t->pkt_free;
    t->pkt_free = pkt->next;
    free(pkt);
  }
  amudp_msg_cache_free(t);
  while (t->rx_free) {
    amudp_rxbatch_t *b = t->rx_free;
    t->rx_free = b->next;
    free(b->buf);
    free(b);
  }
  if (t->uv_poll_ok) uv_close((uv_handle_t *)&t->uvpoll, NULL);
  if (t->uv_loop_ok) {
    uv_run(&t->loop, UV_RUN_DEFAULT);
    uv_loop_close(&t->loop);
  }
  if (t->fd >= 0) close(t->fd);
  amudp_fault_free(t);
#if GASNETC_THREADS
  pthread_mutex_destroy(&t->lock);
#endif
  free(t->peers);
  free(t);
}

const gasnetc_transport_ops_t amudp_ops = {
  .name = "udp",
  .open = amudp_open,
  .address = amudp_address,
  .connect = amudp_connect,
  .max_payload = amudp_max_payload,
  .send = amudp_send,
  .poll = amudp_poll,
  .wait = amudp_wait,
  .stats = amudp_stats,
  .close = amudp_close,
};
