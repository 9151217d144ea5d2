#!/bin/bash
# timeout: 60
# t-portals-threads.sh - t_ptl_threads on 2 ranks (each on its own, through
# loopback): PtlEQWait with three waiting threads served in FIFO order, one
# event each; PtlEQFree under a waiter (it returns PTL_INV_EQ);
# PtlMEAttachAny taking every empty Portal index, then PTL_PT_FULL.
set -u
out=$(timeout 50 "$TOP/spawner/gasnetrun_udp" -n 2 "$TOP/tests/portals/t_ptl_threads" 2>&1); rc=$?
got=$(echo "$out" | grep -c 'all [0-9]* checks passed')
if [ $rc = 0 ] && [ "$got" = 2 ]; then
  echo "PASS t_ptl_threads: 2 of 2 ranks passed every check"; echo "$out" | sed 's/^/   /'
  exit 0
fi
echo "FAIL t_ptl_threads: exit $rc, $got of 2 ranks passed"; echo "$out" | tail -20 | sed 's/^/   /'
exit 1
