/*
 * gasnetc_addr.c - which local address the transport binds and advertises.
 *
 * In two steps around gasnet_init's bootstrap exchange:
 *
 *   gasnetc_addr_first()  before: GASNET_NETWORK's address when it is set
 *       (an interface name "eth1", a subnet "10.1.0.0/16", or an address);
 *       else the local end of the launcher connection (gasnetrun); else,
 *       under PMI where there is none, this host's first non-loopback
 *       address as a guess; a job of one rank leaves it to the transport.
 *   gasnetc_addr_final()  after, knowing every node's first address and
 *       host: a guess or a loopback address is replaced by the source
 *       address of our route toward a node on another host (connect() on a
 *       UDP socket picks it and sends nothing), so a multi-host job never
 *       advertises loopback; when every node is on this host, loopback it is.
 *       GASNET_NETWORK's choice is kept.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gasnetc_internal.h"
#include "boot.h"

static struct sockaddr_storage gasnetc_addr;
static socklen_t gasnetc_addr_len;
static enum { ADDR_NONE, ADDR_CHOSEN, ADDR_BOOT, ADDR_GUESS } gasnetc_addr_how;

static void gasnetc_addr_pack(const struct sockaddr_storage *ss, gasnetc_addr_rec_t *r) {
  memset(r, 0, sizeof *r);
  if (ss->ss_family == AF_INET) {
    r->family = 4;
    memcpy(r->addr, &((const struct sockaddr_in *)ss)->sin_addr, 4);
  } else if (ss->ss_family == AF_INET6) {
    r->family = 6;
    memcpy(r->addr, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
  }
}

static void gasnetc_addr_unpack(const gasnetc_addr_rec_t *r, uint16_t port, struct sockaddr_storage *ss,
                                socklen_t *len) {
  memset(ss, 0, sizeof *ss);
  if (r->family == 4) {
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    memcpy(&a->sin_addr, r->addr, 4);
    *len = sizeof *a;
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    memcpy(&a->sin6_addr, r->addr, 16);
    *len = sizeof *a;
  }
}

static int gasnetc_addr_is_loopback(const gasnetc_addr_rec_t *r) {
  static const uint8_t v6lo[16] = { [15] = 1 };
  return (r->family == 4 && r->addr[0] == 127) || (r->family == 6 && !memcmp(r->addr, v6lo, 16));
}

static void gasnetc_addr_set(const struct sockaddr *sa) {
  gasnetc_addr_len = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
  memcpy(&gasnetc_addr, sa, gasnetc_addr_len);
}

static void gasnetc_addr_loopback(void) {
  struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  gasnetc_addr_set((struct sockaddr *)&lo);
}

/* Does interface address `a` (named `ifname`) match GASNET_NETWORK's `spec`? */
static int gasnetc_addr_matches(const char *spec, const char *ifname, const struct sockaddr *a) {
  char net[INET6_ADDRSTRLEN + 8];
  uint8_t want[16], have[16];
  if (!strcmp(spec, ifname)) return 1;
  snprintf(net, sizeof net, "%s", spec);
  char *slash = strchr(net, '/');
  if (slash) *slash = 0;
  int fam = strchr(net, ':') ? AF_INET6 : AF_INET, bytes = fam == AF_INET ? 4 : 16;
  long bits = slash ? strtol(slash + 1, NULL, 10) : bytes * 8;
  if (a->sa_family != fam || inet_pton(fam, net, want) != 1 || bits < 0 || bits > bytes * 8) return 0;
  memcpy(have, fam == AF_INET ? (const void *)&((const struct sockaddr_in *)a)->sin_addr
                              : (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr, (size_t)bytes);
  for (long b = 0; b < bits; b++)
    if ((want[b / 8] ^ have[b / 8]) & (0x80 >> (b % 8))) return 0;
  return 1;
}

/* The first up interface address that `spec` matches (NULL: the first that
 * is not loopback, IPv4 before IPv6). 0, or -1 when none does. */
static int gasnetc_addr_find(const char *spec) {
  struct ifaddrs *ifs, *i;
  int found = -1;
  if (getifaddrs(&ifs) != 0) return -1;
  for (int pass = spec ? 1 : 0; pass < 2 && found < 0; pass++) {   /* no spec: v4, then v6 */
    for (i = ifs; i && found < 0; i = i->ifa_next) {
      if (!i->ifa_addr || !(i->ifa_flags & IFF_UP)) continue;
      int fam = i->ifa_addr->sa_family;
      if (fam != AF_INET && fam != AF_INET6) continue;
      if (spec ? !gasnetc_addr_matches(spec, i->ifa_name, i->ifa_addr)
               : (i->ifa_flags & IFF_LOOPBACK) || fam != (pass ? AF_INET6 : AF_INET)
                 || (fam == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr)))
        continue;
      gasnetc_addr_set(i->ifa_addr);
      found = 0;
    }
  }
  freeifaddrs(ifs);
  return found;
}

/* The interfaces and their addresses, for the error when nothing matches. */
static void gasnetc_addr_list(char *out, size_t cap) {
  struct ifaddrs *ifs, *i;
  size_t n = 0;
  out[0] = 0;
  if (getifaddrs(&ifs) != 0) return;
  for (i = ifs; i && n + 64 < cap; i = i->ifa_next) {
    char a[INET6_ADDRSTRLEN];
    if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6)) continue;
    const void *p = i->ifa_addr->sa_family == AF_INET ? (const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr
                                                      : (const void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
    inet_ntop(i->ifa_addr->sa_family, p, a, sizeof a);
    n += (size_t)snprintf(out + n, cap - n, "%s%s %s", n ? ", " : "", i->ifa_name, a);
  }
  freeifaddrs(ifs);
}

void gasnetc_addr_first(const char *network, gasnetc_addr_rec_t *rec) {
  if (network && *network) {
    if (gasnetc_addr_find(network) < 0) {
      char have[512];
      gasnetc_addr_list(have, sizeof have);
      gasnetc_fatal("GASNET_NETWORK='%s' matches no interface, subnet or address of this host "
                    "(it has: %s)", network, have);
    }
    gasnetc_addr_how = ADDR_CHOSEN;
  } else if (boot_self_addr(&gasnetc_addr, &gasnetc_addr_len) == 0) {
    gasnetc_addr_how = ADDR_BOOT;
  } else if (gasnetc_g.nodes > 1) {
    if (gasnetc_addr_find(NULL) < 0) gasnetc_addr_loopback();
    gasnetc_addr_how = ADDR_GUESS;
  } else {
    gasnetc_addr.ss_family = AF_UNSPEC;   /* a lone rank: the transport picks */
    gasnetc_addr_len = 0;
    gasnetc_addr_how = ADDR_NONE;
  }
  gasnetc_addr_pack(&gasnetc_addr, rec);
}

void gasnetc_addr_final(const gasnetc_addr_rec_t *addrs, const gasnetc_host_rec_t *hosts, size_t stride,
                        const gasnetc_host_rec_t *myhost) {
  gasnetc_addr_rec_t me;
  gasnetc_addr_pack(&gasnetc_addr, &me);
  if (gasnetc_addr_how == ADDR_NONE || gasnetc_addr_how == ADDR_CHOSEN) return;
  if (gasnetc_addr_how == ADDR_BOOT && !gasnetc_addr_is_loopback(&me)) return;
  for (gasnet_node_t i = 0; i < gasnetc_g.nodes; i++) {
    const gasnetc_addr_rec_t *a = (const void *)((const char *)addrs + (size_t)i * stride);
    const gasnetc_host_rec_t *h = (const void *)((const char *)hosts + (size_t)i * stride);
    if (!a->family || gasnetc_addr_is_loopback(a) || gasneti_same_host(h, myhost)) continue;
    struct sockaddr_storage peer, src;
    socklen_t plen, slen = sizeof src;
    gasnetc_addr_unpack(a, 9, &peer, &plen);   /* any port: nothing is sent */
    int fd = socket(peer.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int ok = fd >= 0 && connect(fd, (struct sockaddr *)&peer, plen) == 0 &&
             getsockname(fd, (struct sockaddr *)&src, &slen) == 0;
    if (fd >= 0) close(fd);
    if (ok) gasnetc_addr_set((struct sockaddr *)&src);
    return; /* one route is enough: the others leave by the same interface or fail alike */
  }
  if (gasnetc_addr_how == ADDR_GUESS) gasnetc_addr_loopback();   /* every node is on this host */
}

void gasnetc_addr_get(struct sockaddr_storage *addr, socklen_t *len) {
  *addr = gasnetc_addr;
  *len = gasnetc_addr_len;
}
