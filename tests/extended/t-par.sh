#!/bin/bash
# t-par.sh - GASNET_PAR: 4 threads per rank each running nbi, nb and
# access-region transfers and syncing only their own (t_par) on 1, 2, 4 and
# 8 ranks; then t_par built with ThreadSanitizer (core + amudp + boot +
# extended-ref compiled here with -fsanitize=thread into
# tests/out/tsan-extended) on 2 ranks, which must report no race.
# timeout: 200
# conduits: udp tcp
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
for n in 1 2 4 8; do
  out=$("$GASNETRUN" -n $n ./t_par 2>&1); rc=$?
  echo "$out" | grep '^t_par'
  got=$(echo "$out" | grep -c 'each thread synced only its own')
  echo "-n $n: expected exit 0 and $n 'synced only its own' lines; got exit $rc and $got"
  [ $rc = 0 ] && [ "$got" = $n ] || { echo "FAIL -n $n"; echo "$out" | tail; fails=$((fails + 1)); }
done

tsan="$TOP/tests/out/tsan-extended-$CONDUIT"
mkdir -p "$tsan"
CC=${CC:-gcc}
flags="-std=gnu11 -g -O1 -fsanitize=thread -pthread -D_GNU_SOURCE -DGASNET_PAR -DGASNETC_THREADS=1 \
  -I$TOP -I$TOP/include -I$TOP/core -I$TOP/tools -I$TOP/common -I$TOP/spawner -I$TOP/amudp -I$TOP/amtcp -I$TOP/amshm -I$TOP/extended-ref"
if echo 'int main(void){return 0;}' | $CC -fsanitize=thread -x c - -o "$tsan/probe" 2>/dev/null; then
  transport=am$CONDUIT
  srcs="$TOP/tools/*.c $TOP/core/gasnetc_*.c $TOP/conduit/$CONDUIT.c $TOP/$transport/*.c $TOP/amshm/*.c $TOP/extended-ref/*.c \
    $TOP/spawner/boot.c $TOP/spawner/boot_gasnetrun.c $TOP/spawner/boot_kvs.c $TOP/spawner/boot_pmi1.c $TOP/spawner/boot_dl.c $TOP/spawner/spawn_proto.c $TOP/common/*.c $TOP/tests/extended/t_par.c"
  if $CC $flags $srcs -o "$tsan/t_par" $(pkg-config --libs libuv) -lz 2>"$tsan/build.log"; then
    out=$(TSAN_OPTIONS="halt_on_error=0 exitcode=66" setarch -R "$GASNETRUN" -n 2 "$tsan/t_par" 30 2>&1); rc=$?
    races=$(echo "$out" | grep -c 'WARNING: ThreadSanitizer')
    echo "$out" | grep '^t_par'
    echo "$out" | grep -A16 'WARNING: ThreadSanitizer' | head -80
    echo "TSan -n 2: expected exit 0 and 0 reports; got exit $rc and $races reports"
    [ $rc = 0 ] && [ $races = 0 ] || { echo "FAIL: TSan"; fails=$((fails + 1)); }
  else
    echo "FAIL: TSan build failed:"; tail -20 "$tsan/build.log"; fails=$((fails + 1))
  fi
else
  echo "SKIPPED PART: the ThreadSanitizer run ($CC cannot build with -fsanitize=thread: no libtsan?)"
fi
[ $fails = 0 ] && echo "t-par: all passed"
exit $fails
