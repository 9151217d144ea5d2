#!/bin/bash
# t-ex-sys.sh - GASNet-EX neighbourhood, host and bound-segment queries
# (t_ex_sys: the description's sentences, listed at the top of t_ex_sys.c)
# on 1, 2 and 4 ranks; then on 2 ranks the one misuse the library refuses:
# gex_EP_QueryBoundSegmentNB without GEX_FLAG_IMMEDIATE inside an AM
# handler is fatal, with a message naming the call.
# timeout: 90
# conduits: udp tcp
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$TOP/tests/ex" || exit 1
bin=./t_ex_sys; [ "$CONDUIT" = tcp ] && bin=./tcp/t_ex_sys
fails=0
for n in 1 2 4; do
  out=$("$GASNETRUN" -n "$n" $bin 2>&1); rc=$?
  echo "== -n $n"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all GASNet-EX system checks passed')
  echo "-n $n: expected exit 0 and $n 'all ... passed' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: -n $n"; echo "$out" | tail -6; fails=$((fails + 1)); }
done

echo "== -n 2 misuse"
want='gex_EP_QueryBoundSegmentNB: called inside an AM handler without GEX_FLAG_IMMEDIATE'
out=$("$GASNETRUN" -n 2 $bin misuse 2>&1); rc=$?
echo "$out" | grep -i 'error' | head -2
echo "expected a non-zero exit and '$want'; got exit $rc"
if [ "$rc" != 0 ] && echo "$out" | grep -qF "$want" && ! echo "$out" | grep -q 'FAILED'; then
  echo "ok: misuse refused"
else
  echo "FAIL: misuse"; echo "$out" | tail -6; fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-ex-sys: all passed"
exit $fails
