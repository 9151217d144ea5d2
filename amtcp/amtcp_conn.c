/*
 * amtcp_conn.c - building the connection mesh: the listening socket (open),
 * address blobs, and connect(), which makes one TCP connection per pair of
 * ranks with a handshake proving job membership. Connections that arrive
 * after the mesh is complete are logged and closed.
 *
 * Who connects: the lower rank of a pair connects to the higher one, which
 * accepts; so each pair makes exactly one connection and nobody has to break
 * ties. The connector sends HELLO, the acceptor checks it (right job, right
 * rank, no connection yet from that rank) and answers WELCOME, which the
 * connector checks in turn (it reached the rank it meant to). Each record
 * carries an HMAC-SHA256 of its ranks under the job key (amtcp_wire.h).
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
 * UINT32_MAX, then src < myrank), MAC. */
amtcp_bad_t amtcp_shake_check(gasnetc_transport_t *t, const unsigned char *rec, uint8_t type,
                              uint32_t want_src, uint32_t *src) {
  uint32_t dst;
  amtcp_bad_t b = amtcp_wire_shake_decode(rec, type, src, &dst);
  if (b != AMTCP_BAD_NONE) return b;
  if (dst != t->cfg.myrank || *src >= t->cfg.nranks ||
      (want_src == UINT32_MAX ? *src >= t->cfg.myrank : *src != want_src))
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
  memset(&ba, 0, sizeof ba);
  if (t->cfg.bind_addr.ss_family == AF_INET || t->cfg.bind_addr.ss_family == AF_INET6) {
    memcpy(&ba, &t->cfg.bind_addr, sizeof ba);
  } else {
    struct sockaddr_in *s = (void *)&ba;
    s->sin_family = AF_INET;
    s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }
  socklen_t balen;
  if (ba.ss_family == AF_INET) {
    ((struct sockaddr_in *)&ba)->sin_port = 0;
    balen = sizeof(struct sockaddr_in);
  } else {
    ((struct sockaddr_in6 *)&ba)->sin6_port = 0;
    balen = sizeof(struct sockaddr_in6);
  }
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
  if (t->self.ss_family == AF_INET &&
      ((struct sockaddr_in *)&t->self)->sin_addr.s_addr == htonl(INADDR_ANY))
    ((struct sockaddr_in *)&t->self)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  else if (t->self.ss_family == AF_INET6 &&
           IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&t->self)->sin6_addr))
    ((struct sockaddr_in6 *)&t->self)->sin6_addr = in6addr_loopback;
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

/* ---------------------------------------------------------------- the mesh */

typedef enum { PEND_RETRY, PEND_CONNECTING, PEND_WELCOME, PEND_HELLO } pend_phase_t;

typedef struct pend {
  int fd;
  uint32_t rank;            /* UINT32_MAX: accepted, rank not known yet */
  pend_phase_t phase;
  uint64_t retry_ns;
  size_t got;
  unsigned char rec[AMTCP_SHAKE_LEN];
  struct sockaddr_storage from;
} pend_t;

static int pend_connect(gasnetc_transport_t *t, pend_t *p) {
  amtcp_conn_t *c = &t->conns[p->rank];
  p->fd = socket(c->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (p->fd < 0) return -errno;
  amtcp_sock_tune(t, p->fd);
  p->got = 0;
  if (connect(p->fd, (struct sockaddr *)&c->addr, c->addrlen) != 0 && errno != EINPROGRESS) {
    int e = errno;
    close(p->fd);
    p->fd = -1;
    return -e;
  }
  p->phase = PEND_CONNECTING;
  return 0;
}

/* A connection finished its handshake: it carries frames from now on. */
static int conn_up(gasnetc_transport_t *t, uint32_t rank, int fd) {
  amtcp_conn_t *c = &t->conns[rank];
  c->fd = fd;
  c->state = AMTCP_CONN_UP;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = rank};
  if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) return -errno;
  int rc = t->watched ? t->cfg.watch(t->cfg.ctx, fd, EPOLLIN) : 0;
  if (rc != 0) return rc;
  t->live[t->nlive++] = rank;
  return 0;
}

/* Drop a pending accepted connection, saying why. */
static void pend_refuse(gasnetc_transport_t *t, pend_t *p, const char *why) {
  char name[INET6_ADDRSTRLEN + 8];
  fprintf(stderr, "amtcp: rank %u: refused a connection from %s: %s\n", t->cfg.myrank,
          amtcp_addr_name(&p->from, name, sizeof name), why);
  AMTCP_COUNT(t, bad_hellos, 1);
  close(p->fd);
  p->fd = -1;
}

/* Read the rest of a handshake record. 1 when complete, 0 when not yet, -1
 * at end of stream or error (errno, or 0 for end of stream). */
static int pend_read(pend_t *p) {
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

/* Progress one pending connection on its poll events. Returns -errno when
 * the mesh cannot be built, else 0. */
static int pend_step(gasnetc_transport_t *t, pend_t *p, short revents, uint32_t *nup) {
  unsigned char rec[AMTCP_SHAKE_LEN];
  char name[INET6_ADDRSTRLEN + 8];
  uint32_t src;
  amtcp_bad_t bad;
  int r;
  switch (p->phase) {
  case PEND_RETRY:
    return 0;
  case PEND_CONNECTING: {
    if (!(revents & (POLLOUT | POLLERR | POLLHUP))) return 0;
    int err = 0;
    socklen_t el = sizeof err;
    getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &el);
    if (err == 0) {
      amtcp_shake_make(t, rec, AMTCP_T_HELLO, p->rank);
      if (send(p->fd, rec, sizeof rec, MSG_NOSIGNAL) == (ssize_t)sizeof rec) {
        p->phase = PEND_WELCOME;
        return 0;
      }
    }
    /* Refused or reset (a full backlog, a slow listener): try again soon;
     * the connect timeout bounds the whole. */
    close(p->fd);
    p->fd = -1;
    p->phase = PEND_RETRY;
    p->retry_ns = gasneti_now_ns() + AMTCP_RETRY_NS;
    return 0;
  }
  case PEND_WELCOME:
    if (!(revents & (POLLIN | POLLERR | POLLHUP))) return 0;
    if ((r = pend_read(p)) == 0) return 0;
    if (r < 0) { /* closed before it answered: retry */
      close(p->fd);
      p->fd = -1;
      p->phase = PEND_RETRY;
      p->retry_ns = gasneti_now_ns() + AMTCP_RETRY_NS;
      return 0;
    }
    if ((bad = amtcp_shake_check(t, p->rec, AMTCP_T_WELCOME, p->rank, &src)) != AMTCP_BAD_NONE) {
      fprintf(stderr, "amtcp: rank %u: the listener of rank %u at %s answered the handshake "
              "wrongly: %s\n", t->cfg.myrank, p->rank,
              amtcp_addr_name(&t->conns[p->rank].addr, name, sizeof name), amtcp_bad_name(bad));
      return -EPROTO;
    }
    if ((r = conn_up(t, p->rank, p->fd)) != 0) return r < 0 ? r : -EIO;
    p->fd = -1;
    (*nup)++;
    return 0;
  case PEND_HELLO:
    if (!(revents & (POLLIN | POLLERR | POLLHUP))) return 0;
    if ((r = pend_read(p)) == 0) return 0;
    if (r < 0) {
      pend_refuse(t, p, errno ? strerror(errno) : "closed before its handshake");
      return 0;
    }
    if ((bad = amtcp_shake_check(t, p->rec, AMTCP_T_HELLO, UINT32_MAX, &src)) != AMTCP_BAD_NONE) {
      pend_refuse(t, p, amtcp_bad_name(bad));
      return 0;
    }
    if (!t->serves[src]) {
      pend_refuse(t, p, "a rank this transport does not serve (the route table differs)");
      return 0;
    }
    if (t->conns[src].state != AMTCP_CONN_NONE) {
      pend_refuse(t, p, "a second connection from the same rank");
      return 0;
    }
    amtcp_shake_make(t, rec, AMTCP_T_WELCOME, src);
    if (send(p->fd, rec, sizeof rec, MSG_NOSIGNAL) != (ssize_t)sizeof rec) {
      pend_refuse(t, p, "cannot answer its handshake");
      return 0;
    }
    if ((r = conn_up(t, src, p->fd)) != 0) return r < 0 ? r : -EIO;
    p->fd = -1;
    (*nup)++;
    return 0;
  }
  return 0;
}

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

/* connect(): every pair of ranks ends with one authenticated connection, or
 * this fails after the connect timeout naming the ranks it misses. */
int amtcp_mesh(gasnetc_transport_t *t, const void *blobs, size_t stride) {
  uint32_t me = t->cfg.myrank, n = t->cfg.nranks;
  for (uint32_t r = 0; r < n; r++) {
    t->conns[r].rank = r;
    t->conns[r].fd = -1;
    if (r == me || !t->serves[r]) continue;
    if (addr_decode((const unsigned char *)blobs + (size_t)r * stride, &t->conns[r]) != 0) {
      fprintf(stderr, "amtcp: rank %u: rank %u's address blob is not a TCP address\n", me, r);
      return -EINVAL;
    }
  }
  /* Pending: the n-1-me connections we make, then up to n accepted ones. */
  size_t cap = (size_t)n * 2 + 1, np = 0;
  pend_t *pend = calloc(cap, sizeof *pend);
  struct pollfd *pfd = calloc(cap + 1, sizeof *pfd);
  int rc = 0;
  if (!pend || !pfd) { rc = -ENOMEM; goto out; }
  uint32_t nserve = 0;
  for (uint32_t r = 0; r < n; r++) nserve += r != me && t->serves[r];
  for (uint32_t r = me + 1; r < n; r++) {
    if (!t->serves[r]) continue;
    pend_t *p = &pend[np++];
    p->rank = r;
    p->fd = -1;
    p->phase = PEND_RETRY;
    p->retry_ns = 0;
  }
  uint32_t nup = 0;
  uint64_t deadline = gasneti_now_ns() + (uint64_t)(t->tun.connect_timeout_s * 1e9);
  while (nup < nserve) {
    uint64_t now = gasneti_now_ns();
    if (now >= deadline) {
      mesh_timeout(t);
      rc = -ETIMEDOUT;
      goto out;
    }
    for (size_t i = 0; i < np; i++)
      if (pend[i].phase == PEND_RETRY && pend[i].fd < 0 && pend[i].rank != UINT32_MAX &&
          t->conns[pend[i].rank].state == AMTCP_CONN_NONE && now >= pend[i].retry_ns &&
          (rc = pend_connect(t, &pend[i])) != 0) {
        char name[INET6_ADDRSTRLEN + 8];
        fprintf(stderr, "amtcp: rank %u: cannot connect to rank %u at %s: %s\n", me,
                pend[i].rank, amtcp_addr_name(&t->conns[pend[i].rank].addr, name, sizeof name),
                strerror(-rc));
        goto out;
      }
    pfd[0] = (struct pollfd){.fd = t->lfd, .events = POLLIN};
    for (size_t i = 0; i < np; i++)
      pfd[i + 1] = (struct pollfd){.fd = pend[i].fd,
                                   .events = pend[i].phase == PEND_CONNECTING ? POLLOUT : POLLIN};
    if (poll(pfd, np + 1, 20) < 0 && errno != EINTR) { rc = -errno; goto out; }
    for (size_t i = 0; i < np; i++)
      if (pend[i].fd >= 0 && pfd[i + 1].revents &&
          (rc = pend_step(t, &pend[i], pfd[i + 1].revents, &nup)) != 0)
        goto out;
    if (pfd[0].revents & POLLIN) {
      for (;;) {
        pend_t a = {.rank = UINT32_MAX, .phase = PEND_HELLO};
        socklen_t fl = sizeof a.from;
        a.fd = accept4(t->lfd, (struct sockaddr *)&a.from, &fl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (a.fd < 0) break;
        size_t slot = np;
        for (size_t i = 0; i < np; i++) /* reuse a finished accepted slot */
          if (pend[i].fd < 0 && pend[i].rank == UINT32_MAX) { slot = i; break; }
        if (slot == np && np == cap) { /* a flood of strangers: drop this one */
          pend_refuse(t, &a, "too many handshakes at once");
          continue;
        }
        if (slot == np) np++;
        pend[slot] = a;
      }
    }
  }
out:
  for (size_t i = 0; pend && i < np; i++) {
    if (pend[i].fd < 0) continue;
    if (pend[i].rank == UINT32_MAX)
      pend_refuse(t, &pend[i], "no handshake before the mesh was complete");
    else
      close(pend[i].fd);
  }
  free(pend);
  free(pfd);
  if (rc == -ENOMEM) fprintf(stderr, "amtcp: rank %u: out of memory building the mesh\n", me);
  return rc;
}

/* After the mesh: every rank is connected, so any new connection is a
 * stranger (or a stale rank of another job). Logged and closed at once. */
void amtcp_late_accept(gasnetc_transport_t *t) {
  for (;;) {
    struct sockaddr_storage from;
    socklen_t fl = sizeof from;
    int fd = accept4(t->lfd, (struct sockaddr *)&from, &fl, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    char name[INET6_ADDRSTRLEN + 8];
    fprintf(stderr, "amtcp: rank %u: closed an unexpected connection from %s "
            "(every rank of the job is already connected)\n", t->cfg.myrank,
            amtcp_addr_name(&from, name, sizeof name));
    close(fd);
    AMTCP_LOCK(t);
    AMTCP_COUNT(t, late_connections, 1);
    AMTCP_UNLOCK(t);
  }
}
