/*
 * gasnetc_wait.c - the one wait: every transport's descriptors in one epoll
 * set, every transport's deadline in one computation, one sleep for all.
 *
 *   gasnetc_progress()  poll each transport that serves a rank once
 *                       (bounded, non-blocking);
 *   gasnetc_wait(ms)    ask each transport for its next deadline (idle()),
 *                       sleep in ppoll() on the epoll set until a
 *                       descriptor is ready, the earliest deadline (or
 *                       gasnetc_wake_by's: the barrier's repair of a lost
 *                       notice) or ms, then poll every transport.
 *
 * The sleep is ppoll() on the epoll descriptor rather than epoll_wait, for
 * its nanosecond timeout (transport deadlines such as retransmissions fall
 * due tens of microseconds ahead) and because it consumes no event: the
 * transports read their own descriptors in poll. Any number of threads may
 * sleep here at once (PAR). Nothing here is O(ranks): a transport watches
 * one descriptor per socket it reads, or one epoll set of its own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* ppoll */
#endif
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "gasnetc_internal.h"

int gasnetc_wait_init(void) {
  gasnetc_g.epfd = epoll_create1(EPOLL_CLOEXEC);
  return gasnetc_g.epfd < 0 ? -errno : 0;
}

int gasnetc_watch_cb(void *ctx, int fd, unsigned events) {
  const gasnetc_tp_t *tp = ctx;
  struct epoll_event ev = {.events = events, .data.u32 = tp->index};
  if (!events) return epoll_ctl(gasnetc_g.epfd, EPOLL_CTL_DEL, fd, NULL) ? -errno : 0;
  if (epoll_ctl(gasnetc_g.epfd, EPOLL_CTL_MOD, fd, &ev) == 0) return 0;
  return errno == ENOENT && epoll_ctl(gasnetc_g.epfd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : -errno;
}

/* A throttled transport (a network one, in a job whose shared-memory
 * transport serves ranks too) is polled on the hot path only while it is
 * busy (a frame in the last GASNETC_HOT_NS) or once every
 * GASNETC_QUIET_POLL_NS: its poll is a system call, several times a round
 * trip through shared memory (shm_probe with GASNET_SUPERNODE_MAXSIZE=2 on
 * 4 ranks). A frame that arrives while it is quiet waits at most that
 * long; its timers are tens of microseconds or more. */
#define GASNETC_QUIET_POLL_NS 2000u
#define GASNETC_HOT_NS 50000u

static int gasnetc_poll_due(gasnetc_tp_t *tp) {
  uint64_t now = gasneti_now_ns();
  if (now - __atomic_load_n(&tp->last_frame_ns, __ATOMIC_RELAXED) > GASNETC_HOT_NS &&
      now - __atomic_load_n(&tp->last_poll_ns, __ATOMIC_RELAXED) < GASNETC_QUIET_POLL_NS)
    return 0;
  __atomic_store_n(&tp->last_poll_ns, now, __ATOMIC_RELAXED);
  return 1;
}

/* all: also the transports that serve no rank (after a sleep: whatever
 * woke us is read, a stray datagram too, so the next sleep is not cut short),
 * and the throttled ones. */
GASNETI_HOT
static int gasnetc_progress_some(int all) {
  int n = 0;
  GASNETC_STAT_ADD(polls, 1);
  for (unsigned i = 0; i < gasnetc_g.ntp; i++) {
    gasnetc_tp_t *tp = &gasnetc_g.tp[i];
    if (!tp->serves_any && !all) continue;
    if (tp->throttled && !all && !gasnetc_poll_due(tp)) continue;
    int k = tp->ops->poll(tp->t);
    if (tp->throttled && k > 0) __atomic_store_n(&tp->last_frame_ns, gasneti_now_ns(), __ATOMIC_RELAXED);
    if (GASNETC_LIKELY(k >= 0)) n += k;
    else if (!__atomic_load_n(&gasnetc_g.remote_exit, __ATOMIC_ACQUIRE))
      gasnetc_fatal("the %s transport failed: %s", tp->ops->name, strerror(-k));
  }
  return n;
}

int gasnetc_progress(void) { return gasnetc_progress_some(0); }

void gasnetc_wake_by(uint64_t ns) {
  uint64_t cur = __atomic_load_n(&gasnetc_g.wake_ns, __ATOMIC_RELAXED);
  while ((cur == 0 || ns < cur) &&
         !__atomic_compare_exchange_n(&gasnetc_g.wake_ns, &cur, ns, 1, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
}

int gasnetc_wait(int timeout_ms) {
  uint64_t dl = __atomic_exchange_n(&gasnetc_g.wake_ns, 0, __ATOMIC_RELAXED);
  if (dl == 0) dl = GASNETC_NEVER;
  for (unsigned i = 0; i < gasnetc_g.ntp; i++) {
    uint64_t d = gasnetc_g.tp[i].ops->idle(gasnetc_g.tp[i].t);
    if (d < dl) dl = d;
  }
  uint64_t now = gasneti_now_ns();
  if (timeout_ms >= 0 && now + (uint64_t)timeout_ms * 1000000u < dl)
    dl = now + (uint64_t)timeout_ms * 1000000u;
  if (dl > now) {
    GASNETC_STAT_ADD(waits, 1);
    struct pollfd pf = {gasnetc_g.epfd, POLLIN, 0};
    struct timespec ts = {(time_t)((dl - now) / 1000000000u), (long)((dl - now) % 1000000000u)};
    ppoll(&pf, 1, dl == GASNETC_NEVER ? NULL : &ts, NULL);
  }
  return gasnetc_progress_some(1);
}
