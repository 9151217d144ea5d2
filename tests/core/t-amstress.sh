#!/bin/bash
# agg: on off
# timeout: 200
# conduits: udp tcp mix
# omit: tcp mix,noshm,noagg  ([tcp]: every job here is one host's, tcp would carry nothing with the bypass on; [mix,noshm,noagg]: each transport's path without aggregation is its own conduit's [noagg])
# t-amstress.sh - the AM stress test (t_amstress: every category, M = 0..16,
# random payloads up to the maxima, storms between all pairs) on 2, 4 and 8
# ranks, then on 8 ranks again with injected loss, duplication and
# reordering; the faulty run must pass with the same totals as the clean one
# (the traffic is seeded, so the totals are identical). The faulty run is
# udp only (GASNET_UDP_* fault injection: under mix, on the pairs UDP
# serves); under tcp it is skipped, and in [noshm] (it sets the bypass off
# itself: [udp]'s and [mix]'s run it) unless aggregation is off.
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
run() { # label, env..., -- , ranks
  local label=$1; shift
  echo "== $label"
  out=$(env "$@" 2>&1); rc=$?
  echo "$out" | grep -E 'node 0:|error|FAIL|GASNet' | head -20
  total=$(echo "$out" | sed -n 's/^node 0: all nodes: \(.*\)$/\1/p')
  echo "exit $rc; totals: ${total:-none}"
  [ "$rc" = 0 ] && [ -n "$total" ] || { echo "FAIL: $label"; fails=$((fails + 1)); }
}
for n in 2 4; do run "clean, $n ranks" "$GASNETRUN" -n $n ./t_amstress 300; done
run "clean, 8 ranks" "$GASNETRUN" -n 8 ./t_amstress 300
clean=$total
# The faulty run sets the bypass off itself: [udp,noshm] and [mix,noshm]
# would repeat [udp]'s and [mix]'s (with aggregation off it differs).
if { [ "$CONDUIT" = udp ] || [ "$CONDUIT" = mix ]; } && { [ "$BYPASS" = on ] || agg_off; }; then
run "8 ranks, GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05" \
  GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05 "$GASNETRUN" -n 8 ./t_amstress 300
echo "clean totals:  $clean"
echo "faulty totals: $total"
[ -n "$clean" ] && [ "$clean" = "$total" ] || { echo "FAIL: totals differ"; fails=$((fails + 1)); }
else
  echo "the faulty run: udp and mix, with the bypass on or aggregation off (GASNET_UDP_* fault injection; it sets the bypass off itself): not run here"
fi
[ $fails = 0 ] && echo "t-amstress: all passed"
exit $fails
