/*
 * conduit_udp.c - picks the transport of libgasnet-udp-<mode>: the core
 * reaches the network only through this ops table (core/transport.h). A tcp
 * conduit supplies its own conduit_tcp.c with &amtcp_ops; the core is the same.
 * Compiled into the conduit library (lib.mk), not into core's own libraries.
 */
#include "gasnetc_internal.h"

extern const gasnetc_transport_ops_t amudp_ops;

const gasnetc_transport_ops_t *const gasnetc_conduit_ops = &amudp_ops;
