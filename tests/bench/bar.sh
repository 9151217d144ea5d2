#!/bin/bash
# tests/bench/bar.sh - the figures behind the README's (and docs/performance.md's) comparison with
# Berkeley's udp-conduit, measured on this machine in one run:
#   1. small AM round trip vs a raw UDP busy-poll ping-pong (same run);
#   2. what a lost datagram costs: mean Short round trip at 10% injected loss
#      (Berkeley's first retransmission waits 100 ms, so at 10% loss its mean
#      would be several ms);
#   3. how long a stopped (SIGSTOP) peer takes to be declared dead with the
#      default GASNET_UDP_TIMEOUT (Berkeley: about 80 s), by death.sh. Takes
#      ~30 s; skip with BAR_SKIP_DEAD=1.
# Usage: tests/bench/bar.sh [ROUNDTRIPS]   (after contrib/build.sh)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
run="$top/spawner/gasnetrun"
n=${1:-3000}
cd "$top/tests/bench" || exit 1

clean=$(GASNET_SUPERNODE_MAXSIZE=1 "$run" -n 2 ./am_pingpong "$n" 2>&1) || { echo "$clean"; exit 1; }
lossy=$(GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 "$run" -n 2 ./am_pingpong "$n" 2>&1) || { echo "$lossy"; exit 1; }
raw=$(echo "$clean" | awk '/^raw UDP busy-poll/ {print $6, $7; exit}')
am=$(echo "$clean" | awk '/^AM Short 0 args/ {print $5, $6; exit}')
loss=$(echo "$lossy" | awk '/^AM Short 0 args/ {print $5, $6; exit}')
echo "1. small AM round trip (mean / median, us), $n round trips, 2 ranks on this host"
echo "   raw UDP busy-poll ping-pong: $raw"
echo "   AM Short round trip:         $am"
echo "$raw $am" | awk '{printf "   ratio: %.2fx of means, %.2fx of medians (Berkeley udp-conduit: about 2x)\n", $3/$1, $4/$2}'
echo "2. AM Short round trip with GASNET_UDP_DROP=0.1 (mean / median, us): $loss"
echo "$am $loss" | awk '{printf "   %.1fx the loss-free mean (Berkeley: each loss waits >= 100 ms, i.e. a mean of several ms)\n", $3/$1}'

if [ "${BAR_SKIP_DEAD:-0}" != 1 ]; then
  echo "3. a SIGSTOPped peer with the default GASNET_UDP_TIMEOUT (30 s) (Berkeley: about 80 s):"
  "$top/tests/bench/death.sh" 30 job | sed 's/^/   /'
fi
