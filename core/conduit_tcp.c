/*
 * conduit_tcp.c - picks the transport of libgasnet-tcp-<mode>: the core
 * reaches the network only through this ops table (core/transport.h), here
 * amtcp's. Compiled into the conduit library (lib.mk), not into core's own
 * libraries; core/conduit_udp.c is its udp twin.
 */
#include "gasnetc_internal.h"

extern const gasnetc_transport_ops_t amtcp_ops;

const gasnetc_transport_ops_t *const gasnetc_conduit_ops = &amtcp_ops;
