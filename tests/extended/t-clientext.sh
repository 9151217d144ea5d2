#!/bin/bash
# t-clientext.sh - the GASNet-1 extensions clients use beyond spec 1.8
# (gasnet_getNodeInfo, varargs AMs, gasnet_barrier/_result and the UNNAMED
# flag, gasnet_coll_broadcast): t_clientext on 1, 2 and 4 ranks, every
# node must report all its checks verified.
# timeout: 180
# conduits: udp tcp
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
for n in 1 2 4; do
  out=$(timeout 120 "$GASNETRUN" -n "$n" ./t_clientext 2>&1); rc=$?
  ok=$(echo "$out" | grep -c "client extensions verified")
  echo "$out" | grep -E "nodeinfo|verified" | sed 's/^/     /'
  if [ "$rc" = 0 ] && [ "$ok" = "$n" ]; then
    echo "ok   -n $n: $ok of $n nodes verified"
  else
    echo "FAIL -n $n: exit $rc, $ok of $n nodes verified"
    echo "$out" | tail -6 | sed 's/^/     | /'
    fails=$((fails + 1))
  fi
done
[ $fails = 0 ] && echo "t-clientext: all passed"
exit $fails
