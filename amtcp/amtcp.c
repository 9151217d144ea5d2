/*
 * amtcp.c - the TCP transport's ops table (amtcp_ops): open/close, send
 * with its per-peer output queue, the receive path, poll/wait and stats.
 * Connections are made in amtcp_conn.c (on first use by default); the byte
 * stream is defined in amtcp_wire.h.
 *
 * Sending: a frame goes out with one sendmsg() (writev) of header, payload
 * and padding, straight to the socket when the peer's output queue is
 * empty; what the kernel does not take is queued (copied), except a large
 * request payload, which stays the sender's until written (zero copy:
 * send returns GASNETC_SEND_INFLIGHT, then send_done). A request finds
 * -EAGAIN while a peer's queue holds more than GASNET_TCP_QUEUE_MAX bytes
 * (the bound of the queue); replies are always queued.
 *
 * Receiving: each connection has a buffer that holds any Medium frame
 * whole; a poll reads each connection with data once (directly when there
 * are few peers, else those epoll reports) and delivers every complete
 * frame in place. A large payload that has not arrived yet is read straight
 * into the destination place() names (a Long's segment address).
 *
 * Sleeping is the core's (its one wait): every connection and the listener
 * are watched there (cfg.watch: readable, and a connection writable while
 * its output queue is not empty). Our own epoll set (epfd, readable only)
 * tells poll which connections have data when there are many; it is not
 * nested in the core's, which would add a wakeup hop to every arrival.
 */
#include "amtcp_internal.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include "gasnett_internal.h" /* gasnett__envreport */
#include "gasneti_env.h"
#include "gasneti_sys.h" /* the message path's system calls */
#include "gasneti_time.h"

#define AMTCP_LISTEN_ID    UINT32_MAX  /* epoll tag of the listening socket */
#define AMTCP_LISTEN_NS    100000000ULL /* direct mode: a look at the listener before a
                                          sleep at most this often (100 ms) */
#define AMTCP_DIRECT_MAX   1           /* auto: read peers directly up to this many
                                          (one recv beats epoll_wait + recv; more
                                          idle peers cost a recv each) */
#define AMTCP_CLOSE_DRAIN_NS 200000000ULL /* after flushing, wait this long for
                                          peers' end of stream (no RST on close) */

static const unsigned char amtcp_zeros[AMTCP_ALIGN];

/* Set while this thread delivers a frame that more bytes already read
 * follow (amtcp_rx_parse): a small frame sent meanwhile (a handler's
 * reply) is queued, to leave with those the next frames' handlers send,
 * in one sendmsg when the last frame of the read is delivered (or at the
 * latest in phase 3 of amtcp_progress). A frame alone - a ping-pong - is
 * written at once: nothing waits for what has not arrived. */
static __thread int amtcp_batching;

/* ---------------------------------------------------------------- tunables */

static const char *amtcp_getenv(gasnetc_transport_t *t, const char *name) {
  return t->cfg.getenv ? t->cfg.getenv(name) : getenv(name);
}

static double env_num(gasnetc_transport_t *t, const char *name, double dflt, double lo,
                      double hi) {
  return gasneti_env_num(t->cfg.getenv, "amtcp", t->cfg.myrank != 0, name, dflt, lo, hi,
                         gasnett__envreport);
}

/* Every amtcp tunable (docs/transports.md lists them). */
static void amtcp_tunables_read(gasnetc_transport_t *t) {
  amtcp_tun_t *u = &t->tun;
  u->sockbuf = (int)env_num(t, "GASNET_TCP_SOCKBUF", 4 << 20, 0, 1 << 30);
  u->connect_timeout_s = env_num(t, "GASNET_TCP_CONNECT_TIMEOUT", 60, 0.1, 86400);
  u->queue_max = (size_t)env_num(t, "GASNET_TCP_QUEUE_MAX", 4 << 20, 0, 1 << 30);
  double timeout = env_num(t, "GASNET_TCP_TIMEOUT", 30, 0, 86400); /* 0: never */
  u->timeout_ns = (uint64_t)(timeout * 1e9);
  u->agg = (int)env_num(t, "GASNET_TCP_AGG", 1, 0, 1);
  snprintf(t->dead_msg, sizeof t->dead_msg, "no answer for %g s: dead or stopped", timeout);
  const char *pm = amtcp_getenv(t, "GASNET_TCP_POLL");
  u->poll_mode = AMTCP_POLL_AUTO;
  if (pm && !strcmp(pm, "direct")) u->poll_mode = AMTCP_POLL_DIRECT;
  else if (pm && !strcmp(pm, "epoll")) u->poll_mode = AMTCP_POLL_EPOLL;
  else if (pm && *pm && strcmp(pm, "auto") && t->cfg.myrank == 0)
    fprintf(stderr, "amtcp: ignoring GASNET_TCP_POLL=%s (want auto, direct or epoll)\n", pm);
  const char *cm = amtcp_getenv(t, "GASNET_TCP_CONNECT");
  u->eager = cm && !strcmp(cm, "eager");
  if (cm && *cm && strcmp(cm, "eager") && strcmp(cm, "lazy") && t->cfg.myrank == 0)
    fprintf(stderr, "amtcp: ignoring GASNET_TCP_CONNECT=%s (want lazy or eager)\n", cm);
}

/* ---------------------------------------------------------------- output queue */

static uint32_t busy_get(gasnetc_transport_t *t);
static void busy_add(gasnetc_transport_t *t, int d);

/* Owned chunk of at least `need` bytes: the spare one when it fits. */
static amtcp_chunk_t *chunk_new(gasnetc_transport_t *t, size_t need) {
  amtcp_chunk_t *ch;
  if (need <= AMTCP_CHUNK && t->chunk_free) {
    ch = t->chunk_free;
    t->chunk_free = NULL;
  } else {
    size_t cap = need > AMTCP_CHUNK ? need : AMTCP_CHUNK;
    if (!(ch = malloc(sizeof *ch + cap))) return NULL;
    ch->cap = cap;
  }
  ch->next = NULL;
  ch->p = ch->buf;
  ch->len = ch->off = 0;
  ch->owned = 1;
  ch->nends = 0;
  ch->sealed = 0;
  return ch;
}

static void chunk_done(gasnetc_transport_t *t, amtcp_chunk_t *ch, int rc);

static void chunk_release(gasnetc_transport_t *t, amtcp_chunk_t *ch) {
  if (!ch->owned) { /* borrowed: written */
    chunk_done(t, ch, 0);
    return;
  }
  if (ch->cap == AMTCP_CHUNK && !t->chunk_free) t->chunk_free = ch;
  else free(ch);
}

/* c's output queue became non-empty (on = 1) or empty: count it, and note
 * that the core's interest in c writable may be stale. It is brought up to date
 * before the next sleep (conn_arm_all), not here: a queue that fills and
 * drains between two sleeps, the common case, costs no epoll_ctl. Lock held. */
static void conn_busy(gasnetc_transport_t *t, amtcp_conn_t *c, int on) {
  busy_add(t, on ? 1 : -1);
  if (!c->out_dirty) {
    c->out_dirty = 1;
    t->dirty[t->ndirty++] = c->rank;
  }
}

/* Before a sleep: the core's wait reports a connection writable exactly
 * while its queue holds something (level-triggered: an empty queue armed
 * would wake the sleeper at once). Costs O(connections that changed).
 * Lock held. */
static void conn_arm_all(gasnetc_transport_t *t) {
  for (uint32_t i = 0; i < t->ndirty; i++) {
    amtcp_conn_t *c = &t->conns[t->dirty[i]];
    int want = c->state == AMTCP_CONN_UP && c->q_head;
    c->out_dirty = 0;
    if (want == c->out_armed || c->state != AMTCP_CONN_UP) continue;
    if (t->watched) t->cfg.watch(t->cfg.ctx, c->fd, EPOLLIN | (want ? EPOLLOUT : 0));
    c->out_armed = (uint8_t)want;
  }
  t->ndirty = 0;
}

/* A borrowed chunk is finished: written (rc 0) or dropped with its
 * connection. send_done is owed, made later with no lock held (done_run). */
static void chunk_done(gasnetc_transport_t *t, amtcp_chunk_t *ch, int rc) {
  ch->rc = rc;
  ch->next = t->done;
  __atomic_store_n(&t->done, ch, __ATOMIC_RELEASE); /* progress peeks without the lock */
}

static void done_run(gasnetc_transport_t *t) {
  AMTCP_LOCK(t);
  amtcp_chunk_t *ch = __atomic_exchange_n(&t->done, NULL, __ATOMIC_ACQUIRE);
  AMTCP_UNLOCK(t);
  while (ch) {
    amtcp_chunk_t *next = ch->next;
    t->cfg.send_done(t->cfg.ctx, ch->cookie, ch->rc);
    free(ch);
    ch = next;
  }
}

static void q_link(gasnetc_transport_t *t, amtcp_conn_t *c, amtcp_chunk_t *ch) {
  if (!c->q_head) conn_busy(t, c, 1);
  if (c->q_tail) c->q_tail->next = ch;
  else c->q_head = ch;
  c->q_tail = ch;
}

/* Append a copy of p[0..n) to c's queue (into the tail chunk when it has
 * room). Lock held. -ENOMEM when out of memory. */
static int q_copy(gasnetc_transport_t *t, amtcp_conn_t *c, const void *p, size_t n) {
  if (!n) return 0;
  amtcp_chunk_t *tl = c->q_tail;
  if (tl && tl->owned && !tl->sealed && tl->cap - tl->len >= n) {
    memcpy(tl->buf + tl->len, p, n);
    tl->len += n;
  } else {
    amtcp_chunk_t *ch = chunk_new(t, n);
    if (!ch) return -ENOMEM;
    memcpy(ch->buf, p, n);
    ch->len = n;
    q_link(t, c, ch);
  }
  c->q_bytes += n;
  return 0;
}

/* The frame queued last ends in c's tail chunk. Without aggregation no
 * other frame joins that chunk, so that conn_flush writes it alone. */
static void q_frame_end(gasnetc_transport_t *t, amtcp_conn_t *c) {
  c->q_tail->nends++;
  if (!t->tun.agg) c->q_tail->sealed = 1;
}

static void q_drop(gasnetc_transport_t *t, amtcp_conn_t *c) {
  if (c->q_head) busy_add(t, -1);
  while (c->q_head) {
    amtcp_chunk_t *ch = c->q_head;
    c->q_head = ch->next;
    /* A borrowed payload dropped with its connection is complete: the
     * frame is lost with the peer, whose failure is reported on its own
     * (report_dead), as for a frame in flight. */
    if (ch->owned) chunk_release(t, ch);
    else chunk_done(t, ch, 0);
  }
  c->q_tail = NULL;
  c->q_bytes = 0;
}

static void direct_update(gasnetc_transport_t *t);

/* The connection is finished (or could not be made): closed for traffic
 * either way, its queue dropped. A failure (why != NULL) is owed to the
 * core as peer_dead unless we are closing or the peer said BYE first. Lock
 * held. The fd is closed only in amtcp_close: another thread may be
 * reading it. */
void amtcp_conn_fail(gasnetc_transport_t *t, amtcp_conn_t *c, const char *why) {
  if (c->state != AMTCP_CONN_UP && c->state != AMTCP_CONN_CONNECTING) return;
  if (c->state == AMTCP_CONN_UP) {
    epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    if (t->watched) t->cfg.watch(t->cfg.ctx, c->fd, 0);
    shutdown(c->fd, SHUT_RDWR);
    for (uint32_t i = 0; i < t->nlive; i++)
      if (t->live[i] == c->rank) {
        t->live[i] = t->live[--t->nlive];
        break;
      }
  } else {
    __atomic_add_fetch(&t->nsettled, 1, __ATOMIC_RELAXED);
  }
  c->state = AMTCP_CONN_GONE;
  q_drop(t, c);
  direct_update(t);
  if (why && !t->closing && !c->bye_rcvd && !c->dead) { /* dead: amtcp_live.c said so */
    c->dead = 1;
    c->dead_why = why;
    c->dead_ns = gasneti_now_ns();
    __atomic_add_fetch(&t->dead_unreported, 1, __ATOMIC_RELAXED);
    AMTCP_COUNT(t, peers_dead, 1);
  }
}

static const char *errno_why(int e) {
  switch (e) {
  case 0: return "connection closed by the peer";
  case ECONNRESET: return "connection reset";
  case ECONNABORTED: return "connection aborted";
  case EPIPE: return "connection broken (EPIPE)";
  case ETIMEDOUT: return "connection timed out";
  case EHOSTUNREACH: return "host unreachable";
  default: return "socket error";
  }
}

/* Write as much of c's queue as the kernel takes: the aggregation of
 * amtcp. Every frame queued leaves with those queued before it, up to
 * AMTCP_IOV chunks per sendmsg; the receiver's parser (amtcp_rx_parse)
 * splits them. With GASNET_TCP_AGG=0, one frame per sendmsg (its chunks
 * up to the first that ends a frame). Lock held. */
static void conn_flush(gasnetc_transport_t *t, amtcp_conn_t *c) {
  while (c->q_head && c->state == AMTCP_CONN_UP) {
    struct iovec iov[AMTCP_IOV];
    int n = 0;
    size_t want = 0;
    for (amtcp_chunk_t *ch = c->q_head; ch && n < AMTCP_IOV; ch = ch->next) {
      iov[n].iov_base = (void *)(ch->p + ch->off);
      iov[n].iov_len = ch->len - ch->off;
      want += iov[n++].iov_len;
      if (!t->tun.agg && ch->nends) break;
    }
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
    ssize_t k = gasneti_sys_sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    AMTCP_COUNT(t, sendmsg_calls, 1);
    AMTCP_COUNT(t, queue_writes, 1);
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) amtcp_conn_fail(t, c, errno_why(errno));
      return;
    }
    size_t wrote = (size_t)k;
    c->q_bytes -= wrote;
    while (k > 0) {
      amtcp_chunk_t *ch = c->q_head;
      size_t left = ch->len - ch->off;
      if ((size_t)k < left) {
        ch->off += (size_t)k;
        break;
      }
      k -= (ssize_t)left;
      ch->off = ch->len;
      AMTCP_COUNT(t, queue_frames, ch->nends);
      if (!(c->q_head = ch->next)) {
        c->q_tail = NULL;
        conn_busy(t, c, 0);
      }
      chunk_release(t, ch);
    }
    if (wrote < want) return; /* kernel buffer full */
  }
}

/* A handshake is done (amtcp_conn.c): fd carries c's frames from now on,
 * starting with those queued meanwhile. Lock held. */
int amtcp_conn_ready(gasnetc_transport_t *t, uint32_t rank, int fd) {
  amtcp_conn_t *c = &t->conns[rank];
  if (c->state == AMTCP_CONN_NONE || c->state == AMTCP_CONN_CONNECTING)
    __atomic_add_fetch(&t->nsettled, 1, __ATOMIC_RELAXED);
  c->fd = fd;
  c->state = AMTCP_CONN_UP;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = rank};
  if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) return -errno;
  int rc = t->watched ? t->cfg.watch(t->cfg.ctx, fd, EPOLLIN) : 0;
  if (rc != 0) return rc;
  t->live[t->nlive++] = rank;
  AMTCP_COUNT(t, conns_up, 1);
  uint64_t now = gasneti_now_ns(); /* liveness watches it from now (amtcp_live.c) */
  c->live_rx_seen = c->live_rx;
  c->live_quiet_ns = now;
  memset(&c->live, 0, sizeof c->live);
  if (t->closing) { /* made while we close: say BYE at once */
    unsigned char bye[AMTCP_FRAME_HDR];
    amtcp_frame_t f = {.type = AMTCP_T_BYE};
    amtcp_wire_frame_encode(bye, &f);
    if (q_copy(t, c, bye, sizeof bye) == 0) q_frame_end(t, c);
  }
  if (c->q_head) { /* frames queued while connecting: the core's wait must see it writable */
    conn_flush(t, c);
    if (c->q_head && !c->out_dirty) {
      c->out_dirty = 1;
      t->dirty[t->ndirty++] = c->rank;
    }
  }
  direct_update(t);
  return 0;
}

/* poll reads the connections directly (GASNET_TCP_POLL=direct, or auto and
 * at most AMTCP_DIRECT_MAX up). Lock held. */
static void direct_update(gasnetc_transport_t *t) {
  int d = t->tun.poll_mode == AMTCP_POLL_DIRECT ||
          (t->tun.poll_mode == AMTCP_POLL_AUTO && t->nlive <= AMTCP_DIRECT_MAX);
  __atomic_store_n(&t->direct, d, __ATOMIC_RELAXED);
}

static void flush_all(gasnetc_transport_t *t) {
  AMTCP_LOCK(t);
  for (uint32_t i = 0; i < t->nlive && t->nbusy; i++) {
    amtcp_conn_t *c = &t->conns[t->live[i]];
    if (c->q_head) conn_flush(t, c);
  }
  AMTCP_UNLOCK(t);
}

static uint32_t busy_get(gasnetc_transport_t *t) { return __atomic_load_n(&t->nbusy, __ATOMIC_RELAXED); }
static void busy_add(gasnetc_transport_t *t, int d) {
  __atomic_add_fetch(&t->nbusy, (uint32_t)d, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- receiving */

static void deliver(gasnetc_transport_t *t, amtcp_conn_t *c, const void *hdr, size_t hdrlen,
                    void *payload, size_t paylen) {
  if (__atomic_load_n(&t->closing, __ATOMIC_RELAXED)) return; /* counted by the caller */
  t->cfg.deliver(t->cfg.ctx, c->rank, hdr, hdrlen, payload, paylen);
}

/* A big payload read in place is complete (big_got == big_len): deliver it
 * and go back to the buffer. Returns frames delivered (1). */
int amtcp_rx_big_done(gasnetc_transport_t *t, amtcp_conn_t *c) {
  deliver(t, c, c->big_hdr, c->big_f.hdrlen, c->big, c->big_len);
  if (c->big_owned) free(c->big);
  c->big = NULL;
  c->skip = amtcp_pad(c->big_len);
  c->rpos = c->rend = c->big_len & (AMTCP_ALIGN - 1); /* buffer offset == stream offset mod 16 */
  return 1;
}

/* Read what c has (one recv into its buffer, or a big payload until the
 * socket is empty) and deliver every complete frame. The caller owns c's
 * receive state (rx_busy). Returns frames delivered; *fail names a fatal
 * problem with the connection (*bad set when it is a malformed frame). */
static int rx_read(gasnetc_transport_t *t, amtcp_conn_t *c, const char **fail, int *bad,
                   amtcp_frame_t *badf, int *bye, size_t io[4]) {
  if (c->big) { /* a payload being read in place */
    while (c->big_got < c->big_len) {
      ssize_t k = gasneti_sys_recv(c->fd, c->big + c->big_got, c->big_len - c->big_got,
                                   MSG_DONTWAIT);
      io[0]++;
      if (k > 0) { c->big_got += (size_t)k; io[1] += (size_t)k; continue; }
      if (k == 0) { *fail = errno_why(0); return 0; }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) *fail = errno_why(errno);
      return 0;
    }
    return amtcp_rx_big_done(t, c);
  }
  if (!c->rbuf && !(c->rbuf = aligned_alloc(AMTCP_ALIGN, AMTCP_RXBUF))) {
    *fail = "out of memory for a receive buffer";
    return 0;
  }
  /* Right after a payload read in place, more may follow: read a little, so
   * that little of the next one is copied through the buffer. */
  size_t room = AMTCP_RXBUF - c->rend;
  if (c->rx_small && c->rpos == c->rend && room > AMTCP_PEEK) room = AMTCP_PEEK;
  ssize_t k;
  do k = gasneti_sys_recv(c->fd, c->rbuf + c->rend, room, MSG_DONTWAIT);
  while (k < 0 && errno == EINTR);
  io[0]++;
  if (k > 0) io[1] += (size_t)k;
  if (k == 0) { *fail = errno_why(0); return 0; }
  if (k < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK) *fail = errno_why(errno);
    return 0;
  }
  c->rend += (size_t)k;
  int n = amtcp_rx_parse(t, c, fail, bad, badf, bye, io);
  if (c->big && !*fail) n += rx_read(t, c, fail, bad, badf, bye, io); /* read on into place */
  return n;
}

int amtcp_rx_parse(gasnetc_transport_t *t, amtcp_conn_t *c, const char **fail, int *bad,
                   amtcp_frame_t *badf, int *bye, size_t io[4]) {
  int n = 0;
  size_t need = AMTCP_FRAME_HDR; /* bytes from rpos the next step waits for */
  for (;;) {
    size_t avail = c->rend - c->rpos;
    if (c->skip) {
      size_t s = c->skip < avail ? c->skip : avail;
      c->rpos += s;
      c->skip -= s;
      avail -= s;
      if (c->skip) break;
    }
    need = AMTCP_FRAME_HDR;
    if (avail < AMTCP_FRAME_HDR) break;
    unsigned char *fp = c->rbuf + c->rpos;
    amtcp_frame_t f;
    amtcp_bad_t b = amtcp_wire_frame_decode(fp, &f, AMTCP_MAX_PAYLOAD);
    if (b != AMTCP_BAD_NONE) {
      *fail = "sent a malformed frame";
      *bad = (int)b;
      *badf = f;
      return n;
    }
    if (f.type == AMTCP_T_BYE) {
      *bye = 1;
      c->rpos += AMTCP_FRAME_HDR;
      continue;
    }
    size_t hlw = amtcp_round(f.hdrlen), flen = AMTCP_FRAME_HDR + hlw + amtcp_round(f.paylen);
    const unsigned char *hdr = fp + AMTCP_FRAME_HDR;
    unsigned char *pay = fp + AMTCP_FRAME_HDR + hlw;
    if (avail >= AMTCP_FRAME_HDR + hlw + f.paylen) { /* whole payload here */
      c->place_tried = 0;
      c->rx_small = 0;
      size_t used = avail < flen ? avail : flen;
      int batching = amtcp_batching; /* (a handler may poll: nested) */
      amtcp_batching = t->tun.agg && avail - used >= AMTCP_FRAME_HDR; /* more follows */
      deliver(t, c, hdr, f.hdrlen, pay, f.paylen);
      amtcp_batching = batching;
      n++;
      c->rpos += used;
      c->skip = flen - used;
      continue;
    }
    need = flen;
    if (avail < AMTCP_FRAME_HDR + hlw) break; /* core header incomplete */
    if (flen <= AMTCP_RXBUF && (f.paylen < AMTCP_PLACE_MIN || c->place_tried)) break;
    /* Big or placeable: read the rest of the payload straight to its place. */
    void *dst = c->place_tried || !t->cfg.place || __atomic_load_n(&t->closing, __ATOMIC_RELAXED)
                    ? NULL
                    : t->cfg.place(t->cfg.ctx, c->rank, hdr, f.hdrlen, f.paylen);
    c->place_tried = 1;
    int owned = 0;
    if (!dst) {
      if (flen <= AMTCP_RXBUF) break; /* fits: wait for it in the buffer */
      if (!(dst = malloc(f.paylen))) {
        *fail = "out of memory for a large payload";
        return n;
      }
      owned = 1;
    }
    io[owned ? 3 : 2]++;
    size_t have = avail - AMTCP_FRAME_HDR - hlw;
    memcpy(dst, pay, have);
    c->big = dst;
    c->big_len = f.paylen;
    c->big_got = have;
    c->big_owned = owned;
    c->rx_small = 1;
    c->big_f = f;
    memcpy(c->big_hdr, hdr, f.hdrlen);
    c->place_tried = 0;
    c->rpos = c->rend = 0;
    return n; /* the caller reads the rest into place */
  }
  if (c->rpos == c->rend) {
    c->rpos = c->rend = c->rpos & (AMTCP_ALIGN - 1);
  } else if (c->rpos + need > AMTCP_RXBUF) { /* make room: move by a multiple of 16 */
    size_t shift = c->rpos & ~(size_t)(AMTCP_ALIGN - 1);
    memmove(c->rbuf + c->rpos - shift, c->rbuf + c->rpos, c->rend - c->rpos);
    c->rpos -= shift;
    c->rend -= shift;
  }
  return n;
}

/* Receive on one connection, if no other thread is. Frames delivered. */
static int rx_conn(gasnetc_transport_t *t, amtcp_conn_t *c) {
  AMTCP_LOCK(t);
  if (c->rx_busy || c->state != AMTCP_CONN_UP) {
    AMTCP_UNLOCK(t);
    return 0;
  }
  c->rx_busy = 1;
  AMTCP_UNLOCK(t);
  const char *fail = NULL;
  int bad = 0, bye = 0;
  amtcp_frame_t badf = {0};
  size_t io[4] = {0, 0, 0, 0}; /* recv calls, bytes, frames placed, big buffers */
  int n = rx_read(t, c, &fail, &bad, &badf, &bye, io);
  if (io[1] && (c->big || c->rpos != c->rend || c->skip)) /* a frame is streaming in */
    __atomic_store_n(&t->midframe_ns, gasneti_now_ns(), __ATOMIC_RELAXED);
  AMTCP_LOCK(t);
  AMTCP_COUNT(t, recv_calls, io[0]);
  AMTCP_COUNT(t, bytes_received, io[1]);
  AMTCP_COUNT(t, frames_placed, io[2]);
  AMTCP_COUNT(t, big_buffers, io[3]);
  c->live_rx += io[1];
  c->rx_busy = 0;
  if (bye) {
    c->bye_rcvd = 1;
    AMTCP_COUNT(t, byes_received, 1);
  }
  if (t->closing) {
    AMTCP_COUNT(t, discarded_closing, (uint64_t)n);
    n = 0;
  } else {
    AMTCP_COUNT(t, frames_delivered, (uint64_t)n);
  }
  if (fail) {
    if (bad) {
      AMTCP_COUNT(t, bad_frames, 1);
      fprintf(stderr, "amtcp: rank %u: closing the connection with rank %u: malformed frame "
              "(%s: type %u, hdrlen %u, paylen %u)\n", t->cfg.myrank, c->rank,
              amtcp_bad_name((amtcp_bad_t)bad), badf.type, badf.hdrlen, badf.paylen);
    }
    amtcp_conn_fail(t, c, fail);
  }
  AMTCP_UNLOCK(t);
  return n;
}

/* Tell the core about connections that failed at least AMTCP_DEAD_GRACE_NS
 * ago. The grace lets the launcher end the job first when it knows why (a
 * rank that aborts, or is killed, closes its connections at once): its
 * message names the cause; ours would only name the broken connection. */
static void report_dead(gasnetc_transport_t *t) {
  uint64_t now = gasneti_now_ns();
  for (;;) {
    uint32_t rank = UINT32_MAX;
    const char *why = NULL;
    AMTCP_LOCK(t);
    if (!t->closing && t->dead_unreported) {
      for (uint32_t r = 0; r < t->cfg.nranks; r++) {
        amtcp_conn_t *c = &t->conns[r];
        if (c->dead && !c->dead_reported && now - c->dead_ns >= AMTCP_DEAD_GRACE_NS) {
          c->dead_reported = 1;
          __atomic_sub_fetch(&t->dead_unreported, 1, __ATOMIC_RELAXED);
          rank = r;
          why = c->dead_why;
          break;
        }
      }
    }
    AMTCP_UNLOCK(t);
    if (rank == UINT32_MAX) return;
    if (t->cfg.peer_dead) t->cfg.peer_dead(t->cfg.ctx, rank, why);
  }
}

/* Connections still to be made, or being made: the listener and pending
 * connections need epoll's eye even when poll reads the peers directly. */
static int unsettled(gasnetc_transport_t *t) {
  return __atomic_load_n(&t->npend, __ATOMIC_RELAXED) ||
         __atomic_load_n(&t->nsettled, __ATOMIC_RELAXED) < t->nserve;
}

/* What epoll reports: connections with data (unless read directly), the
 * listener, pending connections. Frames delivered. */
static int epoll_phase(gasnetc_transport_t *t, int direct) {
  struct epoll_event ev[AMTCP_EVENTS];
  int n = 0, k = epoll_wait(t->epfd, ev, AMTCP_EVENTS, 0);
  AMTCP_LOCK(t);
  AMTCP_COUNT(t, epoll_polls, 1);
  AMTCP_UNLOCK(t);
  for (int i = 0; i < k; i++) {
    uint32_t id = ev[i].data.u32;
    if (id == AMTCP_LISTEN_ID) {
      amtcp_accept(t);
    } else if (id & AMTCP_PEND_TAG) {
      AMTCP_LOCK(t);
      amtcp_pend_event(t, id & ~AMTCP_PEND_TAG, ev[i].events);
      AMTCP_UNLOCK(t);
    } else if (!direct) {
      n += rx_conn(t, &t->conns[id]);
    }
  }
  return n;
}

/* Retries and deadlines of the connections being made, when due. */
static uint64_t pend_due(gasnetc_transport_t *t, uint64_t now) {
  uint64_t next = __atomic_load_n(&t->pend_next_ns, __ATOMIC_RELAXED);
  if (!__atomic_load_n(&t->npend, __ATOMIC_RELAXED) && !t->refuse_quiet) /* (a hint) */
    return GASNETC_NEVER;
  if (now < next) return next;
  AMTCP_LOCK(t);
  next = amtcp_pend_timers(t, now);
  AMTCP_UNLOCK(t);
  return next;
}

/* The progress engine, in phases: (1) read and deliver: each live peer
 * directly (few peers) or those epoll reports, at most AMTCP_EVENTS, one
 * read each, so a flood cannot starve the caller; (2) the listener and
 * the connections being made: through epoll while there are any, else now
 * and then (direct mode); (3) flush output queues (with what handlers
 * queued in (1), amtcp_batching); (4) tell the core about dead peers. */
static int amtcp_progress(gasnetc_transport_t *t) {
  if (!t->connected) return 0;
  int n = 0, direct = __atomic_load_n(&t->direct, __ATOMIC_RELAXED);
  if (direct) {
    /* (a connection failing meanwhile may make this skip one: harmless) */
    for (uint32_t i = 0;; i++) {
      AMTCP_LOCK(t);
      uint32_t r = i < t->nlive ? t->live[i] : UINT32_MAX;
      if (i == 0) AMTCP_COUNT(t, direct_polls, 1);
      AMTCP_UNLOCK(t);
      if (r == UINT32_MAX) break;
      n += rx_conn(t, &t->conns[r]);
    }
    if (__atomic_add_fetch(&t->npolls, 1, __ATOMIC_RELAXED) % AMTCP_LISTEN_EVERY == 0)
      amtcp_accept(t);
  }
  if (!direct || unsettled(t)) {
    n += epoll_phase(t, direct);
    pend_due(t, gasneti_now_ns());
  }
  if (busy_get(t)) flush_all(t);
  if (__atomic_load_n(&t->done, __ATOMIC_RELAXED)) done_run(t);
  unsigned lp = __atomic_load_n(&t->live_polls, __ATOMIC_RELAXED) + 1; /* no locked add */
  __atomic_store_n(&t->live_polls, lp, __ATOMIC_RELAXED);
  if (lp % AMTCP_LIVE_EVERY == 0) amtcp_live_due(t, gasneti_now_ns());
  if (__atomic_load_n(&t->dead_unreported, __ATOMIC_RELAXED)) report_dead(t);
  return n;
}

static int amtcp_poll(gasnetc_transport_t *t) { return amtcp_progress(t); }

/* ---------------------------------------------------------------- sleeping */

/* The core is about to sleep. Not while a frame's bytes are
 * still arriving: it completes sooner if we keep reading than if each slice
 * costs a sleep and a wakeup. A failed connection is due for report_dead
 * when its grace ends. */
static uint64_t amtcp_idle(gasnetc_transport_t *t) {
  if (!t->connected) return GASNETC_NEVER;
  uint64_t now = gasneti_now_ns();
  if (now - __atomic_load_n(&t->midframe_ns, __ATOMIC_RELAXED) < AMTCP_MIDFRAME_NS) return now;
  /* Direct mode reads no epoll events, so a stranger on the listener
   * (which wakes the core's wait) is looked at before a sleep, at most
   * every AMTCP_LISTEN_NS: an accept4 per sleep would tax every wakeup. */
  if (__atomic_load_n(&t->direct, __ATOMIC_RELAXED) &&
      now - __atomic_load_n(&t->listen_ns, __ATOMIC_RELAXED) >= AMTCP_LISTEN_NS) {
    __atomic_store_n(&t->listen_ns, now, __ATOMIC_RELAXED);
    amtcp_accept(t);
  }
  uint64_t dl = amtcp_live_due(t, now), pd = pend_due(t, now);
  if (pd < dl) dl = pd;
  AMTCP_LOCK(t);
  conn_arm_all(t);
  if (t->dead_unreported)
    for (uint32_t r = 0; r < t->cfg.nranks; r++) {
      amtcp_conn_t *c = &t->conns[r];
      if (c->dead && !c->dead_reported && c->dead_ns + AMTCP_DEAD_GRACE_NS < dl)
        dl = c->dead_ns + AMTCP_DEAD_GRACE_NS;
    }
  AMTCP_UNLOCK(t);
  return dl;
}

/* close() only: sleep on epfd alone (readable: a peer's data or end of
 * stream) for up to timeout_ms, then progress, which also flushes. */
static void amtcp_close_wait(gasnetc_transport_t *t, int timeout_ms) {
  struct epoll_event ev;
  epoll_wait(t->epfd, &ev, 1, timeout_ms);
  amtcp_progress(t);
}

/* ---------------------------------------------------------------- sending */

/* What a send to a connection that is no longer up returns. Lock held.
 * A peer that said BYE is leaving with the job, and a failed peer not yet
 * reported is in its grace (report_dead): the frame is dropped (counted),
 * as it would be in flight to a dead peer; afterwards -EPIPE. */
static int gone_rc(gasnetc_transport_t *t, amtcp_conn_t *c) {
  if ((c->bye_rcvd && !c->dead) || (c->dead && !c->dead_reported)) {
    AMTCP_COUNT(t, dropped_to_gone, 1);
    return 0;
  }
  return -EPIPE;
}

static int amtcp_send(gasnetc_transport_t *t, uint32_t dest, const void *hdr, size_t hdrlen,
                      const void *payload, size_t paylen, unsigned flags, void *cookie) {
  if (!t->connected || dest >= t->cfg.nranks || !t->serves[dest]) return -EINVAL;
  if (hdrlen == 0 || hdrlen > GASNETC_HDR_MAX || paylen > AMTCP_MAX_PAYLOAD) return -EMSGSIZE;
  amtcp_conn_t *c = &t->conns[dest];
  int is_reply = (flags & GASNETC_SEND_REPLY) != 0;

  /* Frame header and core header (padded) in one piece, payload, padding. */
  unsigned char head[AMTCP_FRAME_HDR + GASNETC_HDR_MAX + AMTCP_ALIGN];
  amtcp_frame_t f = {.type = AMTCP_T_DATA, .flags = is_reply ? AMTCP_F_REPLY : 0,
                     .hdrlen = (uint16_t)hdrlen, .paylen = (uint32_t)paylen};
  amtcp_wire_frame_encode(head, &f);
  memcpy(head + AMTCP_FRAME_HDR, hdr, hdrlen);
  size_t headlen = AMTCP_FRAME_HDR + amtcp_round(hdrlen);
  memset(head + AMTCP_FRAME_HDR + hdrlen, 0, headlen - AMTCP_FRAME_HDR - hdrlen);
  struct iovec iov[3] = {{head, headlen},
                         {(void *)payload, paylen},
                         {(void *)amtcp_zeros, amtcp_pad(paylen)}};
  size_t total = headlen + paylen + iov[2].iov_len;

  AMTCP_LOCK(t);
  if (c->state == AMTCP_CONN_NONE && amtcp_conn_start(t, c) != 0) { /* first use */
    AMTCP_UNLOCK(t);
    return -ENOMEM;
  }
  int making = c->state == AMTCP_CONN_CONNECTING; /* frames queue meanwhile */
  int hold = amtcp_batching && total <= AMTCP_BATCH_MAX; /* leaves with the batch's */
  if (!is_reply && c->q_bytes > t->tun.queue_max && (c->state == AMTCP_CONN_UP || making)) {
    /* The queue's bound: the caller makes progress (which flushes) and
     * tries again. */
    AMTCP_COUNT(t, send_blocked, 1);
    AMTCP_UNLOCK(t);
    return -EAGAIN;
  }
  int rc = 0;
  if ((c->state != AMTCP_CONN_UP && !making) || c->bye_rcvd) {
    rc = gone_rc(t, c);
    AMTCP_UNLOCK(t);
    return rc;
  }
  AMTCP_COUNT(t, frames_sent, 1);
  AMTCP_COUNT(t, bytes_sent, total);
  size_t done = 0;
  if (!c->q_head && !making && !hold) { /* the common case: straight to the socket */
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = iov[2].iov_len ? 3 : 2};
    ssize_t k;
    do k = gasneti_sys_sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (k < 0 && errno == EINTR);
    AMTCP_COUNT(t, sendmsg_calls, 1);
    if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      amtcp_conn_fail(t, c, errno_why(errno));
      rc = gone_rc(t, c);
      AMTCP_UNLOCK(t);
      return rc;
    }
    done = k > 0 ? (size_t)k : 0;
  }
  int borrowed = 0;
  if (done < total) { /* queue what the kernel did not take */
    if (done) AMTCP_COUNT(t, partial_writes, 1);
    AMTCP_COUNT(t, frames_queued, 1);
    AMTCP_COUNT(t, bytes_queued, total - done);
    for (int i = 0; i < 3 && rc == 0; i++) {
      size_t len = iov[i].iov_len;
      if (done >= len) { done -= len; continue; }
      const unsigned char *p = (const unsigned char *)iov[i].iov_base + done;
      len -= done;
      done = 0;
      amtcp_chunk_t *b = NULL;
      if (i == 1 && !is_reply && len >= AMTCP_ZCOPY_MIN && t->cfg.send_done &&
          (b = calloc(1, sizeof *b))) {
        b->p = p;
        b->len = len;
        b->cookie = cookie;
        q_link(t, c, b);
        c->q_bytes += len;
        borrowed = 1;
      } else {
        rc = q_copy(t, c, p, len);
      }
    }
    if (rc == 0) q_frame_end(t, c);
    if (rc) { /* out of memory mid-frame: the stream is broken */
      fprintf(stderr, "amtcp: rank %u: out of memory queueing a frame for rank %u\n",
              t->cfg.myrank, dest);
      amtcp_conn_fail(t, c, "out of memory on the sender");
      rc = -ENOMEM;
    } else if (!making && !hold) {
      conn_flush(t, c);
    }
  }
  if (borrowed && rc == 0) { /* zero copy: send_done when written */
    AMTCP_COUNT(t, zcopy_waits, 1);
    rc = GASNETC_SEND_INFLIGHT;
  }
  int owed = __atomic_load_n(&t->done, __ATOMIC_RELAXED) != NULL;
  AMTCP_UNLOCK(t);
  if (owed) done_run(t); /* this frame's, or an earlier one's */
  return rc;
}

/* ---------------------------------------------------------------- open, connect */

static void amtcp_close(gasnetc_transport_t *t);

static int amtcp_open(gasnetc_transport_t **tp, const gasnetc_transport_config_t *cfg) {
  *tp = NULL;
  gasnetc_transport_t *t = calloc(1, sizeof *t);
  if (!t) {
    fprintf(stderr, "amtcp: out of memory opening the endpoint\n");
    return -ENOMEM;
  }
  int rc = 0;
  t->lfd = t->epfd = -1;
  t->cfg = *cfg;
#if GASNETC_THREADS
  pthread_mutex_init(&t->lock, NULL);
#endif
  if (cfg->nranks == 0 || cfg->myrank >= cfg->nranks || !cfg->deliver) {
    fprintf(stderr, "amtcp: bad config (rank %u of %u, deliver %s)\n", cfg->myrank,
            cfg->nranks, cfg->deliver ? "set" : "NULL");
    rc = -EINVAL;
    goto fail;
  }
  amtcp_tunables_read(t);
  if ((rc = amtcp_listen(t)) != 0) goto fail;
  if ((t->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
    rc = -errno;
    fprintf(stderr, "amtcp: epoll_create1: %s\n", strerror(errno));
    goto fail;
  }
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = AMTCP_LISTEN_ID};
  if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->lfd, &ev) != 0) {
    rc = -errno;
    fprintf(stderr, "amtcp: epoll_ctl: %s\n", strerror(errno));
    goto fail;
  }
  if (cfg->watch && (rc = cfg->watch(cfg->ctx, t->lfd, EPOLLIN)) != 0) {
    fprintf(stderr, "amtcp: cannot watch the listener: %s\n", strerror(-rc));
    goto fail;
  }
  t->watched = cfg->watch != NULL;
  *tp = t;
  return 0;
fail:
  amtcp_close(t);
  return rc < 0 ? rc : -EIO;
}

static int amtcp_connect(gasnetc_transport_t *t, const void *blobs, size_t stride,
                         const uint8_t *serves) {
  if (t->connected || t->conns) return -EALREADY;
  t->conns = calloc(t->cfg.nranks, sizeof *t->conns);
  t->live = calloc(t->cfg.nranks, sizeof *t->live);
  t->serves = malloc(t->cfg.nranks);
  t->dirty = calloc(t->cfg.nranks, sizeof *t->dirty);
  if (!t->conns || !t->live || !t->serves || !t->dirty) {
    fprintf(stderr, "amtcp: out of memory for %u peers\n", t->cfg.nranks);
    return -ENOMEM;
  }
  for (uint32_t r = 0; r < t->cfg.nranks; r++) {
    t->conns[r].fd = -1;
    t->serves[r] = serves[r] && r != t->cfg.myrank;
  }
  int rc = amtcp_peers(t, blobs, stride);
  if (rc != 0) return rc;
  uint64_t t0 = gasneti_now_ns();
  if (t->tun.eager && (rc = amtcp_mesh(t)) != 0) return rc;
  t->mesh_ns = gasneti_now_ns() - t0;
  direct_update(t);
  amtcp_live_start(t, gasneti_now_ns());
  t->connected = 1;
  return 0;
}

static size_t amtcp_max_payload(gasnetc_transport_t *t) {
  (void)t;
  return AMTCP_MAX_PAYLOAD;
}

/* ---------------------------------------------------------------- stats, close */

static void amtcp_stats(gasnetc_transport_t *t, FILE *out) {
  static const char *const names[] = {
#define AMTCP_X_NAME(name) #name,
    AMTCP_COUNTERS(AMTCP_X_NAME)
#undef AMTCP_X_NAME
  };
  uint64_t c[AMTCP_NCOUNTERS];
  AMTCP_LOCK(t);
  memcpy(c, t->ctr, sizeof c);
  AMTCP_UNLOCK(t);
  for (int i = 0; i < AMTCP_NCOUNTERS; i++)
    fprintf(out, "tcp_%s %llu\n", names[i], (unsigned long long)c[i]);
  fprintf(out, "tcp_mesh_usec %llu\n", (unsigned long long)(t->mesh_ns / 1000));
}

/* Closing: queue a BYE to every peer, flush (reading and discarding, so a
 * peer flushing to us is not stalled) for at most AMTCP_CLOSE_FLUSH_NS,
 * half-close, and give peers a moment to close their side too, so that no
 * unread data makes our close send them a reset. */
static void amtcp_close(gasnetc_transport_t *t) {
  if (!t) return;
  if (t->connected) {
    amtcp_accept(t); /* strangers not seen yet are reported at the latest now */
    AMTCP_LOCK(t);
    __atomic_store_n(&t->closing, 1, __ATOMIC_RELAXED);
    unsigned char bye[AMTCP_FRAME_HDR];
    amtcp_frame_t f = {.type = AMTCP_T_BYE};
    amtcp_wire_frame_encode(bye, &f);
    for (uint32_t i = 0; i < t->nlive; i++) {
      amtcp_conn_t *c = &t->conns[t->live[i]];
      if (!c->bye_rcvd && q_copy(t, c, bye, sizeof bye) == 0) {
        q_frame_end(t, c);
        conn_flush(t, c);
      }
    }
    AMTCP_UNLOCK(t);
    uint64_t now = gasneti_now_ns(), end = now + AMTCP_CLOSE_FLUSH_NS;
    while (busy_get(t) && (now = gasneti_now_ns()) < end) amtcp_close_wait(t, 1);
    AMTCP_LOCK(t);
    for (uint32_t i = 0; i < t->nlive; i++) shutdown(t->conns[t->live[i]].fd, SHUT_WR);
    AMTCP_UNLOCK(t);
    end = gasneti_now_ns() + AMTCP_CLOSE_DRAIN_NS;
    while (t->nlive && gasneti_now_ns() < end) amtcp_close_wait(t, 1);
  }
  amtcp_pend_close_all(t);
  for (uint32_t r = 0; t->conns && r < t->cfg.nranks; r++) {
    amtcp_conn_t *c = &t->conns[r];
    amtcp_conn_fail(t, c, NULL);
    if (c->fd >= 0) close(c->fd);
    if (c->big_owned) free(c->big);
    free(c->rbuf);
  }
  if (t->done && t->cfg.send_done) done_run(t); /* dropped with their connections */
  free(t->chunk_free);
  if (t->lfd >= 0) {
    if (t->watched) t->cfg.watch(t->cfg.ctx, t->lfd, 0);
    close(t->lfd);
  }
  if (t->epfd >= 0) close(t->epfd);
#if GASNETC_THREADS
  pthread_mutex_destroy(&t->lock);
#endif
  free(t->serves);
  free(t->dirty);
  free(t->conns);
  free(t->live);
  free(t);
}

const gasnetc_transport_ops_t amtcp_ops = {
  .name = "tcp",
  .open = amtcp_open,
  .address = amtcp_address,
  .connect = amtcp_connect,
  .max_payload = amtcp_max_payload,
  .send = amtcp_send,
  .poll = amtcp_poll,
  .idle = amtcp_idle,
  .stats = amtcp_stats,
  .close = amtcp_close,
};
