#!/bin/bash
# timeout: 90
# t-lazy.sh - connections made on first use (t_amtcp_lazy, 8 ranks over tcp):
#   ring   each rank talks only to its 2 ring neighbours, and then holds only
#          those connections: the all-to-all that follows opens n - 3 = 5
#          sockets more on every rank (and its data verifies); with
#          GASNET_TCP_CONNECT=eager all were open at attach: 0 more.
#   race   all ranks send to all at once, right after attach, 4 jobs: every
#          pair connects both ways at once and exactly one connection each
#          survives (tcp_conns_up sums to n(n-1) = 56 per job), every
#          request arrives once, in order, its payload intact. Frames queued
#          while connecting (and replies of one read) leave together: more
#          queued frames than writes of queues; with GASNET_TCP_AGG=0 (jobs
#          3 and 4) one frame per write: no more frames than writes.
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
cd "$TOP/tests/amtcp" || exit 1
fails=0
stats="$TOP/tests/out/amtcp-lazy-stats"
sum() { cat "$stats".* 2>/dev/null | awk -v k="tcp_$1" '$1 == k {s += $2} END {print s + 0}'; }
run() { # label, want summary, env..., -- program args
  local label=$1 want=$2; shift 2
  local env=(); while [ "$1" != -- ]; do env+=("$1"); shift; done; shift
  rm -f "$stats".*
  out=$(env "${env[@]}" GASNET_STATSFILE="$stats" "$TOP/spawner/gasnetrun_tcp" -n 8 ./t_amtcp_lazy "$@" 2>&1); rc=$?
  up=$(sum conns_up); races=$(sum connect_races); badh=$(sum bad_hellos)
  qf=$(sum queue_frames); qw=$(sum queue_writes)
  rm -f "$stats".*
  echo "$out" | grep -E 'BAD|error|amtcp:' | head -10
  opened=$(echo "$out" | sed -n 's/^node [0-9]*: sockets opened by the all-to-all: \(.*\)$/\1/p' | sort | uniq -c | tr -s ' ' | tr '\n' ';')
  summary=$(echo "$out" | grep '^node 0: .*requests')
  echo "$label: expected exit 0, '$want', 56 connections up, 0 refused"
  echo "   got exit $rc, ${summary:-no summary}; sockets opened by the all-to-all (count: value): ${opened:-none}; $up up, $races races lost, $badh refused; $qf queued frames in $qw writes"
  aggok=1
  case "${env[*]} GASNET_TCP_AGG=${GASNET_TCP_AGG:-1}" in
    *GASNET_TCP_AGG=0*) [ "$qf" -le "$qw" ] || aggok=0 ;;
    *) [ "$label" = "ring, eager" ] || [ "$qf" -gt "$qw" ] || aggok=0 ;;
  esac
  [ $rc = 0 ] && echo "$summary" | grep -qF "$want" && [ "$up" = 56 ] && [ "$badh" = 0 ] && [ $aggok = 1 ] ||
    { echo "FAIL: $label"; fails=$((fails + 1)); }
}
run "ring, lazy" "handled 576 requests (expected 576), 0 bad: ok" -- ring 8
run "ring, eager" "handled 576 requests (expected 576), 0 bad: ok" GASNET_TCP_CONNECT=eager -- ring 8
for i in 1 2; do
  run "race $i" "handled 1120 requests (expected 1120), 0 bad: ok" -- race 20
done
for i in 3 4; do
  run "race $i, GASNET_TCP_AGG=0" "handled 1120 requests (expected 1120), 0 bad: ok" GASNET_TCP_AGG=0 -- race 20
done
[ $fails = 0 ] && echo "t-lazy: all passed"
exit $fails
