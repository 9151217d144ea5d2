#!/bin/bash
# timeout: 300
# conduits: udp tcp
# t-ex-coll-par.sh - collectives from 4 threads per rank at once, each
# thread on its own team (t_ex_coll_par: broadcast, two reduce-to-all, a
# USER_NC reduce-to-one and a barrier per round, every result checked), on
# 2 and 3 ranks and in neighbourhoods of 2 on 4 (shared memory and network
# at once); then under ThreadSanitizer on 2 ranks without shared memory
# (handlers on several threads, any thread advancing any operation) and on
# 3 in neighbourhoods of 2.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/tsan.sh"
cd "$BIN" || exit 1
fails=0
pass='all threaded collective checks passed'
run() { # label, ranks, env...
  local label=$1 n=$2; shift 2
  out=$(env "$@" "$GASNETRUN" -n "$n" ./t_ex_coll_par 2>&1); rc=$?
  echo "== $label"; echo "$out" | grep 'wrong results'
  ok=$(echo "$out" | grep -c "$pass")
  echo "-n $n: expected exit 0 and $n '$pass' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $label"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
run "-n 2" 2
run "-n 3" 3 T_CP_ITERS=100
run "-n 4, neighbourhoods of 2" 4 GASNET_SUPERNODE_MAXSIZE=2 T_CP_ITERS=100

tsan="$TOP/tests/out/tsan-coll-$CONDUIT/t_ex_coll_par"
tsan_build "$tsan" "$TOP/tests/ex/t_ex_coll_par.c"; built=$?
if [ $built = 0 ]; then
  for cfg in "2 GASNET_SUPERNODE_MAXSIZE=1" "3 GASNET_SUPERNODE_MAXSIZE=2"; do
    set -- $cfg
    n=$1; shift
    out=$(env TSAN_OPTIONS="halt_on_error=0 exitcode=66" T_CP_ITERS=30 "$@" \
          setarch -R "$GASNETRUN" -n "$n" "$tsan" 2>&1); rc=$?
    tsan_check "-n $n $*" "$n" "$out" $rc "$pass" || { echo "FAIL: TSan -n $n"; echo "$out" | tail -5; fails=$((fails + 1)); }
  done
elif [ $built = 1 ]; then
  fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "all threaded collective runs passed"
exit $((fails > 0))
