#!/bin/bash
# timeout: 240
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-neighbor.sh - every try polls (spec 3.3.3): a ghost exchange whose
# wait loops call only a try function (t_neighbor.c) completes on 2 and 4
# ranks with every block verified, for each try: the handle-list forms
# (all, some), a single handle (one) and the implicit-handle form (nbi).
# Before tries polled unconditionally this hung: the tried handles were
# already complete, so nothing ran the neighbour's put. 50 iterations (100
# blocks a rank; a hang shows in the first): each is the same exchange.
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
for n in 2 4; do
  for mode in all some one nbi; do
    out=$(timeout 90 "$GASNETRUN" -n "$n" ./t_neighbor "$mode" 50 4096 2>&1); rc=$?
    ok=$(echo "$out" | grep -c "mode $mode: 50 iterations, 100 ghost blocks of 4096 bytes verified")
    if [ "$rc" = 0 ] && [ "$ok" = "$n" ]; then
      echo "ok   -n $n $mode: $ok of $n nodes verified 100 blocks"
    else
      echo "FAIL -n $n $mode: exit $rc, $ok of $n nodes verified (want exit 0 and $n)"
      echo "$out" | tail -6 | sed 's/^/     | /'
      fails=$((fails + 1))
    fi
  done
done
[ $fails = 0 ] && echo "t-neighbor: all passed"
exit $fails
