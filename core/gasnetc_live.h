/*
 * gasnetc_live.h - the liveness service (gasnetc_live.c): every process
 * answers probes from a thread of its own, on a UDP socket of its own, so
 * that a peer that computes without polling is told from one that is gone
 * or stopped (docs/transports.md, "Liveness"). The transports ask for
 * probes and read the answers through cfg.live_probe / cfg.live_heard and
 * decide with core/transport_live.h.
 *
 * The probe datagram, defined here once. 40 bytes, integers LITTLE-ENDIAN:
 *
 *  off size field
 *    0   2  magic    GASNETC_LIVE_MAGIC
 *    2   1  version  GASNETC_LIVE_VERSION
 *    3   1  type     GASNETC_LIVE_PROBE or GASNETC_LIVE_ECHO
 *    4   4  src      sender's rank
 *    8   4  dst      receiver's rank
 *   12   4  reserved 0
 *   16   8  stamp    PROBE: the prober's gasneti_now_ns() when it sent it;
 *                    ECHO: the probe's stamp, unchanged
 *   24  16  mac      the first 16 bytes of HMAC-SHA256(job key,
 *                    GASNETC_LIVE_LABEL | bytes 0..23)
 *
 * A probe is answered by an echo to the address the prober advertised. The
 * prober records the stamp, not the arrival: a replayed old echo proves
 * nothing newer than its probe.
 */
#ifndef GASNETC_LIVE_H
#define GASNETC_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "transport.h"

#define GASNETC_LIVE_MAGIC   0x4c47u /* "GL" little-endian */
#define GASNETC_LIVE_VERSION 1u
#define GASNETC_LIVE_HDR     24u     /* bytes covered by the MAC */
#define GASNETC_LIVE_MAC     16u
#define GASNETC_LIVE_LEN     (GASNETC_LIVE_HDR + GASNETC_LIVE_MAC)
#define GASNETC_LIVE_LABEL   "gasnet live v1"

enum { GASNETC_LIVE_PROBE = 1, GASNETC_LIVE_ECHO = 2 };

_Static_assert(GASNETC_LIVE_HDR == 2 + 1 + 1 + 4 + 4 + 4 + 8, "fields add up to the header");
_Static_assert(GASNETC_LIVE_LEN == 40, "a probe is 40 bytes");

/* Open the socket (port 0, at cfg->bind_addr, as the transports), read the
 * timeout that the conduit names for its transports without a variable of
 * their own (into cfg->live_timeout_ns), and set cfg's live_* callbacks. A
 * job of one rank opens nothing. 0, or -errno after one line naming the
 * step. */
int gasnetc_live_open(gasnetc_transport_config_t *cfg);
/* The socket's address blob (core/transport_addr.h) into GASNETC_ADDR_MAX
 * bytes, for the attach exchange; zeros when nothing was opened. */
void gasnetc_live_address(void *blob);
/* GEX_FLAG_DEFER_THREADS: gasnetc_live_connect starts no thread; the client
 * runs gasnetc_live_deferred()'s function (NULL: no thread to start, e.g. a
 * job of one rank) in a joinable thread, which gasnetc_live_close joins. */
void gasnetc_live_defer(void);
void *(*gasnetc_live_deferred(void))(void *);
/* Learn every rank's blob (rank r's at blobs + r * stride) and start the
 * thread. 0, or -errno after one line. */
int gasnetc_live_connect(const void *blobs, size_t stride);
/* Counters, "live_NAME value" lines, for GASNET_STATSFILE. */
void gasnetc_live_stats(FILE *out);
/* Stop the thread (it answers until then) and free everything. */
void gasnetc_live_close(void);

#endif /* GASNETC_LIVE_H */
