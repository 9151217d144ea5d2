/*
 * amudp.c - the UDP transport's ops table (amudp_ops): open/close,
 * address/connect, send, poll/wait and stats; the port around the protocol
 * engine (amudp_engine.h: reliability, fragments, congestion, liveness, the
 * datagram format), which it calls with the lock held and the time read.
 *
 * One non-blocking UDP socket per rank for data, and one its peers send
 * their standalone ACKs to (the ack socket, read when amudp_ack_read_due
 * says). The hot path reads them directly (recvfrom, or recvmmsg while
 * datagrams keep coming) and writes a lone datagram by the peer socket
 * connected to its destination (amudp_peer_socket), a batch by the data
 * socket (amudp_fault.c); timers
 * are a deadline checked on each poll. The sockets are in the core's one
 * wait (cfg.watch) only while it sleeps (amudp_watch, amudp_unwatch): the
 * data socket at every sleep, the ack socket when acks are waited on; the
 * wait sleeps until one is readable or until the deadline idle() returns.
 */
#include "amudp_port.h"
#include "transport_addr.h"
#include "gasneti_bytes.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "gasnett_internal.h" /* gasnett__envreport */
#include "gasneti_env.h"
#include "gasneti_sys.h" /* the message path's system calls */
#include "gasneti_time.h"

#define AMUDP_CLOSE_FLUSH_NS 2000000000ULL /* close waits at most 2 s for acks */
#define AMUDP_BYES         3   /* BYE is sent this many times: it is not acked */

/* ---------------------------------------------------------------- tunables */

static const char *amudp_getenv(gasnetc_transport_t *t, const char *name) {
  return t->e.cfg.getenv ? t->e.cfg.getenv(name) : getenv(name);
}

double amudp_env_num(gasnetc_transport_t *t, const char *name, double dflt,
                     double lo, double hi) {
  return gasneti_env_num(t->e.cfg.getenv, "amudp", t->e.cfg.myrank != 0, name, dflt, lo, hi,
                         gasnett__envreport);
}

/* Every amudp tunable but the fault-injection ones (amudp_fault_init). */
static void amudp_tunables_read(gasnetc_transport_t *t) {
  amudp_tun_t *u = &t->e.tun;
  const char *mtu = amudp_getenv(t, "GASNET_UDP_MTU");
  u->mtu = (!mtu || !*mtu || !strcmp(mtu, "auto"))
               ? 0
               : (uint32_t)amudp_env_num(t, "GASNET_UDP_MTU", AMUDP_MTU_ETHERNET,
                                         AMUDP_MTU_MIN, AMUDP_MTU_MAX);
  double timeout = amudp_env_num(t, "GASNET_UDP_TIMEOUT", 30, 0, 86400); /* 0: never */
  u->timeout_ns = (uint64_t)(timeout * 1e9);
  u->ping_ns = u->timeout_ns ? u->timeout_ns / (AMUDP_PROBES + 1) : AMUDP_PING_NEVER;
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
  u->ack_idle_ns = (uint64_t)(amudp_env_num(t, "GASNET_UDP_ACK_DELAY_IDLE_US", 1000, 0, 1e6) * 1e3);
  if (u->ack_idle_ns < u->ack_delay_ns) u->ack_idle_ns = u->ack_delay_ns;
  u->sockbuf = (int)amudp_env_num(t, "GASNET_UDP_SOCKBUF", 4 << 20, 65536, 1 << 30);
  /* Read lazily unless acks are waited on (amudp_ack_read_due). */
  u->ack_socket = (int)amudp_env_num(t, "GASNET_UDP_ACK_SOCKET", 1, 0, 1);
  u->gso = (int)amudp_env_num(t, "GASNET_UDP_GSO", 1, 0, 1);
  u->mmsg = (int)amudp_env_num(t, "GASNET_UDP_SENDMMSG", 1, 0, 1);
  u->agg = (int)amudp_env_num(t, "GASNET_UDP_AGG", 1, 0, 1);
  u->agg_bytes = (uint32_t)amudp_env_num(t, "GASNET_UDP_AGG_BYTES", AMUDP_MTU_MAX, 512,
                                         AMUDP_MTU_MAX);
  u->cc = (int)amudp_env_num(t, "GASNET_UDP_CC", 1, 0, 2);
  u->cc_delay_ns = (uint64_t)(amudp_env_num(t, "GASNET_UDP_CC_DELAY_US", 2000, 10, 1e6) * 1e3);
  u->peer_sockets = (uint32_t)amudp_env_num(t, "GASNET_UDP_PEER_SOCKETS", 64, 0, 65536);
  snprintf(t->e.dead_msg, sizeof t->e.dead_msg,
           "no answer for %g s: dead or stopped", timeout);
}

/* ---------------------------------------------------------------- addresses */

static int sa_is_loopback(const struct sockaddr_storage *ss) {
  if (ss->ss_family == AF_INET)
    return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
  return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}


static void sa_set_port(struct sockaddr_storage *ss, uint16_t port) {
  if (ss->ss_family == AF_INET) ((struct sockaddr_in *)ss)->sin_port = port;
  else ((struct sockaddr_in6 *)ss)->sin6_port = port;
}

/* The blob: core/transport_addr.h's (8 or 20 bytes), then
 *   AMUDP_ADDR_ACK_PORT   2  the port of our ack socket, network byte order,
 *                            or 0 when ACKs go to the data socket;
 *   AMUDP_ADDR_WIRE       1  AMUDP_VERSION, so that a rank of another build
 *                            is named at attach, not at its first datagram;
 *   AMUDP_ADDR_IDLE_US    4  how long we hold an ack nobody waits on
 *                            (GASNET_UDP_ACK_DELAY_IDLE_US), little-endian:
 *                            our peers allow that much before they resend
 *                            to us (amudp_reliable.c: transmit);
 *   AMUDP_ADDR_SEND_PORT  2  the port our peer sockets send from, network
 *                            byte order, or 0 when we have none. */
#define AMUDP_ADDR_ACK_PORT 20
#define AMUDP_ADDR_WIRE     22
#define AMUDP_ADDR_IDLE_US  24
#define AMUDP_ADDR_SEND_PORT 28
#define AMUDP_ADDR_LEN      30
_Static_assert(AMUDP_ADDR_LEN <= GASNETC_ADDR_MAX, "the amudp fields fit the blob");

static int amudp_address(gasnetc_transport_t *t, void *blob, size_t *len) {
  unsigned char *b = blob;
  size_t n = gasnetc_addr_encode(&t->self, b);
  memset(b + n, 0, AMUDP_ADDR_LEN - n);
  memcpy(b + AMUDP_ADDR_ACK_PORT, &t->ack_port, 2);
  b[AMUDP_ADDR_WIRE] = AMUDP_VERSION;
  gasneti_put_le32(b + AMUDP_ADDR_IDLE_US, (uint32_t)(t->e.tun.ack_idle_ns / 1000));
  memcpy(b + AMUDP_ADDR_SEND_PORT, &t->send_port, 2);
  *len = AMUDP_ADDR_LEN;
  return 0;
}

/* Rank r's blob into p; on error says why on stderr. */
static int addr_decode(const unsigned char *b, uint32_t r, amudp_peer_t *p) {
  if (gasnetc_addr_decode(b, &p->addr, &p->addrlen) != 0) {
    fprintf(stderr, "amudp: rank %u's address blob is not a UDP address\n", r);
    return -EINVAL;
  }
  if (b[AMUDP_ADDR_WIRE] != AMUDP_VERSION) {
    fprintf(stderr, "amudp: rank %u speaks amudp wire version %u, this rank %u: it runs "
            "another build of GASNet, and every rank of a job must run the same one\n",
            r, b[AMUDP_ADDR_WIRE], AMUDP_VERSION);
    return -EPROTO;
  }
  memcpy(&p->ack_addr, &p->addr, sizeof p->ack_addr);
  uint16_t port;
  memcpy(&port, b + AMUDP_ADDR_ACK_PORT, 2);
  if (port) sa_set_port(&p->ack_addr, port); /* network byte order, as sin_port */
  memcpy(&p->send_port, b + AMUDP_ADDR_SEND_PORT, 2);
  p->ack_idle_ns = (uint64_t)gasneti_get_le32(b + AMUDP_ADDR_IDLE_US) * 1000;
  return 0;
}

/* ---------------------------------------------------------------- open/close */

static void amudp_close(gasnetc_transport_t *t);

/* The FORCE variants pass rmem_max/wmem_max when we may (root). */
static void sock_sndbuf(int fd, int want) {
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof want) != 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof want);
}

static void amudp_sockbufs(gasnetc_transport_t *t) {
  int want = t->e.tun.sockbuf;
  socklen_t sl = sizeof(int);
  if (setsockopt(t->fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof want) != 0)
    setsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof want);
  sock_sndbuf(t->fd, want);
  getsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &t->rcvbuf_got, &sl);
  sl = sizeof(int);
  getsockopt(t->fd, SOL_SOCKET, SO_SNDBUF, &t->sndbuf_got, &sl);
  /* Linux reports twice the size asked (bookkeeping): less means capped. */
  if (t->e.cfg.myrank == 0 && (t->rcvbuf_got < want || t->sndbuf_got < want))
    fprintf(stderr, "amudp: asked %d-byte socket buffers, got receive %d, send %d "
            "(raise net.core.rmem_max/wmem_max for fewer drops under load)\n",
            want, t->rcvbuf_got / 2, t->sndbuf_got / 2);
}

/* A socket bound to our data socket's address (bound: as bound, maybe the
 * wildcard) and `port` (0: any), with SO_REUSEPORT if reuse; the port it
 * got into *got unless got is NULL. Returns it, or -1. */
static int bound_socket(const struct sockaddr_storage *bound, uint16_t port, int reuse,
                        uint16_t *got) {
  struct sockaddr_storage a;
  memcpy(&a, bound, sizeof a);
  sa_set_port(&a, port);
  socklen_t len = a.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
  int s = socket(a.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), on = 1;
  if (s < 0 || (reuse && setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0) ||
      bind(s, (struct sockaddr *)&a, len) != 0 ||
      (got && getsockname(s, (struct sockaddr *)&a, &len) != 0)) {
    if (s >= 0) close(s);
    return -1;
  }
  if (got) *got = amudp_sa_port(&a);
  return s;
}

/* The ack socket: a second socket, on a port of its own that our address
 * blob advertises, to which peers send their ACKs. The core's wait watches
 * it only while we wait on acks, so an ACK does not wake a rank that sleeps
 * with nothing it waits on; when it is read: amudp_ack_read_due. If it
 * cannot be had, peers send ACKs to the one socket, as before. */
static void amudp_ack_socket(gasnetc_transport_t *t, const struct sockaddr_storage *bound) {
  t->afd = bound_socket(bound, 0, 0, &t->ack_port);
  if (t->afd < 0) t->ack_port = 0;
}

/* Peer sockets (docs/transport-udp.md, "Peer sockets"). A datagram sent by a
 * UDP socket connected to its destination leaves without a route lookup
 * (the kernel keeps the route it found at connect), a tenth of a raw
 * round trip (docs/rationale.md, "amudp/amudp.c (amudp_peer_socket)").
 * So datagrams to a peer's data socket
 * leave by a socket of our own connected to it, opened at the first one
 * (amudp_peer_socket), when not in a send batch (sendmmsg needs one socket
 * for many peers). All our peer sockets share one port, the send port, that
 * our address blob advertises beside the data socket's: peers take our
 * datagrams from either (from_peer). Nothing is ever sent to the send port,
 * so the peer sockets, which would each take what its peer sent there,
 * read nothing: everything still arrives at the data socket. t->sfd, bound
 * at open, holds the port (SO_REUSEPORT lets the peer sockets bind to it
 * too); it is never connected nor read, and its receive buffer is the
 * smallest: a stray datagram sent to the send port waits there until
 * close. */
static void amudp_send_port(gasnetc_transport_t *t, const struct sockaddr_storage *bound) {
  int small = 1;
  if (!t->e.tun.peer_sockets || (t->sfd = bound_socket(bound, 0, 1, &t->send_port)) < 0) {
    t->sfd = -1;
    t->send_port = 0;
    return;
  }
  setsockopt(t->sfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
}

int amudp_peer_socket(gasnetc_transport_t *t, amudp_peer_t *p) {
  if (p->sfd != -1) return p->sfd;
  p->sfd = -2;
  if (t->sfd < 0 || t->nsfd >= t->e.tun.peer_sockets) return -1;
  int s = bound_socket(&t->bound, t->send_port, 1, NULL);
  if (s < 0 || connect(s, (const struct sockaddr *)&p->addr, p->addrlen) != 0) {
    if (s >= 0) close(s);
    AMUDP_COUNT(&t->e, peer_socket_errors, 1);
    return -1;
  }
  sock_sndbuf(s, t->e.tun.sockbuf);
  AMUDP_COUNT(&t->e, peer_sockets, 1);
  t->nsfd++;
  return p->sfd = s;
}

/* The data socket, bound to the configured address (loopback when none)
 * on a port of the kernel's choice: t->fd and t->self. Returns 0 or
 * -errno, said on stderr. */
static int amudp_data_socket(gasnetc_transport_t *t) {
  int rc;
  struct sockaddr_storage ba;
  socklen_t balen = gasnetc_addr_bindable(&t->e.cfg.bind_addr, &ba);
  char name[INET6_ADDRSTRLEN] = "?";
  inet_ntop(ba.ss_family,
            ba.ss_family == AF_INET ? (void *)&((struct sockaddr_in *)&ba)->sin_addr
                                    : (void *)&((struct sockaddr_in6 *)&ba)->sin6_addr,
            name, sizeof name);
  t->fd = socket(ba.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (t->fd < 0 || bind(t->fd, (struct sockaddr *)&ba, balen) != 0) {
    rc = errno ? -errno : -EIO;
    fprintf(stderr, "amudp: cannot bind a UDP socket to %s: %s\n", name, strerror(errno));
    return rc;
  }
  t->selflen = sizeof t->self;
  if (getsockname(t->fd, (struct sockaddr *)&t->self, &t->selflen) != 0) {
    rc = errno ? -errno : -EIO;
    fprintf(stderr, "amudp: getsockname: %s\n", strerror(errno));
    return rc;
  }
  return 0;
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
  t->afd = -1;
  t->sfd = -1;
  t->e.cfg = *cfg;
  t->e.next_deadline_ns = UINT64_MAX;
  t->e.out = &amudp_port_ops; /* the engine's datagrams leave by amudp_fault.c */
  t->e.out_ctx = t;
#if GASNETC_THREADS
  pthread_mutex_init(&t->lock, NULL);
#endif
  if (cfg->nranks == 0 || cfg->myrank >= cfg->nranks || !cfg->deliver) {
    fprintf(stderr, "amudp: bad config (rank %u of %u, deliver %s)\n", cfg->myrank,
            cfg->nranks, cfg->deliver ? "set" : "NULL");
    rc = -EINVAL;
    goto fail;
  }
  amudp_wire_keys_init(&t->e.keys, cfg->job_key, GASNETC_KEY_LEN);
  t->e.keys.myrank = cfg->myrank;
  t->e.keys.nranks = cfg->nranks;
  t->e.keys.max_hdr = GASNETC_HDR_MAX;
  t->e.keys.max_payload = AMUDP_MAX_PAYLOAD;
  amudp_tunables_read(t);
  amudp_fault_init(t);

  if ((rc = amudp_data_socket(t)) < 0) goto fail;
  memcpy(&t->bound, &t->self, sizeof t->bound);
  if (t->e.tun.ack_socket) amudp_ack_socket(t, &t->bound);
  amudp_send_port(t, &t->bound);
  gasnetc_addr_reachable(&t->self); /* the wildcard: advertise loopback */
  amudp_sockbufs(t);
  if (t->e.tun.mmsg && !(t->txq = calloc(1, sizeof *t->txq))) t->e.tun.mmsg = 0;
  if (!t->e.tun.mmsg) t->e.tun.gso = 0; /* GSO sends go through the batch */

  t->can_watch = cfg->watch != NULL; /* amudp_watch, at each sleep */
  *tp = t;
  return 0;
fail:
  amudp_close(t);
  return rc < 0 ? rc : -EIO;
}

static int amudp_connect(gasnetc_transport_t *t, const void *blobs, size_t stride,
                         const uint8_t *serves) {
  if (t->connected) return -EALREADY;
  if (!(t->e.peers = calloc(t->e.cfg.nranks, sizeof *t->e.peers))) {
    fprintf(stderr, "amudp: out of memory for %u peers\n", t->e.cfg.nranks);
    return -ENOMEM;
  }
  uint64_t now = gasneti_now_ns();
  for (uint32_t r = 0; r < t->e.cfg.nranks; r++) {
    amudp_peer_t *p = &t->e.peers[r];
    p->rank = r;
    p->sfd = -1;
    if (r == t->e.cfg.myrank || !serves[r]) {
      p->gone = 1; /* the core handles loopback; another transport serves r */
      continue;
    }
    t->nserved++;
    int rc = addr_decode((const unsigned char *)blobs + (size_t)r * stride, r, p);
    if (rc != 0) {
      free(t->e.peers);
      t->e.peers = NULL;
      return rc;
    }
    int on_host = sa_is_loopback(&p->addr) || amudp_sa_same_ip(&p->addr, &t->self);
    uint32_t host_mtu = p->addr.ss_family == AF_INET6 ? AMUDP_MTU_LOOPBACK6 : AMUDP_MTU_LOOPBACK;
    p->mtu = t->e.tun.mtu ? t->e.tun.mtu : on_host ? host_mtu : AMUDP_MTU_ETHERNET;
    amudp_rel_peer_init(&t->e, p, now);
    amudp_cc_init(&t->e, p, on_host);
  }
  /* GRO only where a GSO run of full datagrams can come: a peer whose MTU
   * leaves room for two in one send (Ethernet-sized paths). To peers on
   * this host every fragment is a ~64 KiB datagram already, and reading
   * with recvmsg for the control message costs a ping-pong more than
   * recvfrom. A kernel without UDP_GRO: no GSO either. */
  int small_mtu = 0;
  for (uint32_t r = 0; r < t->e.cfg.nranks; r++)
    if (!t->e.peers[r].gone && t->e.peers[r].mtu * 2 <= AMUDP_GSO_MAX_BYTES) small_mtu = 1;
  if (t->e.tun.gso && small_mtu) {
    int on = 1;
    t->gro = setsockopt(t->fd, SOL_UDP, UDP_GRO, &on, sizeof on) == 0;
    if (!t->gro) t->e.tun.gso = 0;
  }
  if (!t->e.tun.window_bytes) {
    /* Auto: all peers together may fill about half our receive buffer (the
     * kernel reports twice what it accounts as data), which the peers'
     * buffers are assumed to match, so a flood from everyone is not dropped;
     * but never under AMUDP_WINDOW_BYTES_MIN, so that one pair in a large job
     * still streams (an all-to-all flood there is left to retransmission). */
    size_t rb = t->rcvbuf_got > 0 ? (size_t)t->rcvbuf_got / 2 : (size_t)t->e.tun.sockbuf;
    t->e.tun.window_bytes = t->nserved ? rb / t->nserved : rb;
    if (t->e.tun.window_bytes < AMUDP_WINDOW_BYTES_MIN) t->e.tun.window_bytes = AMUDP_WINDOW_BYTES_MIN;
  }
  if (t->e.tun.window_bytes > (size_t)4 << 20) t->e.tun.window_bytes = (size_t)4 << 20;
  t->e.tun.req_window_bytes = t->e.tun.window_bytes / t->e.tun.window * t->e.tun.credits;
  t->e.next_deadline_ns = now + t->e.tun.ping_ns;
  t->connected = 1;
  return 0;
}

static size_t amudp_max_payload(gasnetc_transport_t *t) {
  (void)t;
  return AMUDP_MAX_PAYLOAD;
}

/* ---------------------------------------------------------------- receiving */

/* A datagram of this job (tag and MAC verify) in another wire version: a
 * rank runs another GASNet build. Said once; each such datagram is dropped. */
static void amudp_warn_version(gasnetc_transport_t *t, const amudp_wire_hdr_t *h,
                               const struct sockaddr_storage *from) {
  if (t->version_warned++) return;
  char host[INET6_ADDRSTRLEN] = "?";
  const void *a = from->ss_family == AF_INET6
                      ? (const void *)&((const struct sockaddr_in6 *)from)->sin6_addr
                      : (const void *)&((const struct sockaddr_in *)from)->sin_addr;
  inet_ntop(from->ss_family, a, host, sizeof host);
  fprintf(stderr,
          "amudp: rank %u: dropping datagrams from %s of amudp wire version %u (this "
          "library speaks version %u): a rank of this job runs another GASNet build\n",
          t->e.cfg.myrank, host, h->version, AMUDP_VERSION);
}

GASNETI_HOT
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

/* The first n message headers of b, ready for a receive call. */
GASNETI_HOT
static void rx_batch_reset(amudp_rxbatch_t *b, int n, int gro) {
  for (int i = 0; i < n; i++) {
    struct msghdr *mh = &b->msgs[i].msg_hdr;
    mh->msg_namelen = sizeof b->from[i];
    mh->msg_flags = 0;
    mh->msg_control = gro ? b->ctl[i] : NULL;
    mh->msg_controllen = gro ? sizeof b->ctl[i] : 0;
  }
}

/* One receive call on fd into b: recvfrom() is the cheapest when
 * datagrams come one at a time (a ping-pong, a barrier); once
 * AMUDP_RX_STREAM_HITS consecutive polls have found data (`streaming`),
 * recvmmsg() takes up to AMUDP_RX_BATCH per call. Returns the number of
 * datagrams read, or -1 with errno set. */
GASNETI_HOT
static int rx_read(int fd, amudp_rxbatch_t *b, int streaming, int gro) {
  int m;
  do {
    if (streaming) {
      m = gasneti_sys_recvmmsg(fd, b->msgs, AMUDP_RX_BATCH, MSG_DONTWAIT);
    } else if (gro) { /* recvfrom cannot say a datagram holds GRO segments */
      ssize_t k = gasneti_sys_recvmsg(fd, &b->msgs[0].msg_hdr, MSG_DONTWAIT);
      m = k < 0 ? -1 : 1;
      if (k >= 0) b->msgs[0].msg_len = (unsigned)k;
    } else {
      struct msghdr *mh = &b->msgs[0].msg_hdr;
      ssize_t k = gasneti_sys_recvfrom(fd, b->iov[0].iov_base, AMUDP_RXBUF,
                                        MSG_DONTWAIT | MSG_TRUNC,
                                        (struct sockaddr *)mh->msg_name, &mh->msg_namelen);
      m = k < 0 ? -1 : 1;
      if (k > (ssize_t)AMUDP_RXBUF) mh->msg_flags = MSG_TRUNC; /* k is the real length */
      if (k >= 0) b->msgs[0].msg_len = (unsigned)(k > (ssize_t)AMUDP_RXBUF ? AMUDP_RXBUF : k);
    }
  } while (m < 0 && errno == EINTR);
  return m;
}

/* The segment size of datagram i of b: the kernel may have coalesced
 * datagrams of one size (UDP_GRO); its whole length when not. */
static size_t rx_gro_segment(gasnetc_transport_t *t, amudp_rxbatch_t *b, int i) {
  struct msghdr *mh = &b->msgs[i].msg_hdr;
  size_t len = b->msgs[i].msg_len, seg = len;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
    if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
      int g;
      memcpy(&g, CMSG_DATA(c), sizeof g);
      if (g > 0 && (size_t)g < len) seg = (size_t)g;
    }
  if (seg < len) {
    AMUDP_COUNT(&t->e, gro_datagrams, 1);
    AMUDP_COUNT(&t->e, gro_segments, (len + seg - 1) / seg);
  }
  return seg;
}

/* Check and ack the m datagrams read into b (amudp_rx_datagram), and owe
 * the acks due at once (duplicates, gaps, pings, ack_every): one per peer.
 * Returns the number of items of b to deliver. Lock held. */
GASNETI_HOT
static int rx_check(gasnetc_transport_t *t, amudp_rxbatch_t *b, int m, int late, uint64_t now) {
  int nitem = 0, nseen = 0;
  for (int i = 0; i < m; i++) {
    unsigned char *buf = b->iov[i].iov_base;
    size_t len = b->msgs[i].msg_len, seg = t->gro ? rx_gro_segment(t, b, i) : len;
    int truncated = (b->msgs[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
    for (size_t off = 0; off < len && nitem < AMUDP_RX_ITEMS; off += seg) {
      amudp_rxitem_t *it = &b->items[nitem];
      size_t sl = len - off < seg ? len - off : seg;
      int r = amudp_rx_datagram(&t->e, buf + off, sl, truncated, &b->from[i], late, now, it);
      if (r == AMUDP_RX_VERSION) amudp_warn_version(t, &it->h, &b->from[i]);
      if (r >= 0) b->seen[nseen++] = it->h.src;
      if (r > 0) b->src[nitem++] = it->h.src;
    }
  }
  uint64_t ack_ns = 0; /* the acks' own time (AMUDP_F_IDLE), read once, if any */
  for (int i = 0; i < nseen; i++) {
    amudp_peer_t *p = &t->e.peers[b->seen[i]];
    if (!p->ack_now || p->gone) continue;
    if (!ack_ns) ack_ns = gasneti_now_ns();
    amudp_rel_send_ctrl(&t->e, p, AMUDP_T_ACK, ack_ns);
  }
  if (t->e.closing) { /* acked above, so peers can finish; not delivered */
    AMUDP_COUNT(&t->e, discarded_closing, (uint64_t)nitem);
    nitem = 0;
  }
  return nitem;
}

/* One receive pass: read, check, ack, then deliver with the lock released.
 * What it reads is timed as arriving at now, read before the receive call
 * (amudp_progress). Returns the number of datagrams read; adds frames
 * delivered to *delivered. */
GASNETI_HOT
static int rx_once(gasnetc_transport_t *t, int fd, int late, uint64_t now, int *delivered) {
  AMUDP_LOCK(t);
  amudp_rxbatch_t *b = rx_batch_get(t);
  /* the ack socket: read in batches */
  int streaming = fd == t->afd || t->rx_hits >= AMUDP_RX_STREAM_HITS;
  AMUDP_UNLOCK(t);
  if (!b) return 0;
  /* Reset only the headers this call may fill: an empty poll of a spinning
   * rank resets one, not AMUDP_RX_BATCH (a third of its instructions). */
  rx_batch_reset(b, streaming ? AMUDP_RX_BATCH : 1, t->gro);
  int m = rx_read(fd, b, streaming, t->gro), n = 0;
  if (m < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
    AMUDP_LOCK(t);
    AMUDP_COUNT(&t->e, recv_errors, 1);
    AMUDP_UNLOCK(t);
  }
  if (m > 0) {
    AMUDP_LOCK(t);
    if (fd == t->afd) AMUDP_COUNT(&t->e, ack_socket_reads, (uint64_t)m);
    if (late) AMUDP_COUNT(&t->e, acks_read_late, (uint64_t)m);
    AMUDP_COUNT(&t->e, recv_calls, 1);
    int nitem = rx_check(t, b, m, late, now);
    AMUDP_UNLOCK(t);
    for (int k = 0; k < nitem; k++)
      n += amudp_item_deliver(&t->e, b->src[k], &b->items[k]);
  }
  AMUDP_LOCK(t);
  if (fd == t->fd) t->rx_hits = m > 0 ? t->rx_hits + 1 : 0;
  AMUDP_COUNT(&t->e, frames_delivered, (uint64_t)n);
  b->next = t->rx_free;
  t->rx_free = b;
  AMUDP_UNLOCK(t);
  *delivered += n;
  return m > 0 ? m : 0;
}

/* The send_done calls owed for borrowed payloads, with no lock held. */
static void amudp_borrow_run(gasnetc_transport_t *t) {
  AMUDP_LOCK(t);
  amudp_msg_t *m = amudp_borrow_take(&t->e);
  AMUDP_UNLOCK(t);
  amudp_borrow_done(&t->e, m);
}

static void report_dead(gasnetc_transport_t *t) {
  for (;;) {
    amudp_peer_t *p = NULL;
    AMUDP_LOCK(t);
    if (t->e.dead_unreported) {
      for (uint32_t r = 0; r < t->e.cfg.nranks; r++) {
        if (t->e.peers[r].dead && !t->e.peers[r].dead_reported) {
          p = &t->e.peers[r];
          p->dead_reported = 1;
          t->e.dead_unreported--;
          break;
        }
      }
    }
    AMUDP_UNLOCK(t);
    if (!p) return;
    if (t->e.cfg.peer_dead) t->e.cfg.peer_dead(t->e.cfg.ctx, p->rank, p->dead_why);
  }
}

/* The ack socket's read policy, in one place (docs/transport-udp.md,
 * "Acknowledgements that cost nothing" and "Sleeping"). Lock held.
 *   amudp_ack_eager: acks are waited on now: frames queued for a window,
 *     a request refused for want of credits, a borrowed payload (its
 *     caller waits for them to reuse it), closing, or
 *     AMUDP_ACK_EAGER_BYTES in flight (a large frame or a
 *     stream: its SACKs drive fast retransmit, and come only standalone).
 *     Then the socket is read at every poll and watched while asleep.
 *   amudp_ack_read_due: otherwise it is read lazily: after a sleep (what
 *     came meanwhile), before a retransmission (none of what an unread
 *     ack covers; not before the other timers, delayed acks and pings,
 *     which fall due every few round trips) and every AMUDP_ACK_POLL_EVERY
 *     polls. A few small
 *     requests in flight are answered by replies that carry their acks: a
 *     ping-pong or a barrier reads one socket per poll, as without the ack
 *     socket, and sleeps through the acks of its requests. An ack read
 *     lazily may have waited there: it gives no RTT sample (rx_once's late). */
static int amudp_ack_eager(const gasnetc_transport_t *t) {
  return t->e.queued || t->e.closing || t->e.refused || t->e.borrowed ||
         t->e.fl_bytes >= AMUDP_ACK_EAGER_BYTES;
}
/* A retransmission is due: the timers would resend a datagram now. Asked
 * only once the earliest deadline has passed, just before the timers run,
 * whose own pass over the peers and their datagrams in flight costs as
 * much. */
static int amudp_rto_due(const gasnetc_transport_t *t, uint64_t now) {
  for (uint32_t r = 0; t->e.nfl && r < t->e.cfg.nranks; r++)
    for (const amudp_pkt_t *pkt = t->e.peers[r].fl_head; pkt; pkt = pkt->next)
      if (pkt->due_ns <= now) return 1;
  return 0;
}
static int amudp_ack_read_due(gasnetc_transport_t *t, int slept, int rto, int *late) {
  int eager = amudp_ack_eager(t);
  int due = eager || slept || rto || ++t->afd_polls >= AMUDP_ACK_POLL_EVERY;
  if (due) t->afd_polls = 0;
  *late = !eager || (slept && !t->afd_watched);
  return due;
}

/* The core's wait watches our sockets only while it sleeps. A socket in an
 * epoll set costs every datagram that reaches it the set's wake-up
 * callback, run in the sender's sendmsg on this host (several percent of a
 * round trip: docs/rationale.md, "amudp/amudp.c (amudp_watch)"), and a
 * spinning rank reads its sockets itself. Adding them costs two epoll_ctl
 * calls a sleep; a socket added with data waiting is ready at once, so
 * nothing that came meanwhile is slept through. The ack socket is added
 * only while acks are waited on (care: amudp_ack_eager). Lock held.
 * Returns 0, or -errno when the data socket cannot be watched. */
static int amudp_watch(gasnetc_transport_t *t, int care) {
  if (!t->can_watch) return 0;
  if (!t->fd_watched) {
    int rc = t->e.cfg.watch(t->e.cfg.ctx, t->fd, EPOLLIN);
    if (rc != 0) return rc;
    t->fd_watched = 1;
  }
  if (t->afd >= 0 && care && !t->afd_watched && t->e.cfg.watch(t->e.cfg.ctx, t->afd, EPOLLIN) == 0)
    t->afd_watched = 1;
  return 0;
}

/* Awake again: out of the core's wait. Lock held. */
static void amudp_unwatch(gasnetc_transport_t *t) {
  if (t->fd_watched && t->e.cfg.watch(t->e.cfg.ctx, t->fd, 0) == 0) t->fd_watched = 0;
  if (t->afd_watched && t->e.cfg.watch(t->e.cfg.ctx, t->afd, 0) == 0) t->afd_watched = 0;
}

/* The progress engine, in phases: (1) read and deliver, at most
 * AMUDP_RX_ROUNDS batches so a flood cannot starve the caller; (2) timers
 * (retransmit, delayed acks, pings, death) if the earliest is due;
 * (3) tell the core about dead peers.
 * A poll reads the clock once, before its first receive call, and times by
 * it what that call reads (at most one system call early) and the timers
 * after the deliveries (late by as long as the handlers ran: they run at
 * the next poll). Read after the datagram, the clock was on the round
 * trip's path twice a hop (the reply, and the poll that ends a wait). A
 * further batch, and the ack socket's drain, read it again. */
GASNETI_HOT
static int amudp_progress(gasnetc_transport_t *t) {
  if (!t->connected) return 0;
  int delivered = 0, slept = 0;
  uint64_t now = gasneti_now_ns();
  if (__atomic_load_n(&t->slept, __ATOMIC_RELAXED) &&
      (slept = __atomic_exchange_n(&t->slept, 0, __ATOMIC_RELAXED))) { /* a plain load per poll */
    /* The core slept watching the socket: what arrived, arrived since now
     * (delayed acks are timed from rx_last_ns). */
    AMUDP_LOCK(t);
    t->e.rx_last_ns = now;
    AMUDP_UNLOCK(t);
  }
  int got = 0;
  for (int round = 0; round < AMUDP_RX_ROUNDS; round++) {
    if (round) now = gasneti_now_ns(); /* the batches before took a while */
    if ((got = rx_once(t, t->fd, 0, now, &delivered)) < AMUDP_RX_BATCH) break;
  }
  AMUDP_LOCK(t);
  int late = 0, rto = now >= t->e.next_deadline_ns && amudp_rto_due(t, now);
  int ack_due = t->afd >= 0 && amudp_ack_read_due(t, slept, rto, &late);
  AMUDP_UNLOCK(t);
  /* A retransmission is due: first read what else waits on the data
   * socket. A single read (recvfrom) leaves the rest queued, and a rank
   * back from being descheduled finds there the acks, riding on data, of
   * what it is about to resend (tests/amudp/t-backlog.sh). */
  for (int round = 0; rto && got > 0 && round < AMUDP_RX_ROUNDS; round++) {
    now = gasneti_now_ns();
    got = rx_once(t, t->fd, 0, now, &delivered);
  }
  if (ack_due) /* drained: acks read lazily must not pile up behind fresh ones */
    for (int round = 0; round < AMUDP_ACK_DRAIN_ROUNDS; round++) {
      now = gasneti_now_ns();
      if (rx_once(t, t->afd, late, now, &delivered) < AMUDP_RX_BATCH) break;
    }
  AMUDP_LOCK(t);
  if (slept) amudp_unwatch(t); /* after amudp_ack_read_due: it asks what was watched */
  t->e.rx_last_ns = now;
  if (now >= t->e.next_deadline_ns) {
    amudp_rel_timers(&t->e, now);
    uint64_t f = amudp_fault_timers(t, now);
    if (f < t->e.next_deadline_ns) t->e.next_deadline_ns = f;
  }
  int dead = t->e.dead_unreported != 0 && !t->e.closing;
  AMUDP_UNLOCK(t);
  if (amudp_borrow_owed(&t->e)) amudp_borrow_run(t);
  if (dead) report_dead(t);
  return delivered;
}

GASNETI_HOT
static int amudp_poll(gasnetc_transport_t *t) { return amudp_progress(t); }


/* The core is about to sleep. Delayed acks go out first: nothing we send
 * while asleep could carry them, and a timer that wakes us only to ack
 * costs a context switch, dear on a host with more ranks than cores. The
 * deadline is kept to the nanosecond (RTOs and acks fall due tens of us
 * ahead); the core's wait honours it (gasnetc_wait.c). */
static uint64_t amudp_idle(gasnetc_transport_t *t) {
  if (!t->connected) return GASNETC_NEVER;
  AMUDP_LOCK(t);
  amudp_rel_flush_acks(&t->e, gasneti_now_ns());
  uint64_t dl = t->e.next_deadline_ns;
  /* Wake for acks only while we wait on them (amudp_ack_eager). A data
   * socket that cannot be watched must not be slept on: poll again. */
  if (amudp_watch(t, amudp_ack_eager(t)) != 0) dl = 0;
  AMUDP_UNLOCK(t);
  __atomic_store_n(&t->slept, 1, __ATOMIC_RELAXED);
  return dl;
}

/* close() only: sleep on the socket alone until it is readable, the
 * earliest deadline or timeout_ms, then make progress. */
static void amudp_close_wait(gasnetc_transport_t *t, int timeout_ms) {
  uint64_t dl = amudp_idle(t), now = gasneti_now_ns();
  uint64_t ns = (uint64_t)timeout_ms * 1000000ULL;
  if (dl <= now) ns = 0;
  else if (dl - now < ns) ns = dl - now;
  struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };
  struct pollfd pf[2] = { { t->fd, POLLIN, 0 }, { t->afd, POLLIN, 0 } };
  ppoll(pf, t->afd >= 0 ? 2 : 1, &ts, NULL);
  amudp_progress(t);
}

/* ---------------------------------------------------------------- sending */

/* A request's large payload is sent from the caller's memory when the
 * caller lets us (GASNETC_SEND_BORROW): GASNETC_SEND_INFLIGHT, then
 * send_done once every fragment is acknowledged. Otherwise it is copied,
 * and complete on return. */
static amudp_msg_t *amudp_send_borrow(gasnetc_transport_t *t, const void *payload,
                                      size_t paylen, unsigned flags, void *cookie) {
  if (!(flags & GASNETC_SEND_BORROW) || (flags & GASNETC_SEND_REPLY) ||
      paylen < AMUDP_BORROW_MIN || !t->e.cfg.send_done)
    return NULL;
  return amudp_msg_borrow(&t->e, payload, cookie);
}

GASNETI_HOT
static int amudp_send(gasnetc_transport_t *t, uint32_t dest, const void *hdr,
                      size_t hdrlen, const void *payload, size_t paylen, unsigned flags,
                      void *cookie) {
  if (!t->connected || dest >= t->e.cfg.nranks) return -EINVAL;
  if (hdrlen > GASNETC_HDR_MAX || paylen > AMUDP_MAX_PAYLOAD) return -EMSGSIZE;
  amudp_peer_t *p = &t->e.peers[dest];
  int is_reply = (flags & GASNETC_SEND_REPLY) != 0;
  AMUDP_LOCK(t);
  int rc = amudp_rel_refuse(&t->e, p, is_reply) ? -EAGAIN : p->gone ? -EPIPE : 0;
  if (rc == 0) {
    amudp_msg_t *b = amudp_send_borrow(t, payload, paylen, flags, cookie);
    rc = amudp_frag_send(&t->e, p, hdr, hdrlen, payload, paylen, b, is_reply, gasneti_now_ns());
    if (b && rc == 0) {
      AMUDP_COUNT(&t->e, sends_borrowed, 1);
      rc = GASNETC_SEND_INFLIGHT;
    } else if (b) { /* not sent: no send_done */
      t->e.borrowed--;
      free(b);
    }
  }
  AMUDP_UNLOCK(t);
  return rc;
}

_Static_assert(AMUDP_NOTE_WORDS == GASNETC_NOTICE_WORDS, "a notice fills a NOTE");

/* A notice (transport.h): one NOTE datagram, or nothing (amudp_rel_send_note). */
static int amudp_notice(gasnetc_transport_t *t, uint32_t dest, const gasnetc_notice_t *n) {
  if (!t->connected || dest >= t->e.cfg.nranks || dest == t->e.cfg.myrank) return -EINVAL;
  amudp_peer_t *p = &t->e.peers[dest];
  AMUDP_LOCK(t);
  int rc = p->gone ? -EPIPE : 0;
  if (rc == 0) amudp_rel_send_note(&t->e, p, n->kind, n->w, gasneti_now_ns());
  AMUDP_UNLOCK(t);
  return rc;
}

/* Lend a payload buffer (an amudp_msg_t, 16-aligned) that commit hands to
 * the fragments as it is: the payload is written once, by the client. */
static int amudp_prepare(gasnetc_transport_t *t, gasnetc_lend_t *lend, size_t paylen) {
  if (!t->connected || lend->dest >= t->e.cfg.nranks) return -EINVAL;
  if (paylen > AMUDP_MAX_PAYLOAD) return -EMSGSIZE;
  amudp_peer_t *p = &t->e.peers[lend->dest];
  AMUDP_LOCK(t);
  int rc = amudp_rel_refuse(&t->e, p, (lend->flags & GASNETC_SEND_REPLY) != 0) ? -EAGAIN
           : p->gone ? -EPIPE : 0;
  amudp_msg_t *m = rc ? NULL : amudp_msg_get(&t->e, paylen ? paylen : 1);
  AMUDP_UNLOCK(t);
  if (rc) return rc;
  if (!m) return -ENOMEM;
  lend->buf = m->data;
  lend->cap = (size_t)AMUDP_MSG_MIN << m->cls;
  lend->priv[0] = m;
  return 0;
}

static int amudp_commit(gasnetc_transport_t *t, gasnetc_lend_t *lend, const void *hdr,
                        size_t hdrlen, size_t paylen) {
  amudp_msg_t *m = lend->priv[0];
  amudp_peer_t *p = &t->e.peers[lend->dest];
  AMUDP_LOCK(t);
  int rc = hdrlen > GASNETC_HDR_MAX || paylen > lend->cap ? -EMSGSIZE
           : p->gone ? -EPIPE
           : amudp_frag_send(&t->e, p, hdr, hdrlen, m->data, paylen, m,
                             (lend->flags & GASNETC_SEND_REPLY) != 0, gasneti_now_ns());
  if (rc) amudp_msg_put(&t->e, m);
  AMUDP_UNLOCK(t);
  return rc;
}

static void amudp_cancel(gasnetc_transport_t *t, gasnetc_lend_t *lend) {
  AMUDP_LOCK(t);
  amudp_msg_put(&t->e, lend->priv[0]);
  AMUDP_UNLOCK(t);
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
  memcpy(c, t->e.ctr, sizeof c);
  AMUDP_UNLOCK(t);
  for (int i = 0; i < AMUDP_NCOUNTERS; i++)
    fprintf(out, "udp_%s %llu\n", names[i], (unsigned long long)c[i]);
  fprintf(out, "udp_sockbuf_rcv %d\nudp_sockbuf_snd %d\nudp_ack_socket %d\nudp_gso %d\n",
          t->rcvbuf_got, t->sndbuf_got, t->afd >= 0, t->e.tun.gso);
  size_t lo, hi;
  AMUDP_LOCK(t);
  uint32_t n = amudp_cc_summary(&t->e, &lo, &hi);
  AMUDP_UNLOCK(t);
  fprintf(out, "udp_cc %d\nudp_cc_peers %u\nudp_cc_cwnd_min %zu\nudp_cc_cwnd_max %zu\n",
          t->e.tun.cc, n, lo, hi);
}

static void amudp_close(gasnetc_transport_t *t) {
  if (!t) return;
  if (t->connected) {
    /* Flush: keep acking and retransmitting until our data is acked. No
     * callbacks from here on: the core is tearing down. */
    AMUDP_LOCK(t);
    t->e.closing = 1;
    AMUDP_UNLOCK(t);
    uint64_t flush = t->e.tun.timeout_ns && t->e.tun.timeout_ns < AMUDP_CLOSE_FLUSH_NS
                         ? t->e.tun.timeout_ns : AMUDP_CLOSE_FLUSH_NS;
    uint64_t end = gasneti_now_ns() + flush;
    for (;;) {
      AMUDP_LOCK(t);
      int busy = amudp_rel_unacked(&t->e);
      AMUDP_UNLOCK(t);
      if (!busy || gasneti_now_ns() >= end) break;
      amudp_close_wait(t, 10);
    }
    AMUDP_LOCK(t);
    for (uint32_t r = 0; r < t->e.cfg.nranks; r++)
      for (int k = 0; k < AMUDP_BYES && !t->e.peers[r].gone; k++)
        amudp_rel_send_ctrl(&t->e, &t->e.peers[r], AMUDP_T_BYE, gasneti_now_ns());
    AMUDP_UNLOCK(t);
  }
  for (uint32_t r = 0; t->e.peers && r < t->e.cfg.nranks; r++)
    if (t->e.peers[r].sfd >= 0) close(t->e.peers[r].sfd);
  amudp_engine_fini(&t->e); /* send_done for what was dropped unacknowledged */
  while (t->rx_free) {
    amudp_rxbatch_t *b = t->rx_free;
    t->rx_free = b->next;
    free(b->buf);
    free(b);
  }
  if (t->fd >= 0) {
    if (t->fd_watched) t->e.cfg.watch(t->e.cfg.ctx, t->fd, 0);
    close(t->fd);
  }
  if (t->afd >= 0) {
    if (t->afd_watched) t->e.cfg.watch(t->e.cfg.ctx, t->afd, 0);
    close(t->afd);
  }
  if (t->sfd >= 0) close(t->sfd);
  amudp_fault_free(t);
  free(t->txq);
#if GASNETC_THREADS
  pthread_mutex_destroy(&t->lock);
#endif
  free(t->e.peers);
  free(t);
}

const gasnetc_transport_ops_t amudp_ops = {
  .name = "udp",
  .open = amudp_open,
  .address = amudp_address,
  .connect = amudp_connect,
  .max_payload = amudp_max_payload,
  .send = amudp_send,
  .notice = amudp_notice,
  .prepare = amudp_prepare,
  .commit = amudp_commit,
  .cancel = amudp_cancel,
  .poll = amudp_poll,
  .idle = amudp_idle,
  .stats = amudp_stats,
  .close = amudp_close,
};
