#!/bin/bash
# t-stop.sh - a node that stops (SIGSTOP) is detected as dead by the others
# (GASNET_UDP_TIMEOUT=3): node 0 keeps sending it requests, the job ends
# with a message naming the stopped node and a non-zero exit, and no process
# survives (the stopped one included). The nodes share a host: the
# shared-memory bypass is turned off (GASNET_SUPERNODE_MAXSIZE=1), for it
# sees a process exit (pidfd) but not a stopped one.
# timeout: 60
set -u
cd "$TOP/tests/core" || exit 1
. "$TOP/tests/lib/hang.sh"
marker="t-stop-$$"
# a hang is caught by t_exit itself: a node still running after 30 s
# prints SURVIVED and exits 99 (tests/bench/death.sh measures the delay)
hang_t0
out=$(GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_TIMEOUT=3 "$GASNETRUN" -n 3 ./t_exit stop "$marker" 2>&1); rc=$?
secs=$(hang_secs)
hang_wait_gone 10 "0 s" "$marker"
left=$(pgrep -f -- "$marker" | wc -l)
echo "$out" | tail -8
echo "expected: non-zero exit, a line naming node 2 as dead, 0 processes left"
echo "got: exit $rc after ${secs}s, $left processes left"
if [ "$rc" != 0 ] && echo "$out" | grep -q "lost node 2" && [ "$left" = 0 ]; then
  echo "t-stop: passed"; exit 0
fi
pkill -KILL -f -- "$marker" 2>/dev/null
echo "FAIL"; exit 1
