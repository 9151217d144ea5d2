#!/bin/bash
# timeout: 180
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-ex-bseg.sh - segments made by gex_Segment_Create, bound by
# gex_EP_BindSegment and published by gex_EP_PublishBoundSegment (t_ex_bseg:
# the checks are listed at the top of t_ex_bseg.c), allocated by GASNet and
# by the client, on 1, 2 and 4 ranks. With the bypass on, a neighbour's
# GASNet-allocated segment is mapped (the query's local address, checked to
# alias it) and a client-allocated one is reached through AMs; with it off
# (GASNET_SUPERNODE_MAXSIZE=1) everything goes through AMs.
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
for mode in gasnet client; do
  for n in 1 2 4; do
    out=$(timeout -k 5 100 "$GASNETRUN" -n "$n" ./t_ex_bseg "$mode" 2>&1); rc=$?
    echo "== $mode -n $n"; echo "$out" | grep '^node 0'
    ok=$(echo "$out" | grep -c 'all bound-segment checks passed')
    echo "$mode -n $n, bypass $BYPASS: expected exit 0 and $n 'all ... passed' lines; got exit $rc and $ok"
    [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $mode -n $n"; echo "$out" | grep -v '^node' | tail -6; fails=$((fails + 1)); }
  done
done
[ $fails = 0 ] && echo "t-ex-bseg: all passed"
exit $fails
