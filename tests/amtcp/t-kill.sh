#!/bin/bash
# timeout: 120
# t-kill.sh - a peer lost mid-transfer ends the job: 4 ranks stream 256 KiB
# Longs to each other; after 1 s
#   kill     node 2 is killed (SIGKILL): the job must end with a non-zero
#            code and a message naming rank/node 2 (the launcher's, or the
#            transport's "lost node 2"), no process left;
#   reset    node 2's connections are torn down with RST while it lives
#            (ss -K, if the kernel allows it): a transport must report it,
#            from either end: "lost node 2 (connection
#            reset)" from a peer, or "lost node N
#            (connection aborted) ... (on node 2 of 4)" from node 2 itself.
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
cd "$TOP/tests/amtcp" || exit 1
. "$TOP/tests/lib/hang.sh"
fails=0
for how in kill reset; do
  marker="t-kill-$how-$$"
  log=$(mktemp)
  "$TOP/spawner/gasnetrun_tcp" -n 4 ./t_amtcp_traffic stream 20 "$marker" >"$log" 2>&1 &
  job=$!
  for i in $(seq 300); do grep -q '^node 2 pid' "$log" && break; sleep 0.1; done
  sleep 1
  victim=$(sed -n 's/^node 2 pid \([0-9]*\)$/\1/p' "$log")
  hang_t0
  if [ $how = kill ]; then
    kill -9 "$victim"; want='rank 2 .*killed by signal 9|lost node 2'
  else
    # node 2's connections to its peers, whichever end opened them (lazy
    # connects race: it may have opened all of them, accepted none): a
    # connection on its listening port, or to a peer's; not its launcher's
    pids=$(sed -n 's/^node [0-9]* pid \([0-9]*\)$/\1/p' "$log")
    listens=" $(for p in $pids; do ss -ltnpH 2>/dev/null | grep "pid=$p," | awk '{print $4}' | sed 's/.*://'; done | tr '\n' ' ')"
    mine=$(ss -ltnpH 2>/dev/null | grep "pid=$victim," | awk '{print $4}' | sed 's/.*://' | head -1)
    killed=0
    while read -r l r; do
      [ "$l" = "$mine" ] || [[ "$listens" = *" $r "* ]] || continue
      ss -K -tn "sport = :$l and dport = :$r" >/dev/null 2>&1 && killed=$((killed + 1))
    done < <(ss -tnpH state established 2>/dev/null | grep "pid=$victim," |
             awk '{ l = $3; r = $4; sub(/.*:/, "", l); sub(/.*:/, "", r); print l, r }')
    if [ -z "$mine" ] || [ "$killed" = 0 ]; then
      echo "SKIPPED PART: reset (ss -K needs iproute2, root and INET_DIAG_DESTROY)"; kill -9 "$victim"; wait $job; rm -f "$log"; continue
    fi
    echo "reset: $killed of node 2's peer connections"

    want='lost node 2 \(connection (reset|aborted)\)|lost node [0-9]+ \(connection (reset|aborted)\).*on node 2 of 4'
  fi
  wait $job; rc=$?
  secs=$(hang_secs)
  hang_wait_gone 10 "0 s" "$marker"
  left=$(pgrep -f -- "$marker" | wc -l)
  grep -vE '^node [0-9]+ pid' "$log" | head -5
  echo "$how: expected non-zero exit, a line matching '$want', 0 processes left"
  echo "   got exit $rc after ${secs}s, $left processes left"
  if [ "$rc" = 0 ] || ! grep -qE "$want" "$log" || [ "$left" != 0 ]; then
    echo "FAIL: $how"; fails=$((fails + 1)); pkill -KILL -f -- "$marker" 2>/dev/null
  fi
  rm -f "$log"
done
[ $fails = 0 ] && echo "t-kill: all passed"
exit $fails
