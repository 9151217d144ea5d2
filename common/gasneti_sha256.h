/*
 * gasneti_sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), used by
 * the launcher and the bootstrap client to authenticate connections without
 * sending the job secret and to derive the job key from it, and by amtcp to
 * prove job membership in its handshake.
 */
#ifndef GASNETI_SHA256_H
#define GASNETI_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define GASNETI_SHA256_LEN 32

typedef struct gasneti_sha256 {
  uint32_t h[8];
  uint64_t total;        /* bytes hashed so far */
  uint8_t buf[64];
  size_t used;           /* bytes waiting in buf */
} gasneti_sha256_t;

void gasneti_sha256_init(gasneti_sha256_t *c);
void gasneti_sha256_update(gasneti_sha256_t *c, const void *data, size_t len);
void gasneti_sha256_final(gasneti_sha256_t *c, uint8_t out[GASNETI_SHA256_LEN]);

/* HMAC-SHA256 of the concatenation of `n` pieces (ptr, len pairs). */
void gasneti_hmac_sha256(const uint8_t *key, size_t keylen, int n,
                       const void *const *piece, const size_t *piecelen,
                       uint8_t out[GASNETI_SHA256_LEN]);

/* Compare in time independent of where the buffers differ. 0 when equal. */
int gasneti_memneq(const void *a, const void *b, size_t len);

#endif /* GASNETI_SHA256_H */
