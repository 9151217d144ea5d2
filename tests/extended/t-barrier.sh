#!/bin/bash
# t-barrier.sh - barrier semantics of spec 3.5 (t_barrier) on 1, 2, 4 and 8
# ranks: fixed and random combinations of named / anonymous / mismatch
# notifies and waits (by wait and by try) give the prescribed result on
# every node, barriers separate phases, and gasnet_barrier_try returns
# GASNET_ERR_NOT_READY until every node has notified.
# timeout: 120
# conduits: udp tcp mix
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
for n in 1 2 4 8; do
  out=$("$GASNETRUN" -n "$n" ./t_barrier 2>&1); rc=$?
  echo "$out" | grep -v '^case' ; [ "$n" = 4 ] && echo "$out" | grep '^case'
  got=$(echo "$out" | grep -c 'as spec 3.5 prescribes')
  nr=$(echo "$out" | grep -c 'GASNET_ERR_NOT_READY while node')
  want_nr=1; [ "$n" = 1 ] && want_nr=0
  echo "-n $n: expected exit 0, $n 'prescribes' lines, $want_nr NOT_READY line; got exit $rc, $got, $nr"
  [ "$rc" = 0 ] && [ "$got" = "$n" ] && [ "$nr" = "$want_nr" ] || { echo "FAIL: -n $n"; fails=$((fails + 1)); }
done
[ $fails = 0 ] && echo "t-barrier: all passed"
exit $fails
