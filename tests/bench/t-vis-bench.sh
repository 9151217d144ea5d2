#!/bin/bash
# t-vis-bench.sh - the VIS benchmark (vis_bench): a 64x64 strided put of
# 8 B elements (64 rows of 512 B) beside one contiguous put of the same
# 32 KiB, a loop of 4096 8 B puts and a put of 4096 separate 8 B pieces,
# over the network (GASNET_SUPERNODE_MAXSIZE=1) and on one host beside
# memcpy. Passes when both runs complete with their summary lines (2 and
# 3); the goal (strided <= 2x the contiguous put over the network) is
# printed with the measured ratio, not enforced: the machine is shared.
# timeout: 180
set -u
cd "$TOP/tests/bench" || exit 1
fails=0
for how in "network GASNET_SUPERNODE_MAXSIZE=1 2" "host GASNET_SUPERNODE_MAXSIZE=0 3"; do
  set -- $how
  echo "== $1: $2 gasnetrun_udp -n 2 ./vis_bench 100 9"
  out=$(env "$2" "$TOP/spawner/gasnetrun_udp" -n 2 ./vis_bench 100 9 2>&1); rc=$?
  echo "$out"
  got=$(echo "$out" | grep -c '^summary:')
  echo "$1: expected exit 0 and $3 summary lines; got exit $rc and $got"
  [ "$rc" = 0 ] && [ "$got" = "$3" ] || { echo "FAIL: $1"; fails=$((fails + 1)); }
done
exit $fails
