#!/bin/bash
# timeout: 90
# UDP transport, loss-free: 2, 4 and 8 ranks send each other frames of
# random sizes 0..max_payload (plus requests answered from inside deliver,
# plus frames placed in place); every frame and reply arrives exactly once,
# byte-for-byte intact.
set -eu
bin="${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amudp/t_amudp_stress"
for spec in "2 200 5" "4 100 5" "8 40 3" "2 3000 1"; do
  echo "== t_amudp_stress $spec"
  "$bin" $spec
done
# The Ethernet-sized path: GASNET_UDP_MTU=1472, so a 4 MiB frame is ~2900
# datagrams, reassembled in place.
echo "== GASNET_UDP_MTU=1472 t_amudp_stress 4 60 3"
out=$(GASNET_UDP_MTU=1472 "$bin" 4 60 3) || { echo "$out"; exit 1; }
echo "$out"
# There runs of full-size fragments leave as UDP GSO sends (UDP_SEGMENT)
# and arrive coalesced (UDP_GRO), where the kernel has both.
if [ "${GASNET_UDP_GSO:-1}" = 0 ] || [ "${GASNET_UDP_SENDMMSG:-1}" = 0 ]; then
  echo "SKIPPED PART: GSO check (turned off in the environment)"
elif echo "$out" | grep '^rank' | grep -q 'gso sends 0 '; then
  echo "a rank sent no GSO datagram at MTU 1472"; exit 1
fi
# The fallbacks: no GSO/GRO (GASNET_UDP_GSO=0: every datagram its own, in
# sendmmsg batches), and no batching at all (GASNET_UDP_SENDMMSG=0: one
# sendmsg per datagram), on the same Ethernet-sized path.
echo "== GASNET_UDP_GSO=0 GASNET_UDP_MTU=1472 t_amudp_stress 4 60 3"
out=$(GASNET_UDP_GSO=0 GASNET_UDP_MTU=1472 "$bin" 4 60 3) || { echo "$out"; exit 1; }
echo "$out"
if ! echo "$out" | grep '^rank' | grep -q 'gso sends 0 carrying 0 datagrams, gro reads 0;'; then
  echo "GASNET_UDP_GSO=0 still sent or read GSO datagrams"; exit 1
fi
echo "== GASNET_UDP_SENDMMSG=0 GASNET_UDP_MTU=1472 t_amudp_stress 4 60 3"
GASNET_UDP_SENDMMSG=0 GASNET_UDP_MTU=1472 "$bin" 4 60 3
# A flood of small frames mixed with large ones (10% up to 4 MiB): bursts of
# 100 small frames per peer sent without polling leave aggregated (unless
# GASNET_UDP_AGG=0); counts and checksums are checked order-independently.
echo "== AMUDP_TEST_BURST=100 t_amudp_stress 4 300 10"
AMUDP_TEST_BURST=100 "$bin" 4 300 10
# Peer sockets (docs/transport-udp.md): by default every rank sends single
# datagrams to each of its 3 peers by a socket connected to it; with
# GASNET_UDP_PEER_SOCKETS=1 to one peer so and to the others from the data
# socket (both ports accepted at once); with 0 all from the data socket.
for ps in default 1 0; do
  want=$([ $ps = default ] && echo 3 || echo $ps)
  echo "== GASNET_UDP_PEER_SOCKETS=$ps t_amudp_stress 4 100 5"
  setting=; [ $ps = default ] || setting=GASNET_UDP_PEER_SOCKETS=$ps
  out=$(env $setting "$bin" 4 100 5) || { echo "$out"; exit 1; }
  echo "$out"
  got=$(echo "$out" | grep -c "peer sockets $want (errors 0)\$" || true)
  [ "$got" = 4 ] || { echo "GASNET_UDP_PEER_SOCKETS=$ps: $got of 4 ranks opened $want peer sockets"; exit 1; }
done
echo "== GASNET_UDP_ACK_SOCKET=0 (ACKs on the one socket) t_amudp_stress 4 100 5"
GASNET_UDP_ACK_SOCKET=0 "$bin" 4 100 5
# IPv6: bound to ::1 (skipped when the host has no IPv6 loopback).
if [ -e /proc/net/if_inet6 ] && grep -q '^0\{31\}1 ' /proc/net/if_inet6; then
  echo "== AMUDP_TEST_BIND=::1 t_amudp_stress 3 100 3"
  AMUDP_TEST_BIND=::1 "$bin" 3 100 3
else
  echo "SKIPPED PART: the IPv6 run (no ::1 on this host)"
fi
