#!/bin/bash
# timeout: 120
# t-exit-codes.sh - the job's exit code as docs/launcher.md states it:
#  - a code the shell cannot show as it is becomes 1: boot_fini(300) (what
#    gasnet_exit(300) calls) gives 1, not 300 & 255 = 44; 256 gives 1, not
#    0 (success); -1 gives 1; 255 stays 255;
#  - a rank killed by signal 9 while its shared-memory neighbours wait on
#    it is reported as killed by the signal, exit 137, although a neighbour
#    may see it gone and abort ("lost node 3 (exited)") before the launcher
#    reaps it: 20 runs of t_live pause (4 ranks, bypass on), rank 3 killed
#    with -9 each time; every run must say "rank 3 ... killed by signal 9"
#    and exit 137, none "aborted the job".
. "$(dirname "$0")/common.sh"
LIVE=$TOP/tests/core/t_live
[ -x "$LIVE" ] || { echo "FAIL: $LIVE not built"; exit 1; }

for c in 300:1 256:1 -1:1 255:255 3:3; do
  code=${c%%:*} want=${c#*:}
  run 20 "$GASNETRUN" -n 3 "$TB" -B 1 -e "$code" -q "$MARK"
  check_eq "every rank boot_fini($code): status" "$RC" "$want"
done
run 20 "$GASNETRUN" -n 4 "$TB" -B 1 -r 2 300 -q "$MARK"
check_eq "rank 2 alone boot_fini(300): status" "$RC" 1

# signal 9 with shared memory on (the library's default)
unset GASNET_SUPERNODE_MAXSIZE
runs=20 good=0 aborted=0
for i in $(seq $runs); do
  : >"$T/o"  # now: the job's own redirection may come after the first read below
  timeout -k 2 30 "$GASNETRUN" -n 4 "$LIVE" pause 20 >"$T/o" 2>"$T/e" </dev/null &
  job=$!
  pid=""
  for k in $(seq 200); do
    pid=$(sed -n 's/^t_live: node 3: pid \([0-9]*\)$/\1/p' "$T/o")
    [ -n "$pid" ] && break
    sleep 0.05
  done
  [ -n "$pid" ] && kill -KILL "$pid"
  wait "$job"; rc=$?
  if [ "$rc" = 137 ] && grep -q "^gasnetrun: rank 3 (on host .*) killed by signal 9 (SIGKILL)" "$T/e" \
     && ! grep -q "aborted the job" "$T/e"; then
    good=$((good + 1))
  else
    grep -q "aborted the job" "$T/e" && aborted=$((aborted + 1))
    echo "  run $i: exit $rc (want 137); stderr: $(head -n 2 "$T/e" | tr '\n' '|')"
  fi
done
echo "  kill -9 of rank 3 (shared memory on): $good of $runs runs reported signal 9 with exit 137 ($aborted reported a peer's abort)"
check_eq "runs reporting the signal" "$good" "$runs"
check_eq "survivors" "$(pgrep -f "$LIVE pause" | wc -l)" 0
finish
