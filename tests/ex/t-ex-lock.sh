#!/bin/bash
# timeout: 180
# conduits: udp tcp
# omit: tcp  (with the bypass on every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-ex-lock.sh - a lock word and a counter handed between the ranks of one
# host with blocking value puts and gets (t_ex_lock.c), every turn checked
# exactly: in GASNET_WAIT_SPIN (2 ranks, 300000 turns each, three runs) and
# GASNET_WAIT_BLOCK with sched_yield (2 and 4 ranks). Bypass on, a put to a
# neighbour is a store into its mapped segment: when it was a memmove, whose
# 4-byte copy stores the word twice, the second store of a preempted rank
# undid the next rank's hand-off and a rank saw an old turn ("the lock said
# turn 1801 ... should be 1803"), in most spin runs within a second. [noshm]
# runs the same over the network (RMA as AMs), with fewer turns.
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
run() { # ranks, mode, turns
  local n=$1 mode=$2 turns=$3
  out=$(timeout 60 "$GASNETRUN" -n "$n" ./t_ex_lock "$mode" "$turns" 2>&1); rc=$?
  ok=$(echo "$out" | grep -c ": $mode: $turns turns of $n ranks in order, counter $((turns * n)) ")
  if [ "$rc" = 0 ] && [ "$ok" = "$n" ]; then
    echo "ok   -n $n $mode: $turns turns a rank, $ok of $n ranks saw every turn in order"
  else
    echo "FAIL -n $n $mode $turns: exit $rc, $ok of $n ranks passed (want exit 0 and $n)"
    echo "$out" | grep -m3 FAIL | sed 's/^/     | /'
    fails=$((fails + 1))
  fi
}
if [ "$BYPASS" = on ]; then
  for i in 1 2 3; do run 2 spin 300000; done
  run 2 block 300000
  run 4 block 100000
else
  run 2 spin 3000
  run 2 block 3000
fi
[ $fails = 0 ] && echo "t-ex-lock: all passed"
exit $fails
