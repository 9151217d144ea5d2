/*
 * t_util.h - helpers shared by the tests/core programs: an AM barrier
 * (Short requests to node 0, Short release from node 0), a checked-call
 * macro, and a deterministic payload generator the receiver can verify.
 * Include after defining the client mode; add T_BARRIER_HANDLERS to the
 * handler table (indexes 250, 251).
 */
#ifndef T_UTIL_H
#define T_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "gasnet.h"

#include "../lib/t_check.h"

/* ---- AM barrier -------------------------------------------------------- */
#define T_H_ARRIVE 250
#define T_H_RELEASE 251
static volatile int t_arrived, t_released;
static void t_arrive_handler(gasnet_token_t token, gasnet_handlerarg_t phase) {
  (void)token; (void)phase;
  __atomic_fetch_add(&t_arrived, 1, __ATOMIC_RELAXED);
}
static void t_release_handler(gasnet_token_t token, gasnet_handlerarg_t phase) {
  (void)token;
  __atomic_store_n(&t_released, phase, __ATOMIC_RELAXED);
}
#define T_BARRIER_HANDLERS                                  \
  { T_H_ARRIVE, (void (*)())t_arrive_handler },             \
  { T_H_RELEASE, (void (*)())t_release_handler }

static int t_phase;
static inline void t_barrier(void) {
  int phase = ++t_phase;
  gasnet_node_t n = gasnet_nodes();
  T_CHECK(gasnet_AMRequestShort1(0, T_H_ARRIVE, phase));
  if (gasnet_mynode() == 0) {
    GASNET_BLOCKUNTIL(__atomic_load_n(&t_arrived, __ATOMIC_RELAXED) >= (int)n * phase);
    for (gasnet_node_t i = 0; i < n; i++)
      T_CHECK(gasnet_AMRequestShort1(i, T_H_RELEASE, phase));
  }
  GASNET_BLOCKUNTIL(__atomic_load_n(&t_released, __ATOMIC_RELAXED) >= phase);
}

/* ---- verifiable payloads: bytes 0..3 hold a seed, the rest follow from it */
static inline uint32_t t_mix(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}
static inline void t_fill(void *buf, size_t n, uint32_t seed) {
  unsigned char *p = buf;
  if (n < 4) { for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(n * 31 + i * 7); return; }
  memcpy(p, &seed, 4);
  uint32_t s = seed;
  size_t i = 4;
  for (; i + 4 <= n; i += 4) { s = t_mix(s + (uint32_t)i); memcpy(p + i, &s, 4); }
  for (; i < n; i++) p[i] = (unsigned char)(t_mix(s + (uint32_t)i) & 0xff);
}
/* 1 when buf holds what t_fill wrote (with whatever seed it carries). */
static inline int t_verify(const void *buf, size_t n) {
  const unsigned char *p = buf;
  if (n < 4) { for (size_t i = 0; i < n; i++) if (p[i] != (unsigned char)(n * 31 + i * 7)) return 0; return 1; }
  uint32_t s, v;
  memcpy(&s, p, 4);
  size_t i = 4;
  for (; i + 4 <= n; i += 4) { s = t_mix(s + (uint32_t)i); memcpy(&v, p + i, 4); if (v != s) return 0; }
  for (; i < n; i++) if (p[i] != (unsigned char)(t_mix(s + (uint32_t)i) & 0xff)) return 0;
  return 1;
}

#endif /* T_UTIL_H */
