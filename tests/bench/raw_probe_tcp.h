/*
 * raw_probe_tcp.h - the plain-TCP companions of raw_probe.h's UDP probes,
 * with the same conventions (run between two ranks of a GASNet job in the
 * same run as the measured calls; the port travels in an AM registered with
 * RAW_PROBE_HANDLER_ENTRY; the peer is 127.0.0.1 unless RAW_PROBE_IP or
 * AM_BENCH_RAW_IP names it; initiator = 1 on one rank).
 *
 *   raw_probe_tcp_connect()   the non-initiator listens on port 0 and sends
 *                             its port; the initiator connects. TCP_NODELAY,
 *                             the kernel's default (autotuned) buffers.
 *   raw_probe_tcp_pingpong()  16 bytes each way, both sides spinning on
 *                             recv(MSG_DONTWAIT): the round trip a TCP AM
 *                             layer stands on
 *   raw_probe_tcp_stream()    the initiator write()s `chunks` blocks of
 *                             RAW_PROBE_TCP_CHUNK bytes (blocking), the other
 *                             reads them (blocking, or spinning on
 *                             recv(MSG_DONTWAIT) as an AM layer's poll does)
 *                             and answers one byte after the last; MB/s =
 *                             bytes / time to that answer. As in raw_probe.h,
 *                             both sides walk a RAW_PROBE_SPAN-byte buffer
 *                             front to back, like a large put.
 * Include after gasnet.h.
 */
#ifndef RAW_PROBE_TCP_H
#define RAW_PROBE_TCP_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <netinet/tcp.h>

#include "raw_probe.h"

#define RAW_PROBE_TCP_CHUNK (4u << 20) /* bytes per write() of the stream */

static inline void raw_probe_tcp_die(const char *what) {
  perror(what);
  gasnet_exit(1);
}

/* Connected TCP socket between this rank and `peer` (both ranks call). */
static inline int raw_probe_tcp_connect(gasnet_node_t peer, gasnet_handler_t h, int initiator) {
  const char *ip = gasnet_getenv("RAW_PROBE_IP");
  if (!ip || !*ip) ip = gasnet_getenv("AM_BENCH_RAW_IP");
  struct sockaddr_in a = { .sin_family = AF_INET };
  inet_pton(AF_INET, ip && *ip ? ip : "127.0.0.1", &a.sin_addr);
  int fd, one = 1;
  if (!initiator) {
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in any = { .sin_family = AF_INET };
    socklen_t alen = sizeof any;
    if (bind(l, (struct sockaddr *)&any, sizeof any) || listen(l, 1) ||
        getsockname(l, (struct sockaddr *)&any, &alen))
      raw_probe_tcp_die("raw_probe_tcp: listen");
    gasnet_AMRequestShort1(peer, h, ntohs(any.sin_port));
    /* Polling while it waits: on a lossy link the port's AM may need
     * resending, which only a polling rank does (a blocking accept hung
     * loss_bench under 20% loss). The accepted socket blocks as before. */
    fcntl(l, F_SETFL, O_NONBLOCK);
    double t0 = raw_probe_now_us();
    while ((fd = accept(l, NULL, NULL)) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      if (raw_probe_now_us() - t0 > 120e6) {
        fprintf(stderr, "raw_probe_tcp: no connection from node %u within 120 s\n", (unsigned)peer);
        gasnet_exit(1);
      }
      gasnet_AMPoll();
    }
    close(l);
  } else {
    GASNET_BLOCKUNTIL(raw_probe_peer_port != 0); /* it may have come already */
    a.sin_port = htons((uint16_t)raw_probe_peer_port);
    raw_probe_peer_port = 0;
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) raw_probe_tcp_die("raw_probe_tcp: connect");
  }
  if (fd < 0) raw_probe_tcp_die("raw_probe_tcp: accept");
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

static inline void raw_probe_tcp_spin_read(int fd, char *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t k = recv(fd, buf + got, n - got, MSG_DONTWAIT);
    if (k > 0) got += (size_t)k;
    else if (k == 0 || (errno != EAGAIN && errno != EINTR)) raw_probe_tcp_die("raw_probe_tcp: recv");
  }
}
static inline void raw_probe_tcp_io(int fd, char *buf, size_t n, int wr) {
  while (n) {
    ssize_t k = wr ? write(fd, buf, n) : read(fd, buf, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) raw_probe_tcp_die(wr ? "raw_probe_tcp: write" : "raw_probe_tcp: read");
    buf += k;
    n -= (size_t)k;
  }
}

/* Ping-pong: returns the mean round trip in us, *median the median. */
static inline double raw_probe_tcp_pingpong(int fd, int initiator, int iters, double *median) {
  char msg[16] = "raw-tcp-probe";
  double *rtt = malloc(sizeof *rtt * (size_t)iters), sum = 0;
  for (int i = -100; i < iters; i++) { /* 100 warm-up rounds */
    double t0 = raw_probe_now_us();
    if (initiator) raw_probe_tcp_io(fd, msg, sizeof msg, 1);
    raw_probe_tcp_spin_read(fd, msg, sizeof msg);
    if (!initiator) raw_probe_tcp_io(fd, msg, sizeof msg, 1);
    if (i >= 0) { rtt[i] = raw_probe_now_us() - t0; sum += rtt[i]; }
  }
  *median = raw_probe_median(rtt, (size_t)iters);
  free(rtt);
  return sum / iters;
}

/* Stream: MB/s (10^6 bytes) on both sides. */
static inline double raw_probe_tcp_stream(int fd, int initiator, int chunks, int spin) {
  const size_t slots = RAW_PROBE_SPAN / RAW_PROBE_TCP_CHUNK;
  char *span = malloc(RAW_PROBE_SPAN), ack = 'k';
  memset(span, 1, RAW_PROBE_SPAN); /* touched, like a warm segment */
  double t0 = raw_probe_now_us();
  for (int i = 0; i < chunks; i++) {
    char *buf = span + (size_t)i % slots * RAW_PROBE_TCP_CHUNK;
    if (initiator) raw_probe_tcp_io(fd, buf, RAW_PROBE_TCP_CHUNK, 1);
    else if (spin) raw_probe_tcp_spin_read(fd, buf, RAW_PROBE_TCP_CHUNK);
    else raw_probe_tcp_io(fd, buf, RAW_PROBE_TCP_CHUNK, 0);
  }
  if (initiator) raw_probe_tcp_io(fd, &ack, 1, 0);
  else raw_probe_tcp_io(fd, &ack, 1, 1);
  double mbps = (double)chunks * RAW_PROBE_TCP_CHUNK / (raw_probe_now_us() - t0);
  free(span);
  return mbps;
}

#endif /* RAW_PROBE_TCP_H */
