/*
 * t_transport.h - driving one transport (core/transport.h, version 2)
 * without the core, for the transport-level tests and benchmarks: the
 * descriptors it watches (tt_watch_cb, a process-wide list), a wait on
 * them until its deadline (tt_wait, what the core's gasnetc_wait does for
 * all transports), a send that makes progress while the transport says
 * "not now" (tt_send, as gasnetc_route_send), and "serve every rank".
 */
#ifndef T_TRANSPORT_H
#define T_TRANSPORT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* ppoll */
#endif
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "transport.h"

#define TT_MAX_FDS 16
static struct pollfd tt_fds[TT_MAX_FDS];
static int tt_nfds;
static int tt_fds_lock; /* a spin lock: a transport may watch from any thread (idle) */

static inline void tt_lock(void) {
  while (__atomic_exchange_n(&tt_fds_lock, 1, __ATOMIC_ACQUIRE)) {}
}
static inline void tt_unlock(void) { __atomic_store_n(&tt_fds_lock, 0, __ATOMIC_RELEASE); }

static inline int tt_watch_cb(void *ctx, int fd, unsigned events) {
  (void)ctx;
  int rc = 0, i;
  tt_lock();
  for (i = 0; i < tt_nfds && tt_fds[i].fd != fd; i++) {}
  if (i < tt_nfds) {
    if (!events) tt_fds[i] = tt_fds[--tt_nfds]; /* else POLLIN is all a sleep needs */
  } else if (!events) {
    rc = -ENOENT;
  } else if (tt_nfds == TT_MAX_FDS) {
    rc = -ENOSPC;
  } else {
    tt_fds[tt_nfds++] = (struct pollfd){fd, POLLIN, 0};
  }
  tt_unlock();
  return rc;
}

static inline uint64_t tt_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep on every watched descriptor until one is ready, t's deadline or
 * timeout_ms (-1: none), then poll t. */
static inline int tt_wait(const gasnetc_transport_ops_t *ops, gasnetc_transport_t *t,
                          int timeout_ms) {
  uint64_t dl = ops->idle(t), now = tt_now_ns();
  if (timeout_ms >= 0 && now + (uint64_t)timeout_ms * 1000000u < dl)
    dl = now + (uint64_t)timeout_ms * 1000000u;
  if (dl > now) {
    struct timespec ts = {(time_t)((dl - now) / 1000000000u), (long)((dl - now) % 1000000000u)};
    struct pollfd pf[TT_MAX_FDS]; /* ppoll writes revents: a copy per thread */
    tt_lock();
    int n = tt_nfds;
    memcpy(pf, tt_fds, sizeof pf[0] * (size_t)n);
    tt_unlock();
    ppoll(pf, (nfds_t)n, dl == GASNETC_NEVER ? NULL : &ts, NULL);
  }
  return ops->poll(t);
}

/* send(), making progress while the transport refuses (-EAGAIN). */
static inline int tt_send(const gasnetc_transport_ops_t *ops, gasnetc_transport_t *t,
                          uint32_t dest, const void *hdr, size_t hdrlen, const void *payload,
                          size_t paylen, unsigned flags) {
  int rc;
  while ((rc = ops->send(t, dest, hdr, hdrlen, payload, paylen, flags, NULL)) == -EAGAIN)
    tt_wait(ops, t, 1);
  return rc;
}

/* connect()'s `serves` for "every rank" (up to 65536). */
static inline const uint8_t *tt_serves_all(void) {
  static uint8_t all[1u << 16];
  if (!all[0]) memset(all, 1, sizeof all);
  return all;
}

#endif /* T_TRANSPORT_H */
