#!/bin/bash
# t-clientext.sh - the GASNet-1 extensions clients use beyond spec 1.8
# (gasnet_getNodeInfo, varargs AMs, gasnet_barrier/_result and the UNNAMED
# flag, gasnet_coll_broadcast): t_clientext on 1, 2 and 4 ranks, every
# node must report all its checks verified. The ranks share a host (host
# table all 0); the supernodes are that host's one neighbourhood with the
# bypass on (all 0), one per node with it off (BYPASS, tests/run: 0 1 ..).
# timeout: 180
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
for n in 1 2 4; do
  out=$(timeout 120 "$GASNETRUN" -n "$n" ./t_clientext 2>&1); rc=$?
  ok=$(echo "$out" | grep -c "client extensions verified")
  echo "$out" | grep -E "nodeinfo|table|verified" | sed 's/^/     /'
  hosts=$(echo "$out" | sed -n 's/^node 0: host table: *//p')
  sns=$(echo "$out" | sed -n 's/^node 0: supernode table: *//p')
  want_hosts=$(for ((i = 0; i < n; i++)); do echo 0; done | xargs)
  want_sns=$want_hosts; [ "$BYPASS" = off ] && want_sns=$(seq 0 $((n - 1)) | xargs)
  if [ "$rc" = 0 ] && [ "$ok" = "$n" ] && [ "$hosts" = "$want_hosts" ] && [ "$sns" = "$want_sns" ]; then
    echo "ok   -n $n: $ok of $n nodes verified; host table '$hosts', supernode table '$sns' (bypass $BYPASS)"
  else
    echo "FAIL -n $n: exit $rc, $ok of $n nodes verified; host table '$hosts' (want '$want_hosts')," \
      "supernode table '$sns' (want '$want_sns', bypass $BYPASS)"
    echo "$out" | tail -6 | sed 's/^/     | /'
    fails=$((fails + 1))
  fi
done
[ $fails = 0 ] && echo "t-clientext: all passed"
exit $fails
