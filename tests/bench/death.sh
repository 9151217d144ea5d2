#!/bin/bash
# tests/bench/death.sh [TIMEOUT] [transport|job|both] - how long the udp
# conduit takes to give up on a stopped (SIGSTOP) peer, beside its reference,
# the configured GASNET_UDP_TIMEOUT (default here 2 s; the library's own
# default is 30 s):
#   transport  3 ranks of amudp alone (tests/amudp/t_amudp_dead): the time
#              from the stop to each other rank's peer_dead callback, for a
#              rank owing the stopped one data and for one only waiting;
#   job        gasnetrun -n 3 tests/core/t_exit stop: the time from node 2's
#              last line (it stops itself right after) to the job's end, and
#              the line naming the dead node. The job's end also waits
#              GASNET_KILL_GRACE (2 s): a stopped rank cannot act on the
#              launcher's SIGTERM, only on the SIGKILL that follows.
# Prints figures, never asserts (the tests only check that detection does
# not hang): exits non-zero only when a run could not be made.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# udp's timeout is measured: the shared-memory bypass off (its ranks share a host)
export GASNET_SUPERNODE_MAXSIZE=1
run=${GASNETRUN:-$top/spawner/gasnetrun}
timeout=${1:-2}
what=${2:-both}
dead=$top/tests/amudp/t_amudp_dead
texit=$top/tests/core/t_exit
[ -x "$run" ] && [ -x "$dead" ] && [ -x "$texit" ] || { echo "death.sh: build first (make)"; exit 1; }
rc=0
echo "GASNET_UDP_TIMEOUT=$timeout s: the reference a dead peer is measured against"

if [ "$what" != job ]; then
  out=$(GASNET_UDP_TIMEOUT=$timeout "$dead" 2>&1) || rc=1
  echo "$out" | awk -v t="$timeout" '
    /peer_dead\(rank 2/ { for (i = 1; i < NF; i++) if ($i == "after") s = $(i + 1)
                          who = ($0 ~ /unacked data/) ? "owing it data" : "only waiting"
                          printf "  transport: rank %s (%s) gave up after %s s: %.2fx the timeout\n", $2, who, s, s / t }'
  [ $rc = 0 ] || { echo "  transport run failed:"; echo "$out" | sed 's/^/    /'; }
fi

if [ "$what" != transport ]; then
  marker="bench-death-$$"
  log=$(mktemp)
  T_EXIT_BOUND=$(awk -v t="$timeout" 'BEGIN { printf "%d", 2 * t + 30 }') \
    GASNET_UDP_TIMEOUT=$timeout "$run" -n 3 "$texit" stop "$marker" >"$log" 2>&1 &
  job=$!
  # node 2 prints its line after the start-up barrier, then stops itself
  until grep -q '^node 2: pid' "$log" || ! kill -0 $job 2>/dev/null; do sleep 0.01; done
  t0=$EPOCHREALTIME
  wait $job; jrc=$?
  secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
  echo "$secs $timeout" | awk '{ printf "  job: ended %s s after node 2 stopped: %.2fx the timeout", $1, $1 / $2 }'
  echo " (exit $jrc; GASNET_KILL_GRACE=${GASNET_KILL_GRACE:-2} s of it is the stopped rank's SIGKILL)"
  grep -m1 'dead' "$log" | sed 's/^/    /'
  grep -q 'dead' "$log" || { rc=1; sed 's/^/    /' "$log"; }
  pkill -KILL -f -- "$marker" 2>/dev/null
  rm -f "$log"
fi
exit $rc
