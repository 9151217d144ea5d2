/*
 * spawn_proto.c - encoding and decoding of the launcher protocol (see
 * spawn_proto.h), shared by the launcher (spawner/) and the bootstrap
 * client (bootstrap/): a directory of its own, so that both use it and
 * neither depends on the other. Every length that comes off the wire is
 * checked here.
 */
#include "spawn_proto.h"
#include "gasneti_sha256.h"
#include "gasneti_time.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

/* ---------------------------------------------------------------- buffers */

void spawn_buf_put(spawn_buf_t *b, const void *d, size_t n)
{
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) { fprintf(stderr, "gasnetrun: out of memory\n"); abort(); }
    b->p = p; b->cap = cap;
  }
  if (n && d) memcpy(b->p + b->len, d, n);
  b->len += n;
}

void spawn_buf_u32(spawn_buf_t *b, uint32_t v)
{
  uint8_t x[4];
  gasneti_put_be32(x, v);
  spawn_buf_put(b, x, 4);
}

void spawn_buf_str(spawn_buf_t *b, const char *s)
{
  size_t n = s ? strlen(s) : 0;
  spawn_buf_u32(b, (uint32_t)n);
  spawn_buf_put(b, s, n);
}

void spawn_buf_free(spawn_buf_t *b)
{
  free(b->p);
  b->p = NULL; b->len = b->cap = 0;
}

uint32_t spawn_rd_u32(spawn_rd_t *r)
{
  if (r->bad || r->end - r->p < 4) { r->bad = 1; return 0; }
  uint32_t v = gasneti_get_be32(r->p);
  r->p += 4;
  return v;
}

const uint8_t *spawn_rd_bytes(spawn_rd_t *r, size_t n)
{
  if (r->bad || (size_t)(r->end - r->p) < n) { r->bad = 1; return NULL; }
  const uint8_t *p = r->p;
  r->p += n;
  return p;
}

char *spawn_rd_str(spawn_rd_t *r)
{
  uint32_t n = spawn_rd_u32(r);
  if (n > SPAWN_MAX_STR) r->bad = 1;
  const uint8_t *p = spawn_rd_bytes(r, n);
  if (!p) return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s) { r->bad = 1; return NULL; }
  memcpy(s, p, n);
  s[n] = 0;
  if (memchr(s, 0, n)) { free(s); r->bad = 1; return NULL; }  /* embedded NUL */
  return s;
}

/* ----------------------------------------------------------------- frames */

static void hdr_put(uint8_t *p, uint32_t len, uint16_t type, uint16_t flags, uint32_t a, uint32_t b)
{
  gasneti_put_be32(p, len);
  gasneti_put_be16(p + 4, type);
  gasneti_put_be16(p + 6, flags);
  gasneti_put_be32(p + 8, a);
  gasneti_put_be32(p + 12, b);
}

size_t spawn_deflate_bound(size_t len) { return compressBound((uLong)len); }

size_t spawn_deflate(const void *p, size_t len, uint8_t *z, size_t limit)
{
  uLongf zlen = compressBound((uLong)len);
  return compress2(z, &zlen, p, (uLong)len, 1) == Z_OK && zlen < limit ? (size_t)zlen : 0;
}

int spawn_inflate(void *out, size_t n, const uint8_t *z, size_t zlen)
{
  uLongf got = (uLongf)n;
  return uncompress(out, &got, z, (uLong)zlen) == Z_OK && got == n ? 0 : -EPROTO;
}

void spawn_frame_put(spawn_buf_t *out, uint16_t type, uint32_t a, uint32_t b,
                     const void *payload, size_t len)
{
  uint8_t hdr[SPAWN_HDR_LEN];
  if (len > SPAWN_ZLIB_MIN && len <= SPAWN_MAX_RAW) {
    size_t at = out->len, zlen;
    spawn_buf_put(out, NULL, SPAWN_HDR_LEN + 4 + spawn_deflate_bound(len));  /* reserve */
    uint8_t *z = out->p + at + SPAWN_HDR_LEN + 4;
    if ((zlen = spawn_deflate(payload, len, z, len - 4))) {
      hdr_put(out->p + at, (uint32_t)(zlen + 4), type, SPAWN_F_ZLIB, a, b);
      gasneti_put_be32(out->p + at + SPAWN_HDR_LEN, (uint32_t)len);
      out->len = at + SPAWN_HDR_LEN + 4 + zlen;
      return;
    }
    out->len = at;  /* did not help: send it raw */
  }
  hdr_put(hdr, (uint32_t)len, type, 0, a, b);
  spawn_buf_put(out, hdr, SPAWN_HDR_LEN);
  spawn_buf_put(out, payload, len);
}

static int type_known(unsigned t)
{
  switch (t) {
  case SPAWN_HELLO: case SPAWN_AUTH: case SPAWN_WELCOME: case SPAWN_COLL:
  case SPAWN_COLL_RESULT: case SPAWN_FINI: case SPAWN_ABORT: case SPAWN_EXIT:
  case SPAWN_OUTPUT: case SPAWN_DONE: case SPAWN_FAIL: case SPAWN_SIGNAL:
  case SPAWN_PING: case SPAWN_PONG:
    return 1;
  }
  return 0;
}

const char *spawn_type_name(unsigned t)
{
  static const char *names[] = {
    [SPAWN_HELLO] = "HELLO", [SPAWN_AUTH] = "AUTH", [SPAWN_WELCOME] = "WELCOME",
    [SPAWN_COLL] = "COLL", [SPAWN_COLL_RESULT] = "COLL_RESULT", [SPAWN_FINI] = "FINI",
    [SPAWN_ABORT] = "ABORT", [SPAWN_EXIT] = "EXIT", [SPAWN_OUTPUT] = "OUTPUT",
    [SPAWN_DONE] = "DONE", [SPAWN_FAIL] = "FAIL", [SPAWN_SIGNAL] = "SIGNAL",
    [SPAWN_PING] = "PING", [SPAWN_PONG] = "PONG",
  };
  return type_known(t) ? names[t] : "unknown";
}

int spawn_hdr_decode(const uint8_t p[SPAWN_HDR_LEN], spawn_hdr_t *h)
{
  h->len = gasneti_get_be32(p);
  h->type = gasneti_get_be16(p + 4);
  h->flags = gasneti_get_be16(p + 6);
  h->a = gasneti_get_be32(p + 8);
  h->b = gasneti_get_be32(p + 12);
  if (!type_known(h->type) || (h->flags & ~SPAWN_F_ZLIB) || h->len > SPAWN_MAX_WIRE)
    return -EPROTO;
  if ((h->flags & SPAWN_F_ZLIB) && h->len < 4) return -EPROTO;
  return 0;
}

int spawn_frame_payload(const spawn_hdr_t *h, const uint8_t *wire,
                        const uint8_t **raw, size_t *rawlen, uint8_t **owned)
{
  *owned = NULL;
  if (!(h->flags & SPAWN_F_ZLIB)) { *raw = wire; *rawlen = h->len; return 0; }
  uint32_t n = gasneti_get_be32(wire);
  if (n > SPAWN_MAX_RAW) return -EPROTO;
  uint8_t *p = malloc(n ? n : 1);
  if (!p) return -ENOMEM;
  if (spawn_inflate(p, n, wire + 4, h->len - 4) < 0) { free(p); return -EPROTO; }
  *raw = p; *rawlen = n; *owned = p;
  return 0;
}

/* ----------------------------------------------------------------- payloads */

void spawn_hello_encode(uint8_t out[SPAWN_HELLO_LEN], const uint8_t nonce[SPAWN_NONCE_LEN])
{
  memcpy(out, SPAWN_MAGIC, SPAWN_MAGIC_LEN);
  gasneti_put_be32(out + SPAWN_MAGIC_LEN, SPAWN_VERSION);
  memcpy(out + SPAWN_MAGIC_LEN + 4, nonce, SPAWN_NONCE_LEN);
}

int spawn_hello_decode(const uint8_t *p, size_t len, const uint8_t **nonce)
{
  if (len != SPAWN_HELLO_LEN || memcmp(p, SPAWN_MAGIC, SPAWN_MAGIC_LEN)
      || gasneti_get_be32(p + SPAWN_MAGIC_LEN) != SPAWN_VERSION)
    return -EPROTO;
  *nonce = p + SPAWN_MAGIC_LEN + 4;
  return 0;
}

size_t spawn_auth_encode(uint8_t *out, uint32_t kind, uint32_t id, const uint8_t cnonce[SPAWN_NONCE_LEN],
                         const uint8_t mac[SPAWN_MAC_LEN], const char *host)
{
  size_t hl = host ? strlen(host) : 0;
  if (hl > 255) hl = 255;
  gasneti_put_be32(out, kind);
  gasneti_put_be32(out + 4, id);
  memcpy(out + 8, cnonce, SPAWN_NONCE_LEN);
  memcpy(out + 8 + SPAWN_NONCE_LEN, mac, SPAWN_MAC_LEN);
  out[SPAWN_AUTH_MIN - 1] = (uint8_t)hl;
  memcpy(out + SPAWN_AUTH_MIN, host, hl);
  return SPAWN_AUTH_MIN + hl;
}

int spawn_auth_decode(const uint8_t *p, size_t len, spawn_auth_t *a)
{
  if (len < SPAWN_AUTH_MIN || len > SPAWN_AUTH_MAX || p[SPAWN_AUTH_MIN - 1] != len - SPAWN_AUTH_MIN)
    return -EPROTO;
  a->kind = gasneti_get_be32(p);
  a->id = gasneti_get_be32(p + 4);
  a->cnonce = p + 8;
  a->mac = p + 8 + SPAWN_NONCE_LEN;
  memcpy(a->host, p + SPAWN_AUTH_MIN, len - SPAWN_AUTH_MIN);
  a->host[len - SPAWN_AUTH_MIN] = 0;
  return 0;
}

void spawn_coll_encode(spawn_buf_t *b, uint32_t lo, uint32_t count, const void *data, size_t dlen)
{
  spawn_buf_u32(b, lo);
  spawn_buf_u32(b, count);
  spawn_buf_put(b, data, dlen);
}

int spawn_coll_decode(const uint8_t *p, size_t len, spawn_coll_part_t *c)
{
  if (len < 8) return -EPROTO;
  c->lo = gasneti_get_be32(p);
  c->count = gasneti_get_be32(p + 4);
  c->data = p + 8;
  c->dlen = len - 8;
  return 0;
}

void spawn_exit_encode(uint8_t out[SPAWN_EXIT_LEN], const spawn_exit_t *e)
{
  gasneti_put_be32(out, e->how);
  gasneti_put_be32(out + 4, e->value);
  gasneti_put_be32(out + 8, e->flags);
}

int spawn_exit_decode(const uint8_t *p, size_t len, spawn_exit_t *e)
{
  if (len != SPAWN_EXIT_LEN) return -EPROTO;
  e->how = gasneti_get_be32(p);
  e->value = gasneti_get_be32(p + 4);
  e->flags = gasneti_get_be32(p + 8);
  return e->how == SPAWN_HOW_EXITED || e->how == SPAWN_HOW_SIGNALED ? 0 : -EPROTO;
}

void spawn_env_put(spawn_buf_t *b, char **env, uint32_t n)
{
  spawn_buf_u32(b, n);
  for (uint32_t i = 0; i < n; i++) spawn_buf_str(b, env[i]);
}

int spawn_welcome_rank_decode(const uint8_t *p, size_t len, uint32_t *rank, uint32_t *size,
                              char ***env, uint32_t *n)
{
  spawn_rd_t r = { p, p + len, 0 };
  *env = NULL;
  *rank = spawn_rd_u32(&r);
  *size = spawn_rd_u32(&r);
  *n = spawn_rd_u32(&r);
  if (r.bad || *size == 0 || *rank >= *size || *n > len / 4) return -EPROTO;
  if (!(*env = calloc((size_t)*n + 1, sizeof **env))) return -ENOMEM;
  for (uint32_t i = 0; i < *n; i++) {
    if (!((*env)[i] = spawn_rd_str(&r))) { /* a bad string: give back what we took */
      for (uint32_t j = 0; j < i; j++) free((*env)[j]);
      free(*env);
      *env = NULL;
      return -EPROTO;
    }
  }
  return 0;
}

/* ---------------------------------------------------------- authentication */

void spawn_auth_mac(const uint8_t secret[SPAWN_SECRET_LEN], char side,
                    const uint8_t snonce[SPAWN_NONCE_LEN],
                    const uint8_t cnonce[SPAWN_NONCE_LEN],
                    uint32_t kind, uint32_t id, uint8_t mac[SPAWN_MAC_LEN])
{
  uint8_t ki[8];
  gasneti_put_be32(ki, kind);
  gasneti_put_be32(ki + 4, id);
  const void *piece[] = { "gasnetrun-auth", &side, snonce, cnonce, ki };
  size_t len[] = { 14, 1, SPAWN_NONCE_LEN, SPAWN_NONCE_LEN, 8 };
  gasneti_hmac_sha256(secret, SPAWN_SECRET_LEN, 5, piece, len, mac);
}

void spawn_job_key(const uint8_t secret[SPAWN_SECRET_LEN], uint8_t key[32])
{
  const void *piece[] = { "gasnetrun-job-key" };
  size_t len[] = { 17 };
  gasneti_hmac_sha256(secret, SPAWN_SECRET_LEN, 1, piece, len, key);
}

int spawn_random(void *buf, size_t len)
{
  uint8_t *p = buf;
  while (len > 0) {
    ssize_t n = getrandom(p, len, 0);
    if (n < 0) { if (errno == EINTR) continue; return -errno; }
    p += n; len -= (size_t)n;
  }
  return 0;
}

/* ------------------------------------------------------------------ tickets */

int spawn_ticket_format(const spawn_ticket_t *t, char *out, size_t outlen)
{
  char hex[2 * SPAWN_SECRET_LEN + 1];
  for (int i = 0; i < SPAWN_SECRET_LEN; i++) sprintf(hex + 2 * i, "%02x", t->secret[i]);
  int n = snprintf(out, outlen, "GASNETRUN1 %s %s %u %u %u\n", hex, t->addr,
                   (unsigned)t->port, (unsigned)t->kind, (unsigned)t->id);
  return n > 0 && (size_t)n < outlen ? 0 : -ENAMETOOLONG;
}

static int hex_digit(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int spawn_ticket_parse(const char *line, spawn_ticket_t *t)
{
  char hex[2 * SPAWN_SECRET_LEN + 2];
  unsigned port, kind, id;
  if (sscanf(line, "GASNETRUN1 %65s %63s %u %u %u", hex, t->addr, &port, &kind, &id) != 5
      || strlen(hex) != 2 * SPAWN_SECRET_LEN || port == 0 || port > 65535)
    return -EINVAL;
  /* Every digit checked: sscanf's %2x would take "6v" as 6, or a sign. */
  for (int i = 0; i < SPAWN_SECRET_LEN; i++) {
    int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return -EINVAL;
    t->secret[i] = (uint8_t)(hi << 4 | lo);
  }
  t->port = (uint16_t)port; t->kind = kind; t->id = id;
  return 0;
}

int spawn_ticket_read(int fd, char *line, size_t len)
{
  size_t n = 0;
  while (n + 1 < len) {
    ssize_t r = read(fd, line + n, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -errno;
    if (r == 0) break;
    if (line[n] == '\n') { line[n] = 0; return 0; }
    n++;
  }
  line[n] = 0;
  return n ? 0 : -EPIPE;
}

/* --------------------------------------------------------- blocking client */

static int send_all(int fd, const void *buf, size_t len)
{
  const uint8_t *p = buf;
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0) { if (errno == EINTR) continue; return -errno; }
    p += n; len -= (size_t)n;
  }
  return 0;
}

static int recv_all(int fd, void *buf, size_t len)
{
  uint8_t *p = buf;
  while (len > 0) {
    ssize_t n = recv(fd, p, len, 0);
    if (n < 0) { if (errno == EINTR) continue; return -errno; }
    if (n == 0) return -EPIPE;
    p += n; len -= (size_t)n;
  }
  return 0;
}

int spawn_send_frame(int fd, uint16_t type, uint32_t a, uint32_t b,
                     const void *payload, size_t len)
{
  spawn_buf_t out = {0};
  spawn_frame_put(&out, type, a, b, payload, len);
  int rc = send_all(fd, out.p, out.len);
  spawn_buf_free(&out);
  return rc;
}

int spawn_recv_frame(int fd, spawn_hdr_t *h, uint8_t **payload, size_t *len)
{
  uint8_t hb[SPAWN_HDR_LEN], *wire = NULL, *owned;
  const uint8_t *raw;
  int rc;
  *payload = NULL; *len = 0;
  if ((rc = recv_all(fd, hb, sizeof hb)) < 0) return rc;
  if ((rc = spawn_hdr_decode(hb, h)) < 0) return rc;
  if (h->len == 0) return 0;
  if (!(wire = malloc(h->len))) return -ENOMEM;
  if ((rc = recv_all(fd, wire, h->len)) < 0) { free(wire); return rc; }
  if ((rc = spawn_frame_payload(h, wire, &raw, len, &owned)) < 0) { free(wire); return rc; }
  if (owned) { free(wire); *payload = owned; } else { *payload = wire; }
  return 0;
}

/* The join is bounded: SPAWN_JOIN_TIMEOUT_MS in all, each blocking step
 * (connect too: Linux bounds it by SO_SNDTIMEO) given what is left, so a
 * relay or rank whose launcher cannot be reached (a lossy or partitioned
 * path) gives up about when the launcher gives it up, and outlives nothing.
 * 0, or -ETIMEDOUT when the time is up. */
static int join_bound(int s, uint64_t deadline_ms)
{
  uint64_t now = gasneti_now_ms();
  if (now >= deadline_ms) return -ETIMEDOUT;
  uint64_t left = deadline_ms - now;
  struct timeval tv = { (time_t)(left / 1000), (suseconds_t)(left % 1000) * 1000 };
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  return 0;
}

/* A timed-out step's error, as the caller reports it. */
static int join_err(int rc)
{
  return rc == -EAGAIN || rc == -EWOULDBLOCK || rc == -EINPROGRESS ? -ETIMEDOUT : rc;
}

int spawn_client_join(const spawn_ticket_t *t, const char *host, int *fd,
                      uint8_t **body, size_t *bodylen, const char **why)
{
  const uint64_t deadline = gasneti_now_ms() + SPAWN_JOIN_TIMEOUT_MS;
  static const struct timeval none = { 0, 0 };
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(t->port) };
  uint8_t cnonce[SPAWN_NONCE_LEN], mac[SPAWN_MAC_LEN], *p = NULL;
  spawn_hdr_t h;
  size_t len;
  int s = -1, rc, one = 1;

  *fd = -1; *body = NULL; *bodylen = 0;
  *why = "bad launcher address";
  if (inet_pton(AF_INET, t->addr, &sa.sin_addr) != 1) return -EINVAL;
  *why = "socket";
  if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) return -errno;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  *why = "connect";
  if ((rc = join_bound(s, deadline)) < 0) goto fail;
  while ((rc = connect(s, (struct sockaddr *)&sa, sizeof sa)) < 0 && errno == EINTR) {}
  if (rc < 0) { rc = -errno; goto fail; }
  *why = "no HELLO from launcher";
  if ((rc = join_bound(s, deadline)) < 0 || (rc = spawn_recv_frame(s, &h, &p, &len)) < 0) goto fail;
  rc = -EPROTO;
  const uint8_t *snonce;
  if (h.type != SPAWN_HELLO || spawn_hello_decode(p, len, &snonce) < 0) goto fail;
  *why = "getrandom";
  if ((rc = spawn_random(cnonce, sizeof cnonce)) < 0) goto fail;
  {
    uint8_t auth[SPAWN_AUTH_MAX], cmac[SPAWN_MAC_LEN];
    spawn_auth_mac(t->secret, 'C', snonce, cnonce, t->kind, t->id, cmac);
    size_t al = spawn_auth_encode(auth, t->kind, t->id, cnonce, cmac, host);
    spawn_auth_mac(t->secret, 'S', snonce, cnonce, t->kind, t->id, mac);
    *why = "send AUTH";
    if ((rc = join_bound(s, deadline)) < 0 || (rc = spawn_send_frame(s, SPAWN_AUTH, 0, 0, auth, al)) < 0)
      goto fail;
  }
  free(p); p = NULL;
  *why = "launcher refused this process (wrong job secret?)";
  if ((rc = join_bound(s, deadline)) < 0 || (rc = spawn_recv_frame(s, &h, &p, &len)) < 0) {
    if (join_err(rc) == -ETIMEDOUT) *why = "no answer from the launcher";
    goto fail;
  }
  *why = "launcher failed authentication";
  rc = -EPROTO;
  if (h.type != SPAWN_WELCOME || len < SPAWN_MAC_LEN || gasneti_memneq(p, mac, SPAWN_MAC_LEN))
    goto fail;
  memmove(p, p + SPAWN_MAC_LEN, len - SPAWN_MAC_LEN);
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none); /* joined: later waits are the caller's */
  setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
  *body = p; *bodylen = len - SPAWN_MAC_LEN; *fd = s;
  *why = NULL;
  return 0;
fail:
  free(p);
  if (s >= 0) close(s);
  return join_err(rc);
}
