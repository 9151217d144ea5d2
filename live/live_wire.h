/*
 * live_wire.h - the liveness service's probe datagram (live/live_udp.c).
 * The service is a transport of its own, outside the
 * core: every process answers probes from a thread of its own, on a UDP
 * socket of its own, so that a peer that computes without polling is told
 * from one that is gone or stopped (docs/transports.md, "Liveness"). The
 * core knows it only through core/transport_live.h (gasnetc_live_ops_t,
 * listed by the conduit); the transports ask for probes through
 * cfg.live_probe / cfg.live_heard and decide with gasnetc_live_watch there.
 *
 * The probe datagram, defined here once. 40 bytes, integers LITTLE-ENDIAN:
 *
 *  off size field
 *    0   2  magic    LIVE_MAGIC
 *    2   1  version  LIVE_VERSION
 *    3   1  type     LIVE_PROBE or LIVE_ECHO
 *    4   4  src      sender's rank
 *    8   4  dst      receiver's rank
 *   12   4  reserved 0
 *   16   8  stamp    PROBE: the prober's gasneti_now_ns() when it sent it;
 *                    ECHO: the probe's stamp, unchanged
 *   24  16  mac      the first 16 bytes of HMAC-SHA256(job key,
 *                    LIVE_LABEL | bytes 0..23)
 *
 * A probe is answered by an echo to the address the prober advertised. The
 * prober records the stamp, not the arrival: a replayed old echo proves
 * nothing newer than its probe.
 */
#ifndef LIVE_WIRE_H
#define LIVE_WIRE_H

#include <stdint.h>

#define LIVE_MAGIC   0x4c47u /* "GL" little-endian */
#define LIVE_VERSION 1u
#define LIVE_HDR     24u /* bytes covered by the MAC */
#define LIVE_MAC     16u
#define LIVE_LEN     (LIVE_HDR + LIVE_MAC)
#define LIVE_LABEL   "gasnet live v1"

enum { LIVE_PROBE = 1, LIVE_ECHO = 2 };

_Static_assert(LIVE_HDR == 2 + 1 + 1 + 4 + 4 + 4 + 8, "fields add up to the header");
_Static_assert(LIVE_LEN == 40, "a probe is 40 bytes");

#endif /* LIVE_WIRE_H */
