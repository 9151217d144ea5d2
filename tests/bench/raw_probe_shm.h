/*
 * raw_probe_shm.h - the physical limits of talking through memory on this
 * host, measured between two ranks of a GASNet job in the same run as the
 * figures they stand beside (issue 13: ranks of one host through shared
 * memory). No GASNet shared memory is used: the probe makes its own.
 *
 *   raw_shm_connect()     rank 0 makes a one-page memfd and sends (pid, fd)
 *                         through an AM (the client registers
 *                         RAW_SHM_HANDLER_ENTRY(idx)); rank 1 opens it by
 *                         /proc/<pid>/fd/<fd> and maps it. Nothing is named
 *                         in any file system, so nothing can be left behind.
 *   raw_shm_pingpong()    two processes ping-pong one cache line: the
 *                         initiator stores a sequence number, the other
 *                         spins until it sees it and stores it back in a
 *                         second line. The round trip any shared-memory AM
 *                         layer stands on (two cache-line transfers).
 *   raw_memcpy_gbps()     memcpy bandwidth of one process, nbytes from one
 *                         buffer to another, GB/s (1e9 bytes/s): the floor
 *                         under a large put to a peer's mapped segment.
 * The spinning loops yield the CPU after RAW_SHM_SPIN_YIELD empty checks,
 * so that on a crowded host the peer gets to run.
 */
#ifndef RAW_PROBE_SHM_H
#define RAW_PROBE_SHM_H

#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define RAW_SHM_SPIN_YIELD 100000

typedef struct {
  volatile uint64_t *ping; /* cache line 0: written by the initiator */
  volatile uint64_t *pong; /* cache line 1: written by the other */
  void *map;
  int fd;
} raw_shm_t;

/* Set by the peer's AM (it may run before we ask); consumed once read. */
static volatile int raw_shm_peer_pid, raw_shm_peer_fd;
static inline void raw_shm_handler(gasnet_token_t t, gasnet_handlerarg_t pid,
                                   gasnet_handlerarg_t fd) {
  (void)t;
  raw_shm_peer_fd = fd;
  __atomic_store_n(&raw_shm_peer_pid, pid, __ATOMIC_RELEASE);
}
#define RAW_SHM_HANDLER_ENTRY(idx) { (idx), (void (*)())raw_shm_handler }

static inline double raw_shm_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Ranks 0 and 1 of the job (both must call it); 0, or -1 with a message. */
static inline int raw_shm_connect(raw_shm_t *s, gasnet_handler_t h) {
  gasnet_node_t me = gasnet_mynode();
  memset(s, 0, sizeof *s);
  s->fd = -1;
  if (me == 0) {
    s->fd = (int)syscall(SYS_memfd_create, "raw_probe_shm", 0u);
    if (s->fd < 0 || ftruncate(s->fd, 4096) != 0) {
      perror("raw_shm_connect: memfd_create");
      return -1;
    }
    gasnet_AMRequestShort2(1, h, (gasnet_handlerarg_t)getpid(), s->fd);
  } else {
    GASNET_BLOCKUNTIL(__atomic_load_n(&raw_shm_peer_pid, __ATOMIC_ACQUIRE) != 0);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", raw_shm_peer_pid, raw_shm_peer_fd);
    raw_shm_peer_pid = 0;
    s->fd = open(path, O_RDWR | O_CLOEXEC);
    if (s->fd < 0) {
      perror("raw_shm_connect: open /proc/<pid>/fd/<fd>");
      return -1;
    }
  }
  s->map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
  if (s->map == MAP_FAILED) {
    perror("raw_shm_connect: mmap");
    return -1;
  }
  s->ping = (volatile uint64_t *)s->map;
  s->pong = (volatile uint64_t *)((char *)s->map + 64);
  return 0;
}

static inline void raw_shm_close(raw_shm_t *s) {
  if (s->map && s->map != MAP_FAILED) munmap(s->map, 4096);
  if (s->fd >= 0) close(s->fd);
}

static inline void raw_shm_spin_until(volatile uint64_t *p, uint64_t v) {
  for (long n = 0; __atomic_load_n(p, __ATOMIC_ACQUIRE) != v; n++)
    if (n == RAW_SHM_SPIN_YIELD) {
      sched_yield();
      n = 0;
    }
}

static int raw_shm_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* iters round trips; returns the mean and sets *median (ns). The two ranks
 * start together: the first exchange is not timed. */
static inline double raw_shm_pingpong(raw_shm_t *s, int initiator, int iters, double *median) {
  double *t = initiator ? malloc(sizeof *t * (size_t)iters) : NULL;
  double sum = 0;
  for (int i = 0; i <= iters; i++) {
    uint64_t seq = (uint64_t)i + 1;
    if (initiator) {
      double t0 = raw_shm_now_ns();
      __atomic_store_n(s->ping, seq, __ATOMIC_RELEASE);
      raw_shm_spin_until(s->pong, seq);
      double dt = raw_shm_now_ns() - t0;
      if (i > 0) {
        t[i - 1] = dt;
        sum += dt;
      }
    } else {
      raw_shm_spin_until(s->ping, seq);
      __atomic_store_n(s->pong, seq, __ATOMIC_RELEASE);
    }
  }
  if (!initiator) return 0;
  qsort(t, (size_t)iters, sizeof *t, raw_shm_cmp);
  *median = t[iters / 2];
  free(t);
  return sum / iters;
}

/* memcpy of nbytes, rounds times (the median of the rounds), GB/s. */
static inline double raw_memcpy_gbps(size_t nbytes, int rounds) {
  char *a = malloc(nbytes), *b = malloc(nbytes);
  double *r = malloc(sizeof *r * (size_t)rounds);
  memset(a, 1, nbytes);
  memset(b, 2, nbytes); /* both touched: no page faults in the timing */
  for (int i = 0; i < rounds; i++) {
    double t0 = raw_shm_now_ns();
    memcpy(i & 1 ? a : b, i & 1 ? b : a, nbytes);
    r[i] = (double)nbytes / (raw_shm_now_ns() - t0);
  }
  qsort(r, (size_t)rounds, sizeof *r, raw_shm_cmp);
  double gbps = r[rounds / 2];
  free(a);
  free(b);
  free(r);
  return gbps;
}

#endif /* RAW_PROBE_SHM_H */
