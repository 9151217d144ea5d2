/*
 * ptli_tcp.c - libportals3-tcp: the network transport between hosts is
 * amtcp (a TCP connection per peer pair); amshm serves each neighbourhood.
 */
#include "ptli.h"

extern const gasnetc_transport_ops_t amtcp_ops;
const gasnetc_transport_ops_t *const ptli_net_ops = &amtcp_ops;
