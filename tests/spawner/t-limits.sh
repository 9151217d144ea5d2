#!/bin/bash
# t-limits.sh - -n is checked against this host's limits before anything is
# forked (docs/launcher.md, "Too many ranks for this host"): one line
# naming the limit and its value, exit status 2, no rank started, at once:
#  - -n 100000: beyond the kernel's process ids or the descriptor limit;
#  - in a subshell with ulimit -n 64: -n 30 needs about 106 descriptors
#    (3 per rank + 16), RLIMIT_NOFILE 64 is named; -n 10 (46) runs;
#  - as user nobody (root is exempt from RLIMIT_NPROC) with ulimit -u 20:
#    -n 30 names RLIMIT_NPROC 20; -n 5 runs.
# timeout: 60
. "$(dirname "$0")/common.sh"
ran() { ls "$T"/ran.* 2>/dev/null | wc -l; }

run 10 "$GASNETRUN" -n 100000 sh -c "touch $T/ran.\$\$" "$MARK"
echo "     -n 100000: $(cat "$ERR") (${MS} ms)"
check_eq "-n 100000: status" "$RC" 2
check_eq "-n 100000: a line naming a limit and its value" \
  "$(grep -cE '^gasnetrun: -n 100000: .*(kernel.pid_max is|kernel.threads-max is|RLIMIT_NPROC \(ulimit -u\) of|RLIMIT_NOFILE \(ulimit -n\) is) [0-9]+' "$ERR")" 1
check_eq "-n 100000: ranks started" "$(ran)" 0
hang_check "-n 100000 refused" "$(ms_to_s "$MS")" 5 "0.01 s" || fail "the check was not up front"

out=$(ulimit -n 64; timeout 10 "$GASNETRUN" -n 30 sh -c "touch $T/ran.\$\$" "$MARK" 2>&1); rc=$?
echo "     ulimit -n 64, -n 30: $out"
check_eq "ulimit -n 64, -n 30: status" "$rc" 2
check_eq "ulimit -n 64, -n 30: message" \
  "$(echo "$out" | grep -c '^gasnetrun: -n 30: 30 ranks need about 106 descriptors .* RLIMIT_NOFILE (ulimit -n) is 64;')" 1
check_eq "ulimit -n 64, -n 30: ranks started" "$(ran)" 0
out=$(ulimit -n 64; timeout 10 "$GASNETRUN" -n 10 sh -c "touch $T/ran.\$\$" "$MARK" 2>&1); rc=$?
check_eq "ulimit -n 64, -n 10: status" "$rc" 0
check_eq "ulimit -n 64, -n 10: ranks started" "$(ran)" 10
rm -f "$T"/ran.*

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
  nob=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  "${nob[@]}" true 2>/dev/null || nob=(setpriv --reuid=nobody --regid=nobody --clear-groups)
  out=$("${nob[@]}" bash -c 'ulimit -u 20; exec timeout 10 "$0" -n 30 true "$1"' "$GASNETRUN" "$MARK" 2>&1); rc=$?
  echo "     nobody, ulimit -u 20, -n 30: $out"
  check_eq "nobody, ulimit -u 20, -n 30: status" "$rc" 2
  check_eq "nobody, ulimit -u 20, -n 30: message" \
    "$(echo "$out" | grep -c '^gasnetrun: -n 30: 30 ranks do not fit in the process limit RLIMIT_NPROC (ulimit -u) of 20: this user runs [0-9]* processes')" 1
  out=$("${nob[@]}" bash -c 'ulimit -u 20; exec timeout 10 "$0" -n 5 true "$1"' "$GASNETRUN" "$MARK" 2>&1); rc=$?
  check_eq "nobody, ulimit -u 20, -n 5: status" "$rc" 0
else
  echo "     (RLIMIT_NPROC part skipped: needs root, setpriv and user nobody; root itself is exempt)"
fi
check_eq "survivors" "$(survivors)" 0
finish
