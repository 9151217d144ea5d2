/*
 * conduit/udp.c - what libgasnet-udp-<mode> is assembled from: the core
 * (core/), the UDP transport serving the peers of other hosts and the
 * shared-memory one (amshm/) those of this rank's neighbourhood, and the extended API
 * (extended-ref/), which registers itself with the core here. The core
 * knows its transports and the layers above only through this table
 * (core/gasnetc_internal.h, gasnetc_conduit_t). Compiled into the conduit
 * library (lib.mk), not into core's own libraries.
 */
#include "gasnetc_internal.h"

extern const gasnetc_transport_ops_t amudp_ops, amshm_ops;
extern const gasnetc_extension_t gasnete_extension;
extern const gasnetc_live_ops_t live_udp_ops;

const gasnetc_conduit_t gasnetc_conduit = {
  .name = "udp",
  .transports = { &amudp_ops, &amshm_ops },
  .ntransports = 2,
  .route = gasnetc_route_nbrhd, /* shared memory within the neighbourhood */
  .extensions = { &gasnete_extension },
  .nextensions = 1,
  .live = &live_udp_ops, /* probes answered by a thread, over UDP */
  .live_timeout_env = "GASNET_UDP_TIMEOUT", /* amudp's: shm neighbours die the same way */
};
