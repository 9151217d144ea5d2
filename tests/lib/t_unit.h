/*
 * t_unit.h - what the one-process unit tests share (t_amshm_ring,
 * t_amshm_unit, t_amtcp_frame, t_amudp_engine): CHECK, which counts a
 * failed condition in `failures` and prints the first 20 with where they
 * are, and a seeded generator (splitmix64), so that a failure replays from
 * its seed. Include it once, in the test's one file.
 */
#ifndef T_UNIT_H
#define T_UNIT_H

#include <stdint.h>
#include <stdio.h>

static int failures __attribute__((unused));
#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      if (failures++ < 20) {                                                    \
        fprintf(stderr, "FAIL %s:%d: %s: ", __func__, __LINE__, #cond);        \
        fprintf(stderr, __VA_ARGS__);                                           \
        fputc('\n', stderr);                                                    \
      }                                                                         \
    }                                                                           \
  } while (0)

static inline uint64_t rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* In [0, n); 0 for n == 0. */
static inline uint64_t rng_below(uint64_t *s, uint64_t n) { return n ? rng_next(s) % n : 0; }

#endif /* T_UNIT_H */
