#!/bin/bash
# timeout: 180
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-ex-client.sh - a GASNet-EX client that names itself as real clients do
# and calls the GASNet-1 API without gasnet_attach or gasnet_coll_init
# (t_ex_client: the checks are listed at the top of t_ex_client.c):
# clientName NULL and "" -> GASNET_ERR_BAD_ARG (every rank, exit 0); names
# "testam", "UPCXX", "chapel_2", "my client 2.0" accepted and returned by
# gex_Client_QueryName on 2 ranks; "testam" on 1 and 4 ranks. Each run:
# GASNet-1 barriers (and their results by Berkeley's rule), collectives
# before gex_Segment_Attach, then AMs, put/get and collectives after it.
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
for bad in --null --empty; do
  for n in 1 2; do
    out=$(timeout -k 5 60 "$GASNETRUN" -n "$n" ./t_ex_client "$bad" 2>&1); rc=$?
    ok=$(echo "$out" | grep -c '): GASNET_ERR_BAD_ARG (expected GASNET_ERR_BAD_ARG)$')
    echo "== $bad -n $n: expected exit 0 and $n 'GASNET_ERR_BAD_ARG (expected ...)' lines; got exit $rc and $ok"
    [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $bad -n $n"; echo "$out" | tail -6; fails=$((fails + 1)); }
  done
done
run() { # ranks name
  local n=$1 name=$2
  out=$(timeout -k 5 100 "$GASNETRUN" -n "$n" ./t_ex_client "$name" 2>&1); rc=$?
  echo "== -n $n '$name'"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all GASNet-EX client checks passed')
  named=$(echo "$out" | grep -cF ": gex_Client_QueryName: '$name', expected '$name'")
  mism=$(echo "$out" | grep -c 'others anonymous waiting 6: GASNET_ERR_BARRIER_MISMATCH, as expected')
  want_mism=$(( (n - 1) * 2 ))
  echo "-n $n: expected exit 0, $n 'all ... passed', $n QueryName and $want_mism MISMATCH lines; got exit $rc, $ok, $named, $mism"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] && [ "$named" = "$n" ] && [ "$mism" = "$want_mism" ] \
    || { echo "FAIL: -n $n '$name'"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
for name in testam UPCXX chapel_2 "my client 2.0"; do run 2 "$name"; done
run 1 testam
run 4 testam
[ $fails = 0 ] && echo "t-ex-client: all passed"
exit $fails
