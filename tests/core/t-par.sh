#!/bin/bash
# t-par.sh - GASNET_PAR: 4 threads per node sending, polling and waiting at
# once (t_par), on 1, 2 and 4 ranks; then the same program built with
# ThreadSanitizer (core + the conduit's transport + boot compiled here with
# -fsanitize=thread into tests/out/tsan-<conduit>, see below) on 2 ranks,
# which must report no race. The ranks share a host, so with the bypass on
# the TSan run goes through the shared-memory transport (amshm/); in the
# [noshm] variant (tests/run) through the network transport only.
# timeout: 180
# conduits: udp tcp mix
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
for n in 1 2 4; do
  out=$("$GASNETRUN" -n $n ./t_par 2>&1); rc=$?
  echo "$out" | grep 'node 0'
  echo "-n $n: expected exit 0 and 'handled: equal'; got exit $rc"
  [ $rc = 0 ] && echo "$out" | grep -q 'handled: equal' || { echo "FAIL -n $n"; echo "$out" | tail; fails=$((fails + 1)); }
done

# The TSan variant, built by hand: every source of the PAR library and the
# test, -fsanitize=thread, linked against the system libuv.
tsan="$TOP/tests/out/tsan-$CONDUIT"
mkdir -p "$tsan"
CC=${CC:-gcc}
case $CONDUIT in mix) tdirs="amudp amtcp amshm" ;; *) tdirs="am$CONDUIT amshm" ;; esac
flags="-std=gnu11 -g -O1 -fsanitize=thread -pthread -D_GNU_SOURCE -DGASNET_PAR -DGASNETC_THREADS=1 \
  -I$TOP -I$TOP/include -I$TOP/core -I$TOP/tools -I$TOP/common -I$TOP/spawner -I$TOP/extended-ref"
for d in $tdirs; do flags="$flags -I$TOP/$d"; done
if echo 'int main(void){return 0;}' | $CC -fsanitize=thread -x c - -o "$tsan/probe" 2>/dev/null; then
  srcs="$TOP/tools/*.c $TOP/core/gasnetc_*.c $TOP/conduit/$CONDUIT.c $(for d in $tdirs; do echo "$TOP/$d/*.c"; done) $TOP/extended-ref/*.c $TOP/spawner/boot.c $TOP/spawner/boot_gasnetrun.c $TOP/spawner/boot_kvs.c $TOP/spawner/boot_pmi1.c $TOP/spawner/boot_dl.c \
    $TOP/spawner/spawn_proto.c $TOP/common/*.c $TOP/tests/core/t_par.c"
  if $CC $flags $srcs -o "$tsan/t_par" $(pkg-config --libs libuv) -lz 2>"$tsan/build.log"; then
    out=$(TSAN_OPTIONS="halt_on_error=0 exitcode=66" setarch -R "$GASNETRUN" -n 2 "$tsan/t_par" 300 2>&1); rc=$?
    races=$(echo "$out" | grep -c 'WARNING: ThreadSanitizer')
    echo "$out" | grep -A12 'WARNING: ThreadSanitizer' | head -60
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
