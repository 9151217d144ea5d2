#!/bin/bash
# timeout: 120
# conduits: udp tcp
# t-portals-bypass.sh - t_ptl_bypass on 2 ranks: 4 MiB puts with ack that
# the progress threads alone carry (the initiator waits with PtlEQGet and
# sleeps, it never calls PtlEQWait); the data is checked, and no
# progress-thread sleep may run to its 100 ms bound while they are in
# flight (PTL_SR_SLEEP_TIMEOUT_COUNT): through shared memory ([udp],
# [tcp]) a missed wake-up once cost 100 ms per put; over the network
# ([*,noshm]) the same must hold.
set -u
. "$TOP/tests/lib/conduit.sh"
out=$(timeout 100 "$GASNETRUN" -n 2 "$BIN/t_ptl_bypass" 2>&1); rc=$?
got=$(echo "$out" | grep -c 'all [0-9]* checks passed')
if [ $rc = 0 ] && [ "$got" = 2 ]; then
  echo "PASS t_ptl_bypass: 2 of 2 ranks passed every check"; echo "$out" | grep 'sleeps' | sed 's/^/   /'
  exit 0
fi
echo "FAIL t_ptl_bypass: exit $rc, $got of 2 ranks passed"; echo "$out" | tail -20 | sed 's/^/   /'
exit 1
