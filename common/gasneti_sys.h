/*
 * gasneti_sys.h - the system calls of the message path, made directly.
 *
 * In a process with more than one thread (every rank has one more: the
 * liveness service, live/live_udp.c) glibc makes each socket call a pthread
 * cancellation point: around the system call it switches the thread's
 * cancellation type, two atomic read-modify-writes on the thread's
 * descriptor, in code on pages of its own. No GASNet call is a
 * cancellation point (the spec does not make one, and nothing here cancels
 * a thread), so the calls every message makes go to the kernel themselves:
 * with the `syscall` instruction on x86-64 Linux, through libc elsewhere
 * (or when GASNETI_SYS_LIBC is defined, as tests/common/t_common does to
 * check both). Each gasneti_sys_X(...) returns what X(...) returns and sets
 * errno as X does. What it gains, measured: docs/rationale.md,
 * "common/gasneti_sys.h".
 *
 * Only the calls of the message path are here: setup, teardown and the
 * liveness thread keep libc's.
 *
 * Under a sanitizer they are libc's too: the sanitizers learn what the
 * kernel did from libc's calls. ThreadSanitizer orders a send before the
 * receive that reads it on the same descriptor; with the direct calls it
 * saw no order between a thread that filled a get's counter and sent the
 * request and another that ran the reply's handler, and reported a race
 * (tests/extended/t-par.sh over TCP) that the kernel rules out.
 */
#ifndef GASNETI_SYS_H
#define GASNETI_SYS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* recvmmsg, sendmmsg */
#endif
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
struct mmsghdr; /* complete where _GNU_SOURCE came before <sys/socket.h> */

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define GASNETI_SYS_SANITIZED 1 /* gcc */
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || \
    __has_feature(memory_sanitizer)
#define GASNETI_SYS_SANITIZED 1 /* clang */
#endif
#endif

#if defined(__x86_64__) && defined(__linux__) && !defined(GASNETI_SYS_LIBC) && \
    !defined(GASNETI_SYS_SANITIZED)
#define GASNETI_SYS_DIRECT 1
#include <sys/syscall.h>

/* System call nr with up to six arguments (x86-64 Linux ABI: rax, then rdi,
 * rsi, rdx, r10, r8, r9; the kernel clobbers rcx and r11). The kernel
 * returns -errno in [-4095, -1]. */
static inline long gasneti_sys6(long nr, long a, long b, long c, long d, long e, long f) {
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  if ((unsigned long)ret > (unsigned long)-4096L) {
    errno = (int)-ret;
    return -1;
  }
  return ret;
}
#define GASNETI_SYS_P(p) ((long)(uintptr_t)(p))

static inline ssize_t gasneti_sys_recvfrom(int fd, void *buf, size_t len, int flags,
                                           struct sockaddr *from, socklen_t *fromlen) {
  return gasneti_sys6(SYS_recvfrom, fd, GASNETI_SYS_P(buf), (long)len, flags,
                      GASNETI_SYS_P(from), GASNETI_SYS_P(fromlen));
}
static inline ssize_t gasneti_sys_recv(int fd, void *buf, size_t len, int flags) {
  return gasneti_sys_recvfrom(fd, buf, len, flags, NULL, NULL);
}
static inline ssize_t gasneti_sys_recvmsg(int fd, struct msghdr *mh, int flags) {
  return gasneti_sys6(SYS_recvmsg, fd, GASNETI_SYS_P(mh), flags, 0, 0, 0);
}
static inline int gasneti_sys_recvmmsg(int fd, struct mmsghdr *v, unsigned n, int flags) {
  return (int)gasneti_sys6(SYS_recvmmsg, fd, GASNETI_SYS_P(v), n, flags, 0, 0);
}
static inline ssize_t gasneti_sys_sendto(int fd, const void *buf, size_t len, int flags,
                                         const struct sockaddr *to, socklen_t tolen) {
  return gasneti_sys6(SYS_sendto, fd, GASNETI_SYS_P(buf), (long)len, flags,
                      GASNETI_SYS_P(to), tolen);
}
static inline ssize_t gasneti_sys_sendmsg(int fd, const struct msghdr *mh, int flags) {
  return gasneti_sys6(SYS_sendmsg, fd, GASNETI_SYS_P(mh), flags, 0, 0, 0);
}
static inline int gasneti_sys_sendmmsg(int fd, struct mmsghdr *v, unsigned n, int flags) {
  return (int)gasneti_sys6(SYS_sendmmsg, fd, GASNETI_SYS_P(v), n, flags, 0, 0);
}
static inline int gasneti_sys_sched_yield(void) {
  return (int)gasneti_sys6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

#else /* libc's calls */
#define GASNETI_SYS_DIRECT 0
#define gasneti_sys_recvfrom recvfrom
#define gasneti_sys_recv recv
#define gasneti_sys_recvmsg recvmsg
#define gasneti_sys_recvmmsg(fd, v, n, flags) recvmmsg(fd, v, n, flags, NULL)
#define gasneti_sys_sendto sendto
#define gasneti_sys_sendmsg sendmsg
#define gasneti_sys_sendmmsg sendmmsg
#define gasneti_sys_sched_yield sched_yield
#endif

#endif /* GASNETI_SYS_H */
