/*
 * t_sys.c - gasneti_sys.h's calls against the kernel: each returns what the
 * libc call would and sets errno as it does. Compiled twice into t_common:
 * as it is (the direct system calls, where there are any) and with
 * GASNETI_SYS_LIBC (libc's calls, the fallback elsewhere), so both
 * implementations pass the same checks. Two UDP sockets on 127.0.0.1.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sendmmsg, recvmmsg: before any system header */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gasneti_sys.h"

#ifndef T_SYS_NAME
#define T_SYS_NAME t_sys_direct
extern const int t_sys_is_direct;
const int t_sys_is_direct = GASNETI_SYS_DIRECT;
#endif

typedef void (*t_check_fn)(int ok, const char *what);
void T_SYS_NAME(t_check_fn check, const char *impl);

static int udp_bound(struct sockaddr_in *a) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  socklen_t len = sizeof *a;
  memset(a, 0, sizeof *a);
  a->sin_family = AF_INET;
  a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && (bind(fd, (struct sockaddr *)a, sizeof *a) ||
                  getsockname(fd, (struct sockaddr *)a, &len))) {
    close(fd);
    fd = -1;
  }
  return fd;
}

/* recvfrom on an empty socket, then a datagram with its sender's address,
 * and one longer than the buffer (MSG_TRUNC: the real length). */
static void recvfrom_cases(t_check_fn check, const char *impl, int fa, int fb,
                           const struct sockaddr_in *a, const struct sockaddr_in *b) {
  char buf[64], what[200];
  struct sockaddr_in from = {0}; /* printed even when recvfrom fails */
  socklen_t fromlen = sizeof from;
  errno = 0;
  ssize_t k = gasneti_sys_recvfrom(fb, buf, sizeof buf, MSG_DONTWAIT, NULL, NULL);
  int e = errno;
  snprintf(what, sizeof what, "%s: recvfrom on an empty socket = %zd, errno %d; want -1, EAGAIN",
           impl, k, e);
  check(k == -1 && (e == EAGAIN || e == EWOULDBLOCK), what);
  k = gasneti_sys_sendto(fa, "hello", 5, 0, (const struct sockaddr *)b, sizeof *b);
  ssize_t r = gasneti_sys_recvfrom(fb, buf, sizeof buf, 0, (struct sockaddr *)&from, &fromlen);
  snprintf(what, sizeof what, "%s: sendto 5 bytes = %zd, recvfrom = %zd \"%.5s\" from port %u "
           "(len %u); want 5, 5 \"hello\" from %u", impl, k, r, r == 5 ? buf : "", ntohs(from.sin_port),
           (unsigned)fromlen, ntohs(a->sin_port));
  check(k == 5 && r == 5 && !memcmp(buf, "hello", 5) && fromlen == sizeof from &&
        from.sin_port == a->sin_port, what);
  char big[100];
  memset(big, 'x', sizeof big);
  gasneti_sys_sendto(fa, big, sizeof big, 0, (const struct sockaddr *)b, sizeof *b);
  r = gasneti_sys_recvfrom(fb, buf, 10, MSG_TRUNC, NULL, NULL);
  snprintf(what, sizeof what, "%s: recvfrom(MSG_TRUNC) of 100 bytes into 10 = %zd; want 100", impl, r);
  check(r == 100, what);
}

/* sendmsg of two pieces read by recvmsg, then recv; three datagrams by one
 * sendmmsg read by one recvmmsg. */
static void msg_cases(t_check_fn check, const char *impl, int fa, int fb,
                      const struct sockaddr_in *b) {
  char buf[64], what[200];
  struct iovec out[2] = {{"ab", 2}, {"cde", 3}}, in = {buf, sizeof buf};
  struct msghdr mo = {.msg_name = (void *)b, .msg_namelen = sizeof *b, .msg_iov = out, .msg_iovlen = 2};
  struct msghdr mi = {.msg_iov = &in, .msg_iovlen = 1};
  ssize_t k = gasneti_sys_sendmsg(fa, &mo, 0), r = gasneti_sys_recvmsg(fb, &mi, 0);
  snprintf(what, sizeof what, "%s: sendmsg of 2+3 bytes = %zd, recvmsg = %zd; want 5, 5 \"abcde\"",
           impl, k, r);
  check(k == 5 && r == 5 && !memcmp(buf, "abcde", 5), what);
  gasneti_sys_sendto(fa, "xyz", 3, 0, (const struct sockaddr *)b, sizeof *b);
  r = gasneti_sys_recv(fb, buf, sizeof buf, 0);
  snprintf(what, sizeof what, "%s: recv = %zd; want 3 \"xyz\"", impl, r);
  check(r == 3 && !memcmp(buf, "xyz", 3), what);
  struct mmsghdr vo[3], vi[4];
  struct iovec io[3] = {{"1", 1}, {"22", 2}, {"333", 3}}, ii[4];
  char rb[4][16];
  memset(vo, 0, sizeof vo);
  memset(vi, 0, sizeof vi);
  for (int i = 0; i < 3; i++) {
    vo[i].msg_hdr.msg_name = (void *)b;
    vo[i].msg_hdr.msg_namelen = sizeof *b;
    vo[i].msg_hdr.msg_iov = &io[i];
    vo[i].msg_hdr.msg_iovlen = 1;
  }
  for (int i = 0; i < 4; i++) {
    ii[i] = (struct iovec){rb[i], sizeof rb[i]};
    vi[i].msg_hdr.msg_iov = &ii[i];
    vi[i].msg_hdr.msg_iovlen = 1;
  }
  int n = gasneti_sys_sendmmsg(fa, vo, 3, 0), m = gasneti_sys_recvmmsg(fb, vi, 4, MSG_DONTWAIT);
  snprintf(what, sizeof what, "%s: sendmmsg of 3 = %d, recvmmsg(4) = %d, lengths %u %u %u; "
           "want 3, 3, 1 2 3", impl, n, m, vi[0].msg_len, vi[1].msg_len, vi[2].msg_len);
  check(n == 3 && m == 3 && vi[0].msg_len == 1 && vi[1].msg_len == 2 && vi[2].msg_len == 3 &&
        !memcmp(rb[2], "333", 3), what);
}

/* Errors come back as -1 with errno, as libc's do. */
static void error_cases(t_check_fn check, const char *impl, const struct sockaddr_in *b) {
  char buf[8], what[200];
  errno = 0;
  ssize_t k = gasneti_sys_sendto(-1, "x", 1, 0, (const struct sockaddr *)b, sizeof *b);
  int e1 = errno;
  errno = 0;
  ssize_t r = gasneti_sys_recv(-1, buf, sizeof buf, 0);
  int e2 = errno;
  errno = 0;
  int m = gasneti_sys_recvmmsg(-1, NULL, 1, 0);
  int e3 = errno;
  snprintf(what, sizeof what, "%s: sendto, recv, recvmmsg on fd -1 = %zd %zd %d, errno %d %d %d; "
           "want -1, EBADF each", impl, k, r, m, e1, e2, e3);
  check(k == -1 && r == -1 && m == -1 && e1 == EBADF && e2 == EBADF && e3 == EBADF, what);
  snprintf(what, sizeof what, "%s: sched_yield = 0", impl);
  check(gasneti_sys_sched_yield() == 0, what);
}

void T_SYS_NAME(t_check_fn check, const char *impl) {
  struct sockaddr_in a, b;
  int fa = udp_bound(&a), fb = udp_bound(&b);
  char what[120];
  snprintf(what, sizeof what, "%s: two UDP sockets on 127.0.0.1 (%d, %d)", impl, fa, fb);
  check(fa >= 0 && fb >= 0, what);
  if (fa >= 0 && fb >= 0) {
    recvfrom_cases(check, impl, fa, fb, &a, &b);
    msg_cases(check, impl, fa, fb, &b);
    error_cases(check, impl, &b);
  }
  if (fa >= 0) close(fa);
  if (fb >= 0) close(fb);
}
