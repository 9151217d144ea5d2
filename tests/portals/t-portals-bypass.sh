#!/bin/bash
# timeout: 120
# conduits: udp tcp
# t-portals-bypass.sh - t_ptl_bypass on 2 ranks: 4 MiB puts with ack that
# the progress threads alone carry (the initiator waits with PtlEQGet and
# sleeps, it never calls PtlEQWait); the data is checked, and no
# progress-thread sleep may run to its 100 ms bound while they are in
# flight (PTL_SR_SLEEP_TIMEOUT_COUNT): through shared memory ([udp],
# [tcp]) a missed wake-up once cost 100 ms per put; over the network
# ([*,noshm]) the same must hold. Through shared memory it runs twice:
# with direct reads (the default: GASNET_STATSFILE's shm_cma_read counts
# every put on the target) and through the rings (GASNET_SHM_CMA=0: none).
set -u
. "$TOP/tests/lib/conduit.sh"
stats="$TOP/tests/out/ptl-bypass-$CONDUIT-$$"
trap 'rm -f "$stats".*' EXIT
fails=0
# run LABEL ENV...: the program, both ranks' checks; sets $out
run() {
  local label=$1; shift
  rm -f "$stats".*
  out=$(env GASNET_STATSFILE="$stats" "$@" timeout 100 "$GASNETRUN" -n 2 "$BIN/t_ptl_bypass" 2>&1); local rc=$?
  local got=$(echo "$out" | grep -c 'all [0-9]* checks passed')
  if [ $rc = 0 ] && [ "$got" = 2 ]; then
    echo "PASS t_ptl_bypass ($label): 2 of 2 ranks passed every check"; echo "$out" | grep 'sleeps' | sed 's/^/   /'
    return 0
  fi
  echo "FAIL t_ptl_bypass ($label): exit $rc, $got of 2 ranks passed"; echo "$out" | tail -20 | sed 's/^/   /'
  fails=$((fails + 1))
  return 1
}
# counter NAME RANK
counter() { awk -v c="$1" '$1 == c { print $2 }' "$stats.$2" 2>/dev/null; }
run "default"
if [ "${GASNET_SUPERNODE_MAXSIZE:-}" != 1 ] && [ $fails = 0 ]; then
  reads=$(counter shm_cma_read 1)
  echo "   target's direct reads: ${reads:-none}; chunks of them the initiator copied: $(counter shm_cma_chunks_helped 0) (as it polled: timing, not checked)"
  if [ "${reads:-0}" -lt 20 ]; then
    echo "FAIL: the 20 puts of 4 MiB were not read directly (shm_cma_read ${reads:-missing})"; fails=$((fails + 1))
  fi
  run "through the rings, GASNET_SHM_CMA=0" GASNET_SHM_CMA=0
  reads=$(counter shm_cma_read 1); frags=$(counter shm_fragments_sent 0)
  echo "   target's direct reads: ${reads:-none}; fragments sent: ${frags:-none}"
  if [ "${reads:-x}" != 0 ] || [ "${frags:-0}" -lt 640 ]; then
    echo "FAIL: with GASNET_SHM_CMA=0 the puts go through the rings"; fails=$((fails + 1))
  fi
fi
exit $fails
