#!/bin/bash
# timeout: 150
# UDP transport under injected faults: the same stress test as t-stress.sh
# must pass identically with GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05
# GASNET_UDP_REORDER=0.05 (the counters printed show the faults happened).
set -eu
bin="${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amudp/t_amudp_stress"
export GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05
for spec in "2 200 5" "4 100 5" "8 40 3" "4 1000 0"; do
  echo "== GASNET_UDP_DROP=$GASNET_UDP_DROP GASNET_UDP_DUP=$GASNET_UDP_DUP GASNET_UDP_REORDER=$GASNET_UDP_REORDER t_amudp_stress $spec"
  out=$("$bin" $spec) || { echo "$out"; exit 1; }
  echo "$out"
  # the faults must really have been injected on every rank
  if echo "$out" | grep '^rank' | grep -q 'fault drop/dup/reorder 0/'; then
    echo "a rank injected no drops: fault injection did not run"; exit 1
  fi
done
# Sequence numbers wrap past 2^32 (they start 296 below it here), under the
# same faults: serial-number arithmetic in acks, sacks and duplicate checks.
echo "== GASNET_UDP_ISN=4294967000 (wraps), same faults: t_amudp_stress 4 300 1"
GASNET_UDP_ISN=4294967000 "$bin" 4 300 1
# The three runs at the Ethernet MTU send 30 frames per pair (they sent 60:
# 5 s each, the 3% large frames each cut into dozens of datagrams, each
# lost 10% of the time): still about one large frame per pair each.
echo "== GASNET_UDP_MTU=1472, same faults: t_amudp_stress 4 30 3 (GSO sends and GRO reads)"
GASNET_UDP_MTU=1472 "$bin" 4 30 3
# Congestion control (on loopback only with GASNET_UDP_CC=2) under the same
# faults: windows cut by loss, timeouts and undos, frames still exactly once.
echo "== GASNET_UDP_CC=2 GASNET_UDP_MTU=1472, same faults: t_amudp_stress 4 30 3"
GASNET_UDP_CC=2 GASNET_UDP_MTU=1472 "$bin" 4 30 3
echo "== GASNET_UDP_GSO=0 GASNET_UDP_MTU=1472, same faults: t_amudp_stress 4 30 3"
GASNET_UDP_GSO=0 GASNET_UDP_MTU=1472 "$bin" 4 30 3
# ACKs on the one socket (GASNET_UDP_ACK_SOCKET=0; the ack socket is the
# default every other run here uses).
echo "== GASNET_UDP_ACK_SOCKET=0, same faults: t_amudp_stress 4 100 5"
GASNET_UDP_ACK_SOCKET=0 "$bin" 4 100 5
# Aggregation under the same faults: a burst of 60 small frames per peer
# queues behind 2 request credits and leaves in aggregate datagrams; each
# rank's first aggregate of 20 frames or more also loses its first
# transmission (GASNET_UDP_DROP_AGG=20). Every frame in it must be recovered exactly once
# (the stress test checks each frame's count and bytes), and the lost
# aggregate must have carried at least 20 frames.
if [ "${GASNET_UDP_AGG:-1}" = 0 ]; then
  echo "SKIPPED PART: lost aggregates (GASNET_UDP_AGG=0)"
else
  echo "== GASNET_UDP_CREDITS=2 GASNET_UDP_DROP_AGG=20 AMUDP_TEST_BURST=60, same faults: t_amudp_stress 4 200 2"
  out=$(GASNET_UDP_CREDITS=2 GASNET_UDP_DROP_AGG=20 AMUDP_TEST_BURST=60 "$bin" 4 200 2) || { echo "$out"; exit 1; }
  echo "$out"
  echo "$out" | grep '^rank' | sed 's/.*aggregates lost once \([0-9]*\) carrying \([0-9]*\) frames.*/\1 \2/' |
    while read -r lost frames; do
      if [ "$lost" -ne 1 ] || [ "$frames" -lt 20 ]; then
        echo "a rank lost $lost aggregates carrying $frames frames: want 1 of at least 20"; exit 1
      fi
      echo "lost $lost aggregate(s) carrying $frames frames: each recovered exactly once"
    done
fi
