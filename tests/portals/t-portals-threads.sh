#!/bin/bash
# timeout: 90
# t-portals-threads.sh - Portals and threads:
#  - t_ptl_threads on 2 ranks (each on its own, through loopback):
#    PtlEQWait with three waiting threads served in FIFO order, one event
#    each; PtlEQFree under a waiter (it returns PTL_INV_EQ); PtlMEAttachAny
#    taking every empty Portal index, then PTL_PT_FULL;
#  - t_ptl_mt on 2 ranks, udp and tcp, shared memory on and off: 4 threads
#    a rank each putting 40 times (8 B to 1 MiB, with ack) into their own
#    slots of the peer: every ack, every PUT_END at the target, and each
#    slot's last put byte for byte (through shared memory the large puts go
#    by direct reads, their copy shared with the waiting threads).
set -u
fails=0
# run LABEL LAUNCHER PROG [ENV=VALUE...]: 2 ranks, both pass every check
run() {
  local label=$1 launcher=$2 prog=$3; shift 3
  out=$(env "$@" timeout 60 "$TOP/spawner/$launcher" -n 2 "$prog" 2>&1); rc=$?
  got=$(echo "$out" | grep -c 'all [0-9]* checks passed')
  if [ $rc = 0 ] && [ "$got" = 2 ]; then
    echo "PASS $label: 2 of 2 ranks passed every check"; echo "$out" | grep -v 'checks passed' | sed 's/^/   /'
  else
    echo "FAIL $label: exit $rc, $got of 2 ranks passed"; echo "$out" | tail -20 | sed 's/^/   /'
    fails=$((fails + 1))
  fi
}
run t_ptl_threads gasnetrun_udp "$TOP/tests/portals/t_ptl_threads"
for shm in on off; do
  max=; [ $shm = off ] && max=1
  run "t_ptl_mt, udp, shm $shm" gasnetrun_udp "$TOP/tests/portals/t_ptl_mt" GASNET_SUPERNODE_MAXSIZE=$max
  run "t_ptl_mt, tcp, shm $shm" gasnetrun_tcp "$TOP/tests/portals/tcp/t_ptl_mt" GASNET_SUPERNODE_MAXSIZE=$max
done
exit $fails
