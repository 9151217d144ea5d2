#!/bin/bash
# timeout: 90
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
echo "== GASNET_UDP_MTU=1472, same faults: t_amudp_stress 4 60 3"
GASNET_UDP_MTU=1472 "$bin" 4 60 3
