#!/bin/bash
# t-par.sh - GASNET_PAR: 4 threads per node sending, polling and waiting at
# once (t_par), on 1, 2 and 4 ranks, then built with ThreadSanitizer.
# timeout: 180
# conduits: udp tcp mix
#
# The TSan build (core + the conduit's transports + boot compiled here with
# -fsanitize=thread into tests/out/tsan-<conduit>, see below) must report
# no race on 2 ranks (they share a host: the shared-memory transport), then
# on 4 ranks in neighbourhoods of 2 (shm and the network at once, the
# network's hot-path polls throttled: core/gasnetc_wait.c); in the [noshm]
# variant (tests/run) on 2 ranks through the network transport only.
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
    shapes=("2 0" "4 2"); [ "${BYPASS:-on}" = off ] && shapes=("2 1")
    for shape in "${shapes[@]}"; do
      set -- $shape
      out=$(GASNET_SUPERNODE_MAXSIZE=$2 TSAN_OPTIONS="halt_on_error=0 exitcode=66" setarch -R "$GASNETRUN" -n $1 "$tsan/t_par" 300 2>&1); rc=$?
      races=$(echo "$out" | grep -c 'WARNING: ThreadSanitizer')
      echo "$out" | grep -A12 'WARNING: ThreadSanitizer' | head -60
      echo "TSan -n $1 GASNET_SUPERNODE_MAXSIZE=$2: expected exit 0 and 0 reports; got exit $rc and $races reports"
      [ $rc = 0 ] && [ $races = 0 ] || { echo "FAIL: TSan -n $1"; fails=$((fails + 1)); }
    done
  else
    echo "FAIL: TSan build failed:"; tail -20 "$tsan/build.log"; fails=$((fails + 1))
  fi
else
  echo "SKIPPED PART: the ThreadSanitizer run ($CC cannot build with -fsanitize=thread: no libtsan?)"
fi
[ $fails = 0 ] && echo "t-par: all passed"
exit $fails
