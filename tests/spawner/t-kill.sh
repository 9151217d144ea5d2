#!/bin/bash
# t-kill.sh - kill -9 of one rank: every other rank is torn down, the
# launcher exits non-zero with one line naming that rank and SIGKILL.
# kill -9 of the launcher: every rank exits on its own; ps shows none.
# A rank that leaves a child behind holding its stdout: the child is killed
# once the job is over (no orphan).
# timeout: 60
. "$(dirname "$0")/common.sh"
H=$(hostname)

"$GASNETRUN" -n 8 "$TB" -P -B 1 -s 60 "$MARK" >"$T/out" 2>"$T/err" </dev/null &
lp=$!
wait_for 30 sh -c "[ \$(grep -c '^pid:' '$T/out') = 8 ]" || fail "ranks did not start"
victim=$(sed -n 's/^pid: rank 5 pid \([0-9]*\)$/\1/p' "$T/out")
echo "     killing rank 5 (pid $victim)"
hang_t0
kill -9 "$victim"
wait $lp; rc=$?
secs=$(hang_secs)
check_eq "kill -9 rank 5: launcher status" "$rc" 137
check_eq "kill -9 rank 5: message" "$(cat "$T/err")" "gasnetrun: rank 5 (on host $H) killed by signal 9 (SIGKILL) before calling gasnet_exit"
hang_check "teardown after the kill" "$secs" 30 "0.1 s" || fail "teardown hung"
check_eq "kill -9 rank 5: survivors" "$(survivors)" 0

"$GASNETRUN" -n 8 "$TB" -P -B 1 -s 60 "$MARK" >"$T/out" 2>"$T/err" </dev/null &
lp=$!
wait_for 30 sh -c "[ \$(grep -c '^pid:' '$T/out') = 8 ]" || fail "ranks did not start"
hang_t0
kill -9 $lp
wait $lp 2>/dev/null
wait_for 30 no_survivors
hang_check "ranks ending after kill -9 of the launcher" "$(hang_secs)" 30 "0.1 s"
check_eq "kill -9 launcher: survivors" "$(survivors)" 0
ps -eo pid,ppid,args | grep "$MARK" | grep -v grep

run 10 "$GASNETRUN" -n 2 sh -c "env -u GASNET_BOOT_FD '$TB' -s 30 -q $MARK & echo started"
check_eq "rank leaving a child: status" "$RC" 0
check_eq "rank leaving a child: output" "$(cat "$OUT")" "started
started"
echo "     the job ended in ${MS} ms"
wait_for 30 no_survivors
check_eq "rank leaving a child: survivors" "$(survivors)" 0
finish
