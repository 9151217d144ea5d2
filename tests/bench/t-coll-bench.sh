#!/bin/bash
# timeout: 180
# t-coll-bench.sh - the collectives benchmark (coll_bench): an 8 B
# gex_Coll_BroadcastNB and a one-element gex_Coll_ReduceToAllNB (U64 and
# DBL) beside gex_Coll_BarrierNB and the raw UDP dissemination barrier, in
# one run, over the network (GASNET_SUPERNODE_MAXSIZE=1) on 2, 4 and 8
# ranks and on one host on 4 ranks. Passes when every run completes with
# its 2 summary lines; the goal (bcast and reduce-to-all <= 1.5x the
# barrier over the network) is printed with the measured ratios, not
# enforced: the machine is shared.
set -u
cd "$TOP/tests/bench" || exit 1
fails=0
bench() { # label, ranks, env
  echo "== $1: $3 gasnetrun_udp -n $2 ./coll_bench 200 3"
  out=$(env "$3" "$TOP/spawner/gasnetrun_udp" -n "$2" ./coll_bench 200 3 2>&1); rc=$?
  echo "$out"
  got=$(echo "$out" | grep -c '^summary:')
  echo "$1, -n $2: expected exit 0 and 2 summary lines; got exit $rc and $got"
  [ "$rc" = 0 ] && [ "$got" = 2 ] || { echo "FAIL: $1, -n $2"; fails=$((fails + 1)); }
}
for n in 2 4 8; do bench network $n GASNET_SUPERNODE_MAXSIZE=1; done
bench host 4 GASNET_SUPERNODE_MAXSIZE=0
exit $fails
