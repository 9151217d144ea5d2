/*
 * raw_probe.h - plain-UDP reference probes for the GASNet benchmarks, run
 * between two ranks of a GASNet job in the same run as the measured calls,
 * so each figure can be printed beside the floor it stands on.
 *
 *   raw_probe_open()        a UDP socket bound to port 0 (any address)
 *   raw_probe_connect()     learn the peer's port through an AM (the
 *                           client registers RAW_PROBE_HANDLER_ENTRY(idx))
 *   raw_probe_pingpong()    busy-poll ping-pong of 16-byte datagrams: the
 *                           round trip any UDP AM layer stands on (sendto
 *                           on the unconnected socket, as one socket for
 *                           all peers sends)
 *   raw_probe_connect_socket()  connect() the socket to the peer: then
 *                           raw_probe_pingpong sends by send(), which
 *                           skips the route lookup of each sendto (the
 *                           floor of the library's peer sockets,
 *                           docs/transports.md)
 *   raw_probe_stream()      one-way stream of RAW_PROBE_DGRAM-byte datagrams
 *                           with a window of RAW_PROBE_WINDOW unacknowledged
 *                           datagrams (the receiver acks every
 *                           RAW_PROBE_ACK_EVERY); bandwidth = bytes the
 *                           receiver got / time until it reported them. No
 *                           retransmission: a lost datagram is just not counted.
 *                           Like a large put, the sender reads and the
 *                           receiver writes a RAW_PROBE_SPAN-byte buffer
 *                           front to back (not one cache-hot datagram buffer).
 *   raw_probe_flood()       the same one-way stream with small datagrams, one
 *                           sendto per message and a wide window
 *                           (RAW_PROBE_FLOOD_WINDOW): the floor under a
 *                           one-way AM flood with one datagram per message;
 *                           returns datagrams per second received
 *   raw_probe_barrier()     a dissemination barrier among all ranks over plain
 *                           UDP (the client registers
 *                           RAW_PROBE_PORTS_HANDLER_ENTRY(idx)): the floor
 *                           under gasnet_barrier, with the same pattern
 *   raw_probe_gather_run()  on the same sockets, a gather barrier: every
 *                           rank arrives at rank 0, which then releases
 *                           them all, by sockets connected to the peer (as
 *                           the library's peer sockets send): the floor
 *                           under the pattern gasnet_barrier takes on a
 *                           crowded host (more ranks than CPUs)
 *   raw_probe_placement()   the CPU each rank runs on, as "c0,c1,..." on rank 0
 *   raw_probe_pin()         BENCH_PIN=c0,c1,...: rank i runs on CPU c[i mod n]
 *                           (sched_setaffinity; unset: wherever the kernel
 *                           puts it). With more ranks than CPUs the figures
 *                           depend on which ranks share a CPU: see
 *                           docs/performance.md, "Barriers on a crowded host".
 * The peer is 127.0.0.1 unless RAW_PROBE_IP (or AM_BENCH_RAW_IP) names it.
 * Both ranks call the same function with their role (initiator = 1 on one).
 * While busy-polling, gasnet_AMPoll runs now and then, so AMs still in
 * retransmission (GASNET_UDP_DROP) reach the peer.
 */
#ifndef RAW_PROBE_H
#define RAW_PROBE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define RAW_PROBE_DGRAM 65000     /* bytes per stream datagram (loopback MTU is 65507) */
#define RAW_PROBE_WINDOW 32       /* datagrams in flight: 2 MiB, below a 4 MiB socket buffer */
#define RAW_PROBE_ACK_EVERY 8
#define RAW_PROBE_SPAN (16u << 20) /* bytes streamed from / into, cyclically */
#define RAW_PROBE_FLOOD_WINDOW 128 /* small datagrams in flight (~128 KiB of socket buffer) */
#define RAW_PROBE_FLOOD_ACK_EVERY 16

/* Set by the peer's AM, which may run before we ask (in the poll of an
 * earlier call): consumed (back to 0) once read, never cleared before. */
static volatile int raw_probe_peer_port;
static inline void raw_probe_port_handler(gasnet_token_t t, gasnet_handlerarg_t port) {
  (void)t;
  raw_probe_peer_port = port;
}
#define RAW_PROBE_HANDLER_ENTRY(idx) { (idx), (void (*)())raw_probe_port_handler }

static inline double raw_probe_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static int raw_probe_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
/* The median of v[0..n), which it sorts (n > 0). */
static inline double raw_probe_median(double *v, size_t n) {
  qsort(v, n, sizeof *v, raw_probe_cmp);
  return v[n / 2];
}

/* BENCH_PIN (above): pin this rank and say where it runs, or why it
 * could not be pinned (stderr). Call after attach; the client defines
 * _GNU_SOURCE before its first include (for sched_setaffinity). */
static inline void raw_probe_pin(void) {
  const char *list = getenv("BENCH_PIN");
  if (!list || !*list) return;
#ifndef CPU_SETSIZE
  fprintf(stderr, "BENCH_PIN: this benchmark was built without _GNU_SOURCE; not pinned\n");
#else
  int cpu[256], n = 0;
  for (const char *c = list; *c && n < 256;) {
    char *end;
    long v = strtol(c, &end, 10);
    if (end == c || v < 0 || v >= CPU_SETSIZE) {
      fprintf(stderr, "BENCH_PIN=%s: not a comma-separated list of CPU numbers\n", list);
      return;
    }
    cpu[n++] = (int)v;
    c = *end == ',' ? end + 1 : end;
  }
  int want = cpu[gasnet_mynode() % n];
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(want, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    fprintf(stderr, "BENCH_PIN: rank %u on CPU %d: %s\n", (unsigned)gasnet_mynode(), want,
            strerror(errno));
  else
    fprintf(stderr, "BENCH_PIN: rank %u pinned to CPU %d, running on CPU %d\n",
            (unsigned)gasnet_mynode(), want, sched_getcpu());
#endif
}

/* The CPU each rank runs on now, gathered on rank 0 through AM handler h
 * (the client registers RAW_PROBE_CPU_HANDLER_ENTRY(h)); every rank calls
 * it. On rank 0, buf gets "c0,c1,..." (or "?" where a rank cannot tell);
 * on the others, "". With more ranks than CPUs the figures depend on it:
 * docs/performance.md, "Barriers on a crowded host". */
static int *raw_probe_cpus;
static volatile int raw_probe_ncpus;
static inline void raw_probe_cpu_handler(gasnet_token_t t, gasnet_handlerarg_t cpu) {
  gasnet_node_t src;
  gasnet_AMGetMsgSource(t, &src);
  raw_probe_cpus[src] = cpu;
  raw_probe_ncpus++;
}
#define RAW_PROBE_CPU_HANDLER_ENTRY(idx) { (idx), (void (*)())raw_probe_cpu_handler }
static inline void raw_probe_placement(gasnet_handler_t h, char *buf, size_t len) {
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
#ifdef CPU_SETSIZE
  int cpu = sched_getcpu();
#else
  int cpu = -1;
#endif
  buf[0] = 0;
  if (!raw_probe_cpus) raw_probe_cpus = calloc(n, sizeof *raw_probe_cpus);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS); /* the array exists everywhere */
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (me != 0) {
    gasnet_AMRequestShort1(0, h, (gasnet_handlerarg_t)cpu);
    return;
  }
  raw_probe_cpus[0] = cpu;
  GASNET_BLOCKUNTIL(raw_probe_ncpus == (int)n - 1);
  raw_probe_ncpus = 0;
  size_t used = 0;
  for (gasnet_node_t i = 0; i < n && used + 12 < len; i++) {
    if (raw_probe_cpus[i] < 0) used += (size_t)snprintf(buf + used, len - used, "%s?", i ? "," : "");
    else used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "", raw_probe_cpus[i]);
  }
}

typedef struct {
  int fd;
  struct sockaddr_in peer;
  int connected; /* raw_probe_connect_socket: send() */
} raw_probe_t;

static inline void raw_probe_open(raw_probe_t *p) {
  p->connected = 0;
  p->fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET };
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  bind(p->fd, (struct sockaddr *)&a, sizeof a);
  int sz = 4 << 20;
  setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
  setsockopt(p->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
}

/* Exchange ports with `peer` through the AM handler `h` (both ranks call). */
static inline void raw_probe_connect(raw_probe_t *p, gasnet_node_t peer, gasnet_handler_t h) {
  struct sockaddr_in a;
  socklen_t alen = sizeof a;
  getsockname(p->fd, (struct sockaddr *)&a, &alen);
  gasnet_AMRequestShort1(peer, h, ntohs(a.sin_port));
  GASNET_BLOCKUNTIL(raw_probe_peer_port != 0);
  const int port = raw_probe_peer_port;
  raw_probe_peer_port = 0;
  const char *ip = gasnet_getenv("RAW_PROBE_IP");
  if (!ip || !*ip) ip = gasnet_getenv("AM_BENCH_RAW_IP");
  memset(&p->peer, 0, sizeof p->peer);
  p->peer.sin_family = AF_INET;
  p->peer.sin_port = htons((uint16_t)port);
  inet_pton(AF_INET, ip && *ip ? ip : "127.0.0.1", &p->peer.sin_addr);
}

static inline void raw_probe_close(raw_probe_t *p) { close(p->fd); }

/* After raw_probe_connect: the socket connected to the peer's (both ranks). */
static inline void raw_probe_connect_socket(raw_probe_t *p) {
  p->connected = connect(p->fd, (struct sockaddr *)&p->peer, sizeof p->peer) == 0;
}

static inline void raw_probe_send16(raw_probe_t *p, const char *msg) {
  if (p->connected) send(p->fd, msg, 16, 0);
  else sendto(p->fd, msg, 16, 0, (struct sockaddr *)&p->peer, sizeof p->peer);
}

/* Receive one datagram without blocking the GASNet side for long. */
static inline ssize_t raw_probe_recv(raw_probe_t *p, void *buf, size_t len) {
  ssize_t r;
  for (unsigned spins = 1; (r = recv(p->fd, buf, len, MSG_DONTWAIT)) < 0; spins++)
    if (spins % 4096 == 0) gasnet_AMPoll();
  return r;
}

/* Ping-pong: returns the mean round trip in us, *median the median. */
static inline double raw_probe_pingpong(raw_probe_t *p, int initiator, int iters, double *median) {
  char msg[16] = "raw-udp-probe";
  double *rtt = malloc(sizeof *rtt * (size_t)iters), sum = 0;
  for (int i = -100; i < iters; i++) { /* 100 warm-up rounds */
    double t0 = raw_probe_now_us();
    if (initiator) raw_probe_send16(p, msg);
    raw_probe_recv(p, msg, sizeof msg);
    if (!initiator) raw_probe_send16(p, msg);
    if (i >= 0) { rtt[i] = raw_probe_now_us() - t0; sum += rtt[i]; }
  }
  *median = raw_probe_median(rtt, (size_t)iters);
  free(rtt);
  return sum / iters;
}

enum { RAW_PROBE_DATA = 1, RAW_PROBE_ACK, RAW_PROBE_END, RAW_PROBE_FINAL };
typedef struct { uint32_t type, count; uint64_t bytes; } raw_probe_hdr_t;

/* Stream `count` datagrams from the initiator; returns MB/s (10^6 bytes)
 * on the initiator (0 on the receiver), *lost the datagrams not received. */
static inline double raw_probe_stream_n(raw_probe_t *p, int initiator, int count, size_t dgram,
                                        uint32_t window, uint32_t ack_every, int *lost) {
  const size_t slots = RAW_PROBE_SPAN / dgram;
  char *span = malloc(slots * dgram), *buf = span;
  memset(span, 1, slots * dgram); /* touched, like a warm segment */
  raw_probe_hdr_t h;
  double mbps = 0;
  if (initiator) {
    uint32_t acked = 0;
    double t0 = raw_probe_now_us();
    for (int sent = 0; sent < count; sent++) {
      double stuck = raw_probe_now_us();
      while ((uint32_t)sent - acked >= window) {
        ssize_t r = recv(p->fd, &h, sizeof h, MSG_DONTWAIT);
        if (r == (ssize_t)sizeof h && h.type == RAW_PROBE_ACK && h.count > acked) acked = h.count;
        if (raw_probe_now_us() - stuck > 5000) acked = (uint32_t)sent; /* losses: move on */
      }
      h.type = RAW_PROBE_DATA; h.count = (uint32_t)sent; h.bytes = 0;
      buf = span + (size_t)sent % slots * dgram;
      memcpy(buf, &h, sizeof h);
      while (sendto(p->fd, buf, dgram, 0, (struct sockaddr *)&p->peer, sizeof p->peer) < 0 &&
             (errno == EAGAIN || errno == ENOBUFS)) {}
    }
    for (;;) { /* END until FINAL */
      /* The receiver may still be in the library's barrier before the
       * flood, waiting for a datagram of ours that was lost (GASNET_UDP_DROP):
       * only our progress retransmits it (bar.sh's lossy run hung here). */
      gasnet_AMPoll();
      h.type = RAW_PROBE_END; h.count = (uint32_t)count;
      sendto(p->fd, &h, sizeof h, 0, (struct sockaddr *)&p->peer, sizeof p->peer);
      double t = raw_probe_now_us();
      int got = 0;
      while (raw_probe_now_us() - t < 2000) {
        ssize_t r = recv(p->fd, &h, sizeof h, MSG_DONTWAIT);
        if (r == (ssize_t)sizeof h && h.type == RAW_PROBE_FINAL) { got = 1; break; }
      }
      if (got) break;
    }
    mbps = h.bytes / (raw_probe_now_us() - t0);
    *lost = count - (int)h.count;
  } else {
    uint32_t n = 0;
    uint64_t bytes = 0;
    for (;;) {
      buf = span + (size_t)n % slots * dgram;
      ssize_t r = raw_probe_recv(p, buf, dgram);
      if (r < (ssize_t)sizeof h) continue;
      memcpy(&h, buf, sizeof h);
      if (h.type == RAW_PROBE_DATA) {
        n++; bytes += (uint64_t)r;
        if (n % ack_every == 0) {
          raw_probe_hdr_t a = { RAW_PROBE_ACK, n, bytes };
          sendto(p->fd, &a, sizeof a, 0, (struct sockaddr *)&p->peer, sizeof p->peer);
        }
      } else if (h.type == RAW_PROBE_END) {
        raw_probe_hdr_t a = { RAW_PROBE_FINAL, n, bytes };
        sendto(p->fd, &a, sizeof a, 0, (struct sockaddr *)&p->peer, sizeof p->peer);
        /* linger, in case the FINAL was lost and the sender asks again */
        for (double t = raw_probe_now_us(); raw_probe_now_us() - t < 20000;) {
          if (recv(p->fd, &h, sizeof h, MSG_DONTWAIT) == (ssize_t)sizeof h && h.type == RAW_PROBE_END)
            sendto(p->fd, &a, sizeof a, 0, (struct sockaddr *)&p->peer, sizeof p->peer);
        }
        break;
      }
    }
    *lost = 0;
  }
  free(span);
  return mbps;
}

static inline double raw_probe_stream(raw_probe_t *p, int initiator, int count, int *lost) {
  return raw_probe_stream_n(p, initiator, count, RAW_PROBE_DGRAM, RAW_PROBE_WINDOW,
                            RAW_PROBE_ACK_EVERY, lost);
}

/* One-way flood of `count` datagrams of `dgram` (>= 16) bytes; returns
 * datagrams per second received (on the initiator; 0 on the receiver). */
static inline double raw_probe_flood(raw_probe_t *p, int initiator, int count, size_t dgram,
                                     int *lost) {
  double mbps = raw_probe_stream_n(p, initiator, count, dgram, RAW_PROBE_FLOOD_WINDOW,
                                   RAW_PROBE_FLOOD_ACK_EVERY, lost);
  return mbps * 1e6 / (double)dgram;
}

/* ---- dissemination barrier over plain UDP --------------------------------
 * ceil(log2 N) rounds; in round r each rank sends one 8-byte datagram to
 * (me + 2^r) mod N and waits for the one of (me - 2^r) mod N, as
 * gasnet_barrier does, but with no acks, no retransmission and no AM layer.
 * A rank may be one barrier ahead of another, so arrivals are counted per
 * barrier parity. Waits the way the library's do by default: busy-polling;
 * when `polite` (ranks outnumber cores), yielding the CPU after each empty
 * poll, and after RAW_PROBE_SPIN_US blocking in poll(). Every rank calls it;
 * returns the mean us per barrier (*median the median), or -1 when no
 * datagram came for 2 s (a loss: loopback at this rate loses none).
 * Once per process, with every rank on this host (it sends to 127.0.0.1;
 * RAW_PROBE_IP names one peer, not N). */
#define RAW_PROBE_BARRIER_ROUNDS 32
/* The gather barrier's tags, beyond any dissemination round (< 31 rounds). */
#define RAW_PROBE_TAG_ARRIVE (RAW_PROBE_BARRIER_ROUNDS - 2)
#define RAW_PROBE_TAG_RELEASE (RAW_PROBE_BARRIER_ROUNDS - 1)
#define RAW_PROBE_SPIN_US 100 /* = GASNET_SPIN_USEC's default */
static uint16_t *raw_probe_ports; /* [nodes]: every rank's barrier socket */
static volatile int raw_probe_nports;
static inline void raw_probe_ports_alloc(void) { /* a port may come before we ask */
  if (!raw_probe_ports) raw_probe_ports = calloc(gasnet_nodes(), sizeof *raw_probe_ports);
}
static inline void raw_probe_ports_handler(gasnet_token_t t, gasnet_handlerarg_t port) {
  gasnet_node_t src;
  gasnet_AMGetMsgSource(t, &src);
  raw_probe_ports_alloc();
  raw_probe_ports[src] = (uint16_t)port;
  raw_probe_nports++;
}
#define RAW_PROBE_PORTS_HANDLER_ENTRY(idx) { (idx), (void (*)())raw_probe_ports_handler }

typedef struct {
  raw_probe_t p;
  int rounds, it;
  struct sockaddr_in peer[RAW_PROBE_BARRIER_ROUNDS];
  int arrived[2][RAW_PROBE_BARRIER_ROUNDS]; /* by barrier parity and tag */
  int *gfd;  /* [nodes]: the gather's sockets connected to a peer, -1 none */
  int gwarm; /* the gather's warm-up barriers done */
} raw_probe_bar_t;

/* Rank i's barrier socket (on this host). */
static inline struct sockaddr_in raw_probe_bar_addr(gasnet_node_t i) {
  struct sockaddr_in a = { .sin_family = AF_INET };
  a.sin_port = htons(raw_probe_ports[i]);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

/* Every rank's barrier socket, learnt through AM handler h. */
static inline void raw_probe_barrier_open(raw_probe_bar_t *b, gasnet_handler_t h) {
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  memset(b, 0, sizeof *b);
  raw_probe_open(&b->p);
  struct sockaddr_in a;
  socklen_t alen = sizeof a;
  getsockname(b->p.fd, (struct sockaddr *)&a, &alen);
  raw_probe_ports_alloc();
  for (gasnet_node_t i = 0; i < n; i++)
    if (i != me) gasnet_AMRequestShort1(i, h, ntohs(a.sin_port));
  GASNET_BLOCKUNTIL(raw_probe_nports == (int)n - 1);
  while (((gasnet_node_t)1 << b->rounds) < n) b->rounds++;
  for (int r = 0; r < b->rounds; r++)
    b->peer[r] = raw_probe_bar_addr((me + ((gasnet_node_t)1 << r)) % n);
  b->it = -20; /* 20 warm-up barriers */
  b->gfd = malloc(sizeof *b->gfd * n);
  for (gasnet_node_t i = 0; i < n; i++) b->gfd[i] = -1;
}

/* Wait for `need` datagrams of barrier `it` with tag `tag`, and take them;
 * 0 when no datagram came for 2 s. */
static inline int raw_probe_bar_wait(raw_probe_bar_t *b, int it, int tag, int need, int polite) {
  double waiting = raw_probe_now_us();
  while (b->arrived[it & 1][tag] < need) {
    int32_t in[2];
    if (recv(b->p.fd, in, sizeof in, MSG_DONTWAIT) == (ssize_t)sizeof in) {
      b->arrived[in[0] & 1][in[1] & (RAW_PROBE_BARRIER_ROUNDS - 1)]++;
      continue;
    }
    double idle = raw_probe_now_us() - waiting;
    if (polite && idle < RAW_PROBE_SPIN_US) {
      sched_yield();
    } else if (polite) {
      struct pollfd pf = { b->p.fd, POLLIN, 0 };
      poll(&pf, 1, 100);
    }
    if (idle > 2e6) return 0;
  }
  b->arrived[it & 1][tag] -= need;
  return 1;
}

/* One dissemination barrier; 0 when no datagram came for 2 s. */
static inline int raw_probe_barrier_one(raw_probe_bar_t *b, int polite) {
  int it = b->it++;
  for (int r = 0; r < b->rounds; r++) {
    int32_t msg[2] = { it, r };
    sendto(b->p.fd, msg, sizeof msg, 0, (struct sockaddr *)&b->peer[r], sizeof b->peer[r]);
    if (!raw_probe_bar_wait(b, it, r, 1, polite)) return 0;
  }
  return 1;
}

/* The gather's socket to peer i, connected to its barrier socket. */
static inline int raw_probe_gather_fd(raw_probe_bar_t *b, gasnet_node_t i) {
  if (b->gfd[i] < 0) {
    struct sockaddr_in a = raw_probe_bar_addr(i);
    b->gfd[i] = socket(AF_INET, SOCK_DGRAM, 0);
    connect(b->gfd[i], (struct sockaddr *)&a, sizeof a);
  }
  return b->gfd[i];
}

/* One gather barrier: arrive at rank 0; rank 0, once all have, releases
 * them in rank order. 0 when no datagram came for 2 s. */
static inline int raw_probe_gather_one(raw_probe_bar_t *b, int polite) {
  gasnet_node_t n = gasnet_nodes();
  int it = b->it++;
  int32_t msg[2] = { it, RAW_PROBE_TAG_ARRIVE };
  if (gasnet_mynode() != 0) {
    send(raw_probe_gather_fd(b, 0), msg, sizeof msg, 0);
    return raw_probe_bar_wait(b, it, RAW_PROBE_TAG_RELEASE, 1, polite);
  }
  if (!raw_probe_bar_wait(b, it, RAW_PROBE_TAG_ARRIVE, (int)n - 1, polite)) return 0;
  msg[1] = RAW_PROBE_TAG_RELEASE;
  for (gasnet_node_t i = 1; i < n; i++) send(raw_probe_gather_fd(b, i), msg, sizeof msg, 0);
  return 1;
}

/* iters barriers of one kind (`one`): the mean us per barrier, *median the
 * median; -1 when one was lost. */
static inline double raw_probe_bar_loop(raw_probe_bar_t *b, int (*one)(raw_probe_bar_t *, int),
                                        int iters, int polite, double *median) {
  double *t = malloc(sizeof *t * (size_t)iters), sum = 0, mean = -1;
  int i = 0;
  for (; i < iters; i++) {
    double t0 = raw_probe_now_us();
    if (!one(b, polite)) break;
    t[i] = raw_probe_now_us() - t0;
    sum += t[i];
  }
  if (i == iters) {
    *median = raw_probe_median(t, (size_t)iters);
    mean = sum / iters;
  }
  free(t);
  return mean;
}

/* iters dissemination barriers (after 20 warm-up ones, on the first call):
 * the mean us per barrier, *median the median; -1 when one was lost. */
static inline double raw_probe_barrier_run(raw_probe_bar_t *b, int iters, int polite,
                                           double *median) {
  while (b->it < 0)
    if (!raw_probe_barrier_one(b, polite)) return -1;
  return raw_probe_bar_loop(b, raw_probe_barrier_one, iters, polite, median);
}

/* The same for the gather barrier, on the sockets of a dissemination
 * barrier opened before (20 warm-up barriers on the first call). */
static inline double raw_probe_gather_run(raw_probe_bar_t *b, int iters, int polite,
                                          double *median) {
  for (; b->gwarm < 20; b->gwarm++)
    if (!raw_probe_gather_one(b, polite)) return -1;
  return raw_probe_bar_loop(b, raw_probe_gather_one, iters, polite, median);
}

static inline void raw_probe_barrier_close(raw_probe_bar_t *b) {
  for (gasnet_node_t i = 0; i < gasnet_nodes(); i++)
    if (b->gfd[i] >= 0) close(b->gfd[i]);
  free(b->gfd);
  raw_probe_close(&b->p);
}

static inline double raw_probe_barrier(gasnet_handler_t h, int iters, int polite, double *median) {
  raw_probe_bar_t b;
  raw_probe_barrier_open(&b, h);
  double mean = raw_probe_barrier_run(&b, iters, polite, median);
  raw_probe_barrier_close(&b);
  return mean;
}

#endif /* RAW_PROBE_H */
