#!/bin/bash
# t-par.sh - GASNET_PAR: 4 threads per node sending, polling and waiting at
# once (t_par), on 1, 2 and 4 ranks, then built with ThreadSanitizer.
# timeout: 180
# conduits: udp tcp mix
#
# The TSan build (core + the conduit's transports + boot compiled with
# -fsanitize=thread, tests/lib/tsan.sh; the program in tests/out/tsan-<conduit>) must report
# no race on 2 ranks (they share a host: the shared-memory transport), then
# on 4 ranks in neighbourhoods of 2 (shm and the network at once, the
# network's hot-path polls throttled: core/gasnetc_wait.c); in the [noshm]
# variant (tests/run) on 2 ranks through the network transport only.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/tsan.sh"
cd "$BIN" || exit 1
fails=0
for n in 1 2 4; do
  out=$("$GASNETRUN" -n $n ./t_par 2>&1); rc=$?
  echo "$out" | grep 'node 0'
  echo "-n $n: expected exit 0 and 'handled: equal'; got exit $rc"
  [ $rc = 0 ] && echo "$out" | grep -q 'handled: equal' || { echo "FAIL -n $n"; echo "$out" | tail; fails=$((fails + 1)); }
done

# The TSan variant: every source of the PAR library and the test,
# -fsanitize=thread, linked against the system libuv (tests/lib/tsan.sh:
# the library's objects are compiled once per conduit and shared by every
# TSan program of the suite).
tsan="$TOP/tests/out/tsan-$CONDUIT/t_par"
tsan_build "$tsan" "$TOP/tests/core/t_par.c"; built=$?
if [ $built = 0 ]; then
  shapes=("2 0" "4 2"); [ "${BYPASS:-on}" = off ] && shapes=("2 1")
  for shape in "${shapes[@]}"; do
    set -- $shape
    out=$(GASNET_SUPERNODE_MAXSIZE=$2 TSAN_OPTIONS="halt_on_error=0 exitcode=66" setarch -R "$GASNETRUN" -n $1 "$tsan" 300 2>&1); rc=$?
    races=$(echo "$out" | grep -c 'WARNING: ThreadSanitizer')
    echo "$out" | grep -A12 'WARNING: ThreadSanitizer' | head -60
    echo "TSan -n $1 GASNET_SUPERNODE_MAXSIZE=$2: expected exit 0 and 0 reports; got exit $rc and $races reports"
    [ $rc = 0 ] && [ $races = 0 ] || { echo "FAIL: TSan -n $1"; fails=$((fails + 1)); }
  done
elif [ $built = 1 ]; then
  fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-par: all passed"
exit $fails
