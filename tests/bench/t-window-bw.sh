#!/bin/bash
# t-window-bw.sh - osu_bw's pattern (window_bw: windows of 8 puts of 1 B to
# 4 KiB, each window followed by a small ack) over udp and tcp
# (GASNET_SUPERNODE_MAXSIZE=1) and through shared memory, beside the raw
# probe of the same run. Passes when each run completes with its header
# and one line per size (13); the figures are not judged: the machine is
# shared.
# timeout: 180
set -u
cd "$TOP/tests/bench" || exit 1
fails=0
for how in "udp GASNET_SUPERNODE_MAXSIZE=1 gasnetrun_udp window_bw" \
           "tcp GASNET_SUPERNODE_MAXSIZE=1 gasnetrun_tcp window_bw_tcp" \
           "shm GASNET_SUPERNODE_MAXSIZE=0 gasnetrun_udp window_bw"; do
  set -- $how
  echo "== $1: $2 $3 -n 2 ./$4 8 1 4096"
  out=$(env "$2" "$TOP/spawner/$3" -n 2 "./$4" 8 1 4096 2>&1); rc=$?
  echo "$out"
  got=$(echo "$out" | grep -cE '^[0-9]+ (B|KiB) ')
  echo "$1: expected exit 0, the header and 13 sizes; got exit $rc and $got sizes"
  [ "$rc" = 0 ] && [ "$got" = 13 ] && echo "$out" | grep -q '^# window_bw: ' ||
    { echo "FAIL: $1"; fails=$((fails + 1)); }
done
exit $fails
