/*
 * boot_kvs.c - the bootstrap collectives over a launcher's key-value space
 * (boot_kvs_t: PMI-1, PMI2, PMIx), written once for all of them.
 *
 * A blob (one rank's part of an exchange, a broadcast, the job key) is
 * stored under keys "gn<gen>-<rank>-<chunk>": blobs above SPAWN_ZLIB_MIN are
 * zlib-compressed first (like the gasnetrun exchange), then cut into chunks
 * that respect the space's value-size limit, each in URL-safe base64 (PMI
 * values are text without blanks or '='). Chunk 0 starts with
 * "<stored>.<raw>." : the stored byte count (smaller than raw when
 * compressed) and the original one. <gen> counts collectives, so every key
 * is written once (PMI-1 and PMI2 forbid a second put of a key).
 *
 * Broadcast: the root puts, fence, the others get. Barrier: a fence.
 * Exchange: every rank puts its blob, fence; then either every rank gets
 * all of them (PMIx, whose gets are local once a fence collected the data,
 * and small jobs), or rank 0 gets them all and broadcasts the table: with
 * PMI-1 and PMI2 every get is a round trip to the launcher's daemon, and
 * size x size of them cost far more than a second fence.
 * The job key: rank 0 draws 32 random bytes and puts them at init (as
 * generation 0); the others get them after the first fence, which the
 * GASNet core's start-up makes before it asks for the key (no extra fence);
 * a program that asks first (Portals) makes every rank fence then.
 * Anyone who can read the launcher's key-value space can read the key
 * (docs/security.md, "Under PMI").
 */
#include "boot_internal.h"
#include "spawn_proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
  boot_kvs_t *kvs;
  uint32_t rank, size, gen;
  char *val;                  /* one value, kvs->max_val + 1 bytes */
  uint8_t *key;               /* the job key, still to get (NULL: have it) */
  int fenced;                 /* a fence was made (the key is known everywhere) */
} kv;

void boot_kvs_use(boot_kvs_t *kvs)
{
  kv.kvs = kvs;
  boot_kvs_ops.name = kvs->name;
}

/* ---- URL-safe base64 without padding ---------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static size_t b64_encode(const uint8_t *p, size_t n, char *out)
{
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0)
                 | (i + 2 < n ? p[i + 2] : 0);
    size_t k = n - i >= 3 ? 4 : n - i + 1;
    for (size_t j = 0; j < k; j++) out[o++] = b64[(v >> (18 - 6 * j)) & 63];
  }
  out[o] = 0;
  return o;
}

/* Decodes exactly `n` bytes from text s; -EPROTO if s does not hold them. */
static int b64_decode(const char *s, uint8_t *out, size_t n)
{
  size_t need = n / 3 * 4 + (n % 3 ? n % 3 + 1 : 0);
  if (strlen(s) != need) return -EPROTO;
  for (size_t i = 0, o = 0; o < n; i += 4) {
    uint32_t v = 0;
    for (size_t j = 0; j < 4; j++) {
      const char *c = i + j < need ? strchr(b64, s[i + j]) : b64;
      if (!c || !*c) return -EPROTO;
      v = v << 6 | (uint32_t)(c - b64);
    }
    for (size_t j = 0; j < 3 && o < n; j++) out[o++] = (uint8_t)(v >> (16 - 8 * j));
  }
  return 0;
}

/* ---- blobs ---------------------------------------------------------------- */

/* Raw bytes per chunk: what fits, in base64, in a value after chunk 0's
 * "<stored>.<raw>." header (at most 2 x 10 digits + 2). */
static size_t chunk_bytes(void) { return (kv.kvs->max_val - 24) / 4 * 3; }

static void key_of(char *key, size_t cap, uint32_t gen, uint32_t rank, size_t chunk)
{
  snprintf(key, cap, "gn%u-%u-%zu", (unsigned)gen, (unsigned)rank, chunk);
}

static int put_blob(uint32_t gen, const void *p, size_t len)
{
  const uint8_t *src = p;
  uint8_t *z = NULL;
  size_t stored = len, cb = chunk_bytes();
  size_t zl;
  if (len > SPAWN_ZLIB_MIN && (z = malloc(spawn_deflate_bound(len))) && (zl = spawn_deflate(p, len, z, len))) {
    src = z;
    stored = zl;
  }
  char key[64];
  int rc = 0;
  for (size_t c = 0, off = 0; rc == 0 && (c == 0 || off < stored); c++) {
    size_t n = stored - off < cb ? stored - off : cb, h = 0;
    if (c == 0) h = (size_t)sprintf(kv.val, "%zu.%zu.", stored, len);
    b64_encode(src + off, n, kv.val + h);
    key_of(key, sizeof key, gen, kv.rank, c);
    rc = kv.kvs->put(key, kv.val);
    off += n;
  }
  free(z);
  return rc;
}

/* Rank r's blob of generation gen into out, which holds exactly len bytes. */
static int get_blob(uint32_t gen, uint32_t r, void *out, size_t len)
{
  char key[64], *end;
  size_t cb = chunk_bytes();
  key_of(key, sizeof key, gen, r, 0);
  int rc = kv.kvs->get(r, key, kv.val, kv.kvs->max_val + 1);
  if (rc < 0) return rc;
  unsigned long long stored = strtoull(kv.val, &end, 10), raw = 0;
  if (*end == '.') raw = strtoull(end + 1, &end, 10);
  if (*end != '.' || raw != len || stored > raw || (stored < raw && raw <= SPAWN_ZLIB_MIN))
    return boot_err(kv.kvs->name, -EPROTO, "rank %u's value %s is malformed (expected %zu bytes)",
                    (unsigned)r, key, len);
  uint8_t *z = stored < raw ? malloc(stored) : NULL, *dst = z ? z : out;
  if (stored < raw && !z) return boot_err(kv.kvs->name, -ENOMEM, "reading %s", key);
  const char *text = end + 1;
  for (size_t c = 0, off = 0; rc == 0 && off < stored; c++) {
    size_t n = stored - off < cb ? stored - off : cb;
    if (c > 0) {
      key_of(key, sizeof key, gen, r, c);
      if ((rc = kv.kvs->get(r, key, kv.val, kv.kvs->max_val + 1)) < 0) break;
      text = kv.val;
    }
    if ((rc = b64_decode(text, dst + off, n)) < 0)
      boot_err(kv.kvs->name, rc, "rank %u's value %s is not what was stored", (unsigned)r, key);
    off += n;
  }
  if (rc == 0 && z && spawn_inflate(out, len, z, stored) < 0)
    rc = boot_err(kv.kvs->name, -EPROTO, "rank %u's compressed value does not inflate", (unsigned)r);
  free(z);
  return rc;
}

/* ---- boot_ops_t ------------------------------------------------------------ */

/* A fence; after the first one, the job key that rank 0 put at init. */
static int kvs_fence(void)
{
  int rc = kv.kvs->fence();
  kv.fenced |= rc == 0;
  if (rc == 0 && kv.key) {
    rc = get_blob(0, 0, kv.key, BOOT_JOB_KEY_LEN);
    kv.key = NULL;
  }
  return rc;
}

static int kvs_broadcast(void *buf, size_t len, uint32_t root)
{
  int rc = 0;
  if (len > SPAWN_MAX_RAW) return boot_err(kv.kvs->name, -EMSGSIZE, "boot_broadcast of %zu bytes", len);
  kv.gen++;
  if (kv.rank == root) rc = put_blob(kv.gen, buf, len);
  if (rc == 0) rc = kvs_fence();
  if (rc == 0 && kv.rank != root) rc = get_blob(kv.gen, root, buf, len);
  return rc;
}

static int kvs_init(uint32_t *rank, uint32_t *size, uint8_t key[BOOT_JOB_KEY_LEN])
{
  int rc = kv.kvs->init(&kv.rank, &kv.size);
  if (rc < 0) return rc;
  if (kv.size == 0 || kv.rank >= kv.size)
    return boot_err(kv.kvs->name, -EPROTO, "the launcher says rank %u of %u",
                    (unsigned)kv.rank, (unsigned)kv.size);
  if (kv.kvs->max_val < 64 || kv.kvs->max_key < 24)
    return boot_err(kv.kvs->name, -EPROTO, "the launcher's limits (keys %zu, values %zu bytes) are too small",
                    kv.kvs->max_key, kv.kvs->max_val);
  if (!(kv.val = malloc(kv.kvs->max_val + 1))) return boot_err(kv.kvs->name, -ENOMEM, "init");
  *rank = kv.rank;
  *size = kv.size;
  if (kv.rank != 0) {
    kv.key = key;
    return 0;
  }
  if ((rc = spawn_random(key, BOOT_JOB_KEY_LEN)) < 0) return boot_err(kv.kvs->name, rc, "getrandom");
  return put_blob(0, key, BOOT_JOB_KEY_LEN);
}

/* Up to this many ranks, every rank gets every blob itself (see the top). */
#define KVS_DIRECT_MAX 8

static int kvs_exchange(const void *mine, size_t len, void *all)
{
  int rc, direct = kv.kvs->local_gets || kv.size <= KVS_DIRECT_MAX;
  if (len > SPAWN_MAX_RAW / kv.size) return boot_err(kv.kvs->name, -EMSGSIZE, "boot_exchange of %zu bytes", len);
  kv.gen++;
  if ((rc = put_blob(kv.gen, mine, len)) < 0 || (rc = kvs_fence()) < 0) return rc;
  for (uint32_t r = 0; r < kv.size && rc == 0 && (direct || kv.rank == 0); r++) {
    if (r == kv.rank) memmove((char *)all + (size_t)r * len, mine, len);
    else rc = get_blob(kv.gen, r, (char *)all + (size_t)r * len, len);
  }
  return rc < 0 || direct ? rc : kvs_broadcast(all, len * kv.size, 0);
}

static int kvs_barrier(void) { return kvs_fence(); }

/* boot_job_key before any collective (Portals' PtlNIInit asks for it
 * first, the GASNet core after an exchange): every rank fences now, rank 0
 * too, so that the fences of all ranks still pair up (PMI-1's is a
 * barrier: one rank fencing alone would meet the others' next one). */
static void kvs_key_ready(void)
{
  if (!kv.fenced && kvs_fence() < 0) boot_abort(1, "cannot learn the job key from the launcher");
}

static void kvs_fini(int code)
{
  (void)code;                 /* the launcher learns it from our exit status */
  kv.kvs->fini();
  free(kv.val);
  kv.val = NULL;
}

/* The launcher kills every rank on an abort, its output forwarders too:
 * give our last line a moment to pass through them first. */
#define KVS_ABORT_FLUSH_US 100000

static void kvs_abort(int code, const char *why)
{
  if (why) fprintf(stderr, "gasnet: abort: %s\n", why);
  fflush(stderr);
  usleep(KVS_ABORT_FLUSH_US);
  kv.kvs->abort(code ? code : 1, why);
}

boot_ops_t boot_kvs_ops = {
  .name = "pmi",
  .init = kvs_init,
  .exchange = kvs_exchange,
  .broadcast = kvs_broadcast,
  .barrier = kvs_barrier,
  .key_ready = kvs_key_ready,
  .fini = kvs_fini,
  .abort = kvs_abort,
};
