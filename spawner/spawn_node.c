/*
 * spawn_node.c - a node of the launcher tree (see spawn.h): its listener and
 * connections, the handshake, and the events it passes up (to the root's
 * job, or to its parent node). Collectives are in spawn_coll.c.
 */
#include "spawn.h"
#include "gasneti_sha256.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Output and frames are read in chunks of this size; one buffer serves every
 * read because libuv hands each chunk to its read callback before the next. */
#define NODE_READ_CHUNK (64 * 1024)
/* Ranks that have exited get this long to close their connection and pipes
 * (a grandchild may hold them open) before we stop waiting. */
#define NODE_LINGER_MS 500
/* A relay that has sent DONE waits this long at most for its parent to
 * close the connection (spawn_node_check). */
#define NODE_LEAVE_MS 5000
/* The tick that checks deadlines. */
#define NODE_TICK_MS 100
/* A connection must authenticate this soon after it is accepted, so that a
 * stranger cannot hold descriptors for long. A real rank or relay answers
 * HELLO in milliseconds, but over a lossy path TCP's retransmission backoff
 * takes seconds: no count is shared
 * with strangers, each has its own deadline, so a long one costs real
 * ranks nothing. */
#define NODE_AUTH_MS 20000
/* Rejected connections are logged as one line per this interval, with a
 * count: a flood of strangers cannot flood stderr. */
#define NODE_REJECT_LOG_MS 5000
/* Liveness of child relays: a PING to each this often; any frame from a
 * kid counts as its answer. Once the job ends (a signal went below), a kid
 * silent for NODE_ENDING_SILENT_MS is given up at once (a reachable relay
 * answers within milliseconds): its ssh client is killed, the host named.
 * A kid that never connected is given up NODE_GIVEUP_MS per level of relays
 * below us after SIGKILL went below. */
#define NODE_PING_MS 1000
#define NODE_ENDING_SILENT_MS 3000
#define NODE_GIVEUP_MS 2000
/* A tick this late means this node itself was not running (blocked on its
 * stdout, stopped): it cannot judge its kids' silence over that time. */
#define NODE_LATE_MS 1000
/* A relay stops reading its ranks' output while more than HIGH bytes wait
 * to go to its parent, and starts again below LOW: a slow launcher stdout
 * slows the ranks down instead of filling the relay's memory. */
#define NODE_OUT_HIGH (8u << 20)
#define NODE_OUT_LOW  (1u << 20)
/* Most bytes read from a rank's pipe as it is closed (rank_pipe_drain). */
#define NODE_DRAIN_MAX (1u << 20)

static char node_rbuf[NODE_READ_CHUNK];

/* ------------------------------------------------------------------ output */

spawn_msg_t *spawn_msg_frame(uint16_t type, uint32_t a, uint32_t b, const void *p, size_t len)
{
  spawn_buf_t f = {0};
  spawn_frame_put(&f, type, a, b, p, len);
  spawn_msg_t *m = malloc(sizeof *m + f.len);
  if (!m) { fprintf(stderr, SPAWN_NAME ": out of memory\n"); abort(); }
  m->refs = 1;
  m->len = f.len;
  memcpy(m->data, f.p, f.len);
  spawn_buf_free(&f);
  return m;
}

static spawn_msg_t *msg_raw(const uint8_t *p, size_t len)
{
  spawn_msg_t *m = malloc(sizeof *m + len);
  if (!m) { fprintf(stderr, SPAWN_NAME ": out of memory\n"); abort(); }
  m->refs = 1;
  m->len = len;
  memcpy(m->data, p, len);
  return m;
}

void spawn_msg_unref(spawn_msg_t *m)
{
  if (m && --m->refs == 0) free(m);
}

typedef struct { uv_write_t req; spawn_msg_t *msg; } node_wreq_t;

static void output_pause(spawn_node_t *n, int pause);

static void on_written(uv_write_t *req, int status)
{
  node_wreq_t *w = (node_wreq_t *)req;
  spawn_conn_t *c = req->handle->data;
  (void)status;                  /* a broken connection shows up as EOF */
  spawn_msg_unref(w->msg);
  free(w);
  if (c && c->role == SPAWN_CONN_PARENT && c->node->out_paused
      && uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) < NODE_OUT_LOW)
    output_pause(c->node, 0);
}

void spawn_conn_send(spawn_conn_t *c, spawn_msg_t *m)
{
  if (!c || c->closing) return;
  node_wreq_t *w = malloc(sizeof *w);
  if (!w) return;
  uv_buf_t b = uv_buf_init((char *)m->data, (unsigned)m->len);
  w->msg = m;
  m->refs++;
  if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_written) < 0) {
    m->refs--;
    free(w);
  }
}

void spawn_conn_send_frame(spawn_conn_t *c, uint16_t type, uint32_t a, uint32_t b,
                           const void *p, size_t len)
{
  spawn_msg_t *m = spawn_msg_frame(type, a, b, p, len);
  spawn_conn_send(c, m);
  spawn_msg_unref(m);
}

/* ------------------------------------------------------------ events up */

void spawn_node_fail(spawn_node_t *n, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n->is_root) spawn_job_fail(msg);
  else spawn_conn_send_frame(n->parent, SPAWN_FAIL, 0, 0, msg, strlen(msg));
}

static void up_output(spawn_node_t *n, uint32_t rank, uint32_t stream, const uint8_t *p, size_t len)
{
  if (n->is_root) { spawn_job_output(rank, stream, p, len); return; }
  spawn_conn_send_frame(n->parent, SPAWN_OUTPUT, rank, stream, p, len);
  if (n->parent && !n->out_paused
      && uv_stream_get_write_queue_size((uv_stream_t *)&n->parent->tcp) > NODE_OUT_HIGH)
    output_pause(n, 1);
}

static void up_exit(spawn_node_t *n, spawn_rank_t *r)
{
  spawn_exit_t e = { 0, 0, 0 };
  if (WIFSIGNALED(r->status)) { e.how = SPAWN_HOW_SIGNALED; e.value = (uint32_t)WTERMSIG(r->status); }
  else { e.how = SPAWN_HOW_EXITED; e.value = (uint32_t)WEXITSTATUS(r->status); }
  if (r->connected) e.flags |= SPAWN_EXIT_CONNECTED;
  if (r->finished) e.flags |= SPAWN_EXIT_FINISHED;
  if (n->is_root) { spawn_job_exit(r->rank, e.how, e.value, e.flags); return; }
  uint8_t p[SPAWN_EXIT_LEN];
  spawn_exit_encode(p, &e);
  spawn_conn_send_frame(n->parent, SPAWN_EXIT, r->rank, 0, p, sizeof p);
}

/* --------------------------------------------------------- connections */

static void on_conn_closed(uv_handle_t *h)
{
  spawn_conn_t *c = h->data;
  spawn_buf_free(&c->in);
  free(c);
}

static void unauth_unlink(spawn_conn_t *c)
{
  spawn_node_t *n = c->node;
  if (c->role != SPAWN_CONN_NEW || (!c->prev && n->unauth != c)) return;
  if (c->prev) c->prev->next = c->next; else n->unauth = c->next;
  if (c->next) c->next->prev = c->prev;
  c->next = c->prev = NULL;
}

static void conn_close(spawn_conn_t *c)
{
  if (c->closing) return;
  c->closing = 1;
  unauth_unlink(c);
  spawn_node_t *n = c->node;
  if (c->role == SPAWN_CONN_RANK) {
    ((spawn_rank_t *)c->owner)->conn = NULL;
  } else if (c->role == SPAWN_CONN_KID) {
    spawn_kid_t *k = c->owner;
    k->conn = NULL;
    if (!k->done && !k->lost) {
      k->lost = 1;
      k->ended_ms = gasneti_now_ms();
      if (!n->is_root || !spawn_job_dying())
        spawn_node_fail(n, "lost contact with the relay on host %s (ranks %u-%u)",
                        k->host ? k->host : "?", (unsigned)k->lo, (unsigned)(k->lo + k->n - 1));
    }
  } else if (c->role == SPAWN_CONN_PARENT) {
    n->parent = NULL;
    if (n->finished) exit(0); /* it read our DONE (relay_exit) */
  }
  uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
  spawn_node_check(n);
}

void spawn_node_log_flush(spawn_node_t *n)
{
  if (!n->rejected.count) return;
  double secs = (double)(gasneti_now_ms() - n->rejected.since_ms) / 1000;
  fprintf(stderr, SPAWN_NAME ": %s%s%srejected %u connection%s in %.1f s (the last from %s)\n",
          n->is_root ? "" : "relay on ", n->is_root ? "" : n->host, n->is_root ? "" : ": ",
          (unsigned)n->rejected.count, n->rejected.count == 1 ? "" : "s", secs, n->rejected.last);
  n->rejected.count = 0;
}

/* Close a connection that failed the handshake; counted, and logged by
 * spawn_node_log_flush at most once per NODE_REJECT_LOG_MS. */
static void reject(spawn_conn_t *c, const char *why)
{
  spawn_node_t *n = c->node;
  uint64_t now = gasneti_now_ms();
  if (!n->rejected.count) n->rejected.since_ms = now;
  n->rejected.count++;
  snprintf(n->rejected.last, sizeof n->rejected.last, "%s: %s", c->peer, why);
  /* the first in an interval is said at once (a misconfigured peer shows
   * up), the rest as a count on the tick after the interval */
  if (!n->rejected.logged_ms || now - n->rejected.logged_ms >= NODE_REJECT_LOG_MS) {
    spawn_node_log_flush(n);
    n->rejected.logged_ms = now;
  }
  conn_close(c);
}

static void kid_welcome(spawn_node_t *n, spawn_conn_t *c, spawn_kid_t *k, const uint8_t *mac)
{
  spawn_cfg_t *pc = n->cfg, kc = *pc;
  spawn_host_t self;
  if (pc->cspawn) {            /* a worker: its block of ranks */
    self.name = k->host; self.lo = k->lo; self.n = k->n;
    kc.hosts = &self; kc.nhosts = 1;
    kc.cspawn = 0;
  } else {
    kc.hosts = pc->hosts + k->h0; kc.nhosts = k->nh;
  }
  kc.self_host = 1;
  kc.lo = kc.hosts[0].lo; kc.n = kc.hosts[0].n;
  kc.sub_lo = k->lo; kc.sub_n = k->n;
  spawn_buf_t b = {0};
  spawn_buf_put(&b, mac, SPAWN_MAC_LEN);
  spawn_cfg_put(&b, &kc);
  spawn_conn_send_frame(c, SPAWN_WELCOME, 0, 0, b.p, b.len);
  spawn_buf_free(&b);
}

static void conn_auth(spawn_conn_t *c, const spawn_hdr_t *h, const uint8_t *p, size_t len)
{
  spawn_node_t *n = c->node;
  spawn_cfg_t *cfg = n->cfg;
  uint8_t mac[SPAWN_MAC_LEN];
  spawn_auth_t a;
  if (h->type != SPAWN_AUTH) { reject(c, "expected AUTH"); return; }
  if (spawn_auth_decode(p, len, &a) < 0) { reject(c, "malformed AUTH"); return; }
  uint32_t kind = a.kind, id = a.id;
  spawn_auth_mac(n->secret, 'C', c->snonce, a.cnonce, kind, id, mac);
  if (gasneti_memneq(mac, a.mac, SPAWN_MAC_LEN)) { reject(c, "authentication failed"); return; }
  spawn_auth_mac(n->secret, 'S', c->snonce, a.cnonce, kind, id, mac);

  unauth_unlink(c);              /* it knows the secret: no deadline now */
  if (kind == SPAWN_KIND_RANK) {
    if (!n->ranks || id < cfg->lo || id - cfg->lo >= cfg->n) { reject(c, "rank is not one of this node's"); return; }
    spawn_rank_t *r = &n->ranks[id - cfg->lo];
    if (!r->pid) { reject(c, "rank was never started"); return; }
    if (r->connected) { reject(c, "rank already connected"); return; }
    if (!r->alive) { reject(c, "rank already exited"); return; }
    r->conn = c; r->connected = 1;
    c->role = SPAWN_CONN_RANK; c->owner = r;
    spawn_buf_t b = {0};
    spawn_buf_put(&b, mac, SPAWN_MAC_LEN);
    spawn_buf_u32(&b, id);
    spawn_buf_u32(&b, cfg->size);
    spawn_buf_put(&b, n->env_body.p, n->env_body.len);
    spawn_conn_send_frame(c, SPAWN_WELCOME, 0, 0, b.p, b.len);
    spawn_buf_free(&b);
    return;
  }
  if (kind != SPAWN_KIND_RELAY) { reject(c, "unknown kind"); return; }
  spawn_kid_t *k = NULL;
  if (cfg->cspawn && id == SPAWN_ID_ANY) {        /* the first free block */
    for (uint32_t i = 0; i < n->nkids && !k; i++)
      if (!n->kids[i].connected && !n->kids[i].lost) k = &n->kids[i];
  } else if (cfg->cspawn) {    /* the launcher numbered it (PMI_RANK, SLURM_PROCID, ...) */
    if (id < n->nkids && !n->kids[id].connected && !n->kids[id].lost) k = &n->kids[id];
  } else if (!cfg->cspawn && id < n->nkids && !n->kids[id].connected && !n->kids[id].lost) {
    k = &n->kids[id];
  }
  if (!k) { reject(c, "no relay expected with that id"); return; }
  if (cfg->cspawn) k->host = strdup(a.host);
  k->conn = c; k->connected = 1;
  k->heard_ms = gasneti_now_ms();
  n->kids_connected++;
  c->role = SPAWN_CONN_KID; c->owner = k;
  kid_welcome(n, c, k, mac);
  if (n->last_sig)             /* a teardown started before it joined */
    spawn_conn_send_frame(c, SPAWN_SIGNAL, (uint32_t)n->last_sig, 0, NULL, 0);
  if (n->keyfile && n->kids_connected == n->nkids) {   /* all joined: burn it */
    unlink(n->keyfile);
    free(n->keyfile);
    n->keyfile = NULL;
  }
}

static void frame_from_rank(spawn_conn_t *c, const spawn_hdr_t *h, const uint8_t *p, size_t len)
{
  spawn_node_t *n = c->node;
  spawn_rank_t *r = c->owner;
  char who[32];
  snprintf(who, sizeof who, "rank %u", (unsigned)r->rank);
  switch (h->type) {
  case SPAWN_COLL:
    spawn_coll_from(n, who, &r->coll_gen, r->rank, 1, h, p, len);
    break;
  case SPAWN_FINI:
    r->finished = 1;
    if (n->is_root) spawn_job_fini(r->rank, (int)h->a);
    else spawn_conn_send_frame(n->parent, SPAWN_FINI, h->a, r->rank, NULL, 0);
    break;
  case SPAWN_ABORT: {
    char msg[1024];
    size_t m = len < sizeof msg - 1 ? len : sizeof msg - 1;
    memcpy(msg, p, m);
    msg[m] = 0;
    r->finished = 1;           /* its end is accounted for by the abort */
    if (n->is_root) spawn_job_abort(r->rank, (int)h->a, msg);
    else spawn_conn_send_frame(n->parent, SPAWN_ABORT, h->a, r->rank, msg, m);
    break;
  }
  default:
    spawn_node_fail(n, "protocol error: %s sent %s", who, spawn_type_name(h->type));
    conn_close(c);
  }
}

/* Frames from a child relay: combine collectives, pass the rest up. */
static void frame_from_kid(spawn_conn_t *c, const spawn_hdr_t *h, const uint8_t *wire,
                           const uint8_t *p, size_t len)
{
  spawn_node_t *n = c->node;
  spawn_kid_t *k = c->owner;
  char who[300];
  snprintf(who, sizeof who, "relay on host %s", k->host ? k->host : "?");
  k->heard_ms = gasneti_now_ms();
  if (h->type == SPAWN_PONG) return;
  if (h->type == SPAWN_COLL) { spawn_coll_from(n, who, &k->coll_gen, k->lo, k->n, h, p, len); return; }
  if (h->type == SPAWN_DONE) { /* its last frame: closing lets it leave (relay_exit) */
    k->done = 1;
    k->ended_ms = gasneti_now_ms();
    conn_close(c);
    return;
  }
  if (h->type != SPAWN_FINI && h->type != SPAWN_ABORT && h->type != SPAWN_EXIT
      && h->type != SPAWN_OUTPUT && h->type != SPAWN_FAIL) {
    spawn_node_fail(n, "protocol error: %s sent %s", who, spawn_type_name(h->type));
    conn_close(c);
    return;
  }
  if (!n->is_root) {           /* pass it on as it came */
    spawn_msg_t *m = msg_raw(wire, SPAWN_HDR_LEN + h->len);
    spawn_conn_send(n->parent, m);
    spawn_msg_unref(m);
    return;
  }
  uint32_t rank = h->type == SPAWN_EXIT || h->type == SPAWN_OUTPUT ? h->a : h->b;
  if (h->type != SPAWN_FAIL && (rank < k->lo || rank - k->lo >= k->n)) {
    spawn_node_fail(n, "protocol error: %s sent %s for rank %u", who, spawn_type_name(h->type), (unsigned)rank);
    return;
  }
  char msg[1024];
  size_t m = len < sizeof msg - 1 ? len : sizeof msg - 1;
  switch (h->type) {
  case SPAWN_FINI: spawn_job_fini(rank, (int)h->a); break;
  case SPAWN_OUTPUT:
    if (h->b == 1 || h->b == 2) spawn_job_output(rank, h->b, p, len);
    break;
  case SPAWN_EXIT:
  {
    spawn_exit_t e;
    if (spawn_exit_decode(p, len, &e) < 0) { spawn_node_fail(n, "protocol error: %s sent a bad EXIT", who); break; }
    spawn_job_exit(rank, e.how, e.value, e.flags);
    break;
  }
  case SPAWN_ABORT: case SPAWN_FAIL:
    memcpy(msg, p, m);
    msg[m] = 0;
    if (h->type == SPAWN_ABORT) spawn_job_abort(rank, (int)h->a, msg);
    else if (h->a == 1) spawn_job_notice(msg);
    else if (!spawn_job_dying()) spawn_job_fail(msg);
    break;
  }
}

/* Relays: frames from the parent go down to every rank and kid below. */
static void frame_from_parent(spawn_conn_t *c, const spawn_hdr_t *h, const uint8_t *wire)
{
  spawn_node_t *n = c->node;
  if (h->type == SPAWN_SIGNAL) { spawn_node_signal(n, (int)h->a); return; }
  if (h->type == SPAWN_PING) { spawn_conn_send_frame(c, SPAWN_PONG, 0, 0, NULL, 0); return; }
  if (h->type != SPAWN_COLL_RESULT) {
    fprintf(stderr, SPAWN_NAME ": relay on %s: protocol error: parent sent %s\n", n->host, spawn_type_name(h->type));
    conn_close(c);
    return;
  }
  spawn_msg_t *m = msg_raw(wire, SPAWN_HDR_LEN + h->len);
  for (uint32_t i = 0; i < n->cfg->n && n->ranks; i++) spawn_conn_send(n->ranks[i].conn, m);
  for (uint32_t i = 0; i < n->nkids; i++) spawn_conn_send(n->kids[i].conn, m);
  spawn_msg_unref(m);
}

/* Handle every whole frame in c->in. */
static void conn_frames(spawn_conn_t *c)
{
  size_t off = 0;
  while (!c->closing && c->in.len - off >= SPAWN_HDR_LEN) {
    spawn_hdr_t h;
    const uint8_t *wire = c->in.p + off, *raw;
    uint8_t *owned;
    size_t rawlen;
    if (spawn_hdr_decode(wire, &h) < 0
        || (c->role == SPAWN_CONN_NEW && h.len > SPAWN_AUTH_MAX)) {
      if (c->role == SPAWN_CONN_NEW)
        reject(c, h.type == SPAWN_AUTH ? "oversized AUTH" : "not a gasnetrun frame");
      else { spawn_node_fail(c->node, "protocol error: malformed frame from %s", c->peer); conn_close(c); }
      return;
    }
    if (c->in.len - off < SPAWN_HDR_LEN + (size_t)h.len) break;
    if (spawn_frame_payload(&h, wire + SPAWN_HDR_LEN, &raw, &rawlen, &owned) < 0) {
      if (c->role == SPAWN_CONN_NEW) reject(c, "bad compressed payload");
      else { spawn_node_fail(c->node, "protocol error: bad compressed frame from %s", c->peer); conn_close(c); }
      return;
    }
    switch (c->role) {
    case SPAWN_CONN_NEW: conn_auth(c, &h, raw, rawlen); break;
    case SPAWN_CONN_RANK: frame_from_rank(c, &h, raw, rawlen); break;
    case SPAWN_CONN_KID: frame_from_kid(c, &h, wire, raw, rawlen); break;
    case SPAWN_CONN_PARENT: frame_from_parent(c, &h, wire); break;
    }
    free(owned);
    off += SPAWN_HDR_LEN + h.len;
  }
  if (off) {
    memmove(c->in.p, c->in.p + off, c->in.len - off);
    c->in.len -= off;
  }
}

static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *b)
{
  (void)h; (void)want;
  *b = uv_buf_init(node_rbuf, sizeof node_rbuf);
}

static void on_conn_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
  spawn_conn_t *c = s->data;
  if (nread < 0) {
    if (c->role == SPAWN_CONN_PARENT) {
      spawn_node_t *n = c->node;
      conn_close(c);
      fprintf(stderr, SPAWN_NAME ": relay on %s: lost the launcher; killing this host's ranks\n", n->host);
      spawn_node_signal(n, SIGKILL);
      exit(1);
    }
    conn_close(c);
    return;
  }
  if (nread == 0 || c->closing) return;
  spawn_buf_put(&c->in, b->base, (size_t)nread);
  conn_frames(c);
}

static spawn_conn_t *conn_new(spawn_node_t *n)
{
  spawn_conn_t *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->node = n;
  uv_tcp_init(n->loop, &c->tcp);
  c->tcp.data = c;
  return c;
}

static void on_connection(uv_stream_t *srv, int status)
{
  spawn_node_t *n = srv->data;
  if (status < 0) return;
  spawn_conn_t *c = conn_new(n);
  if (!c) return;
  if (uv_accept(srv, (uv_stream_t *)&c->tcp) < 0) { uv_close((uv_handle_t *)&c->tcp, on_conn_closed); return; }
  uv_tcp_nodelay(&c->tcp, 1);
  struct sockaddr_storage ss;
  int sl = sizeof ss;
  char a[INET6_ADDRSTRLEN] = "?";
  if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &sl) == 0 && ss.ss_family == AF_INET) {
    struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
    inet_ntop(AF_INET, &sin->sin_addr, a, sizeof a);
    snprintf(c->peer, sizeof c->peer, "%s:%u", a, (unsigned)ntohs(sin->sin_port));
  } else {
    snprintf(c->peer, sizeof c->peer, "?");
  }
  c->born_ms = gasneti_now_ms();
  c->next = n->unauth;
  if (n->unauth) n->unauth->prev = c;
  n->unauth = c;
  uint8_t hello[SPAWN_HELLO_LEN];
  spawn_random(c->snonce, sizeof c->snonce);
  spawn_hello_encode(hello, c->snonce);
  spawn_conn_send_frame(c, SPAWN_HELLO, 0, 0, hello, sizeof hello);
  uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_conn_read);
}

/* ------------------------------------------------------ rank output pipes */

static void on_pipe_closed(uv_handle_t *h) { free(h); }

static void rank_pipe_close(spawn_rank_t *r, int i)
{
  if (!r->out[i]) return;
  uv_close((uv_handle_t *)r->out[i], on_pipe_closed);
  r->out[i] = NULL;
}

static void on_pipe_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
  spawn_rank_t *r = s->data;
  spawn_node_t *n = ((uv_handle_t *)s)->loop->data;
  int i = (uv_pipe_t *)s == r->out[0] ? 0 : 1;
  if (nread > 0) { up_output(n, r->rank, (uint32_t)i + 1, (const uint8_t *)b->base, (size_t)nread); return; }
  if (nread < 0) { rank_pipe_close(r, i); spawn_node_check(n); }
}

/* Before a pipe is closed while something the rank started still holds it
 * open: what is in it already was written by the rank and goes on (at
 * most NODE_DRAIN_MAX bytes, so a writer that keeps on cannot hold us). */
static void rank_pipe_drain(spawn_node_t *n, spawn_rank_t *r, int i)
{
  uv_os_fd_t fd;
  if (!r->out[i] || uv_fileno((uv_handle_t *)r->out[i], &fd) < 0) return;
  for (size_t got = 0; got < NODE_DRAIN_MAX; ) {
    ssize_t k = read(fd, node_rbuf, sizeof node_rbuf);  /* non-blocking: libuv's */
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;
    up_output(n, r->rank, (uint32_t)i + 1, (const uint8_t *)node_rbuf, (size_t)k);
    got += (size_t)k;
  }
}

static void output_pause(spawn_node_t *n, int pause)
{
  n->out_paused = pause;
  for (uint32_t i = 0; i < n->cfg->n && n->ranks; i++)
    for (int j = 0; j < 2; j++) {
      uv_stream_t *s = (uv_stream_t *)n->ranks[i].out[j];
      if (!s) continue;
      if (pause) uv_read_stop(s);
      else uv_read_start(s, on_alloc, on_pipe_read);
    }
}

/* Called by spawn_proc.c for each forked rank's stdout/stderr read end. */
int spawn_node_watch_pipe(spawn_node_t *n, spawn_rank_t *r, int i, int fd)
{
  uv_pipe_t *p = malloc(sizeof *p);
  if (!p) return -ENOMEM;
  uv_pipe_init(n->loop, p, 0);
  p->data = r;
  int rc = uv_pipe_open(p, fd);
  if (rc == 0) rc = uv_read_start((uv_stream_t *)p, on_alloc, on_pipe_read);
  r->out[i] = p;
  if (rc < 0) rank_pipe_close(r, i);
  return rc;
}

/* --------------------------------------------------------- life and death */

void spawn_node_signal(spawn_node_t *n, int sig)
{
  n->last_sig = sig;
  if (!n->sig_ms) n->sig_ms = gasneti_now_ms();
  if (sig == SIGKILL && !n->kill_ms) n->kill_ms = gasneti_now_ms();
  /* a rank leads its own process group: the signal reaches its children
   * too (unless it moved itself elsewhere) */
  for (uint32_t i = 0; i < n->cfg->n && n->ranks; i++)
    if (n->ranks[i].alive && kill(-n->ranks[i].pid, sig) < 0) kill(n->ranks[i].pid, sig);
  for (uint32_t i = 0; i < n->nkids; i++)
    if (n->kids[i].conn) spawn_conn_send_frame(n->kids[i].conn, SPAWN_SIGNAL, (uint32_t)sig, 0, NULL, 0);
}

/* DONE is in the kernel, not yet with the parent: under loss it may wait
 * for retransmissions. A relay that exited now would close a socket with
 * unread bytes (the parent's pings), and Linux answers that with a reset
 * that throws away what was not acked yet: the parent would lose our last
 * frames and take us for lost. So the relay leaves when the parent, having
 * read DONE, closes (conn_close), or NODE_LEAVE_MS later (on_tick). */
static void relay_exit(uv_write_t *req, int status)
{
  spawn_conn_t *c = req->handle->data;
  on_written(req, 0);
  if (status < 0 || !c) exit(0);
  c->node->leave_ms = gasneti_now_ms();
}

/* Report finished ranks and kids; when nothing is left below, end. */
void spawn_node_check(spawn_node_t *n)
{
  uint64_t now = gasneti_now_ms();
  int left = 0;
  if (n->finished) return;
  for (uint32_t i = 0; i < n->cfg->n && n->ranks; i++) {
    spawn_rank_t *r = &n->ranks[i];
    if (r->reported) continue;
    if (r->alive) { left++; continue; }
    if (r->conn || r->out[0] || r->out[1]) {
      if (now - r->reaped_ms < NODE_LINGER_MS || n->out_paused) { left++; continue; }
      /* something the rank started holds them open: it dies with the job
       * (the group is not empty, so its id cannot have been reused) */
      kill(-r->pid, SIGKILL);
      if (r->conn) conn_close(r->conn);
      rank_pipe_drain(n, r, 0);
      rank_pipe_drain(n, r, 1);
      rank_pipe_close(r, 0);
      rank_pipe_close(r, 1);
    }
    r->reported = 1;
    if (n->coll.active && r->coll_gen != n->coll.gen && !r->connected && !r->finished
        && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0)
      spawn_node_fail(n, "rank %u (on host %s) exited without joining the %s the others are in",
                      (unsigned)r->rank, n->host, spawn_coll_name(n->coll.op));
    up_exit(n, r);
  }
  for (uint32_t i = 0; i < n->nkids; i++) {
    spawn_kid_t *k = &n->kids[i];
    if (k->complete) continue;
    if (!(k->done || k->lost) || k->alive) { left++; continue; }
    k->complete = 1;
    if (k->stdin_fd >= 0) { close(k->stdin_fd); k->stdin_fd = -1; }
  }
  if (left || n->finished) return;
  /* the command (srun, mpiexec) ends by itself once its workers have:
   * give it NODE_LINGER_MS, so that it need not report being killed */
  if (n->cspawn_pid > 0 && !n->cspawn_idle_ms) n->cspawn_idle_ms = gasneti_now_ms();
  if (n->cspawn_pid > 0 && gasneti_now_ms() - n->cspawn_idle_ms < NODE_LINGER_MS) return;
  if (n->cspawn_pid > 0) kill(n->cspawn_pid, SIGTERM);
  n->finished = 1;
  if (n->is_root) spawn_job_done();
  if (!n->parent) exit(0);
  /* relay: DONE to the parent, then leave once it is written */
  spawn_msg_t *m = spawn_msg_frame(SPAWN_DONE, 0, 0, NULL, 0);
  node_wreq_t *w = malloc(sizeof *w);
  uv_buf_t b = uv_buf_init((char *)m->data, (unsigned)m->len);
  if (!w) exit(0);
  w->msg = m;                  /* our reference goes with the request */
  if (uv_write(&w->req, (uv_stream_t *)&n->parent->tcp, &b, 1, relay_exit) < 0) exit(0);
}

/* Tell of a kid given up: the root says it (whatever the job's phase), a
 * relay sends it up as a notice. */
static void kid_notice(spawn_node_t *n, const char *msg)
{
  if (n->is_root) spawn_job_notice(msg);
  else spawn_conn_send_frame(n->parent, SPAWN_FAIL, 1, 0, msg, strlen(msg));
}

/* Stop waiting for kid k: kill its ssh client (its relay, if alive, sees the
 * channel close and kills its ranks), drop its connection, name its host. */
static void kid_give_up(spawn_node_t *n, spawn_kid_t *k, const char *why)
{
  char msg[512];
  snprintf(msg, sizeof msg, "lost contact with the relay on host %s (ranks %u-%u): %s; given up",
           k->host ? k->host : "?", (unsigned)k->lo, (unsigned)(k->lo + k->n - 1), why);
  k->lost = 1;
  k->ended_ms = gasneti_now_ms();
  if (k->alive && k->pid > 0) kill(k->pid, SIGKILL);
  if (k->stdin_fd >= 0) { close(k->stdin_fd); k->stdin_fd = -1; }
  kid_notice(n, msg);
  if (k->conn) conn_close(k->conn);
}

/* A second terminating signal at the launcher: wait for no relay. */
void spawn_node_give_up(spawn_node_t *n)
{
  for (uint32_t i = 0; i < n->nkids; i++) {
    spawn_kid_t *k = &n->kids[i];
    if (!k->done && !k->lost) kid_give_up(n, k, "the launcher was told twice to stop");
  }
  spawn_node_check(n);
}

/* Liveness of the kids (NODE_PING_MS): ping them; give up those silent
 * past GASNET_RELAY_TIMEOUT, or past NODE_ENDING_SILENT_MS once the job
 * ends, and those never connected NODE_GIVEUP_MS per level after SIGKILL. */
static void kids_liveness(spawn_node_t *n, uint64_t now)
{
  char why[128];
  if (now - n->ping_ms >= NODE_PING_MS) {
    n->ping_ms = now;
    for (uint32_t i = 0; i < n->nkids; i++)
      if (n->kids[i].conn && !n->kids[i].done) spawn_conn_send_frame(n->kids[i].conn, SPAWN_PING, 0, 0, NULL, 0);
  }
  uint64_t limit = n->sig_ms ? NODE_ENDING_SILENT_MS : n->opt.relay_timeout_ms;
  for (uint32_t i = 0; i < n->nkids; i++) {
    spawn_kid_t *k = &n->kids[i];
    if (k->done || k->lost) continue;
    if (k->conn && limit && now - k->heard_ms > limit) {
      snprintf(why, sizeof why, "no answer for %.1f s%s", (double)(now - k->heard_ms) / 1000,
               n->sig_ms ? " while the job ends" : " (GASNET_RELAY_TIMEOUT)");
      kid_give_up(n, k, why);
    } else if (!k->conn && n->kill_ms && now - n->kill_ms > (uint64_t)NODE_GIVEUP_MS * n->height) {
      snprintf(why, sizeof why, "not done %.1f s after SIGKILL", (double)(now - n->kill_ms) / 1000);
      kid_give_up(n, k, why);
    }
  }
}

static void on_tick(uv_timer_t *t)
{
  spawn_node_t *n = t->data;
  uint64_t now = gasneti_now_ms();
  if (n->tick_ms && now - n->tick_ms > NODE_LATE_MS)   /* we were not running */
    for (uint32_t i = 0; i < n->nkids; i++) n->kids[i].heard_ms = now;
  n->tick_ms = now;
  if (n->leave_ms && now - n->leave_ms > NODE_LEAVE_MS) exit(0);
  for (spawn_conn_t *c = n->unauth, *next; c; c = next) {
    next = c->next;
    if (now - c->born_ms > NODE_AUTH_MS) reject(c, "no authentication within 20 s");
  }
  if (n->rejected.count && now - n->rejected.logged_ms >= NODE_REJECT_LOG_MS) {
    spawn_node_log_flush(n);
    n->rejected.logged_ms = now;
  }
  kids_liveness(n, now);
  for (uint32_t i = 0; i < n->nkids; i++) {
    spawn_kid_t *k = &n->kids[i];
    if (!k->connected && !k->lost && now - k->started_ms > n->cfg->connect_ms) {
      k->lost = 1;
      k->ended_ms = now;
      if (k->alive && k->pid > 0) kill(k->pid, SIGTERM);
      if (!n->is_root || !spawn_job_dying()) {
        if (n->cfg->cspawn)
          spawn_node_fail(n, "%u of %u processes started by GASNET_CSPAWN_CMD did not connect within %u s",
                          (unsigned)(n->nkids - n->kids_connected), (unsigned)n->nkids,
                          (unsigned)(n->cfg->connect_ms / 1000));
        else
          spawn_node_fail(n, "host %s: relay did not connect back within %u s",
                          k->host, (unsigned)(n->cfg->connect_ms / 1000));
      }
    }
    /* its subtree is over but ssh lingers: do not wait for it forever */
    if ((k->done || k->lost) && k->alive && k->pid > 0 && now - k->ended_ms > 2000)
      kill(k->pid, SIGKILL);
  }
  spawn_node_check(n);
}

static void on_sigchld(uv_signal_t *s, int sig)
{
  (void)sig;
  spawn_proc_reap(s->data);
}

static void on_term_signal(uv_signal_t *s, int sig)
{
  spawn_node_t *n = s->data;
  if (n->is_root) { spawn_job_signal(sig); return; }
  /* a relay told to stop: nothing of the job survives it */
  spawn_node_signal(n, SIGKILL);
  exit(1);
}

static void on_stdin(uv_poll_t *p, int status, int events)
{
  spawn_node_t *n = p->data;
  char buf[256];
  (void)events;
  ssize_t r = status < 0 ? -1 : read(0, buf, sizeof buf);
  if (r > 0 || (r < 0 && (errno == EAGAIN || errno == EINTR))) return;
  fprintf(stderr, SPAWN_NAME ": relay on %s: ssh channel closed; killing this host's ranks\n", n->host);
  spawn_node_signal(n, SIGKILL);
  exit(1);
}

/* A relay adopts its already-authenticated connection to its parent. */
/* The connection to our parent fails when its host stops answering for
 * GASNET_RELAY_TIMEOUT: TCP keepalive probes while it is idle, a bound on
 * unacknowledged data while it is not. The kernel answers both, so a
 * launcher busy or blocked on its own stdout is not taken for dead (but one
 * whose receive window stays shut that long is: docs/launcher.md). */
static void parent_liveness(int fd, uint64_t timeout_ms)
{
  int on = 1, idle = 1, intvl = 1, cnt = (int)(timeout_ms / 1000);
  unsigned user = (unsigned)timeout_ms;
  if (!timeout_ms) return;
  if (cnt < 1) cnt = 1;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user, sizeof user);
}

int spawn_node_adopt_parent(spawn_node_t *n, int fd)
{
  parent_liveness(fd, n->opt.relay_timeout_ms);
  spawn_conn_t *c = conn_new(n);
  if (!c) return -ENOMEM;
  int rc = uv_tcp_open(&c->tcp, fd);
  if (rc < 0) return rc;
  c->role = SPAWN_CONN_PARENT;
  snprintf(c->peer, sizeof c->peer, "parent");
  n->parent = c;
  return uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_conn_read);
}

/* The node's listening socket (loopback for a local job), on a port of
 * the kernel's choice: n->port. */
static int node_listen(spawn_node_t *n)
{
  spawn_cfg_t *c = n->cfg;
  struct sockaddr_in sa;
  int rc;
  uv_tcp_init(n->loop, &n->listener);
  n->listener.data = n;
  uv_ip4_addr(n->is_root && !c->nhosts && !c->cspawn ? "127.0.0.1" : "0.0.0.0", 0, &sa);
  if ((rc = uv_tcp_bind(&n->listener, (struct sockaddr *)&sa, 0)) < 0
      || (rc = uv_listen((uv_stream_t *)&n->listener, 1024, on_connection)) < 0) {
    fprintf(stderr, SPAWN_NAME ": cannot listen: %s\n", uv_strerror(rc));
    return rc;
  }
  int sl = sizeof sa;
  uv_tcp_getsockname(&n->listener, (struct sockaddr *)&sa, &sl);
  n->port = ntohs(sa.sin_port);
  return 0;
}

/* SIGCHLD, the terminating signals, and the node's tick. */
static void node_signals(spawn_node_t *n)
{
  uv_signal_init(n->loop, &n->sigchld);
  n->sigchld.data = n;
  uv_signal_start(&n->sigchld, on_sigchld, SIGCHLD);
  static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
  for (int i = 0; i < 3; i++) {
    uv_signal_init(n->loop, &n->sig[i]);
    n->sig[i].data = n;
    uv_signal_start(&n->sig[i], on_term_signal, sigs[i]);
  }
  uv_timer_init(n->loop, &n->tick);
  n->tick.data = n;
  uv_timer_start(&n->tick, on_tick, NODE_TICK_MS, NODE_TICK_MS);
}

/* Levels of relays below a node whose kids share m hosts, `degree` at most
 * per node (spawn_node_plan_kids' split: a kid takes a chunk, runs on its
 * first host and splits the rest again). */
static uint32_t node_height(uint32_t m, uint32_t degree, int cspawn)
{
  uint32_t h = 0;
  if (cspawn) return 1;
  while (m > 0) {
    uint32_t kids = m < degree ? m : degree;
    m = (m + kids - 1) / kids - 1;   /* the largest chunk, less its own host */
    h++;
  }
  return h;
}

/* The kids: the hosts after our own, in at most `degree` consecutive
 * chunks; or, for cspawn, its workers, each a block of consecutive ranks. */
static int node_plan_kids(spawn_node_t *n)
{
  spawn_cfg_t *c = n->cfg;
  uint32_t first = c->self_host ? 1 : 0, m = c->nhosts - first;
  if (c->cspawn) {
    n->nkids = c->workers;
  } else if (m > 0) {
    n->nkids = m < c->degree ? m : c->degree;
  }
  if (n->nkids && !(n->kids = calloc(n->nkids, sizeof *n->kids))) return -ENOMEM;
  n->height = node_height(m, c->degree, c->cspawn);
  for (uint32_t i = 0; i < n->nkids; i++) {
    spawn_kid_t *k = &n->kids[i];
    k->id = i;
    k->stdin_fd = -1;
    k->started_ms = gasneti_now_ms();
    if (c->cspawn) {           /* worker i: a block of consecutive ranks */
      k->lo = (uint32_t)((uint64_t)i * c->size / n->nkids);
      k->n = (uint32_t)((uint64_t)(i + 1) * c->size / n->nkids) - k->lo;
      continue;
    }
    k->h0 = first + (uint32_t)((uint64_t)i * m / n->nkids);
    k->nh = first + (uint32_t)((uint64_t)(i + 1) * m / n->nkids) - k->h0;
    k->host = strdup(c->hosts[k->h0].name);
    k->lo = c->hosts[k->h0].lo;
    k->n = 0;
    for (uint32_t j = 0; j < k->nh; j++) k->n += c->hosts[k->h0 + j].n;
  }
  return 0;
}

int spawn_node_start(spawn_node_t *n)
{
  spawn_cfg_t *c = n->cfg;
  int rc;
  n->loop->data = n;

  /* the env snapshot every rank's WELCOME carries */
  spawn_env_put(&n->env_body, c->env, c->nenv);
  if ((rc = node_listen(n)) < 0) return rc;
  node_signals(n);
  if ((rc = node_plan_kids(n)) < 0) return rc;
  if (n->watch_stdin && uv_poll_init(n->loop, &n->stdin_poll, 0) == 0) {
    n->stdin_poll.data = n;
    uv_poll_start(&n->stdin_poll, UV_READABLE | UV_DISCONNECT, on_stdin);
  }

  if (c->n && (rc = spawn_proc_ranks(n)) < 0) return rc;
  if (c->cspawn) {
    if ((rc = spawn_proc_cspawn(n)) < 0) return rc;
  } else {
    for (uint32_t i = 0; i < n->nkids; i++)
      if ((rc = spawn_proc_kid(n, &n->kids[i])) < 0) {
        n->kids[i].lost = 1;
        spawn_node_fail(n, "host %s: cannot start ssh: %s", n->kids[i].host, strerror(-rc));
      }
  }
  spawn_node_check(n);
  return 0;
}
