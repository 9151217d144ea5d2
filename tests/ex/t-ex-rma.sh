#!/bin/bash
# t-ex-rma.sh - GASNet-EX RMA, events, NBI and gex_Coll_BarrierNB
# (t_ex_rma: the description's MUST sentences, listed at the top of
# t_ex_rma.c, and a randomized model check of put/get/NBI of 1 B to 2 MiB)
# on 1, 2 and 4 ranks; on 2 ranks with one request credit (udp) or a tiny
# socket buffer (tcp), so that GEX_FLAG_IMMEDIATE has something to refuse;
# and on udp under injected loss, duplication and reordering.
# timeout: 300
# conduits: udp tcp
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$TOP/tests/ex" || exit 1
bin=./t_ex_rma; [ "$CONDUIT" = tcp ] && bin=./tcp/t_ex_rma
fails=0
run() { # label, ranks, env...
  local label=$1 n=$2; shift 2
  out=$(env "$@" "$GASNETRUN" -n "$n" $bin 2>&1); rc=$?
  echo "== $label"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all GASNet-EX RMA checks passed')
  echo "-n $n: expected exit 0 and $n 'all ... passed' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $label"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
for n in 1 2 4; do run "-n $n" $n; done
run "-n 2, little room" 2 T_RMA_OPS=50 GASNET_UDP_CREDITS=1 GASNET_TCP_QUEUE_MAX=0 \
  GASNET_TCP_SOCKBUF=4096 GASNET_EXT_PIPELINE_BYTES=64k
if [ "$CONDUIT" = udp ]; then
  run "-n 2, 10% loss, 5% duplicates, 5% reordered" 2 T_RMA_OPS=100 \
    GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05
fi
[ $fails = 0 ] && echo "t-ex-rma: all passed"
exit $fails
