#!/bin/bash
# timeout: 60
# conduits: udp tcp
# bypass: on
# t-shm-kill.sh - a rank killed with SIGKILL while the others wait on it
# (t_exit kill: node 0 blocked for its reply, the others polling) over
# shared memory: the job ends with a message naming it and a non-zero
# exit: the others' "lost node 2 (exited)" (they see its exit through a
# pidfd), or the launcher's, when it tears the job down first; no process
# survives and nothing is left in /dev/shm or /tmp (the regions are
# memfds: nothing has a name). The bypass's own test: only with it on.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/hang.sh"
cd "$TOP/tests/core" || exit 1
bin=./t_exit; [ "$CONDUIT" = tcp ] && bin=./tcp/t_exit
marker="t-shm-kill-$$"
before=$(ls -A /dev/shm /tmp 2>/dev/null | sort)
hang_t0
out=$("$GASNETRUN" -n 3 $bin kill "$marker" 2>&1); rc=$?
secs=$(hang_secs)
hang_wait_gone 10 "0 s" "$marker"
left=$(pgrep -f -- "$marker" | wc -l)
after=$(ls -A /dev/shm /tmp 2>/dev/null | sort)
new=$(comm -13 <(echo "$before") <(echo "$after") | grep -v '^$' | grep -v ':$')
echo "$out" | tail -6
echo "expected: non-zero exit, 'lost node 2 (exited)' or the launcher's 'rank 2 ... killed by signal 9', 0 processes left, nothing new in /dev/shm or /tmp"
echo "got: exit $rc after ${secs}s, $left processes left, new entries: ${new:-none}"
fails=0
[ "$rc" != 0 ] || { echo "FAIL: exit 0"; fails=1; }
if echo "$out" | grep -q "lost node 2 (exited)"; then echo "named by its peers (pidfd)"
elif echo "$out" | grep -q "rank 2 .*killed by signal 9"; then echo "named by the launcher (first to tear the job down)"
else echo "FAIL: no line naming node 2"; fails=1; fi
[ "$left" = 0 ] || { echo "FAIL: $left processes left"; pkill -KILL -f -- "$marker"; fails=1; }
# /tmp is shared with the machine's other users: only names that could be ours count
ours=$(echo "$new" | grep -iE 'gasnet|shm|memfd|t_exit' || true)
[ -z "$ours" ] || { echo "FAIL: left behind: $ours"; fails=1; }
[ -n "$new" ] && [ -z "$ours" ] && echo "(new entries not ours: $new)"
[ $fails = 0 ] && echo "t-shm-kill: passed"
exit $fails
