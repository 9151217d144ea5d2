#!/bin/bash
# tests/bench/teardown.sh [REPS] - how fast gasnetrun ends a job that goes
# wrong, from the event to the launcher's exit (or, when the launcher is the
# one killed, to the last rank's end), locally (8 ranks) and through the
# fake-ssh spawn tree (16 ranks on 8 relays, fan-out 2):
#   kill -9 of one rank; SIGTERM to the launcher; kill -9 of the launcher.
# The ranks (tests/spawner/t_boot) would otherwise sleep 30 s. Reference:
# GASNET_KILL_GRACE (2 s), what a teardown costs when a rank ignores SIGTERM
# and has to wait for the SIGKILL. Prints the median of REPS (default 3)
# in milliseconds; never asserts (the tests only check for hangs).
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
run=${GASNETRUN:-$top/spawner/gasnetrun}
tb=$top/tests/spawner/t_boot
reps=${1:-3}
[ -x "$run" ] && [ -x "$tb" ] || { echo "teardown.sh: build first (make)"; exit 1; }
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SPAWNFN
mark="bench-teardown-$$"
log=$(mktemp)
trap 'pkill -KILL -f -- "$mark"; rm -f "$log"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%7.1f", v[int((NR + 1) / 2)] }'; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }'; }

# one_run N EVENT [HOSTS]: start N ranks, wait for them, cause EVENT, print ms
one_run() {
  local n=$1 event=$2 hosts=${3:-} t0 victim
  GASNET_SSH_CMD=$top/tests/spawner/fake-ssh GASNET_SSH_OUT_DEGREE=2 \
    "$run" -n "$n" ${hosts:+-H "$hosts"} "$tb" -P -B 1 -s 30 -q "$mark" >"$log" 2>&1 </dev/null &
  local lp=$!
  until [ "$(grep -c '^pid:' "$log")" -ge "$n" ] || ! kill -0 $lp 2>/dev/null; do sleep 0.01; done
  victim=$(sed -n 's/^pid: rank 1 pid \([0-9]*\)$/\1/p' "$log")
  t0=$EPOCHREALTIME
  case $event in
    rank) kill -KILL "$victim"; wait $lp ;;
    term) kill -TERM $lp; wait $lp ;;
    launcher) kill -KILL $lp; wait $lp 2>/dev/null
              while pgrep -f -- "$mark" >/dev/null; do sleep 0.01; done ;;
  esac
  since "$t0"
}

printf "%-34s %14s %14s\n" "event (median of $reps, ms)" "local, 8 ranks" "tree, 16 ranks"
for event in rank term launcher; do
  case $event in
    rank) what="kill -9 of one rank" ;; term) what="SIGTERM to the launcher" ;;
    launcher) what="kill -9 of the launcher" ;;
  esac
  l=$(for i in $(seq "$reps"); do one_run 8 $event; done | median)
  t=$(for i in $(seq "$reps"); do one_run 16 $event h1,h2,h3,h4,h5,h6,h7,h8; done | median)
  printf "%-34s %14s %14s\n" "$what" "$l" "$t"
done
echo "reference: GASNET_KILL_GRACE = ${GASNET_KILL_GRACE:-2} s, the wait for SIGKILL when a rank ignores SIGTERM"
