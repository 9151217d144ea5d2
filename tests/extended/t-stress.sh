#!/bin/bash
# t-stress.sh - random extended-API traffic (t_stress: blocking, nb, nbi and
# access-region puts/gets/memsets/value ops to random ranks and offsets,
# then every rank compares all it wrote with its model) on 2, 4 and 8
# ranks, then on 4 and 2 ranks with injected loss, duplication and
# reordering, and once built for GASNET_PARSYNC (t_stress_parsync).
# timeout: 200
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# agg: on off
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
prog=./t_stress
run() { # label ranks ops seed [env...]
  local label=$1 n=$2 ops=$3 seed=$4; shift 4
  out=$(env "$@" "$GASNETRUN" -n "$n" $prog "$ops" "$seed" 2>&1); rc=$?
  echo "$out" | tail -n "$n"
  got=$(echo "$out" | grep -c 'slices match the model')
  echo "$label: expected exit 0 and $n 'match the model' lines; got exit $rc and $got"
  [ "$rc" = 0 ] && [ "$got" = "$n" ] || { echo "FAIL: $label"; echo "$out" | tail -20; fails=$((fails + 1)); }
}
run "-n 2" 2 3000 1
run "-n 4" 4 3000 2
run "-n 8" 8 2000 3
# Fault injection is the udp transport's; these runs set the bypass off
# themselves, so [udp,noshm] would repeat [udp]'s (not so with
# aggregation off: [udp,noshm,noagg] runs them too).
if [ "$CONDUIT" = udp ] && { [ "$BYPASS" = on ] || agg_off; }; then
  run "-n 4 with GASNET_UDP_DROP=0.1 DUP=0.05 REORDER=0.05" 4 1500 4 \
    GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05
  run "-n 2 with GASNET_UDP_DROP=0.1 DUP=0.05 REORDER=0.05" 2 1500 5 \
    GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05
fi
prog=./t_stress_parsync
run "GASNET_PARSYNC -n 3" 3 1500 6
[ $fails = 0 ] && echo "t-stress: all passed"
exit $fails
