#!/bin/bash
# t-exit.sh - gasnet_exit from any node at any time (spec 2.1.0.5): the
# launcher returns that node's code and no process of the job survives.
# timeout: 150
# conduits: udp tcp mix
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# (No [noagg] run: without aggregation an exit's few frames leave one by
# one, the simple case; frames still gathered when a node exits, the case
# that needs care, are the runs with aggregation on.)
#   poll     last node exits 42 while the others poll     -> 42
#   compute  last node exits 42 while the others compute  -> 42 (SIGQUIT,
#            GASNET_EXIT_GRACE=0.5 after it)
#   handler  a request handler calls gasnet_exit(43)       -> 43
#   return   last node returns 44 from main()              -> 44
#   barrier  8 nodes: barrier, print, gasnet_exit(0) at once  -> 0, and
#            every node's line after the barrier, with the number its
#            neighbour put (5 runs: the first node out must not end the
#            others inside the barrier)
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/hang.sh"
cd "$BIN" || exit 1
fails=0
marker="t-exit-$$"
for spec in poll:42 compute:42 handler:43 return:44 barrier:0; do
  mode=${spec%%:*}; want=${spec#*:}
  if [ "$mode" = barrier ]; then
    lost=0
    for run in 1 2 3 4 5; do
      out=$("$GASNETRUN" -n 8 ./t_exit barrier "$marker" 2>&1); rc=$?
      good=0
      for i in 0 1 2 3 4 5 6 7; do
        from=$(( (i + 7) % 8 ))
        echo "$out" | grep -q "^node $i: after the barrier, got 0x5eed000$from from node $from\$" && good=$((good + 1))
      done
      echo "barrier run $run: expected exit 0 and 8 of 8 lines after the barrier; got exit $rc and $good"
      if [ "$rc" != 0 ] || [ "$good" != 8 ]; then
        lost=$((lost + 1)); echo "$out" | sed 's/^/     | /' | tail -10
      fi
    done
    [ $lost = 0 ] || { echo "FAIL: barrier ($lost of 5 runs)"; fails=$((fails + 1)); }
    continue
  fi
  # compute: the others never poll, so only the launcher's SIGQUIT ends
  # them, GASNET_EXIT_GRACE (2 s by default, docs/launcher.md) after node
  # 3's exit: half a second of it is the same path, sooner
  grace=(); [ "$mode" = compute ] && grace=(GASNET_EXIT_GRACE=0.5)
  hang_t0
  out=$(env "${grace[@]}" "$GASNETRUN" -n 4 ./t_exit "$mode" "$marker" 2>&1); rc=$?
  secs=$(hang_secs)
  # the launcher reaps its ranks before it exits: nothing should be left
  hang_wait_gone 10 "0 s" "$marker"
  left=$(pgrep -f -- "$marker" | wc -l)
  surv=$(echo "$out" | grep -c SURVIVED)
  echo "$mode: expected exit $want, 0 survivors; got exit $rc, $left processes left, $surv SURVIVED lines, ${secs}s"
  if [ "$rc" != "$want" ] || [ "$left" != 0 ] || [ "$surv" != 0 ]; then
    echo "FAIL: $mode"; echo "$out" | sed 's/^/     | /' | tail -10; fails=$((fails + 1))
    pkill -KILL -f -- "$marker" 2>/dev/null
  fi
done
[ $fails = 0 ] && echo "t-exit: all passed"
exit $fails
