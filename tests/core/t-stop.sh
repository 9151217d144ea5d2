#!/bin/bash
# timeout: 60
# parallel: yes  (it waits out the liveness timeout; its processes carry its own marker)
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-stop.sh - a node that stops (SIGSTOP) is detected as dead by the others
# (GASNET_UDP_TIMEOUT=1, GASNET_TCP_TIMEOUT=1): its liveness thread stops
# with it and answers no probe (docs/transports.md, "Liveness"). Node 0
# keeps sending it requests, the others poll; the job ends with a message
# naming the stopped node and a non-zero exit, within a bounded time, and no
# process survives (the stopped one included). Over the network (bypass
# off: GASNET_SUPERNODE_MAXSIZE=1) and between shared-memory neighbours
# (bypass on: the nodes share a host, and no datagram passes between them
# but the probes).
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/hang.sh"
cd "$BIN" || exit 1
marker="t-stop-$$"
# a hang is caught by t_exit itself: a node still running after 30 s
# prints SURVIVED and exits 99 (tests/bench/death.sh measures the delay)
hang_t0
out=$(GASNET_UDP_TIMEOUT=1 GASNET_TCP_TIMEOUT=1 timeout -k 5 50 "$GASNETRUN" -n 3 ./t_exit stop "$marker" 2>&1); rc=$?
secs=$(hang_secs)
hang_wait_gone 10 "0 s" "$marker"
left=$(pgrep -f -- "$marker" | wc -l)
echo "$out" | tail -8
echo "expected: non-zero exit, a line naming node 2 as dead ('no answer for 1 s: dead or stopped'), 0 processes left"
echo "got: exit $rc after ${secs}s, $left processes left"
fails=0
[ "$rc" != 0 ] || { echo "FAIL: exit 0"; fails=1; }
echo "$out" | grep -q "lost node 2 (no answer for 1 s: dead or stopped)" || { echo "FAIL: no line naming node 2"; fails=1; }
echo "$out" | grep -q "SURVIVED" && { echo "FAIL: a node survived 30 s"; fails=1; }
[ "$left" = 0 ] || { echo "FAIL: $left processes left"; pkill -KILL -f -- "$marker" 2>/dev/null; fails=1; }
hang_check "detection" "$secs" 25 "2-3 s: start-up, the timeout, up to a quarter more" || fails=1
[ $fails = 0 ] && echo "t-stop: passed"
exit $fails
