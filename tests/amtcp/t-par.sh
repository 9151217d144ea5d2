#!/bin/bash
# t-par.sh - GASNET_PAR over tcp with large frames: 3 threads per node send
# 1 MiB Longs and Mediums to random nodes while all poll (t_amtcp_par), on 2
# and 3 ranks, with default and with 16 KiB socket buffers (queued frames,
# partial writes and zero-copy waits from several threads at once); then the
# same program built with ThreadSanitizer (core, amtcp, extended-ref and boot:
# tests/lib/tsan.sh's objects for tcp, as tests/core/t-par.sh uses; the
# program in tests/out/tsan-amtcp) on 3 ranks with 16 KiB buffers, which
# must report no race.
# timeout: 240
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
. "$TOP/tests/lib/tsan.sh"
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
tsan="$TOP/tests/out/tsan-amtcp/t_amtcp_par"
CONDUIT=tcp tsan_build "$tsan" "$TOP/tests/amtcp/t_amtcp_par.c"; built=$?
if [ $built = 0 ]; then
  run TSan "$tsan" 3 GASNET_TCP_SOCKBUF=16384 TSAN_OPTIONS="halt_on_error=0 exitcode=66"
elif [ $built = 1 ]; then
  fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-par: all passed"
exit $fails
