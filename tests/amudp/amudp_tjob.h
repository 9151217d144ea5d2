/*
 * amudp_tjob.h - a tiny job harness for the transport tests (header only).
 *
 * tjob_run(n, body, arg) forks n ranks. Each opens an amudp endpoint with a
 * shared random job key, sends its address blob up a pipe to the parent,
 * reads back everyone's, connects, and runs body(). tjob_barrier() is a
 * barrier through the parent that keeps the transport progressing while it
 * waits. The parent returns 0 when every rank exited 0.
 */
#ifndef AMUDP_TJOB_H
#define AMUDP_TJOB_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "transport.h"
#include "t_transport.h"

extern const gasnetc_transport_ops_t amudp_ops;

typedef struct tjob {
  uint32_t rank, n;
  int up, down;   /* pipes to and from the parent */
  gasnetc_transport_t *t;
  gasnetc_transport_config_t cfg;
  pid_t *pids;    /* parent only */
} tjob_t;

/* Parent hooks for tests that interfere with ranks: called once each
 * barrier has gathered every rank, before releasing them. A victim rank
 * (tjob_victim >= 0) is not waited for at the end: it is SIGKILLed once the
 * others have exited. */
static void (*tjob_on_barrier)(int round, const pid_t *pids, uint32_t n) __attribute__((unused));
static int tjob_victim __attribute__((unused)) = -1;

static inline double tjob_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline int tjob_full_write(int fd, const void *b, size_t n) {
  const char *p = b;
  while (n) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k; n -= (size_t)k;
  }
  return 0;
}

static inline int tjob_full_read(int fd, void *b, size_t n) {
  char *p = b;
  while (n) {
    ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k; n -= (size_t)k;
  }
  return 0;
}

/* Barrier through the parent; the transport keeps running meanwhile
 * (blocking waits, so idle ranks sleep). */
static inline int tjob_barrier(tjob_t *j) {
  char c = 'b';
  if (tjob_full_write(j->up, &c, 1)) return -1;
  for (;;) {
    struct pollfd pf = {j->down, POLLIN, 0};
    if (poll(&pf, 1, 0) > 0) return tjob_full_read(j->down, &c, 1);
    int rc = tt_wait(&amudp_ops, j->t, 5);
    if (rc < 0) return rc;
  }
}

static inline const char *tjob_getenv(const char *name) { return getenv(name); }

/* Fills j->cfg's callbacks before calling: body sets them via setup(). */
typedef void (*tjob_setup_fn)(tjob_t *j, void *arg);
typedef int (*tjob_body_fn)(tjob_t *j, void *arg);

static inline int tjob_child(tjob_t *j, const unsigned char *key, tjob_setup_fn setup,
                      tjob_body_fn body, void *arg) {
  memset(&j->cfg, 0, sizeof j->cfg);
  j->cfg.myrank = j->rank;
  j->cfg.nranks = j->n;
  memcpy(j->cfg.job_key, key, GASNETC_KEY_LEN);
  j->cfg.bind_addr.ss_family = AF_UNSPEC;
  /* AMUDP_TEST_BIND=::1 (or an IPv4 address) binds there instead of 127.0.0.1 */
  const char *ba = getenv("AMUDP_TEST_BIND");
  if (ba && strchr(ba, ':')) {
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&j->cfg.bind_addr;
    s6->sin6_family = AF_INET6;
    if (inet_pton(AF_INET6, ba, &s6->sin6_addr) != 1) return 2;
    j->cfg.bind_addr_len = sizeof *s6;
  } else if (ba) {
    struct sockaddr_in *s4 = (struct sockaddr_in *)&j->cfg.bind_addr;
    s4->sin_family = AF_INET;
    if (inet_pton(AF_INET, ba, &s4->sin_addr) != 1) return 2;
    j->cfg.bind_addr_len = sizeof *s4;
  }
  j->cfg.getenv = tjob_getenv;
  j->cfg.watch = tt_watch_cb;
  setup(j, arg);
  int rc = amudp_ops.open(&j->t, &j->cfg);
  if (rc) { fprintf(stderr, "rank %u: open failed: %d\n", j->rank, rc); return 2; }
  unsigned char blob[GASNETC_ADDR_MAX] = {0};
  size_t len = sizeof blob;
  amudp_ops.address(j->t, blob, &len);
  unsigned char *all = malloc((size_t)j->n * GASNETC_ADDR_MAX);
  if (tjob_full_write(j->up, blob, sizeof blob) ||
      tjob_full_read(j->down, all, (size_t)j->n * GASNETC_ADDR_MAX)) return 2;
  rc = amudp_ops.connect(j->t, all, GASNETC_ADDR_MAX, tt_serves_all());
  free(all);
  if (rc) { fprintf(stderr, "rank %u: connect failed: %d\n", j->rank, rc); return 2; }
  rc = body(j, arg);
  amudp_ops.close(j->t);
  return rc;
}

/* Parent: start n ranks, serve the address exchange and barriers, reap.
 * Returns 0 if all ranks exited 0. */
static inline int tjob_run(uint32_t n, tjob_setup_fn setup, tjob_body_fn body, void *arg,
                    pid_t *pids_out) {
  unsigned char key[GASNETC_KEY_LEN];
  if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key) return 2;
  int *up = calloc(n, sizeof *up), *down = calloc(n, sizeof *down);
  pid_t *pids = pids_out ? pids_out : calloc(n, sizeof *pids);
  fflush(stdout); fflush(stderr);
  for (uint32_t r = 0; r < n; r++) {
    int u[2], d[2];
    if (pipe(u) || pipe(d)) return 2;
    pid_t pid = fork();
    if (pid == 0) {
      close(u[0]); close(d[1]);
      for (uint32_t k = 0; k < r; k++) { close(up[k]); close(down[k]); }
      free(up); free(down);
      if (!pids_out) free(pids);
      tjob_t j = {.rank = r, .n = n, .up = u[1], .down = d[0]};
      int rc = tjob_child(&j, key, setup, body, arg);
      fflush(stdout); fflush(stderr);
      _exit(rc);
    }
    close(u[1]); close(d[0]);
    up[r] = u[0]; down[r] = d[1];
    pids[r] = pid;
  }
  signal(SIGPIPE, SIG_IGN);
  unsigned char *all = calloc(n, GASNETC_ADDR_MAX);
  int ok = 1;
  for (uint32_t r = 0; r < n; r++)
    if (tjob_full_read(up[r], all + (size_t)r * GASNETC_ADDR_MAX, GASNETC_ADDR_MAX)) ok = 0;
  for (uint32_t r = 0; ok && r < n; r++)
    tjob_full_write(down[r], all, (size_t)n * GASNETC_ADDR_MAX);
  /* Barriers until some rank's pipe closes (it exited). */
  for (int round = 0;; round++) {
    int eof = 0;
    char c = 0;
    for (uint32_t r = 0; r < n && !eof; r++) if (tjob_full_read(up[r], &c, 1)) eof = 1;
    if (eof) break;
    if (tjob_on_barrier) tjob_on_barrier(round, pids, n);
    for (uint32_t r = 0; r < n; r++) tjob_full_write(down[r], &c, 1);
  }
  int fails = 0;
  for (uint32_t k = 0; k <= n; k++) {
    int st;
    /* everyone but the victim first; then the victim, killed */
    uint32_t r = k < n ? k : (uint32_t)tjob_victim;
    if (k < n && (int)r == tjob_victim) continue;
    if (k == n) {
      if (tjob_victim < 0) break;
      kill(pids[r], SIGKILL);
      waitpid(pids[r], &st, 0);
      close(down[r]); close(up[r]);
      continue;
    }
    close(down[r]);
    waitpid(pids[r], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fails++;
      if (WIFSIGNALED(st)) fprintf(stderr, "rank %u: killed by signal %d\n", r, WTERMSIG(st));
      else fprintf(stderr, "rank %u: exit %d\n", r, WEXITSTATUS(st));
    }
    close(up[r]);
  }
  free(all); free(up); free(down);
  if (!pids_out) free(pids);
  return fails ? 1 : 0;
}

/* One counter from ops->stats ("udp_NAME value" lines); -1 if absent. */
static inline long long tjob_stat(gasnetc_transport_t *t, const char *name) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  amudp_ops.stats(t, f);
  fclose(f);
  long long v = -1;
  size_t nl = strlen(name);
  for (char *p = buf; p && *p;) {
    if (!strncmp(p, name, nl) && p[nl] == ' ') { v = atoll(p + nl + 1); break; }
    p = strchr(p, '\n');
    if (p) p++;
  }
  free(buf);
  return v;
}

#endif /* AMUDP_TJOB_H */
