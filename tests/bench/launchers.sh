#!/bin/bash
# bench/launchers.sh [REPS] - start-up under each launcher, in one run: jobs
# of 16 and 64 ranks from launch through a bootstrap barrier to exit
# (bench/startup_rank: boot_init, boot_barrier, boot_fini), under gasnetrun,
# MPICH's mpiexec (PMI-1) and srun --mpi=pmi2 (a one-node Slurm this script
# starts when run as root, tests/lib/slurm.sh). Beside each, the launcher's
# floor measured in the same run: the same launcher starting as many
# /bin/true (for gasnetrun, bench/startup_ref's fork/exec+wait of /bin/true).
# Prints min and median in milliseconds and the median ratio. Goal: within
# 1.5x of each launcher's floor. A launcher that is missing is left out.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
run=${GASNETRUN:-$top/spawner/gasnetrun}
rank=$top/tests/bench/startup_rank
ref=$top/tests/bench/startup_ref
reps=${1:-5}
[ -x "$run" ] && [ -x "$rank" ] && [ -x "$ref" ] || { echo "launchers.sh: build first (make)"; exit 1; }
. "$top/tests/lib/slurm.sh"
trap 'slurm_stop' EXIT

. "$top/tests/bench/timing.sh"
row() { # label n job-stats floor-stats
  local jm rm
  jm=$(echo "$3" | awk '{print $4}'); rm=$(echo "$4" | awk '{print $4}')
  printf "%-22s %-5s %-28s %-28s %s\n" "$1" "$2" "$3" "$4" "$(echo "scale=2; $jm / $rm" | bc)x"
}
printf "%-22s %-5s %-28s %-28s %s\n" launcher ranks "start+barrier+exit (ms)" "floor: /bin/true (ms)" ratio
for n in 16 64; do
  job=$(for i in $(seq $reps); do ms_of "$run" -n $n "$rank"; done | stats)
  raw=$(for i in $(seq $reps); do "$ref" $n /bin/true; done | stats)
  row "gasnetrun" $n "$job" "$raw"
done
if command -v mpiexec.mpich >/dev/null; then
  for n in 16 64; do
    job=$(for i in $(seq $reps); do ms_of mpiexec.mpich -n $n "$rank"; done | stats)
    raw=$(for i in $(seq $reps); do ms_of mpiexec.mpich -n $n /bin/true; done | stats)
    row "mpiexec.mpich (pmi1)" $n "$job" "$raw"
  done
else
  echo "mpiexec.mpich: not installed, left out"
fi
if slurm_start; then
  for n in 16 64; do
    job=$(for i in $(seq $reps); do ms_of srun -n $n -O --mpi=pmi2 "$rank"; done | stats)
    raw=$(for i in $(seq $reps); do ms_of srun -n $n -O --mpi=pmi2 /bin/true; done | stats)
    row "srun --mpi=pmi2" $n "$job" "$raw"
  done
else
  echo "srun: left out ($SLURM_WHY)"
fi
