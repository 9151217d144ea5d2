#!/bin/bash
# t-signal.sh - SIGINT, SIGTERM and SIGHUP at the launcher reach every rank;
# the ranks die of it, the launcher exits 128+signal, nothing survives.
# timeout: 60
. "$(dirname "$0")/common.sh"

for sig in INT TERM HUP; do
  "$GASNETRUN" -n 4 "$TB" -P -B 1 -s 30 "$MARK" >"$T/out" 2>"$T/err" </dev/null &
  lp=$!
  wait_for 10 sh -c "[ \$(grep -c '^pid:' '$T/out') = 4 ]" || fail "SIG$sig: ranks did not start"
  s=$(date +%s%N)
  kill -$sig $lp
  wait $lp; rc=$?
  ms=$(( ($(date +%s%N) - s) / 1000000 ))
  num=$(kill -l $sig)
  check_eq "SIG$sig: launcher status" "$rc" $((128 + num))
  echo "     SIG$sig: job ended ${ms} ms after the signal"
  [ $ms -lt 3000 ] || fail "SIG$sig: took ${ms} ms"
  check_eq "SIG$sig: survivors" "$(survivors)" 0
done
finish
