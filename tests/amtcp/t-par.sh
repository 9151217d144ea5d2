#!/bin/bash
# t-par.sh - GASNET_PAR over tcp with large frames: 3 threads per node send
# 1 MiB Longs and Mediums to random nodes while all poll (t_amtcp_par), on 2
# and 3 ranks, with default and with 16 KiB socket buffers (queued frames,
# partial writes and zero-copy waits from several threads at once); then the
# same program built with ThreadSanitizer (core, amtcp, extended-ref and boot
# compiled here into tests/out/tsan-amtcp, as tests/core/t-par.sh does) on
# 3 ranks with 16 KiB buffers, which must report no race.
# timeout: 240
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
cd "$TOP/tests/amtcp" || exit 1
fails=0
run() { # label, program, ranks, env...
  local label=$1 prog=$2 n=$3; shift 3
  out=$(env "$@" "$TOP/spawner/gasnetrun_tcp" -n "$n" "$prog" 10 2>&1); rc=$?
  races=$(echo "$out" | grep -c 'WARNING: ThreadSanitizer')
  echo "$out" | grep -E '^node 0:|BAD|error' | head -5
  echo "$out" | grep -A12 'WARNING: ThreadSanitizer' | head -60
  echo "$label -n $n $*: expected exit 0, 'ok', 0 races; got exit $rc, $races races"
  [ $rc = 0 ] && [ $races = 0 ] && echo "$out" | grep -q '0 bad: ok' || { echo "FAIL: $label -n $n"; fails=$((fails + 1)); }
}
for n in 2 3; do
  run plain ./t_amtcp_par $n GASNET_TCP_SOCKBUF=4194304
  run plain ./t_amtcp_par $n GASNET_TCP_SOCKBUF=16384
done
tsan="$TOP/tests/out/tsan-amtcp"
mkdir -p "$tsan"
CC=${CC:-gcc}
flags="-std=gnu11 -g -O1 -fsanitize=thread -pthread -D_GNU_SOURCE -DGASNET_PAR -DGASNETC_THREADS=1 \
  -I$TOP -I$TOP/include -I$TOP/core -I$TOP/tools -I$TOP/common -I$TOP/spawner -I$TOP/amtcp -I$TOP/amshm -I$TOP/extended-ref"
if echo 'int main(void){return 0;}' | $CC -fsanitize=thread -x c - -o "$tsan/probe" 2>/dev/null; then
  srcs="$TOP/tools/*.c $TOP/core/gasnetc_*.c $TOP/conduit/tcp.c $TOP/amtcp/*.c $TOP/amshm/*.c $TOP/extended-ref/*.c \
    $TOP/spawner/boot.c $TOP/spawner/boot_gasnetrun.c $TOP/spawner/boot_kvs.c $TOP/spawner/boot_pmi1.c $TOP/spawner/boot_dl.c $TOP/spawner/spawn_proto.c $TOP/common/*.c $TOP/tests/amtcp/t_amtcp_par.c"
  if $CC $flags $srcs -o "$tsan/t_amtcp_par" $(pkg-config --libs libuv) -lz 2>"$tsan/build.log"; then
    run TSan "$tsan/t_amtcp_par" 3 GASNET_TCP_SOCKBUF=16384 TSAN_OPTIONS="halt_on_error=0 exitcode=66"
  else
    echo "FAIL: TSan build failed:"; tail -20 "$tsan/build.log"; fails=$((fails + 1))
  fi
else
  echo "SKIPPED PART: the ThreadSanitizer run ($CC cannot build with -fsanitize=thread: no libtsan?)"
fi
[ $fails = 0 ] && echo "t-par: all passed"
exit $fails
