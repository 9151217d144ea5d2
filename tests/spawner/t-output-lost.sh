#!/bin/bash
# t-output-lost.sh - output the launcher cannot deliver is not lost in
# silence (issue 41): with its stdout on /dev/full (every write fails,
# ENOSPC), a job whose ranks all print and exit 0 makes the launcher say
# on stderr that the ranks' stdout could not be written, how many bytes
# were lost, and exit 1. The same job with stdout on a file exits 0 with
# an empty stderr.
# timeout: 30
. "$(dirname "$0")/common.sh"

run 20 "$GASNETRUN" -n 4 "$TB" -p 50 100 -q "$MARK"
check_eq "stdout to a file: exit" "$RC" 0
check_eq "stdout to a file: lines" "$(wc -l <"$OUT")" 200
check_eq "stdout to a file: stderr" "$(cat "$ERR")" ""

s=$(date +%s%N)
timeout -k 2 20 "$GASNETRUN" -n 4 "$TB" -p 50 100 -q "$MARK" >/dev/full 2>"$T/err" </dev/null
RC=$?; MS=$(( ($(date +%s%N) - s) / 1000000 ))
check_eq "stdout to /dev/full: exit" "$RC" 1
check_eq "stdout to /dev/full: the failure, said at once" \
  "$(grep -c "^gasnetrun: cannot write the ranks' stdout: No space left on device; the job will exit 1\$" "$T/err")" 1
check_eq "stdout to /dev/full: the count at the end" \
  "$(sed -n "s/^gasnetrun: \([0-9]*\) bytes of the ranks' stdout were lost: No space left on device\$/\1/p" "$T/err")" \
  "$((4 * 50 * 101))"
check_eq "stdout to /dev/full: nothing else on stderr" "$(wc -l <"$T/err")" 2
finish
