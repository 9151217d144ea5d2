/*
 * transport_addr.h - the address blob both transports put in the attach
 * exchange (transport.h, ops->address / ops->connect), defined once:
 *   byte 0     version (GASNETC_ADDR_VERSION)
 *   byte 1     4 or 6 (address family)
 *   bytes 2-3  port, network byte order
 *   bytes 4-   4 (IPv4) or 16 (IPv6) address bytes, network byte order
 * 8 or 20 bytes, well within GASNETC_ADDR_MAX.
 */
#ifndef GASNETC_TRANSPORT_ADDR_H
#define GASNETC_TRANSPORT_ADDR_H

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "transport.h"

#define GASNETC_ADDR_VERSION 1

_Static_assert(GASNETC_ADDR_MAX >= 20, "an IPv6 address blob must fit");

/* Encode an AF_INET or AF_INET6 address; returns the blob's length. */
static inline size_t gasnetc_addr_encode(const struct sockaddr_storage *ss,
                                         unsigned char *b) {
  b[0] = GASNETC_ADDR_VERSION;
  if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *s = (const void *)ss;
    b[1] = 4;
    memcpy(b + 2, &s->sin_port, 2);
    memcpy(b + 4, &s->sin_addr, 4);
    return 8;
  }
  const struct sockaddr_in6 *s = (const void *)ss;
  b[1] = 6;
  memcpy(b + 2, &s->sin6_port, 2);
  memcpy(b + 4, &s->sin6_addr, 16);
  return 20;
}

/* Decode a blob from the exchange: 0, or -1 for one this version cannot read. */
static inline int gasnetc_addr_decode(const unsigned char *b,
                                      struct sockaddr_storage *ss,
                                      socklen_t *len) {
  memset(ss, 0, sizeof *ss);
  if (b[0] != GASNETC_ADDR_VERSION) return -1;
  if (b[1] == 4) {
    struct sockaddr_in *s = (void *)ss;
    s->sin_family = AF_INET;
    memcpy(&s->sin_port, b + 2, 2);
    memcpy(&s->sin_addr, b + 4, 4);
    *len = sizeof *s;
  } else if (b[1] == 6) {
    struct sockaddr_in6 *s = (void *)ss;
    s->sin6_family = AF_INET6;
    memcpy(&s->sin6_port, b + 2, 2);
    memcpy(&s->sin6_addr, b + 4, 16);
    *len = sizeof *s;
  } else {
    return -1;
  }
  return 0;
}

/* The address a transport's socket binds: the configured one (loopback
 * when none is), port 0 (the kernel's choice). Returns its length. */
static inline socklen_t gasnetc_addr_bindable(const struct sockaddr_storage *want,
                                              struct sockaddr_storage *ba) {
  memset(ba, 0, sizeof *ba);
  if (want->ss_family == AF_INET6) {
    memcpy(ba, want, sizeof(struct sockaddr_in6));
    ((struct sockaddr_in6 *)ba)->sin6_port = 0;
    return sizeof(struct sockaddr_in6);
  }
  struct sockaddr_in *s = (void *)ba;
  if (want->ss_family == AF_INET) memcpy(s, want, sizeof *s);
  else s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  s->sin_family = AF_INET;
  s->sin_port = 0;
  return sizeof *s;
}

/* Is ss the wildcard address (bound to every interface)? */
static inline int gasnetc_addr_is_wildcard(const struct sockaddr_storage *ss) {
  if (ss->ss_family == AF_INET)
    return ((const struct sockaddr_in *)ss)->sin_addr.s_addr == htonl(INADDR_ANY);
  return ss->ss_family == AF_INET6 &&
         IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* A bound address to advertise: the wildcard becomes loopback, which
 * peers can reach. */
static inline void gasnetc_addr_reachable(struct sockaddr_storage *ss) {
  if (!gasnetc_addr_is_wildcard(ss)) return;
  if (ss->ss_family == AF_INET)
    ((struct sockaddr_in *)ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  else
    ((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
}

#endif /* GASNETC_TRANSPORT_ADDR_H */
