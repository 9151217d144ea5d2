/*
 * amtcp_conn.c - making connections: the listening socket (open), address
 * blobs, and one authenticated TCP connection per pair of ranks that talk,
 * made when the first frame for the peer is sent (amtcp_conn_start) or when
 * the peer connects to us (amtcp_accept); with GASNET_TCP_CONNECT=eager all
 * of them in connect() (amtcp_mesh: the lower rank of each pair connects).
 *
 * The handshake: the connector sends HELLO, the acceptor checks it (right
 * job, right rank) and answers WELCOME, which the connector checks in turn
 * (it reached the rank it meant to). Each record carries an HMAC-SHA256 of
 * its ranks under the job key (amtcp_wire.h). Frames are written only once
 * the handshake is done, so frames queued meanwhile belong to the peer
 * (c->q_head), not to a socket, and leave in order on whichever one wins.
 *
 * The tie-break, when two ranks connect to each other at once: the lower
 * rank's connection wins. The acceptor of a HELLO from src
 *   - with no connection to src: accepts it;
 *   - with an attempt of its own to src (CONNECTING): accepts it when src is
 *     lower (its own attempt is dropped once its HELLO is out), refuses it
 *     quietly when src is higher (its own attempt wins; src, refused, waits
 *     for it, retrying every 50 ms until it arrives);
 *   - with a connection up or closed: refuses it quietly when src is higher
 *     (the loser's HELLO of a race, which may come late), and loudly
 *     otherwise (not our job's way).
 * So a lower rank accepts a higher one's HELLO only while it has no attempt
 * of its own, and exactly one connection per pair carries frames.
 */
#include "amtcp_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "gasneti_sha256.h"
#include "gasneti_time.h"
#include "transport_addr.h"

#define AMTCP_RETRY_NS  50000000ULL /* a refused connect is retried after 50 ms */
#define AMTCP_NAMES_MAX 8         /* missing ranks named in a timeout message */
#define AMTCP_STRANGERS 8         /* accepted connections beyond one per rank */
/* An accepted connection must bring its HELLO this soon (or the
 * GASNET_TCP_CONNECT_TIMEOUT, if shorter). Strangers cannot hold real ranks
 * out meanwhile: the oldest waiting connection makes way for a newer one
 * (pend_evict_oldest). Not shorter: a rank sends its HELLO as soon as its
 * connect completes, but with 128 ranks on 2 cores it may wait seconds for
 * the CPU, and 2 s refused real ranks (they retried, noisily). */
#define AMTCP_HELLO_NS 10000000000ULL
/* Refused connections are logged AMTCP_REFUSE_BURST a line each per
 * AMTCP_REFUSE_LOG_NS, the rest as one count per interval: a flood of
 * strangers cannot flood stderr. */
#define AMTCP_REFUSE_BURST 3
#define AMTCP_REFUSE_LOG_NS 10000000000ULL

static const char amtcp_label_hello[] = "amtcp hello v1";
static const char amtcp_label_welcome[] = "amtcp welcome v1";

const char *amtcp_addr_name(const struct sockaddr_storage *ss, char *buf, size_t len) {
  char ip[INET6_ADDRSTRLEN] = "?";
  unsigned port = 0;
  if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *s = (const void *)ss;
    inet_ntop(AF_INET, &s->sin_addr, ip, sizeof ip);
    port = ntohs(s->sin_port);
  } else if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *s = (const void *)ss;
    inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof ip);
    port = ntohs(s->sin6_port);
  }
  snprintf(buf, len, "%s:%u", ip, port);
  return buf;
}

/* The handshake MAC: HMAC-SHA256(job key, label | rec[4..12)). */
static void shake_mac(gasnetc_transport_t *t, const char *label, const unsigned char *rec,
                      unsigned char out[AMTCP_MAC_LEN]) {
  const void *piece[2] = {label, rec + 4};
  size_t plen[2] = {strlen(label), 8};
  gasneti_hmac_sha256(t->cfg.job_key, GASNETC_KEY_LEN, 2, piece, plen, out);
}

void amtcp_shake_make(gasnetc_transport_t *t, unsigned char *rec, uint8_t type, uint32_t dst) {
  unsigned char mac[AMTCP_MAC_LEN] = {0};
  amtcp_wire_shake_encode(rec, type, t->cfg.myrank, dst, mac);
  shake_mac(t, type == AMTCP_T_HELLO ? amtcp_label_hello : amtcp_label_welcome, rec, mac);
  memcpy(rec + 16, mac, AMTCP_MAC_LEN);
}

/* Check a received record: type, ranks (src == want_src unless that is
 * UINT32_MAX, then any rank but us), MAC. */
amtcp_bad_t amtcp_shake_check(gasnetc_transport_t *t, const unsigned char *rec, uint8_t type,
                              uint32_t want_src, uint32_t *src) {
  uint32_t dst;
  amtcp_bad_t b = amtcp_wire_shake_decode(rec, type, src, &dst);
  if (b != AMTCP_BAD_NONE) return b;
  if (dst != t->cfg.myrank || *src >= t->cfg.nranks ||
      (want_src == UINT32_MAX ? *src == t->cfg.myrank : *src != want_src))
    return AMTCP_BAD_RANK;
  unsigned char mac[AMTCP_MAC_LEN];
  shake_mac(t, type == AMTCP_T_HELLO ? amtcp_label_hello : amtcp_label_welcome, rec, mac);
  return gasneti_memneq(mac, rec + 16, AMTCP_MAC_LEN) ? AMTCP_BAD_MAC : AMTCP_BAD_NONE;
}

/* ---------------------------------------------------------------- sockets */

/* How GASNET_TCP_SOCKBUF can be had, decided once on a scratch socket:
 * the FORCE options (CAP_NET_ADMIN) pass net.core.[rw]mem_max; without them
 * a size above that cap would be cut to it AND would switch off the
 * kernel's autotuning (which grows to tcp_[rw]mem's maximum), so then we
 * set nothing. */
static void sockbuf_probe(gasnetc_transport_t *t) {
  int want = t->tun.sockbuf, got = 0, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  socklen_t gl = sizeof got;
  t->tun.sockbuf_force = 0;
  if (want <= 0 || fd < 0) goto out;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof want) == 0 &&
      setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof want) == 0) {
    t->tun.sockbuf_force = 1;
    goto out;
  }
  int got_snd = 0;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof want);
  getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &gl);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof want);
  gl = sizeof got_snd;
  getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &got_snd, &gl);
  if (got / 2 < want || got_snd / 2 < want) { /* Linux reports twice what it grants */
    if (t->cfg.myrank == 0)
      fprintf(stderr, "amtcp: GASNET_TCP_SOCKBUF=%d is above net.core.rmem_max/wmem_max "
              "(granted %d/%d) and CAP_NET_ADMIN is missing: keeping the kernel's "
              "autotuned buffers\n", want, got / 2, got_snd / 2);
    t->tun.sockbuf = 0;
  }
out:
  if (fd >= 0) close(fd);
}

void amtcp_sock_tune(gasnetc_transport_t *t, int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (t->tun.sockbuf > 0) { /* before connect/listen, so the window scale fits */
    int f = t->tun.sockbuf_force;
    setsockopt(fd, SOL_SOCKET, f ? SO_SNDBUFFORCE : SO_SNDBUF, &t->tun.sockbuf, sizeof t->tun.sockbuf);
    setsockopt(fd, SOL_SOCKET, f ? SO_RCVBUFFORCE : SO_RCVBUF, &t->tun.sockbuf, sizeof t->tun.sockbuf);
  }
}

int amtcp_listen(gasnetc_transport_t *t) {
  struct sockaddr_storage ba;
  socklen_t balen = gasnetc_addr_bindable(&t->cfg.bind_addr, &ba);
  char name[INET6_ADDRSTRLEN + 8];
  amtcp_addr_name(&ba, name, sizeof name);
  t->lfd = socket(ba.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (t->lfd < 0) goto fail;
  sockbuf_probe(t);
  amtcp_sock_tune(t, t->lfd); /* accepted sockets inherit the buffer sizes */
  int backlog = t->cfg.nranks > 128 ? (int)t->cfg.nranks : 128;
  if (bind(t->lfd, (struct sockaddr *)&ba, balen) != 0 || listen(t->lfd, backlog) != 0) goto fail;
  t->selflen = sizeof t->self;
  if (getsockname(t->lfd, (struct sockaddr *)&t->self, &t->selflen) != 0) goto fail;
  gasnetc_addr_reachable(&t->self); /* the wildcard: advertise loopback */
  return 0;
fail:;
  int rc = -errno;
  fprintf(stderr, "amtcp: rank %u: cannot listen on %s (port 0): %s\n", t->cfg.myrank, name,
          strerror(errno));
  return rc;
}

/* The blob is defined in core/transport_addr.h. */
int amtcp_address(gasnetc_transport_t *t, void *blob, size_t *len) {
  *len = gasnetc_addr_encode(&t->self, blob);
  return 0;
}

static int addr_decode(const unsigned char *b, amtcp_conn_t *c) {
  return gasnetc_addr_decode(b, &c->addr, &c->addrlen);
}

/* connect(): learn the served peers' addresses; room for the pending
 * connections (an attempt per peer, as many accepted ones plus strangers). */
int amtcp_peers(gasnetc_transport_t *t, const void *blobs, size_t stride) {
  uint32_t me = t->cfg.myrank, n = t->cfg.nranks;
  for (uint32_t r = 0; r < n; r++) {
    t->conns[r].rank = r;
    t->conns[r].fd = -1;
    if (r == me || !t->serves[r]) continue;
    t->nserve++;
    if (addr_decode((const unsigned char *)blobs + (size_t)r * stride, &t->conns[r]) != 0) {
      fprintf(stderr, "amtcp: rank %u: rank %u's address blob is not a TCP address\n", me, r);
      return -EINVAL;
    }
  }
  t->npend_cap = 2 * n + AMTCP_STRANGERS;
  if (!(t->pend = calloc(t->npend_cap, sizeof *t->pend))) return -ENOMEM;
  for (uint32_t i = 0; i < t->npend_cap; i++) t->pend[i].fd = -1;
  __atomic_store_n(&t->pend_next_ns, GASNETC_NEVER, __ATOMIC_RELAXED);
  return 0;
}

/* ---------------------------------------------------------------- pending connections */

/* Watch p's socket for `ev` in epfd and in the core's wait (0: neither). */
static void pend_watch(gasnetc_transport_t *t, amtcp_pend_t *p, uint32_t ev) {
  if (ev == p->events) return;
  struct epoll_event e = {.events = ev, .data.u32 = AMTCP_PEND_TAG | (uint32_t)(p - t->pend)};
  epoll_ctl(t->epfd, !p->events ? EPOLL_CTL_ADD : ev ? EPOLL_CTL_MOD : EPOLL_CTL_DEL, p->fd, &e);
  if (t->watched) t->cfg.watch(t->cfg.ctx, p->fd, ev);
  p->events = ev;
}

static void pend_due(gasnetc_transport_t *t, uint64_t when) {
  if (when < __atomic_load_n(&t->pend_next_ns, __ATOMIC_RELAXED))
    __atomic_store_n(&t->pend_next_ns, when, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- refusals, rate-limited */

/* The count of the interval's refusals beyond the burst, if any. */
static void refuse_summary(gasnetc_transport_t *t) {
  if (!t->refuse_quiet) return;
  fprintf(stderr, "amtcp: rank %u: refused %u more connection%s in the last %u s (the last from %s)\n",
          t->cfg.myrank, t->refuse_quiet, t->refuse_quiet > 1 ? "s" : "",
          (unsigned)(AMTCP_REFUSE_LOG_NS / 1000000000ULL), t->refuse_last);
  t->refuse_quiet = 0;
}

/* A connection from `from` refused for `why`: a line, or a count. */
static void refuse_log(gasnetc_transport_t *t, const struct sockaddr_storage *from, const char *why) {
  char name[INET6_ADDRSTRLEN + 8];
  uint64_t now = gasneti_now_ns();
  amtcp_addr_name(from, name, sizeof name);
  AMTCP_COUNT(t, bad_hellos, 1);
  if (now - t->refuse_t0 >= AMTCP_REFUSE_LOG_NS) {
    refuse_summary(t);
    t->refuse_t0 = now;
    t->refuse_n = 0;
  }
  if (++t->refuse_n <= AMTCP_REFUSE_BURST) {
    fprintf(stderr, "amtcp: rank %u: refused a connection from %s: %s\n", t->cfg.myrank, name, why);
    return;
  }
  t->refuse_quiet++;
  snprintf(t->refuse_last, sizeof t->refuse_last, "%s: %s", name, why);
  pend_due(t, t->refuse_t0 + AMTCP_REFUSE_LOG_NS); /* amtcp_pend_timers says the count */
}

/* When the count of the current interval is due (GASNETC_NEVER: none). */
static uint64_t refuse_due(gasnetc_transport_t *t) {
  return t->refuse_quiet ? t->refuse_t0 + AMTCP_REFUSE_LOG_NS : GASNETC_NEVER;
}

static void pend_refuse(gasnetc_transport_t *t, amtcp_pend_t *p, const char *why);

/* The accepted connection that has waited longest for its HELLO gives its
 * place to a newer one: a stranger cannot keep a real rank out by holding
 * every place (a rank's HELLO follows its connect at once). */
static void pend_evict_oldest(gasnetc_transport_t *t) {
  amtcp_pend_t *old = NULL;
  for (uint32_t i = 0; i < t->npend_cap; i++) {
    amtcp_pend_t *p = &t->pend[i];
    if (p->phase == PEND_HELLO && (!old || p->end_ns < old->end_ns)) old = p;
  }
  if (old) pend_refuse(t, old, "no handshake before newer connections needed its place");
}

/* A free slot for an attempt to `rank`, or (rank UINT32_MAX) an accepted
 * connection: at most nranks + AMTCP_STRANGERS of those, the oldest
 * making way for the newest. */
static amtcp_pend_t *pend_new(gasnetc_transport_t *t, uint32_t rank, uint64_t end_ns) {
  int acc = rank == UINT32_MAX;
  if (acc && t->nacc >= t->cfg.nranks + AMTCP_STRANGERS) pend_evict_oldest(t);
  for (uint32_t i = 0; i < t->npend_cap; i++) {
    amtcp_pend_t *p = &t->pend[i];
    if (p->phase != PEND_FREE) continue;
    memset(p, 0, sizeof *p);
    p->fd = -1;
    p->rank = rank;
    p->phase = acc ? PEND_HELLO : PEND_RETRY;
    p->end_ns = end_ns;
    t->nacc += acc;
    __atomic_add_fetch(&t->npend, 1, __ATOMIC_RELAXED);
    pend_due(t, end_ns);
    return p;
  }
  return NULL;
}

/* Free p's slot; its socket is closed unless handed on (keep_fd). */
static void pend_free(gasnetc_transport_t *t, amtcp_pend_t *p, int keep_fd) {
  if (p->fd >= 0) {
    pend_watch(t, p, 0);
    if (!keep_fd) close(p->fd);
  }
  t->nacc -= p->rank == UINT32_MAX;
  p->fd = -1;
  p->phase = PEND_FREE;
  __atomic_sub_fetch(&t->npend, 1, __ATOMIC_RELAXED);
}

/* Our attempt failed (err: errno, 0 for no WELCOME): again in 50 ms. */
static void pend_retry(gasnetc_transport_t *t, amtcp_pend_t *p, int err) {
  if (p->fd >= 0) {
    pend_watch(t, p, 0);
    close(p->fd);
    p->fd = -1;
  }
  p->err = err;
  p->phase = PEND_RETRY;
  p->retry_ns = gasneti_now_ns() + AMTCP_RETRY_NS;
  pend_due(t, p->retry_ns);
  AMTCP_COUNT(t, connect_retries, 1);
}

/* Start an attempt: a non-blocking connect to the peer's listener. */
static void pend_connect(gasnetc_transport_t *t, amtcp_pend_t *p) {
  amtcp_conn_t *c = &t->conns[p->rank];
  p->got = 0;
  p->fd = socket(c->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (p->fd < 0) { /* out of descriptors, say: retried until the deadline */
    pend_retry(t, p, errno);
    return;
  }
  amtcp_sock_tune(t, p->fd);
  AMTCP_COUNT(t, connects, 1);
  if (connect(p->fd, (struct sockaddr *)&c->addr, c->addrlen) != 0 && errno != EINPROGRESS) {
    pend_retry(t, p, errno);
    return;
  }
  p->phase = PEND_CONNECTING;
  pend_watch(t, p, EPOLLOUT);
}

/* The first frame for c is being sent (or connect() is eager): start
 * connecting; frames queue until the handshake is done. Lock held. */
int amtcp_conn_start(gasnetc_transport_t *t, amtcp_conn_t *c) {
  uint64_t now = gasneti_now_ns();
  amtcp_pend_t *p = pend_new(t, c->rank, now + (uint64_t)(t->tun.connect_timeout_s * 1e9));
  if (!p) return -ENOMEM; /* cannot happen: a slot per peer is kept */
  c->state = AMTCP_CONN_CONNECTING;
  c->connect_ns = now;
  pend_connect(t, p);
  return 0;
}

/* Drop a pending accepted connection, saying why. */
static void pend_refuse(gasnetc_transport_t *t, amtcp_pend_t *p, const char *why) {
  refuse_log(t, &p->from, why);
  pend_free(t, p, 0);
}

/* Read the rest of a handshake record. 1 when complete, 0 when not yet, -1
 * at end of stream or error (errno, or 0 for end of stream). */
static int pend_read(amtcp_pend_t *p) {
  for (;;) {
    ssize_t k = recv(p->fd, p->rec + p->got, AMTCP_SHAKE_LEN - p->got, MSG_DONTWAIT);
    if (k > 0) {
      p->got += (size_t)k;
      if (p->got == AMTCP_SHAKE_LEN) return 1;
      continue;
    }
    if (k == 0) { errno = 0; return -1; }
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
  }
}

/* Why a peer we could not reach is dead (static strings: dead_why). */
static const char *unreach_why(int err) {
  switch (err) {
  case 0: return "unreachable: refused the handshake";
  case ECONNREFUSED: return "unreachable: connection refused";
  case ETIMEDOUT: return "unreachable: connect timed out";
  case EHOSTUNREACH: case ENETUNREACH: return "unreachable: no route to host";
  default: return "unreachable: cannot connect";
  }
}

/* Our attempt did not reach the peer's listener in time: the peer is
 * dead, reported at once (no grace: nobody else knows why). Not in an
 * eager connect(), which fails naming every rank it misses (mesh_timeout). */
static void pend_unreachable(gasnetc_transport_t *t, amtcp_pend_t *p) {
  amtcp_conn_t *c = &t->conns[p->rank];
  char name[INET6_ADDRSTRLEN + 8];
  fprintf(stderr, "amtcp: rank %u: cannot connect to rank %u at %s for %g s "
          "(GASNET_TCP_CONNECT_TIMEOUT): %s\n", t->cfg.myrank, c->rank,
          amtcp_addr_name(&c->addr, name, sizeof name), t->tun.connect_timeout_s,
          p->err ? strerror(p->err) : "refused the handshake");
  int err = p->err;
  pend_free(t, p, 0);
  amtcp_conn_fail(t, c, unreach_why(err));
  if (c->dead) c->dead_ns = gasneti_now_ns() - AMTCP_DEAD_GRACE_NS;
}

/* Our attempt: the TCP connect finished. Send HELLO, even when the peer
 * is up by now (we lost a race): the peer then refuses it quietly. */
static void step_connecting(gasnetc_transport_t *t, amtcp_pend_t *p, unsigned ev) {
  if (!(ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
  int err = 0;
  socklen_t el = sizeof err;
  unsigned char rec[AMTCP_SHAKE_LEN];
  getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &el);
  if (err == 0) {
    amtcp_shake_make(t, rec, AMTCP_T_HELLO, p->rank);
    if (send(p->fd, rec, sizeof rec, MSG_NOSIGNAL) != (ssize_t)sizeof rec) err = errno ? errno : EIO;
  }
  if (t->conns[p->rank].state != AMTCP_CONN_CONNECTING) pend_free(t, p, 0); /* lost the race */
  else if (err) pend_retry(t, p, err); /* refused, reset (a full backlog): retried */
  else {
    p->phase = PEND_WELCOME;
    pend_watch(t, p, EPOLLIN);
  }
}

/* Our attempt: the peer's WELCOME. End of stream instead: the peer refused
 * us (its own attempt wins, or a slow listener): retried until it is up. */
static void step_welcome(gasnetc_transport_t *t, amtcp_pend_t *p, unsigned ev) {
  char name[INET6_ADDRSTRLEN + 8];
  uint32_t src, rank = p->rank;
  int r;
  if (!(ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) || (r = pend_read(p)) == 0) return;
  if (r < 0) {
    pend_retry(t, p, errno);
    return;
  }
  amtcp_bad_t bad = amtcp_shake_check(t, p->rec, AMTCP_T_WELCOME, rank, &src);
  if (bad != AMTCP_BAD_NONE) {
    fprintf(stderr, "amtcp: rank %u: the listener of rank %u at %s answered the handshake "
            "wrongly: %s\n", t->cfg.myrank, rank,
            amtcp_addr_name(&t->conns[rank].addr, name, sizeof name), amtcp_bad_name(bad));
    AMTCP_COUNT(t, bad_hellos, 1);
    pend_free(t, p, 0);
    amtcp_conn_fail(t, &t->conns[rank], "answered the handshake wrongly");
    return;
  }
  int fd = p->fd;
  pend_free(t, p, t->conns[rank].state == AMTCP_CONN_CONNECTING);
  if (t->conns[rank].state != AMTCP_CONN_CONNECTING) return; /* (cannot happen: see the top) */
  if (amtcp_conn_ready(t, rank, fd) != 0) amtcp_conn_fail(t, &t->conns[rank], "cannot watch its connection");
}

/* Our attempt to `rank`, if any, now that the peer's won: dropped, or left
 * to send its HELLO (step_connecting) so that the peer sees no stranger. */
static void pend_lost(gasnetc_transport_t *t, uint32_t rank) {
  for (uint32_t i = 0; i < t->npend_cap; i++) {
    amtcp_pend_t *p = &t->pend[i];
    if (p->phase == PEND_FREE || p->rank != rank) continue;
    AMTCP_COUNT(t, connect_races, 1);
    if (p->phase != PEND_CONNECTING) pend_free(t, p, 0);
  }
}

/* An accepted connection: the connector's HELLO, then the tie-break (see
 * the top of this file), then WELCOME. */
static void step_hello(gasnetc_transport_t *t, amtcp_pend_t *p, unsigned ev) {
  unsigned char rec[AMTCP_SHAKE_LEN];
  uint32_t src, me = t->cfg.myrank;
  amtcp_bad_t bad;
  int r;
  if (!(ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) || (r = pend_read(p)) == 0) return;
  if (r < 0) {
    pend_refuse(t, p, errno ? strerror(errno) : "closed before its handshake");
    return;
  }
  if ((bad = amtcp_shake_check(t, p->rec, AMTCP_T_HELLO, UINT32_MAX, &src)) != AMTCP_BAD_NONE) {
    pend_refuse(t, p, amtcp_bad_name(bad));
    return;
  }
  if (!t->serves[src]) {
    pend_refuse(t, p, "a rank this transport does not serve (the route table differs)");
    return;
  }
  amtcp_conn_state_t st = t->conns[src].state;
  if (src > me && st != AMTCP_CONN_NONE) {
    AMTCP_COUNT(t, connect_races, 1); /* ours wins, or won (and may be closed by now) */
    pend_free(t, p, 0);
    return;
  }
  if (st != AMTCP_CONN_NONE && st != AMTCP_CONN_CONNECTING) {
    char why[80];
    snprintf(why, sizeof why, "a second connection from rank %u (ours is %s)", src,
             st == AMTCP_CONN_UP ? "up" : "gone");
    pend_refuse(t, p, why);
    return;
  }
  amtcp_shake_make(t, rec, AMTCP_T_WELCOME, src);
  if (send(p->fd, rec, sizeof rec, MSG_NOSIGNAL) != (ssize_t)sizeof rec) {
    pend_refuse(t, p, "cannot answer its handshake");
    return;
  }
  if (st == AMTCP_CONN_CONNECTING) pend_lost(t, src); /* src < me: its attempt wins */
  int fd = p->fd;
  pend_free(t, p, 1);
  AMTCP_COUNT(t, accepts, 1);
  if (amtcp_conn_ready(t, src, fd) != 0) amtcp_conn_fail(t, &t->conns[src], "cannot watch its connection");
}

/* epfd (or the eager mesh's poll) reported pending connection `slot`. */
void amtcp_pend_event(gasnetc_transport_t *t, uint32_t slot, unsigned events) {
  if (slot >= t->npend_cap) return;
  amtcp_pend_t *p = &t->pend[slot];
  if (p->fd < 0) return; /* freed since epoll_wait saw it */
  switch (p->phase) {
  case PEND_CONNECTING: step_connecting(t, p, events); break;
  case PEND_WELCOME: step_welcome(t, p, events); break;
  case PEND_HELLO: step_hello(t, p, events); break;
  default: break;
  }
}

/* Retries and deadlines of the pending connections. Our attempt has
 * GASNET_TCP_CONNECT_TIMEOUT to reach the peer's listener; once its kernel
 * has accepted it, waiting for WELCOME is waiting for a process that may
 * be busy computing: the liveness probes judge it (amtcp_live.c), as they
 * judge a connection that is up. Returns (and keeps in pend_next_ns) when
 * to run next. Lock held. */
uint64_t amtcp_pend_timers(gasnetc_transport_t *t, uint64_t now) {
  uint64_t next = GASNETC_NEVER;
  for (uint32_t i = 0; i < t->npend_cap && t->npend; i++) {
    amtcp_pend_t *p = &t->pend[i];
    if (p->phase == PEND_FREE) continue;
    if (p->rank == UINT32_MAX) { /* accepted: the connector sends HELLO at once */
      if (now >= p->end_ns) pend_refuse(t, p, "no handshake in time");
      else if (p->end_ns < next) next = p->end_ns;
      continue;
    }
    amtcp_conn_state_t st = t->conns[p->rank].state;
    if (st != AMTCP_CONN_CONNECTING) { /* the peer's attempt won, or the peer is dead */
      if (p->phase != PEND_CONNECTING || st == AMTCP_CONN_GONE || now >= p->end_ns)
        pend_free(t, p, 0); /* (a CONNECTING one sends its HELLO first: step_connecting) */
      else if (p->end_ns < next) next = p->end_ns;
      continue;
    }
    if (p->phase == PEND_WELCOME || !t->connected) continue; /* (eager: amtcp_mesh's deadline) */
    if (now >= p->end_ns) {
      pend_unreachable(t, p);
      continue;
    }
    if (p->phase == PEND_RETRY && now >= p->retry_ns) pend_connect(t, p);
    if (p->end_ns < next) next = p->end_ns;
    if (p->phase == PEND_RETRY && p->retry_ns < next) next = p->retry_ns;
  }
  if (refuse_due(t) <= now) refuse_summary(t);
  if (refuse_due(t) < next) next = refuse_due(t);
  __atomic_store_n(&t->pend_next_ns, next, __ATOMIC_RELAXED);
  return next;
}

/* The listener is readable: every new connection becomes a pending one
 * (its HELLO is probably there already: read at once). Lock NOT held. */
void amtcp_accept(gasnetc_transport_t *t) {
  for (;;) {
    struct sockaddr_storage from;
    socklen_t fl = sizeof from;
    int fd = accept4(t->lfd, (struct sockaddr *)&from, &fl, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    AMTCP_LOCK(t);
    uint64_t wait = (uint64_t)(t->tun.connect_timeout_s * 1e9);
    if (wait > AMTCP_HELLO_NS) wait = AMTCP_HELLO_NS;
    amtcp_pend_t *p = t->pend ? pend_new(t, UINT32_MAX, gasneti_now_ns() + wait) : NULL;
    if (!p) { /* before connect() (a slot is always made: pend_evict_oldest) */
      refuse_log(t, &from, t->pend ? "no room" : "before connect");
      close(fd);
    } else {
      p->fd = fd;
      p->from = from;
      pend_watch(t, p, EPOLLIN);
      step_hello(t, p, EPOLLIN);
    }
    AMTCP_UNLOCK(t);
  }
}

/* close(): whatever is still being made is dropped without a word. */
void amtcp_pend_close_all(gasnetc_transport_t *t) {
  for (uint32_t i = 0; t->pend && i < t->npend_cap; i++)
    if (t->pend[i].phase != PEND_FREE) pend_free(t, &t->pend[i], 0);
  refuse_summary(t);
  free(t->pend);
  t->pend = NULL;
}

/* ---------------------------------------------------------------- the eager mesh */

static void mesh_timeout(gasnetc_transport_t *t) {
  char list[160] = "";
  size_t off = 0;
  unsigned n = 0;
  for (uint32_t r = 0; r < t->cfg.nranks; r++) {
    if (r == t->cfg.myrank || !t->serves[r] || t->conns[r].state == AMTCP_CONN_UP) continue;
    if (n++ < AMTCP_NAMES_MAX && off < sizeof list)
      off += (size_t)snprintf(list + off, sizeof list - off, "%s%u", n > 1 ? ", " : "", r);
  }
  fprintf(stderr, "amtcp: rank %u: no connection with rank%s %s%s after %g s "
          "(GASNET_TCP_CONNECT_TIMEOUT)\n", t->cfg.myrank, n > 1 ? "s" : "", list,
          n > AMTCP_NAMES_MAX ? ", ..." : "", t->tun.connect_timeout_s);
}

/* connect() with GASNET_TCP_CONNECT=eager: the lower rank of every pair
 * connects to the higher one; all are up, or this fails after the connect
 * timeout naming the ranks it misses. Waits in poll() on the listener and
 * the pending connections (connect() runs before any thread polls). */
int amtcp_mesh(gasnetc_transport_t *t) {
  uint32_t me = t->cfg.myrank, n = t->cfg.nranks;
  for (uint32_t r = me + 1; r < n; r++)
    if (t->serves[r] && amtcp_conn_start(t, &t->conns[r]) != 0) return -ENOMEM;
  struct pollfd *pfd = calloc(t->npend_cap + 1, sizeof *pfd);
  uint32_t *slot = calloc(t->npend_cap + 1, sizeof *slot);
  int rc = pfd && slot ? 0 : -ENOMEM;
  uint64_t deadline = gasneti_now_ns() + (uint64_t)(t->tun.connect_timeout_s * 1e9);
  while (rc == 0 && t->nlive < t->nserve) {
    uint64_t now = gasneti_now_ns();
    if (now >= deadline) {
      mesh_timeout(t);
      rc = -ETIMEDOUT;
      break;
    }
    nfds_t k = 1;
    pfd[0] = (struct pollfd){.fd = t->lfd, .events = POLLIN};
    for (uint32_t i = 0; i < t->npend_cap; i++)
      if (t->pend[i].fd >= 0) {
        slot[k] = i;
        pfd[k++] = (struct pollfd){.fd = t->pend[i].fd, .events = (short)t->pend[i].events};
      }
    if (poll(pfd, k, 20) < 0 && errno != EINTR) rc = -errno;
    AMTCP_LOCK(t);
    for (nfds_t j = 1; j < k; j++) /* POLLIN.. and EPOLLIN.. have the same values */
      if (pfd[j].revents) amtcp_pend_event(t, slot[j], (unsigned)pfd[j].revents);
    AMTCP_UNLOCK(t);
    if (pfd[0].revents & POLLIN) amtcp_accept(t);
    AMTCP_LOCK(t);
    amtcp_pend_timers(t, gasneti_now_ns());
    AMTCP_UNLOCK(t);
  }
  free(pfd);
  free(slot);
  if (rc == -ENOMEM) fprintf(stderr, "amtcp: rank %u: out of memory building the mesh\n", me);
  return rc;
}
