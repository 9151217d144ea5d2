/*
 * gasnett_checksum.c - checksums and zero counts over client buffers.
 */
#include "gasnett_internal.h"

/* 64-bit FNV-1a: byte by byte, so the value depends only on the bytes and
 * is the same on every node whatever its alignment or byte order. */
#define GASNETT__FNV64_OFFSET 0xcbf29ce484222325ull
#define GASNETT__FNV64_PRIME 0x100000001b3ull

uint64_t gasnett_checksum(const void *p, size_t numbytes) {
  const unsigned char *b = (const unsigned char *)p;
  uint64_t h = GASNETT__FNV64_OFFSET;
  for (size_t i = 0; i < numbytes; i++) {
    h ^= b[i];
    h *= GASNETT__FNV64_PRIME;
  }
  return h;
}

size_t gasnett_count0s(const void *src, size_t bytes) {
  const unsigned char *b = (const unsigned char *)src;
  size_t zeros = 0;
  for (size_t i = 0; i < bytes; i++) zeros += b[i] == 0;
  return zeros;
}

size_t gasnett_count0s_copy(void *dst, const void *src, size_t bytes) {
  memcpy(dst, src, bytes);
  return gasnett_count0s(dst, bytes);
}
