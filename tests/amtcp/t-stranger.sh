#!/bin/bash
# t-stranger.sh - strangers at a rank's door: while a job runs (idle mode,
# 3 s), connect to node 1's listening port and send garbage, and once more
# send nothing; node 1 must log "refused a connection" for each,
# not crash, and the job must finish normally (exit 0, totals ok). On 2
# ranks (poll reads the peer directly) and on 4 (poll uses epoll).
# timeout: 60
# parallel: yes  (its jobs idle 3 s while it knocks; the port is found by the rank's pid)
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
cd "$TOP/tests/amtcp" || exit 1
command -v ss >/dev/null || { echo "SKIPPED: ss (iproute2) is needed to find the port"; exit 77; }
fails=0
for n in 2 4; do
  log=$(mktemp)
  "$TOP/spawner/gasnetrun_tcp" -n $n ./t_amtcp_traffic idle 3 >"$log" 2>&1 &
  job=$!
  for i in $(seq 300); do grep -q '^node 1 pid' "$log" && break; sleep 0.1; done
  pid=$(sed -n 's/^node 1 pid \([0-9]*\)$/\1/p' "$log")
  port=$(ss -ltnpH | grep "pid=$pid," | awk '{print $4}' | sed 's/.*://' | head -1)
  echo "-n $n: node 1 (pid $pid) listens on port $port"
  (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'GET / HTTP/1.0\r\n\r\n%0300d' 0 >&3; sleep 0.3) 2>/dev/null
  (exec 3<>"/dev/tcp/127.0.0.1/$port"; sleep 0.3) 2>/dev/null
  wait $job; rc=$?
  got=$(grep -c 'amtcp: rank 1: refused a connection from 127.0.0.1:[0-9]*: \(bad magic or version\|closed before its handshake\)' "$log")
  grep -E 'amtcp:|all nodes' "$log"
  echo "-n $n: expected exit 0, 2 'refused a connection' lines (bad magic, closed before its handshake), totals ok; got exit $rc, $got lines"
  [ "$rc" = 0 ] && [ "$got" = 2 ] && grep -q 'all nodes.*0 bad: ok' "$log" || { echo "FAIL -n $n"; fails=$((fails + 1)); }
  rm -f "$log"
done
[ $fails = 0 ] && echo "t-stranger: all passed"
exit $fails
