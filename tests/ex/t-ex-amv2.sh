#!/bin/bash
# timeout: 240
# conduits: udp tcp
# t-ex-amv2.sh - GASNet-EX v0.19's gex_AM_Commit*_v2 and gex_AM_Cancel*
# (t_ex_amv2: the checks are listed at the top of t_ex_amv2.c) on 1, 2 and
# 4 ranks, each target comparing what arrived with what was committed;
# then on 2 ranks with one request credit (udp) or a 4 KiB socket buffer and
# no queue (tcp), where GEX_FLAG_IMMEDIATE commits must be refused (udp:
# some of the 2000 of the flood; over tcp, where amtcp lends no buffer and
# a Commit cannot learn of a full queue, the count is only printed). Under
# [tcp] with the bypass on only "little room" runs (shm_repeats).
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
run() { # label, ranks, env...
  local label=$1 n=$2; shift 2
  out=$(env "$@" timeout -k 5 100 "$GASNETRUN" -n "$n" ./t_ex_amv2 2>&1); rc=$?
  echo "== $label"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all Commit_v2 and Cancel checks passed')
  exact=$(echo "$out" | grep -c 'exactly the committed requests arrived')
  echo "-n $n: expected exit 0, $n 'all ... passed' and $n 'exactly the committed' lines; got exit $rc, $ok, $exact"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] && [ "$exact" = "$n" ] || { echo "FAIL: $label"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
if shm_repeats; then
  echo "== -n 1, 2, 4: one host's jobs, through shared memory as in [udp]: not repeated here"
else
  run "-n 1 (loopback)" 1
  run "-n 2" 2
  run "-n 4" 4
fi
run "-n 2, little room" 2 GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_CREDITS=1 GASNET_TCP_QUEUE_MAX=0 GASNET_TCP_SOCKBUF=4096
refused=$(echo "$out" | sed -n 's/^node [0-9]*: immediate commits: \([0-9]*\) of 2000 refused$/\1/p' | awk '{ s += $1 } END { print s + 0 }')
if [ "$refused" -gt 0 ]; then
  echo "GEX_FLAG_IMMEDIATE: $refused Commit*_v2 refused as room ran out; each was committed again or cancelled, and the counts matched"
elif [ "$CONDUIT" = tcp ]; then
  echo "GEX_FLAG_IMMEDIATE: no Commit*_v2 refused over tcp (expected: amtcp lends no buffer and takes what it is given)"
else
  echo "FAIL: no Commit*_v2 with GEX_FLAG_IMMEDIATE was refused with one request credit"; fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-ex-amv2: all passed"
exit $fails
