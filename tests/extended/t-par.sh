#!/bin/bash
# t-par.sh - GASNET_PAR: 4 threads per rank each running nbi, nb and
# access-region transfers and syncing only their own (t_par, 30 iterations
# of every form to every rank; its default 60) on 1, 2, 4 and 8 ranks; then t_par built with ThreadSanitizer (core + the conduit's
# transports + boot + extended-ref compiled with -fsanitize=thread,
# tests/lib/tsan.sh; the program in tests/out/tsan-extended-<conduit>) on 2
# ranks, which must report no race.
# timeout: 200
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/tsan.sh"
cd "$BIN" || exit 1
fails=0
for n in 1 2 4 8; do
  out=$("$GASNETRUN" -n $n ./t_par 30 2>&1); rc=$?
  echo "$out" | grep '^t_par'
  got=$(echo "$out" | grep -c 'each thread synced only its own')
  echo "-n $n: expected exit 0 and $n 'synced only its own' lines; got exit $rc and $got"
  [ $rc = 0 ] && [ "$got" = $n ] || { echo "FAIL -n $n"; echo "$out" | tail; fails=$((fails + 1)); }
done

tsan="$TOP/tests/out/tsan-extended-$CONDUIT/t_par"
tsan_build "$tsan" "$TOP/tests/extended/t_par.c"; built=$?
if [ $built = 0 ]; then
  out=$(TSAN_OPTIONS="halt_on_error=0 exitcode=66" setarch -R "$GASNETRUN" -n 2 "$tsan" 30 2>&1); rc=$?
  races=$(echo "$out" | grep -c 'WARNING: ThreadSanitizer')
  echo "$out" | grep '^t_par'
  echo "$out" | grep -A16 'WARNING: ThreadSanitizer' | head -80
  echo "TSan -n 2: expected exit 0 and 0 reports; got exit $rc and $races reports"
  [ $rc = 0 ] && [ $races = 0 ] || { echo "FAIL: TSan"; fails=$((fails + 1)); }
elif [ $built = 1 ]; then
  fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-par: all passed"
exit $fails
