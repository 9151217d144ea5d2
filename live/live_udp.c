/*
 * live_udp.c - the liveness service, a small transport of its own outside
 * the core: one thread per process, started at attach in every threading
 * mode, answers probes on a UDP socket of its own (live_wire.h defines the
 * datagram), so that a rank that computes for minutes without polling
 * still answers, and only a process that is gone or stopped (SIGSTOP, a
 * debugger) stays silent. The core drives it only through the ops table
 * at the end (live_udp_ops, a live_udp_ops_t of core/transport_live.h,
 * listed by the conduit); the transports ask for probes and read the
 * answers through cfg.live_probe and cfg.live_heard, and decide on death
 * with live_udp_watch there (docs/transports.md, "Liveness").
 *
 * Liveness is decided in three places, each for what it alone sees:
 * live_udp_watch (core/transport_live.h: one rule for every transport,
 * amudp_live.c and amtcp_live.c add their own pings over their own
 * sockets), this service (the answers), and the launcher, whose relays
 * ping each other over their TCP tree (spawner/spawn_node.c): the relays
 * watch processes and hosts, not ranks' progress, and share no code here.
 *
 * Why a thread and a socket of its own: the transports' sockets are read
 * by the client's threads when they poll, which a computing rank does not
 * do; the launcher's connection does not exist under PMI. The thread
 * sleeps in poll() on the socket and an eventfd (close wakes it), costs
 * nothing between probes, and shares no lock with anyone: its only shared
 * state is heard[] (written by it alone, read with atomic loads), the
 * counters (atomic) and tables written before it starts. So the SEQ hot
 * path takes no lock because of it, and a probe costs the prober one
 * sendto() from its timers. Every function here is static but the table:
 * the library is linked into clients, whose names we must not take.
 *
 * A client that passes GEX_FLAG_DEFER_THREADS to gex_Client_Init starts
 * the thread itself, from what gex_System_QueryProgressThreads gives it
 * (live_udp_progress); until then probes wait in the socket's queue.
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

#include "gasneti_bytes.h"
#include "gasneti_sha256.h"
#include "gasneti_time.h"
#include "live_wire.h"
#include "transport_addr.h"
#include "transport_live.h"

#define LIVE_BATCH 64          /* datagrams read per wake-up: bounded work */
#define LIVE_STACK (256u << 10) /* the thread's stack: it needs little */

/* Counters: one table, names generated from it. Each drop has its reason. */
#define LIVE_COUNTERS(X)                                              \
  X(probes_sent) X(probes_answered) X(echoes) X(send_errors) X(bad_length)  \
  X(bad_magic) X(bad_rank) X(bad_mac) X(bad_addr) X(bad_stamp)
enum {
#define LIVE_X_ENUM(name) LIVE_C_##name,
  LIVE_COUNTERS(LIVE_X_ENUM)
#undef LIVE_X_ENUM
  LIVE_NCOUNTERS
};
#define LIVE_COUNT(name) \
  __atomic_fetch_add(&live_udp.ctr[LIVE_C_##name], 1, __ATOMIC_RELAXED)

typedef union {
  struct sockaddr sa;
  struct sockaddr_in in;
  struct sockaddr_in6 in6;
} live_addr_t;

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
  live_addr_t *addr;   /* [nranks]: every rank's probe socket (family 0: none) */
  socklen_t *addrlen;
  uint64_t *heard;             /* [nranks]: stamp of the newest probe answered (atomic) */
  uint64_t ctr[LIVE_NCOUNTERS];
} live_udp = {.fd = -1, .stopfd = -1, .lock = PTHREAD_MUTEX_INITIALIZER};

static void live_udp_close(void);

/* ---- the datagram ---------------------------------------------------------- */

static void live_udp_mac(const unsigned char *hdr, unsigned char mac[LIVE_MAC]) {
  const void *piece[2] = {LIVE_LABEL, hdr};
  size_t len[2] = {sizeof LIVE_LABEL - 1, LIVE_HDR};
  unsigned char full[GASNETI_SHA256_LEN];
  gasneti_hmac_sha256(live_udp.key, GASNETC_KEY_LEN, 2, piece, len, full);
  memcpy(mac, full, LIVE_MAC);
}

static void live_udp_encode(unsigned char *b, unsigned type, uint32_t dst, uint64_t stamp) {
  memset(b, 0, LIVE_LEN);
  gasneti_put_le16(b, LIVE_MAGIC);
  b[2] = LIVE_VERSION;
  b[3] = (unsigned char)type;
  gasneti_put_le32(b + 4, live_udp.myrank);
  gasneti_put_le32(b + 8, dst);
  gasneti_put_le64(b + 16, stamp);
  live_udp_mac(b, b + LIVE_HDR);
}

static int live_udp_same_addr(const struct sockaddr_storage *a, const live_addr_t *b) {
  if (a->ss_family != b->sa.sa_family) return 0;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a;
    return x->sin_port == b->in.sin_port && x->sin_addr.s_addr == b->in.sin_addr.s_addr;
  }
  const struct sockaddr_in6 *x = (const void *)a;
  return x->sin6_port == b->in6.sin6_port &&
         !memcmp(&x->sin6_addr, &b->in6.sin6_addr, sizeof x->sin6_addr);
}

static void live_udp_send(uint32_t rank, const unsigned char *b) {
  ssize_t k;
  do k = sendto(live_udp.fd, b, LIVE_LEN, MSG_DONTWAIT | MSG_NOSIGNAL,
                &live_udp.addr[rank].sa, live_udp.addrlen[rank]);
  while (k < 0 && errno == EINTR);
  if (k < 0) LIVE_COUNT(send_errors); /* a full buffer: the next probe retries */
}

/* One received datagram (the thread only): check it, answer a probe,
 * record an echo. The one place its bytes are decoded. */
static void live_udp_rx(const unsigned char *b, size_t len,
                            const struct sockaddr_storage *from) {
  if (len != LIVE_LEN) { LIVE_COUNT(bad_length); return; }
  unsigned type = b[3];
  uint32_t src = gasneti_get_le32(b + 4), dst = gasneti_get_le32(b + 8);
  if (gasneti_get_le16(b) != LIVE_MAGIC || b[2] != LIVE_VERSION ||
      (type != LIVE_PROBE && type != LIVE_ECHO) || gasneti_get_le32(b + 12)) {
    LIVE_COUNT(bad_magic);
    return;
  }
  if (src >= live_udp.nranks || src == live_udp.myrank || dst != live_udp.myrank) {
    LIVE_COUNT(bad_rank);
    return;
  }
  unsigned char mac[LIVE_MAC];
  live_udp_mac(b, mac);
  if (gasneti_memneq(mac, b + LIVE_HDR, LIVE_MAC)) {
    LIVE_COUNT(bad_mac);
    return;
  }
  if (!live_udp_same_addr(from, &live_udp.addr[src])) { /* right key, wrong sender */
    LIVE_COUNT(bad_addr);
    return;
  }
  uint64_t stamp = gasneti_get_le64(b + 16);
  if (type == LIVE_PROBE) {
    unsigned char echo[LIVE_LEN];
    live_udp_encode(echo, LIVE_ECHO, src, stamp);
    live_udp_send(src, echo);
    LIVE_COUNT(probes_answered);
    return;
  }
  if (stamp > gasneti_now_ns()) { /* not a stamp of ours */
    LIVE_COUNT(bad_stamp);
    return;
  }
  LIVE_COUNT(echoes);
  if (stamp > __atomic_load_n(&live_udp.heard[src], __ATOMIC_RELAXED)) /* we alone write it */
    __atomic_store_n(&live_udp.heard[src], stamp, __ATOMIC_RELAXED);
}

/* ---- the thread ------------------------------------------------------------ */

static void *live_udp_main(void *arg) {
  (void)arg;
  struct pollfd pf[2] = {{live_udp.fd, POLLIN, 0}, {live_udp.stopfd, POLLIN, 0}};
  unsigned char b[LIVE_LEN + 1]; /* one more: a longer datagram shows its length */
  for (;;) {
    if (poll(pf, 2, -1) < 0 && errno != EINTR) break;
    if (pf[1].revents) break;
    for (int i = 0; i < LIVE_BATCH; i++) {
      struct sockaddr_storage from;
      socklen_t fl = sizeof from;
      ssize_t k = recvfrom(live_udp.fd, b, sizeof b, MSG_DONTWAIT | MSG_TRUNC,
                           (struct sockaddr *)&from, &fl);
      if (k < 0) {
        if (errno == EINTR) continue;
        break; /* EAGAIN: all read (other errors: ICMP reports, nothing to read) */
      }
      live_udp_rx(b, (size_t)k, &from);
    }
  }
  return NULL;
}

/* The deferred thread's body, run by a thread of the client's: it never
 * returns (pthread_exit), and close() joins it as one of ours. */
static void *live_udp_progress(void *arg) {
  pthread_mutex_lock(&live_udp.lock);
  int go = !live_udp.stopping && !live_udp.running && live_udp.fd >= 0;
  if (go) {
    live_udp.thread = pthread_self();
    live_udp.running = 1;
  }
  pthread_mutex_unlock(&live_udp.lock);
  if (!go) pthread_exit(NULL); /* too late, or started twice: nothing to serve */
  sigset_t all; /* signals stay with the client's other threads */
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, NULL);
  pthread_setname_np(pthread_self(), "gasnet-live");
  live_udp_main(arg);
  pthread_exit(NULL);
}

static void live_udp_defer(void) { live_udp.deferred = 1; }

static gasnetc_thread_fn live_udp_deferred(void) {
  return live_udp.deferred && live_udp.fd >= 0 ? live_udp_progress : NULL;
}

/* ---- what the transports call (cfg.live_probe, cfg.live_heard) ---------------- */

static void live_udp_probe_cb(void *ctx, uint32_t rank) {
  (void)ctx;
  if (live_udp.fd < 0 || rank >= live_udp.nranks || !live_udp.addr[rank].sa.sa_family)
    return;
  unsigned char b[LIVE_LEN];
  live_udp_encode(b, LIVE_PROBE, rank, gasneti_now_ns());
  live_udp_send(rank, b);
  LIVE_COUNT(probes_sent);
}

static uint64_t live_udp_heard_cb(void *ctx, uint32_t rank) {
  (void)ctx;
  if (!live_udp.heard || rank >= live_udp.nranks) return 0;
  return __atomic_load_n(&live_udp.heard[rank], __ATOMIC_RELAXED);
}

/* ---- life cycle -------------------------------------------------------------- */

static int live_udp_open(gasnetc_transport_config_t *cfg) {
  cfg->live_probe = live_udp_probe_cb;
  cfg->live_heard = live_udp_heard_cb;
  if (cfg->nranks < 2) return 0;
  live_udp.myrank = cfg->myrank;
  live_udp.nranks = cfg->nranks;
  memcpy(live_udp.key, cfg->job_key, GASNETC_KEY_LEN);
  struct sockaddr_storage ba;
  socklen_t balen = gasnetc_addr_bindable(&cfg->bind_addr, &ba);
  const char *what = "socket";
  live_udp.fd = socket(ba.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (live_udp.fd < 0) goto fail;
  what = "bind";
  if (bind(live_udp.fd, (struct sockaddr *)&ba, balen) != 0) goto fail;
  what = "getsockname";
  live_udp.selflen = sizeof live_udp.self;
  if (getsockname(live_udp.fd, (struct sockaddr *)&live_udp.self, &live_udp.selflen))
    goto fail;
  gasnetc_addr_reachable(&live_udp.self); /* the wildcard: advertise loopback */
  what = "eventfd";
  if ((live_udp.stopfd = eventfd(0, EFD_CLOEXEC)) < 0) goto fail;
  return 0;
fail:;
  int err = errno;
  fprintf(stderr, "GASNet: node %u: cannot open the liveness socket: %s: %s\n",
          (unsigned)cfg->myrank, what, strerror(err));
  live_udp_close();
  return -err;
}

static void live_udp_address(void *blob) {
  memset(blob, 0, GASNETC_ADDR_MAX);
  if (live_udp.fd >= 0) gasnetc_addr_encode(&live_udp.self, blob);
}

static int live_udp_connect(const void *blobs, size_t stride) {
  if (live_udp.fd < 0) return 0;
  uint32_t n = live_udp.nranks;
  live_udp.addr = calloc(n, sizeof *live_udp.addr);
  live_udp.addrlen = calloc(n, sizeof *live_udp.addrlen);
  live_udp.heard = calloc(n, sizeof *live_udp.heard);
  if (!live_udp.addr || !live_udp.addrlen || !live_udp.heard) {
    fprintf(stderr, "GASNet: node %u: out of memory for the liveness table of %u nodes\n",
            (unsigned)live_udp.myrank, (unsigned)n);
    return -ENOMEM;
  }
  for (uint32_t r = 0; r < n; r++) {
    struct sockaddr_storage ss;
    socklen_t len;
    /* a rank without a socket (none opened) keeps family 0: never probed */
    if (r == live_udp.myrank ||
        gasnetc_addr_decode((const unsigned char *)blobs + (size_t)r * stride, &ss, &len))
      continue;
    memcpy(&live_udp.addr[r], &ss, len);
    live_udp.addrlen[r] = len;
  }
  if (live_udp.deferred) return 0; /* the client starts it (live_udp_progress) */
  /* Signals stay with the client's threads: the thread blocks them all. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, LIVE_STACK);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&live_udp.thread, &attr, live_udp_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  if (rc) {
    fprintf(stderr, "GASNet: node %u: cannot start the liveness thread: %s\n",
            (unsigned)live_udp.myrank, strerror(rc));
    return -rc;
  }
  live_udp.running = 1;
  pthread_setname_np(live_udp.thread, "gasnet-live");
  return 0;
}

static void live_udp_stats(FILE *out) {
  static const char *const names[] = {
#define LIVE_X_NAME(name) #name,
      LIVE_COUNTERS(LIVE_X_NAME)
#undef LIVE_X_NAME
  };
  for (int i = 0; i < LIVE_NCOUNTERS; i++)
    fprintf(out, "live_%s %llu\n", names[i],
            (unsigned long long)__atomic_load_n(&live_udp.ctr[i], __ATOMIC_RELAXED));
}

static void live_udp_close(void) {
  pthread_mutex_lock(&live_udp.lock);
  live_udp.stopping = 1; /* a deferred thread started from now on exits at once */
  int running = live_udp.running;
  pthread_mutex_unlock(&live_udp.lock);
  if (running) {
    uint64_t one = 1;
    ssize_t k;
    do k = write(live_udp.stopfd, &one, sizeof one);
    while (k < 0 && errno == EINTR);
    pthread_join(live_udp.thread, NULL);
    live_udp.running = 0;
  }
  if (live_udp.fd >= 0) close(live_udp.fd);
  if (live_udp.stopfd >= 0) close(live_udp.stopfd);
  live_udp.fd = live_udp.stopfd = -1;
  free(live_udp.addr);
  free(live_udp.addrlen);
  free(live_udp.heard);
  live_udp.addr = NULL;
  live_udp.addrlen = NULL;
  live_udp.heard = NULL;
}

const gasnetc_live_ops_t live_udp_ops = {
  .name = "udp",
  .open = live_udp_open,
  .address = live_udp_address,
  .defer = live_udp_defer,
  .deferred = live_udp_deferred,
  .connect = live_udp_connect,
  .stats = live_udp_stats,
  .close = live_udp_close,
};
