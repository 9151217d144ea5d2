#!/bin/bash
# tests/bench/tree_startup.sh [REPS] - start-up of a job through the ssh
# spawn tree, without sshd: 64 ranks on 8 "hosts" reached through
# tests/spawner/fake-ssh (relays run here, GASNET_SSH_OUT_DEGREE=2, so the
# tree is 3 levels deep), each rank doing boot_init + one barrier +
# boot_fini (bench/startup_rank), from launch to exit. Beside it, as the
# reference, the same 64 ranks started locally (no relays) in the same run.
# Prints min and median in milliseconds; never asserts.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
run=${GASNETRUN:-$top/spawner/gasnetrun}
rank=$top/tests/bench/startup_rank
reps=${1:-5}
[ -x "$run" ] && [ -x "$rank" ] || { echo "tree_startup.sh: build first (make)"; exit 1; }
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SPAWNFN

. "$top/tests/bench/timing.sh"

tree=$(for i in $(seq "$reps"); do
  GASNET_SSH_CMD=$top/tests/spawner/fake-ssh GASNET_SSH_OUT_DEGREE=2 \
    ms_of "$run" -n 64 -H h1,h2,h3,h4,h5,h6,h7,h8 "$rank"
done | stats)
local=$(for i in $(seq "$reps"); do ms_of "$run" -n 64 "$rank"; done | stats)
printf "%-44s %s\n" "64 ranks, 8 relays by fake-ssh, fan-out 2 (ms)" "$tree"
printf "%-44s %s\n" "64 ranks, local (reference, ms)" "$local"
echo "$tree $local" | awk '{ printf "%-44s %.1fx\n", "tree / local (medians)", $4 / $8 }'
