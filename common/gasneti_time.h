/*
 * gasneti_time.h - the one clock for deadlines, timeouts and intervals:
 * CLOCK_MONOTONIC, which neither steps back nor follows changes of the date.
 * clock_gettime reads it through the vDSO (no system call, ~20 ns), so it is
 * cheap enough for every poll.
 */
#ifndef GASNETI_TIME_H
#define GASNETI_TIME_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds since an arbitrary point (boot), for this host only. */
static inline uint64_t gasneti_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The same clock in whole milliseconds (the launcher's unit). */
static inline uint64_t gasneti_now_ms(void) { return gasneti_now_ns() / 1000000u; }

#endif /* GASNETI_TIME_H */
