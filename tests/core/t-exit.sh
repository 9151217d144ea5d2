#!/bin/bash
# t-exit.sh - gasnet_exit from any node at any time (spec 2.1.0.5): the
# launcher returns that node's code and no process of the job survives.
#   poll     last node exits 42 while the others poll     -> 42
#   compute  last node exits 42 while the others compute  -> 42 (SIGQUIT)
#   handler  a request handler calls gasnet_exit(43)       -> 43
#   return   last node returns 44 from main()              -> 44
# timeout: 120
# conduits: udp tcp
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
marker="t-exit-$$"
for spec in poll:42 compute:42 handler:43 return:44; do
  mode=${spec%%:*}; want=${spec#*:}
  start=$(date +%s)
  out=$("$GASNETRUN" -n 4 ./t_exit "$mode" "$marker" 2>&1); rc=$?
  secs=$(( $(date +%s) - start ))
  sleep 0.5
  left=$(pgrep -f -- "$marker" | wc -l)
  surv=$(echo "$out" | grep -c SURVIVED)
  echo "$mode: expected exit $want, 0 survivors; got exit $rc, $left processes left, $surv SURVIVED lines, ${secs}s"
  if [ "$rc" != "$want" ] || [ "$left" != 0 ] || [ "$surv" != 0 ]; then
    echo "FAIL: $mode"; echo "$out" | sed 's/^/     | /' | tail -10; fails=$((fails + 1))
    pkill -KILL -f -- "$marker" 2>/dev/null
  fi
done
[ $fails = 0 ] && echo "t-exit: all passed"
exit $fails
