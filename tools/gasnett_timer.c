/*
 * gasnett_timer.c - timers: ticks are CLOCK_MONOTONIC nanoseconds (no TSC:
 * nothing to calibrate, and the same clock on every core). Granularity and
 * overhead are measured once, at first use.
 */
#include <sys/time.h>
#include <time.h>

#include "gasnett_internal.h"
#include "gasneti_time.h"

/* Samples for the measurements: enough to be stable, cheap (~100 us). */
#define GASNETT__TIMER_SAMPLES 1000
#define GASNETT__TIMER_BATCHES 10

gasnett_tick_t gasnett_ticks_now(void) { return gasneti_now_ns(); }

uint64_t gasnett_gettimeofday_us(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* The smallest non-zero step between two readings. */
static double gasnett__measure_granularity(void) {
  gasnett_tick_t best = GASNETT_TICK_MAX;
  for (int i = 0; i < GASNETT__TIMER_SAMPLES; i++) {
    gasnett_tick_t a = gasnett_ticks_now(), b;
    while ((b = gasnett_ticks_now()) == a) {
    }
    if (b - a < best) best = b - a;
  }
  return gasnett_ticks_to_ns(best) / 1000.0;
}

/* The cost of one reading: the best mean over a few batches (a batch that
 * was preempted says nothing about the timer); at least 1 ns, never 0. */
static double gasnett__measure_overhead(void) {
  double best_ns = 1e9;
  for (int batch = 0; batch < GASNETT__TIMER_BATCHES; batch++) {
    gasnett_tick_t start = gasnett_ticks_now(), end = start;
    for (int i = 0; i < GASNETT__TIMER_SAMPLES / GASNETT__TIMER_BATCHES; i++)
      end = gasnett_ticks_now();
    double ns = (double)gasnett_ticks_to_ns(end - start) /
                (GASNETT__TIMER_SAMPLES / GASNETT__TIMER_BATCHES);
    if (ns < best_ns) best_ns = ns;
  }
  return (best_ns < 1.0 ? 1.0 : best_ns) / 1000.0;
}

static double gasnett__granularity_us, gasnett__overhead_us;

static void gasnett__measure_timer(void) {
  gasnett__granularity_us = gasnett__measure_granularity();
  gasnett__overhead_us = gasnett__measure_overhead();
}

static pthread_once_t gasnett__timer_once = PTHREAD_ONCE_INIT;

double gasnett_tick_granularityus(void) {
  pthread_once(&gasnett__timer_once, gasnett__measure_timer);
  return gasnett__granularity_us;
}

double gasnett_tick_overheadus(void) {
  pthread_once(&gasnett__timer_once, gasnett__measure_timer);
  return gasnett__overhead_us;
}
