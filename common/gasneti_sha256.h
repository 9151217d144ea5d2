/*
 * gasneti_sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), used by
 * the launcher and the bootstrap client to authenticate connections without
 * sending the job secret, and to derive the job key from it.
 */
#ifndef SPAWN_SHA256_H
#define SPAWN_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SPAWN_SHA256_LEN 32

typedef struct spawn_sha256 {
  uint32_t h[8];
  uint64_t total;        /* bytes hashed so far */
  uint8_t buf[64];
  size_t used;           /* bytes waiting in buf */
} spawn_sha256_t;

void spawn_sha256_init(spawn_sha256_t *c);
void spawn_sha256_update(spawn_sha256_t *c, const void *data, size_t len);
void spawn_sha256_final(spawn_sha256_t *c, uint8_t out[SPAWN_SHA256_LEN]);

/* HMAC-SHA256 of the concatenation of `n` pieces (ptr, len pairs). */
void spawn_hmac_sha256(const uint8_t *key, size_t keylen, int n,
                       const void *const *piece, const size_t *piecelen,
                       uint8_t out[SPAWN_SHA256_LEN]);

/* Compare in time independent of where the buffers differ. 0 when equal. */
int spawn_memneq(const void *a, const void *b, size_t len);

#endif /* SPAWN_SHA256_H */
