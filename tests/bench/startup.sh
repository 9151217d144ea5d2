#!/bin/bash
# bench/startup.sh [REPS] - time local jobs of 2, 16, 64 and 256 ranks from
# launch to exit, each rank doing boot_init + one barrier + boot_fini
# (bench/startup_rank), through the real launcher. Beside each size: the time
# to fork/exec+wait as many /bin/true (bench/startup_ref), measured in the
# same run, since the machine is shared and noisy: the ratio is what matters.
# Prints min and median in milliseconds. Goal: 64 ranks < 400 ms.
# STARTUP_SIZES (default "2 16 64 256") sets the job sizes.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
run=${GASNETRUN:-$top/spawner/gasnetrun}
rank=$top/tests/bench/startup_rank
ref=$top/tests/bench/startup_ref
reps=${1:-7}
[ -x "$run" ] && [ -x "$rank" ] && [ -x "$ref" ] || { echo "startup.sh: build first (make)"; exit 1; }

. "$top/tests/bench/timing.sh"

printf "%-6s %-34s %-34s %s\n" ranks "gasnetrun start+barrier+exit (ms)" "fork/exec+wait /bin/true (ms)" ratio
for n in ${STARTUP_SIZES:-2 16 64 256}; do
  r=$reps; [ $n = 256 ] && r=$(( (reps + 1) / 2 ))
  job=$(for i in $(seq $r); do ms_of "$run" -n $n "$rank"; done | stats)
  raw=$(for i in $(seq $r); do "$ref" $n /bin/true; done | stats)
  jm=$(echo "$job" | awk '{print $4}'); rm=$(echo "$raw" | awk '{print $4}')
  printf "%-6s %-34s %-34s %s\n" $n "$job" "$raw" "$(echo "scale=1; $jm / $rm" | bc)x"
done
