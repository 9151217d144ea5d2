#!/bin/bash
# timeout: 60
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
GASNET_UDP_MTU=1472 "$bin" 4 60 3
# A flood of small frames mixed with large ones (10% up to 4 MiB): bursts of
# 100 small frames per peer sent without polling leave aggregated (unless
# GASNET_UDP_AGG=0); counts and checksums are checked order-independently.
echo "== AMUDP_TEST_BURST=100 t_amudp_stress 4 300 10"
AMUDP_TEST_BURST=100 "$bin" 4 300 10
# IPv6: bound to ::1 (skipped when the host has no IPv6 loopback).
if [ -e /proc/net/if_inet6 ] && grep -q '^0\{31\}1 ' /proc/net/if_inet6; then
  echo "== AMUDP_TEST_BIND=::1 t_amudp_stress 3 100 3"
  AMUDP_TEST_BIND=::1 "$bin" 3 100 3
else
  echo "SKIPPED PART: the IPv6 run (no ::1 on this host)"
fi
