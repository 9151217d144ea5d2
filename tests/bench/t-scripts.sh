#!/bin/bash
# timeout: 150
# parallel: yes (4 of 9 s on the CPU; smoke runs of the benchmarks: no figure can fail it)
# t-scripts.sh - the benchmark scripts of tests/bench run once, briefly, so
# that they cannot rot: bar.sh (300 round trips, without its 30 s dead-peer
# row), death.sh (1 s timeout), startup.sh (jobs of 2 and 16 ranks),
# tree_startup.sh, teardown.sh and launchers.sh (16 ranks) (one repetition
# each: the same lines run at every size), scale.sh on 4 ranks, ex_bench and ex_bench_tcp (200
# calls per form, one round: under a second each), ex_ratomic_bench over
# the network and on one host (200 samples, one round), vis_bench (20 calls, 3
# rounds), shm_probe (2000 round trips), and compare.sh on this
# built tree against itself (am_pingpong, ex_bench, ex_ratomic_bench and vis_bench, QUICK=1: nothing to
# build, a few seconds). Passes when every script completes; the figures
# are printed, never compared with anything. A benchmark cannot fail the
# suite on a loaded machine: each script gets at most 30 s (its whole
# process group is then ended; each takes a few seconds on an idle host),
# all of them 100 s, and one not done by then is reported as a skipped
# part (busy-polling ranks on a host with more of them than CPUs can take
# minutes; on 2026-12-06, at a load of 14, compare.sh alone did). A
# script that fails by itself still fails the test.
set -u
cd "$TOP/tests/bench" || exit 1
fails=0
deadline=$((EPOCHSECONDS + 100))
brief() { # label, command...
  local label=$1 t0=$EPOCHREALTIME bound=$((deadline - EPOCHSECONDS)); shift
  [ $bound -gt 30 ] && bound=30
  if [ $bound -lt 5 ]; then echo "SKIPPED PART: $label (no time left of the 100 s: a loaded machine)"; return; fi
  echo "== $label"
  # timeout(1) signals its whole process group: the launcher and its ranks
  timeout -k 2 $bound "$@" 2>&1; local rc=$?
  echo "$label: expected exit 0; got $rc ($(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s)"
  if [ $rc = 124 ] || [ $rc = 137 ]; then echo "SKIPPED PART: $label (not done within $bound s: a loaded machine)"; return; fi
  [ $rc = 0 ] || { echo "FAIL: $label"; fails=$((fails + 1)); }
}
brief "bar.sh 300" env BAR_SKIP_DEAD=1 ./bar.sh 300
brief "death.sh 1" ./death.sh 1
brief "startup.sh 1, 2 and 16 ranks" env STARTUP_SIZES="2 16" ./startup.sh 1
brief "tree_startup.sh 1" ./tree_startup.sh 1
brief "teardown.sh 1" ./teardown.sh 1
brief "launchers.sh 1, 16 ranks" env LAUNCH_SIZES=16 ./launchers.sh 1
brief "scale.sh 4 10 1024" ./scale.sh 4 10 1024
brief "ex_bench 200 1" "$TOP/spawner/gasnetrun_udp" -n 2 ./ex_bench 200 1
brief "ex_bench_tcp 200 1" "$TOP/spawner/gasnetrun_tcp" -n 2 ./ex_bench_tcp 200 1
brief "ex_ratomic_bench 200 1, network" env GASNET_SUPERNODE_MAXSIZE=1 "$TOP/spawner/gasnetrun_udp" -n 2 ./ex_ratomic_bench 200 1
brief "ex_ratomic_bench 200 1, one host" "$TOP/spawner/gasnetrun_udp" -n 2 ./ex_ratomic_bench 200 1
brief "vis_bench 20 3" "$TOP/spawner/gasnetrun_udp" -n 2 ./vis_bench 20 3
brief "shm_probe 2000" "$TOP/spawner/gasnetrun_udp" -n 2 ./shm_probe 2000
brief "compare.sh --tree TOP --tree TOP" env QUICK=1 BENCHES="am_pingpong ex_bench ex_ratomic_bench vis_bench" ./compare.sh --tree "$TOP" --tree "$TOP"
[ $fails = 0 ] && echo "t-scripts: all passed"
exit $fails
