/*
 * conduit/mix.c - a conduit for the tests only (libgasnet-mix-<mode>, not
 * installed): both transports at once, UDP and TCP, each serving half of
 * the peers. It proves what the next transport (shared memory for the
 * ranks of one host) relies on: a route table with mixed entries, two
 * transports' descriptors in the one wait, frames from both delivered to
 * one endpoint. The pair (a, b) goes over TCP when a + b is odd, else over
 * UDP, so both ends agree and every rank with 3 or more peers uses both.
 */
#include "gasnetc_internal.h"

extern const gasnetc_transport_ops_t amudp_ops, amtcp_ops;
extern const gasnetc_extension_t gasnete_extension;
extern const gasnetc_live_ops_t live_udp_ops;

static unsigned gasnetc_mix_route(gasnet_node_t me, gasnet_node_t peer) {
  return (me + peer) & 1u;
}

const gasnetc_conduit_t gasnetc_conduit = {
  .name = "mix",
  .transports = { &amudp_ops, &amtcp_ops },
  .ntransports = 2,
  .route = gasnetc_mix_route,
  .extensions = { &gasnete_extension },
  .nextensions = 1,
  .live = &live_udp_ops, /* probes answered by a thread, over UDP */
};
