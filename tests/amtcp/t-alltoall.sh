#!/bin/bash
# t-alltoall.sh - 64 ranks, all-to-all AM traffic over tcp: every node sends
# every node (itself too) Mediums of 16 B, 4000 B and 64 KiB and 32 KiB
# Longs, 2 rounds, each payload checked byte for byte by its receiver; node 0
# checks that the requests handled job-wide equal 2 x 2 x 64 x 64. Run with
# the default socket buffers, then with 16 KiB ones (GASNET_TCP_SOCKBUF), where
# frames must be written in pieces and queued (the counters must show it).
# 64 processes on a small host: kept light (about 80 MB moved per run).
# timeout: 180
# agg: on off
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
cd "$TOP/tests/amtcp" || exit 1
fails=0
stats="$TOP/tests/out/amtcp-a2a-stats"
for buf in default 16384; do
  env=(); [ $buf = default ] || env=(GASNET_TCP_SOCKBUF=$buf)
  start=$(date +%s.%N)
  out=$(env "${env[@]}" GASNET_STATSFILE="$stats" "$TOP/spawner/gasnetrun_tcp" -n 64 ./t_amtcp_traffic a2a 2 2>&1); rc=$?
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  echo "$out" | grep -E 'BAD|error|GASNet' | head -10
  summary=$(echo "$out" | grep '^node 0: all nodes')
  partial=$(cat "$stats".* 2>/dev/null | awk '/^tcp_partial_writes/ {s += $2} END {print s + 0}')
  queued=$(cat "$stats".* 2>/dev/null | awk '/^tcp_frames_queued/ {s += $2} END {print s + 0}')
  rm -f "$stats".*
  echo "socket buffers $buf: expected exit 0 and 'handled 16384 requests (expected 16384), 0 bad: ok'"
  echo "   got exit $rc after ${secs}s; ${summary:-no summary}; all ranks: $partial partial writes, $queued frames queued"
  ok=1
  [ "$rc" = 0 ] && echo "$summary" | grep -q 'handled 16384 requests (expected 16384), 0 bad: ok' || ok=0
  [ $buf = default ] || [ "$partial" -gt 0 ] || ok=0
  [ $ok = 1 ] || { echo "FAIL: socket buffers $buf"; fails=$((fails + 1)); }
done
[ $fails = 0 ] && echo "t-alltoall: all passed"
exit $fails
