#!/bin/bash
# timeout: 150
# conduits: udp tcp
# t-portals.sh - Portals 3.2 semantics (t_ptl, docs/portals.md) over real
# jobs: 2 ranks (one initiator-target pair) and 4 (two pairs at once), each
# rank checking data and events exactly: put/get with every MD option,
# match and ignore bits, source ids and wildcards, insertion order,
# thresholds and UNLINK events, max_offset, truncation, unlink_nofit,
# ACK_DISABLE, rejected requests counted and eventless, EQ overflow,
# PtlMDUpdate's test queue, loopback, argument errors. The bypass variant
# decides the path: shared memory ([udp], [tcp]) or the network ([*,noshm]);
# the 4-rank job with GASNET_SUPERNODE_MAXSIZE=2 uses both at once.
set -u
. "$TOP/tests/lib/conduit.sh"
fails=0
run() { # label, ranks, env...
  local label=$1 n=$2; shift 2
  out=$(env "$@" timeout 100 "$GASNETRUN" -n "$n" "$BIN/t_ptl" 2>&1); rc=$?
  got=$(echo "$out" | grep -c 'all [0-9]* checks passed')
  if [ $rc = 0 ] && [ "$got" = "$n" ]; then
    echo "PASS $label: $n of $n ranks passed every check"
    echo "$out" | grep 'at distance' | sed 's/^/   /'
  else
    echo "FAIL $label: exit $rc, $got of $n ranks passed"; echo "$out" | tail -20 | sed 's/^/   /'
    fails=$((fails + 1))
  fi
}
run "t_ptl 2 ranks" 2
run "t_ptl 4 ranks" 4
[ "$BYPASS" = on ] && run "t_ptl 4 ranks, neighbourhoods of 2" 4 GASNET_SUPERNODE_MAXSIZE=2
# A peer killed while the others wait in PtlEQWait: the job ends, naming it.
start=$(date +%s)
out=$(T_PTL_KILL=1 timeout 60 "$GASNETRUN" -n 4 "$BIN/t_ptl" 2>&1); rc=$?
took=$(( $(date +%s) - start ))
if [ $rc != 0 ] && [ $rc != 124 ] && echo "$out" | grep -q 'rank 1.*signal 9\|lost rank 1'; then
  echo "PASS killed peer: the job ended in ${took}s (exit $rc), naming rank 1:"
  echo "$out" | grep 'rank 1' | head -2 | sed 's/^/   /'
else
  echo "FAIL killed peer: exit $rc after ${took}s"; echo "$out" | tail -10 | sed 's/^/   /'
  fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-portals: all passed"
exit $fails
