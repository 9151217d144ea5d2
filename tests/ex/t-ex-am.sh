#!/bin/bash
# t-ex-am.sh - GASNet-EX objects and Active Messages (t_ex_am: the
# description's MUST sentences, listed at the top of t_ex_am.c) on 1, 2 and
# 4 ranks; then on 2 ranks, the shared-memory bypass off, with one request credit (udp) or a 4 KiB socket
# buffer and no queue (tcp), so that GEX_FLAG_IMMEDIATE has something to
# refuse.
# timeout: 120
# conduits: udp tcp
# agg: on off
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$TOP/tests/ex" || exit 1
bin=./t_ex_am; [ "$CONDUIT" = tcp ] && bin=./tcp/t_ex_am
fails=0
run() { # label, ranks, env...
  local label=$1 n=$2; shift 2
  out=$(env "$@" "$GASNETRUN" -n "$n" $bin 2>&1); rc=$?
  echo "== $label"; echo "$out" | grep '^node 0' 
  ok=$(echo "$out" | grep -c 'all GASNet-EX checks passed')
  echo "-n $n: expected exit 0 and $n 'all ... passed' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $label"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
for n in 1 2 4; do run "-n $n" $n; done
run "-n 2, little room" 2 GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_CREDITS=1 GASNET_TCP_QUEUE_MAX=0 GASNET_TCP_SOCKBUF=4096
# one node refusing is enough: over tcp the other may find its queue drained
echo "$out" | grep -q ' [1-9][0-9]* refused; ' \
  && echo "GEX_FLAG_IMMEDIATE refused some requests, as room ran out" \
  || echo "SKIPPED PART: no request was refused under little room (the check of refused requests ran on none)"
[ $fails = 0 ] && echo "t-ex-am: all passed"
exit $fails
