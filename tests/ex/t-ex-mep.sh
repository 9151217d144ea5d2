#!/bin/bash
# timeout: 180
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-ex-mep.sh - more than one endpoint per process (t_ex_mep: the checks are
# listed at the top of t_ex_mep.c): EPs made by gex_EP_Create, given
# segments and published, reached through TM-pairs by RMA, VIS and AMs from
# every EP, on 1, 2 and 4 ranks, EP 2's segment allocated by GASNet and by
# the client; then each misuse must end the job naming the problem.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/misuse.sh"
cd "$BIN" || exit 1
fails=0
for mode in gasnet client; do
  for n in 1 2 4; do
    out=$(timeout -k 5 100 "$GASNETRUN" -n "$n" ./t_ex_mep "$mode" 2>&1); rc=$?
    echo "== $mode -n $n"; echo "$out" | grep '^node 0'
    ok=$(echo "$out" | grep -c 'all multi-EP checks passed')
    echo "$mode -n $n, bypass $BYPASS: expected exit 0 and $n 'all ... passed' lines; got exit $rc and $ok"
    [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $mode -n $n"; echo "$out" | grep -v '^node' | tail -6; fails=$((fails + 1)); }
  done
done
t_misuse ./t_ex_mep 2 rma-unpublished "gex_RMA_PutBlocking: no segment of EP 1 of node"
t_misuse ./t_ex_mep 2 am-no-cap "gex_AM_RequestShort1: the local EP 1 was created without GEX_EP_CAPABILITY_AM"
t_misuse ./t_ex_mep 2 rma-no-cap "gex_RMA_PutBlocking: the local EP (index 5) was created without the capability this call needs (GEX_EP_CAPABILITY_RMA)"
t_misuse ./t_ex_mep 2 am-to-rma-ep "to EP 1 of node 1, which was created without GEX_EP_CAPABILITY_AM"
t_misuse ./t_ex_mep 2 am-no-ep "sent an AM to EP 7 of node 1, which has no such EP"
# PAR: 3 threads per rank through their own EPs at once, under
# ThreadSanitizer (the library built for it once, tests/lib/tsan.sh); udp
# only, the core's paths are the same for tcp.
if [ "$CONDUIT" = udp ]; then
  . "$TOP/tests/lib/tsan.sh"
  tsan="$TOP/tests/out/tsan-mep-$CONDUIT/t_ex_mep"
  tsan_build "$tsan" "$TOP/tests/ex/t_ex_mep.c"; built=$?
  if [ $built = 0 ]; then
    out=$(timeout -k 5 150 setarch -R "$GASNETRUN" -n 2 "$tsan" par 2>&1); rc=$?
    echo "$out" | grep '^node 0'
    tsan_check "-n 2 par, bypass $BYPASS" 2 "$out" $rc "all multi-EP checks passed" ||
      { echo "FAIL: TSan"; echo "$out" | tail -8; fails=$((fails + 1)); }
  elif [ $built = 1 ]; then fails=$((fails + 1)); fi
fi
[ $fails = 0 ] && echo "t-ex-mep: all passed"
exit $fails
