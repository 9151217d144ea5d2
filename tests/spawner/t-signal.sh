#!/bin/bash
# t-signal.sh - SIGINT, SIGTERM and SIGHUP at the launcher reach every rank;
# the ranks die of it, the launcher exits 128+signal, nothing survives.
# GASNET_KILL_GRACE=60: were the signal not forwarded, only the SIGKILL a
# minute later (or the end of the ranks' 30 s sleep) would end the job, far
# beyond the 20 s hang bound; forwarded, it ends at once.
# timeout: 90
. "$(dirname "$0")/common.sh"

for sig in INT TERM HUP; do
  GASNET_KILL_GRACE=60 "$GASNETRUN" -n 4 "$TB" -P -B 1 -s 30 "$MARK" >"$T/out" 2>"$T/err" </dev/null &
  lp=$!
  wait_for 30 sh -c "[ \$(grep -c '^pid:' '$T/out') = 4 ]" || fail "SIG$sig: ranks did not start"
  hang_t0
  kill -$sig $lp
  wait $lp; rc=$?
  secs=$(hang_secs)
  num=$(kill -l $sig)
  check_eq "SIG$sig: launcher status" "$rc" $((128 + num))
  hang_check "SIG$sig: the job" "$secs" 20 "0.1 s: the ranks die of the forwarded signal" || fail "SIG$sig: not forwarded?"
  check_eq "SIG$sig: survivors" "$(survivors)" 0
done
finish
