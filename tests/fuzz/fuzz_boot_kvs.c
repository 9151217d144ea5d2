/*
 * fuzz_boot_kvs.c - libFuzzer harness for what the bootstrap client reads
 * back from a launcher's key-value space (bootstrap/boot_kvs.c, get_blob: the
 * "<stored>.<raw>." header, base64 chunks, zlib), through boot_kvs_ops,
 * the production collectives, over a key-value space played here whose
 * every get answers with the next line of the input. As rank 1 of 2 it
 * learns the job key at its first fence, then takes a broadcast and an
 * exchange.
 *
 * Input: u8 value-size limit (64 + this), u8 broadcast length selector,
 * then the values, one per line.
 */
#include "boot_internal.h"
#include "spawn_proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* boot.c's, whose back-end choice and MPI probing are not wanted here. */
int boot_err(const char *name, int rc, const char *fmt, ...) {
  (void)name; (void)fmt;
  return rc;
}
void boot_abort(int code, const char *why) {
  (void)code; (void)why;
  __builtin_trap(); /* kvs_key_ready only, which this harness never calls */
}

static const uint8_t *in;
static size_t in_left;

static int f_init(uint32_t *rank, uint32_t *size) { *rank = 1; *size = 2; return 0; }
static int f_put(const char *key, const char *val) { (void)key; (void)val; return 0; }
static int f_fence(void) { return 0; }
static int f_get(uint32_t rank, const char *key, char *val, size_t cap) {
  (void)rank; (void)key;
  if (!in_left) return -EPROTO;
  const uint8_t *nl = memchr(in, '\n', in_left);
  size_t n = nl ? (size_t)(nl - in) : in_left;
  int rc = 0;
  if (n >= cap) rc = -EMSGSIZE; /* as the PMI back ends refuse an oversized value */
  else { memcpy(val, in, n); val[n] = 0; }
  if (memchr(in, 0, n)) rc = -EPROTO; /* values are text */
  in += n + (nl != NULL);
  in_left -= n + (nl != NULL);
  return rc;
}
static void f_abort(int code, const char *why) { (void)code; (void)why; }
static void f_fini(void) {}

static boot_kvs_t fake = {
  .name = "fuzz", .init = f_init, .put = f_put, .fence = f_fence, .get = f_get,
  .abort = f_abort, .fini = f_fini,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const size_t bcast_len[4] = {0, 7, 100, 5000};
  if (size < 2) return 0;
  fake.max_key = 64;
  fake.max_val = 64 + data[0];
  size_t blen = bcast_len[data[1] & 3];
  in = data + 2;
  in_left = size - 2;
  boot_kvs_use(&fake);
  uint32_t rank, nranks;
  uint8_t key[BOOT_JOB_KEY_LEN];
  if (boot_kvs_ops.init(&rank, &nranks, key) == 0 && boot_kvs_ops.barrier() == 0) {
    uint8_t *buf = malloc(blen ? blen : 1); /* exactly the length: ASan sees overruns */
    if (boot_kvs_ops.broadcast(buf, blen, 0) == 0) {
      uint8_t mine[12] = "rank 1 blob", *all = malloc(2 * sizeof mine);
      boot_kvs_ops.exchange(mine, sizeof mine, all);
      free(all);
    }
    free(buf);
  }
  boot_kvs_ops.fini(0);
  return 0;
}
