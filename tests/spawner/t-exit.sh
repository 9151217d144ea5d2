#!/bin/bash
# t-exit.sh - the launcher exits with the first non-zero code a rank gave
# (boot_fini code or process exit status), else 0; failures print one line
# naming the rank; after one rank's boot_fini the others get
# GASNET_EXIT_GRACE, then SIGQUIT, and that is not a failure.
# timeout: 60
. "$(dirname "$0")/common.sh"
H=$(hostname)

run 20 "$GASNETRUN" -n 4 "$TB" -B 1 -r 2 7 -q "$MARK"
check_eq "rank 2 exits 7: status" "$RC" 7
check_eq "rank 2 exits 7: stderr" "$(cat "$ERR")" ""

run 20 "$GASNETRUN" -n 4 "$TB" -B 1 -e 3 -q "$MARK"
check_eq "every rank exits 3: status" "$RC" 3

run 20 "$GASNETRUN" -n 4 "$TB" -B 1 -q "$MARK"
check_eq "every rank exits 0: status" "$RC" 0

run 20 "$GASNETRUN" -n 3 true
check_eq "plain true: status" "$RC" 0

run 20 "$GASNETRUN" -n 3 sh -c 'exit 5'
check_eq "plain sh -c 'exit 5': status" "$RC" 5
check_eq "plain exit 5: message" "$(grep -c "^gasnetrun: rank [0-2] (on host $H) exited with status 5\$" "$ERR")" 1

run 20 "$GASNETRUN" -n 4 "$TB" -B 1 -a 9 -s 20 "$MARK"
check_eq "boot_abort(9) on rank 0: status" "$RC" 9
check_eq "boot_abort message" "$(cat "$ERR")" "gasnetrun: rank 0 (on host $H) aborted the job: t_boot abort"
# the others sleep 20 s: only a teardown ends the job before that
hang_check "boot_abort: the job" "$(ms_to_s "$MS")" 15 "0.1 s" || fail "abort did not tear the job down"

run 20 "$GASNETRUN" -n 4 "$TB" -B 1 -z 0 20 -r 3 0 -f -q "$MARK"
check_eq "rank exits 0 without boot_fini: status" "$RC" 1
check_eq "exit without fini: message" "$(grep -c "^gasnetrun: rank [1-3] (on host $H) exited with status 0 before calling gasnet_exit\$" "$ERR")" 1
check_eq "exit without fini: stderr lines" "$(wc -l <"$ERR")" 1
hang_check "exit without fini: the job" "$(ms_to_s "$MS")" 15 "0.1 s: rank 0 sleeps 20 s unless torn down" ||
  fail "exit without fini did not tear the job down"

# ranks that disagree on the collective: the job is torn down, named
run 20 "$GASNETRUN" -n 4 "$TB" -B 1 -m 2 "$MARK"
check_eq "mismatched collective: status" "$RC" 1
check_eq "mismatched collective: message" "$(grep -c '^gasnetrun: collective mismatch: rank [0-3] called ' "$ERR")" 1
echo "     $(head -1 "$ERR")"
check_eq "mismatched collective: survivors" "$(survivors)" 0

# rank 0 finishes with code 4 at once; 1..3 would sleep 30 s: they get
# GASNET_EXIT_GRACE=1 s, then SIGQUIT; the code is rank 0's, no failure line.
# The grace is a lower bound (the others are not cut short before it); the
# upper bound only catches a hang.
GASNET_EXIT_GRACE=1 run 20 "$GASNETRUN" -n 4 "$TB" -B 1 -z 1 30 -z 2 30 -z 3 30 -r 0 4 -q "$MARK"
check_eq "fini(4) then grace: status" "$RC" 4
check_eq "fini then grace: stderr" "$(cat "$ERR")" ""
echo "     grace ended the job in ${MS} ms (GASNET_EXIT_GRACE=1: not before 900 ms)"
[ "$MS" -ge 900 ] || fail "the others were cut short: the job ended after ${MS} ms, before the 1 s grace"
hang_check "grace then SIGQUIT: the job" "$(ms_to_s "$MS")" 15 "1 s" || fail "the grace never ended"
check_eq "survivors after grace" "$(survivors)" 0
finish
