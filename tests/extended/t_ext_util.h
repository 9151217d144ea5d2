/*
 * t_ext_util.h - checks and a deterministic payload generator shared by the
 * tests/extended programs. Include after gasnet.h.
 */
#ifndef T_EXT_UTIL_H
#define T_EXT_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "../lib/t_check.h"

/* splitmix64: reproducible per-rank random streams */
static inline uint64_t t_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Bytes that depend on the seed and the position. */
static inline void t_fill(void *buf, size_t n, uint32_t seed) {
  uint64_t s = seed * 0x100000001b3ull + n;
  unsigned char *p = buf;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) { uint64_t v = t_rand(&s); memcpy(p + i, &v, 8); }
  if (i < n) { uint64_t v = t_rand(&s); memcpy(p + i, &v, n - i); }
}

#endif /* T_EXT_UTIL_H */
