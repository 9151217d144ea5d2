/*
 * gasnetc_live.c - the liveness service: one thread per process, started at
 * attach in every threading mode, answers probes on a UDP socket of its
 * own (gasnetc_live.h defines the datagram), so that a rank that computes
 * for minutes without polling still answers, and only a process that is
 * gone or stopped (SIGSTOP, a debugger) stays silent. The transports ask
 * for probes and read the answers through cfg.live_probe and
 * cfg.live_heard, and decide on death with core/transport_live.h
 * (docs/transports.md, "Liveness").
 *
 * Why a thread and a socket of its own: the transports' sockets are read
 * by the client's threads when they poll, which a computing rank does not
 * do; the launcher's connection does not exist under PMI. The thread
 * sleeps in poll() on the socket and an eventfd (close wakes it), costs
 * nothing between probes, and shares no lock with anyone: its only shared
 * state is heard[] (written by it alone, read with atomic loads), the
 * counters (atomic) and tables written before it starts. So the SEQ hot
 * path takes no lock because of it, and a probe costs the prober one
 * sendto() from its timers.
 *
 * A client that passes GEX_FLAG_DEFER_THREADS to gex_Client_Init starts
 * the thread itself, from what gex_System_QueryProgressThreads gives it
 * (gasnetc_live_progress); until then probes wait in the socket's queue.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* pthread_setname_np */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gasnetc_internal.h"
#include "gasnetc_live.h"
#include "gasnett_internal.h" /* gasnett__envreport */
#include "gasneti_bytes.h"
#include "gasneti_env.h"
#include "gasneti_sha256.h"
#include "transport_addr.h"

#define GASNETC_LIVE_BATCH 64          /* datagrams read per wake-up: bounded work */
#define GASNETC_LIVE_STACK (256u << 10) /* the thread's stack: it needs little */
#define GASNETC_LIVE_TIMEOUT_DEFAULT 30 /* s, as GASNET_UDP_TIMEOUT and GASNET_TCP_TIMEOUT */

/* Counters: one table, names generated from it. Each drop has its reason. */
#define GASNETC_LIVE_COUNTERS(X)                                              \
  X(probes_sent) X(probes_answered) X(echoes) X(send_errors) X(bad_length)  \
  X(bad_magic) X(bad_rank) X(bad_mac) X(bad_addr) X(bad_stamp)
enum {
#define GASNETC_LIVE_X_ENUM(name) GASNETC_LIVE_C_##name,
  GASNETC_LIVE_COUNTERS(GASNETC_LIVE_X_ENUM)
#undef GASNETC_LIVE_X_ENUM
  GASNETC_LIVE_NCOUNTERS
};
#define GASNETC_LIVE_COUNT(name) \
  __atomic_fetch_add(&gasnetc_live.ctr[GASNETC_LIVE_C_##name], 1, __ATOMIC_RELAXED)

typedef union {
  struct sockaddr sa;
  struct sockaddr_in in;
  struct sockaddr_in6 in6;
} gasnetc_live_addr_t;

static struct {
  int fd;                      /* the probe socket, -1 when not open */
  int stopfd;                  /* eventfd: close() wakes the thread with it */
  int running;                 /* the thread was started (and is to be joined) */
  int deferred;                /* GEX_FLAG_DEFER_THREADS: the client starts it */
  int stopping;                /* close() began: a late client thread exits at once */
  pthread_mutex_t lock;        /* running, stopping and thread of a deferred start */
  pthread_t thread;
  uint32_t myrank, nranks;
  unsigned char key[GASNETC_KEY_LEN];
  struct sockaddr_storage self;
  socklen_t selflen;
  gasnetc_live_addr_t *addr;   /* [nranks]: every rank's probe socket (family 0: none) */
  socklen_t *addrlen;
  uint64_t *heard;             /* [nranks]: stamp of the newest probe answered (atomic) */
  uint64_t ctr[GASNETC_LIVE_NCOUNTERS];
} gasnetc_live = {.fd = -1, .stopfd = -1, .lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- the datagram ---------------------------------------------------------- */

static void gasnetc_live_mac(const unsigned char *hdr, unsigned char mac[GASNETC_LIVE_MAC]) {
  const void *piece[2] = {GASNETC_LIVE_LABEL, hdr};
  size_t len[2] = {sizeof GASNETC_LIVE_LABEL - 1, GASNETC_LIVE_HDR};
  unsigned char full[GASNETI_SHA256_LEN];
  gasneti_hmac_sha256(gasnetc_live.key, GASNETC_KEY_LEN, 2, piece, len, full);
  memcpy(mac, full, GASNETC_LIVE_MAC);
}

static void gasnetc_live_encode(unsigned char *b, unsigned type, uint32_t dst, uint64_t stamp) {
  memset(b, 0, GASNETC_LIVE_LEN);
  gasneti_put_le16(b, GASNETC_LIVE_MAGIC);
  b[2] = GASNETC_LIVE_VERSION;
  b[3] = (unsigned char)type;
  gasneti_put_le32(b + 4, gasnetc_live.myrank);
  gasneti_put_le32(b + 8, dst);
  gasneti_put_le64(b + 16, stamp);
  gasnetc_live_mac(b, b + GASNETC_LIVE_HDR);
}

static int gasnetc_live_same_addr(const struct sockaddr_storage *a, const gasnetc_live_addr_t *b) {
  if (a->ss_family != b->sa.sa_family) return 0;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a;
    return x->sin_port == b->in.sin_port && x->sin_addr.s_addr == b->in.sin_addr.s_addr;
  }
  const struct sockaddr_in6 *x = (const void *)a;
  return x->sin6_port == b->in6.sin6_port &&
         !memcmp(&x->sin6_addr, &b->in6.sin6_addr, sizeof x->sin6_addr);
}

static void gasnetc_live_send(uint32_t rank, const unsigned char *b) {
  ssize_t k;
  do k = sendto(gasnetc_live.fd, b, GASNETC_LIVE_LEN, MSG_DONTWAIT | MSG_NOSIGNAL,
                &gasnetc_live.addr[rank].sa, gasnetc_live.addrlen[rank]);
  while (k < 0 && errno == EINTR);
  if (k < 0) GASNETC_LIVE_COUNT(send_errors); /* a full buffer: the next probe retries */
}

/* One received datagram (the thread only): check it, answer a probe,
 * record an echo. The one place its bytes are decoded. */
static void gasnetc_live_rx(const unsigned char *b, size_t len,
                            const struct sockaddr_storage *from) {
  if (len != GASNETC_LIVE_LEN) { GASNETC_LIVE_COUNT(bad_length); return; }
  unsigned type = b[3];
  uint32_t src = gasneti_get_le32(b + 4), dst = gasneti_get_le32(b + 8);
  if (gasneti_get_le16(b) != GASNETC_LIVE_MAGIC || b[2] != GASNETC_LIVE_VERSION ||
      (type != GASNETC_LIVE_PROBE && type != GASNETC_LIVE_ECHO) || gasneti_get_le32(b + 12)) {
    GASNETC_LIVE_COUNT(bad_magic);
    return;
  }
  if (src >= gasnetc_live.nranks || src == gasnetc_live.myrank || dst != gasnetc_live.myrank) {
    GASNETC_LIVE_COUNT(bad_rank);
    return;
  }
  unsigned char mac[GASNETC_LIVE_MAC];
  gasnetc_live_mac(b, mac);
  if (gasneti_memneq(mac, b + GASNETC_LIVE_HDR, GASNETC_LIVE_MAC)) {
    GASNETC_LIVE_COUNT(bad_mac);
    return;
  }
  if (!gasnetc_live_same_addr(from, &gasnetc_live.addr[src])) { /* right key, wrong sender */
    GASNETC_LIVE_COUNT(bad_addr);
    return;
  }
  uint64_t stamp = gasneti_get_le64(b + 16);
  if (type == GASNETC_LIVE_PROBE) {
    unsigned char echo[GASNETC_LIVE_LEN];
    gasnetc_live_encode(echo, GASNETC_LIVE_ECHO, src, stamp);
    gasnetc_live_send(src, echo);
    GASNETC_LIVE_COUNT(probes_answered);
    return;
  }
  if (stamp > gasneti_now_ns()) { /* not a stamp of ours */
    GASNETC_LIVE_COUNT(bad_stamp);
    return;
  }
  GASNETC_LIVE_COUNT(echoes);
  if (stamp > __atomic_load_n(&gasnetc_live.heard[src], __ATOMIC_RELAXED)) /* we alone write it */
    __atomic_store_n(&gasnetc_live.heard[src], stamp, __ATOMIC_RELAXED);
}

/* ---- the thread ------------------------------------------------------------ */

static void *gasnetc_live_main(void *arg) {
  (void)arg;
  struct pollfd pf[2] = {{gasnetc_live.fd, POLLIN, 0}, {gasnetc_live.stopfd, POLLIN, 0}};
  unsigned char b[GASNETC_LIVE_LEN + 1]; /* one more: a longer datagram shows its length */
  for (;;) {
    if (poll(pf, 2, -1) < 0 && errno != EINTR) break;
    if (pf[1].revents) break;
    for (int i = 0; i < GASNETC_LIVE_BATCH; i++) {
      struct sockaddr_storage from;
      socklen_t fl = sizeof from;
      ssize_t k = recvfrom(gasnetc_live.fd, b, sizeof b, MSG_DONTWAIT | MSG_TRUNC,
                           (struct sockaddr *)&from, &fl);
      if (k < 0) {
        if (errno == EINTR) continue;
        break; /* EAGAIN: all read (other errors: ICMP reports, nothing to read) */
      }
      gasnetc_live_rx(b, (size_t)k, &from);
    }
  }
  return NULL;
}

/* The deferred thread's body, run by a thread of the client's: it never
 * returns (pthread_exit), and close() joins it as one of ours. */
static void *gasnetc_live_progress(void *arg) {
  pthread_mutex_lock(&gasnetc_live.lock);
  int go = !gasnetc_live.stopping && !gasnetc_live.running && gasnetc_live.fd >= 0;
  if (go) {
    gasnetc_live.thread = pthread_self();
    gasnetc_live.running = 1;
  }
  pthread_mutex_unlock(&gasnetc_live.lock);
  if (!go) pthread_exit(NULL); /* too late, or started twice: nothing to serve */
  sigset_t all; /* signals stay with the client's other threads */
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, NULL);
  pthread_setname_np(pthread_self(), "gasnet-live");
  gasnetc_live_main(arg);
  pthread_exit(NULL);
}

void gasnetc_live_defer(void) { gasnetc_live.deferred = 1; }

void *(*gasnetc_live_deferred(void))(void *) {
  return gasnetc_live.deferred && gasnetc_live.fd >= 0 ? gasnetc_live_progress : NULL;
}

/* ---- what the transports call (cfg.live_probe, cfg.live_heard) ---------------- */

static void gasnetc_live_probe_cb(void *ctx, uint32_t rank) {
  (void)ctx;
  if (gasnetc_live.fd < 0 || rank >= gasnetc_live.nranks || !gasnetc_live.addr[rank].sa.sa_family)
    return;
  unsigned char b[GASNETC_LIVE_LEN];
  gasnetc_live_encode(b, GASNETC_LIVE_PROBE, rank, gasneti_now_ns());
  gasnetc_live_send(rank, b);
  GASNETC_LIVE_COUNT(probes_sent);
}

static uint64_t gasnetc_live_heard_cb(void *ctx, uint32_t rank) {
  (void)ctx;
  if (!gasnetc_live.heard || rank >= gasnetc_live.nranks) return 0;
  return __atomic_load_n(&gasnetc_live.heard[rank], __ATOMIC_RELAXED);
}

/* ---- life cycle -------------------------------------------------------------- */

int gasnetc_live_open(gasnetc_transport_config_t *cfg) {
  const char *var = gasnetc_conduit.live_timeout_env;
  /* quiet: the network transport reads the same variable and warns */
  double secs = var ? gasneti_env_num(cfg->getenv, "gasnet", 1, var, GASNETC_LIVE_TIMEOUT_DEFAULT,
                                      0, 86400, gasnett__envreport)
                    : GASNETC_LIVE_TIMEOUT_DEFAULT;
  cfg->live_timeout_ns = (uint64_t)(secs * 1e9);
  cfg->live_probe = gasnetc_live_probe_cb;
  cfg->live_heard = gasnetc_live_heard_cb;
  if (cfg->nranks < 2) return 0;
  gasnetc_live.myrank = cfg->myrank;
  gasnetc_live.nranks = cfg->nranks;
  memcpy(gasnetc_live.key, cfg->job_key, GASNETC_KEY_LEN);
  struct sockaddr_storage ba;
  socklen_t balen = gasnetc_addr_bindable(&cfg->bind_addr, &ba);
  const char *what = "socket";
  gasnetc_live.fd = socket(ba.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (gasnetc_live.fd < 0) goto fail;
  what = "bind";
  if (bind(gasnetc_live.fd, (struct sockaddr *)&ba, balen) != 0) goto fail;
  what = "getsockname";
  gasnetc_live.selflen = sizeof gasnetc_live.self;
  if (getsockname(gasnetc_live.fd, (struct sockaddr *)&gasnetc_live.self, &gasnetc_live.selflen))
    goto fail;
  gasnetc_addr_reachable(&gasnetc_live.self); /* the wildcard: advertise loopback */
  what = "eventfd";
  if ((gasnetc_live.stopfd = eventfd(0, EFD_CLOEXEC)) < 0) goto fail;
  return 0;
fail:;
  int err = errno;
  fprintf(stderr, "GASNet: node %u: cannot open the liveness socket: %s: %s\n",
          (unsigned)cfg->myrank, what, strerror(err));
  gasnetc_live_close();
  return -err;
}

void gasnetc_live_address(void *blob) {
  memset(blob, 0, GASNETC_ADDR_MAX);
  if (gasnetc_live.fd >= 0) gasnetc_addr_encode(&gasnetc_live.self, blob);
}

int gasnetc_live_connect(const void *blobs, size_t stride) {
  if (gasnetc_live.fd < 0) return 0;
  uint32_t n = gasnetc_live.nranks;
  gasnetc_live.addr = calloc(n, sizeof *gasnetc_live.addr);
  gasnetc_live.addrlen = calloc(n, sizeof *gasnetc_live.addrlen);
  gasnetc_live.heard = calloc(n, sizeof *gasnetc_live.heard);
  if (!gasnetc_live.addr || !gasnetc_live.addrlen || !gasnetc_live.heard) {
    fprintf(stderr, "GASNet: node %u: out of memory for the liveness table of %u nodes\n",
            (unsigned)gasnetc_live.myrank, (unsigned)n);
    return -ENOMEM;
  }
  for (uint32_t r = 0; r < n; r++) {
    struct sockaddr_storage ss;
    socklen_t len;
    /* a rank without a socket (none opened) keeps family 0: never probed */
    if (r == gasnetc_live.myrank ||
        gasnetc_addr_decode((const unsigned char *)blobs + (size_t)r * stride, &ss, &len))
      continue;
    memcpy(&gasnetc_live.addr[r], &ss, len);
    gasnetc_live.addrlen[r] = len;
  }
  if (gasnetc_live.deferred) return 0; /* the client starts it (gasnetc_live_progress) */
  /* Signals stay with the client's threads: the thread blocks them all. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, GASNETC_LIVE_STACK);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&gasnetc_live.thread, &attr, gasnetc_live_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  if (rc) {
    fprintf(stderr, "GASNet: node %u: cannot start the liveness thread: %s\n",
            (unsigned)gasnetc_live.myrank, strerror(rc));
    return -rc;
  }
  gasnetc_live.running = 1;
  pthread_setname_np(gasnetc_live.thread, "gasnet-live");
  return 0;
}

void gasnetc_live_stats(FILE *out) {
  static const char *const names[] = {
#define GASNETC_LIVE_X_NAME(name) #name,
      GASNETC_LIVE_COUNTERS(GASNETC_LIVE_X_NAME)
#undef GASNETC_LIVE_X_NAME
  };
  for (int i = 0; i < GASNETC_LIVE_NCOUNTERS; i++)
    fprintf(out, "live_%s %llu\n", names[i],
            (unsigned long long)__atomic_load_n(&gasnetc_live.ctr[i], __ATOMIC_RELAXED));
}

void gasnetc_live_close(void) {
  pthread_mutex_lock(&gasnetc_live.lock);
  gasnetc_live.stopping = 1; /* a deferred thread started from now on exits at once */
  int running = gasnetc_live.running;
  pthread_mutex_unlock(&gasnetc_live.lock);
  if (running) {
    uint64_t one = 1;
    ssize_t k;
    do k = write(gasnetc_live.stopfd, &one, sizeof one);
    while (k < 0 && errno == EINTR);
    pthread_join(gasnetc_live.thread, NULL);
    gasnetc_live.running = 0;
  }
  if (gasnetc_live.fd >= 0) close(gasnetc_live.fd);
  if (gasnetc_live.stopfd >= 0) close(gasnetc_live.stopfd);
  gasnetc_live.fd = gasnetc_live.stopfd = -1;
  free(gasnetc_live.addr);
  free(gasnetc_live.addrlen);
  free(gasnetc_live.heard);
  gasnetc_live.addr = NULL;
  gasnetc_live.addrlen = NULL;
  gasnetc_live.heard = NULL;
}
