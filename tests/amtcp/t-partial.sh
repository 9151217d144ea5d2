#!/bin/bash
# t-partial.sh - partial writes under large frames: 1 MiB Longs both ways at
# once on every connection (node i -> i+1 while i-1 -> i), with socket
# buffers shrunk to 16 KiB (GASNET_TCP_SOCKBUF) so every frame is written in
# many pieces and queued; each payload is checked in place by its receiver.
# The transport's counters must show the partial writes and the in-place
# reads (place()) that happened. Then the same with the default buffers,
# and with GASNET_TCP_AGG=0 (a queue written one frame per sendmsg).
# timeout: 120
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
cd "$TOP/tests/amtcp" || exit 1
fails=0
stats="$TOP/tests/out/amtcp-partial-stats"
for spec in "2 16384" "3 16384" "2 default" "2 16384 0"; do
  set -- $spec; n=$1; buf=$2; agg=${3:-1}
  env=(GASNET_TCP_AGG=$agg); [ "$buf" = default ] || env+=(GASNET_TCP_SOCKBUF=$buf)
  out=$(env "${env[@]}" GASNET_STATSFILE="$stats" "$TOP/spawner/gasnetrun_tcp" -n "$n" ./t_amtcp_traffic both 40 2>&1); rc=$?
  summary=$(echo "$out" | grep '^node 0: all nodes')
  pw=$(sed -n 's/^tcp_partial_writes //p' "$stats.0"); pl=$(sed -n 's/^tcp_frames_placed //p' "$stats.0")
  zc=$(sed -n 's/^tcp_zcopy_waits //p' "$stats.0")
  want=$((40 * n))
  echo "-n $n, socket buffers $buf, GASNET_TCP_AGG=$agg: expected exit 0, 'handled $want requests (expected $want), 0 bad: ok', 40 placed"
  echo "   got exit $rc, ${summary:-no summary}; node 0: $pw partial writes, $zc zero-copy waits, ${pl:-?} frames placed"
  echo "$out" | grep -E 'BAD|error' | head -5
  ok=1
  [ "$rc" = 0 ] && echo "$summary" | grep -q "handled $want requests (expected $want), 0 bad: ok" || ok=0
  [ "${pl:-0}" = 40 ] || ok=0
  [ "$buf" = default ] || [ "${pw:-0}" -gt 0 ] || ok=0
  [ $ok = 1 ] || { echo "FAIL: -n $n $buf"; fails=$((fails + 1)); }
  rm -f "$stats".*
done
[ $fails = 0 ] && echo "t-partial: all passed"
exit $fails
