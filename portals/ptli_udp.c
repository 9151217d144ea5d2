/*
 * ptli_udp.c - libportals3-udp: the network transport between hosts is
 * amudp (reliable datagrams over UDP); amshm serves each neighbourhood.
 */
#include "ptli.h"

extern const gasnetc_transport_ops_t amudp_ops;
const gasnetc_transport_ops_t *const ptli_net_ops = &amudp_ops;
