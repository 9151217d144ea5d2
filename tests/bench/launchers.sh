#!/bin/bash
# bench/launchers.sh [REPS] - start-up under each launcher, in one run: jobs
# of 16 and 64 ranks from launch through a barrier to exit, twice: the
# bootstrap alone (bench/startup_rank: boot_init, boot_barrier, boot_fini)
# and a whole GASNet program (bench/startup_gasnet: gasnet_init, attach,
# barrier, gasnet_exit, udp conduit), under gasnetrun,
# MPICH's mpiexec (PMI-1) and srun --mpi=pmi2 (a one-node Slurm this script
# starts when run as root, tests/lib/slurm.sh). Beside each, the launcher's
# floor measured in the same run: the same launcher starting as many
# /bin/true (for gasnetrun, bench/startup_ref's fork/exec+wait of /bin/true).
# Prints min and median in milliseconds and the median ratio. Goal: within
# 1.5x of each launcher's floor. A launcher that is missing is left out.
# LAUNCH_SIZES (default "16 64") sets the job sizes.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
run=${GASNETRUN:-$top/spawner/gasnetrun}
rank=$top/tests/bench/startup_rank
prog=$top/tests/bench/startup_gasnet
ref=$top/tests/bench/startup_ref
reps=${1:-5}
[ -x "$run" ] && [ -x "$rank" ] && [ -x "$prog" ] && [ -x "$ref" ] || { echo "launchers.sh: build first (make)"; exit 1; }
. "$top/tests/lib/slurm.sh"
trap 'slurm_stop' EXIT

. "$top/tests/bench/timing.sh"
ratio() { echo "scale=2; $(echo "$1" | awk '{print $4}') / $(echo "$2" | awk '{print $4}')" | bc; }
# launch LABEL FLOOR-CMD... -- LAUNCH-CMD...: one row per size; the job
# command is LAUNCH-CMD -n N PROG, the floor FLOOR-CMD N /bin/true (or, for
# a launcher, FLOOR-CMD -n N /bin/true)
launch() {
  local label=$1 n boot full raw; shift
  local -a floor=() cmd=()
  while [ "$1" != -- ]; do floor+=("$1"); shift; done; shift; cmd=("$@")
  for n in ${LAUNCH_SIZES:-16 64}; do
    boot=$(for i in $(seq $reps); do ms_of "${cmd[@]}" -n $n "$rank"; done | stats)
    full=$(for i in $(seq $reps); do ms_of "${cmd[@]}" -n $n "$prog"; done | stats)
    if [ "${floor[0]}" = "$ref" ]; then raw=$(for i in $(seq $reps); do "$ref" $n /bin/true; done | stats)
    else raw=$(for i in $(seq $reps); do ms_of "${floor[@]}" -n $n /bin/true; done | stats); fi
    printf "%-22s %-5s %-26s %-26s %-26s %sx / %sx\n" "$label" $n "$boot" "$full" "$raw" \
      "$(ratio "$boot" "$raw")" "$(ratio "$full" "$raw")"
  done
}
printf "%-22s %-5s %-26s %-26s %-26s %s\n" launcher ranks "bootstrap only (ms)" "GASNet program (ms)" \
  "floor: /bin/true (ms)" "ratios"
launch gasnetrun "$ref" -- "$run"
if command -v mpiexec.mpich >/dev/null; then launch "mpiexec.mpich (pmi1)" mpiexec.mpich -- mpiexec.mpich
else echo "mpiexec.mpich: not installed, left out"; fi
if slurm_start; then launch "srun --mpi=pmi2" srun -O --mpi=pmi2 -- srun -O --mpi=pmi2
else echo "srun: left out ($SLURM_WHY)"; fi
