#!/bin/bash
# timeout: 90
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-ex-sys.sh - GASNet-EX neighbourhood, host and bound-segment queries
# (t_ex_sys: the description's sentences, listed at the top of t_ex_sys.c)
# on 1, 2 and 4 ranks; then on 2 ranks the one misuse the library refuses:
# gex_EP_QueryBoundSegmentNB without GEX_FLAG_IMMEDIATE inside an AM
# handler is fatal, with a message naming the call. The ranks share a host:
# with the bypass on (BYPASS, tests/run) they are one neighbourhood of n,
# with it off (GASNET_SUPERNODE_MAXSIZE=1) n neighbourhoods of 1.
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$TOP/tests/ex" || exit 1
bin=./t_ex_sys; [ "$CONDUIT" = tcp ] && bin=./tcp/t_ex_sys
fails=0
for n in 1 2 4; do
  out=$("$GASNETRUN" -n "$n" $bin 2>&1); rc=$?
  echo "== -n $n"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all GASNet-EX system checks passed')
  size=$n nbrhds=1; [ "$BYPASS" = off ] && size=1 nbrhds=$n
  sized=$(echo "$out" | grep -c "^node [0-9]*: neighbourhood of $size ranks\$")
  sets=$(echo "$out" | grep -c "^node 0: position across $n ranks: all see $nbrhds neighbourhoods and 1 hosts;")
  echo "-n $n, bypass $BYPASS: expected exit 0, $n 'all ... passed' lines, $n 'neighbourhood of $size ranks'," \
    "node 0 'all see $nbrhds neighbourhoods and 1 hosts'; got exit $rc, $ok, $sized, $sets"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] && [ "$sized" = "$n" ] && [ "$sets" = 1 ] \
    || { echo "FAIL: -n $n"; echo "$out" | tail -6; fails=$((fails + 1)); }
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
