# tsan.sh - sourced by test scripts that run a PAR test program under
# ThreadSanitizer: the library's sources for $CONDUIT and the program's,
# compiled together with -fsanitize=thread (as tests/extended/t-par.sh).
#
#   tsan_build OUT SOURCE...   build OUT; 0 built, 77 no libtsan here (a
#                              line says so), 1 failed (the log's tail shown)
#   tsan_check LABEL N OUTPUT RC PASSLINE
#                              0 when the run exited 0, printed PASSLINE N
#                              times and ThreadSanitizer reported nothing
tsan_build() {
  local out=$1; shift
  local cc=${CC:-gcc} dir
  dir=$(dirname "$out")
  mkdir -p "$dir"
  if ! echo 'int main(void){return 0;}' | $cc -fsanitize=thread -x c - -o "$dir/probe" 2>/dev/null; then
    echo "SKIPPED PART: the ThreadSanitizer run ($cc cannot build with -fsanitize=thread: no libtsan?)"
    return 77
  fi
  local flags="-std=gnu11 -g -O1 -fsanitize=thread -pthread -D_GNU_SOURCE -DGASNET_PAR -DGASNETC_THREADS=1
    -I$TOP -I$TOP/include -I$TOP/core -I$TOP/tools -I$TOP/common -I$TOP/spawner -I$TOP/amudp
    -I$TOP/amtcp -I$TOP/amshm -I$TOP/extended-ref -I$TOP/tests/lib"
  local srcs="$TOP/tools/*.c $TOP/core/gasnetc_*.c $TOP/conduit/$CONDUIT.c $TOP/am$CONDUIT/*.c
    $TOP/amshm/*.c $TOP/extended-ref/*.c $TOP/spawner/boot.c $TOP/spawner/boot_gasnetrun.c
    $TOP/spawner/boot_kvs.c $TOP/spawner/boot_pmi1.c $TOP/spawner/boot_dl.c
    $TOP/spawner/spawn_proto.c $TOP/common/*.c"
  # shellcheck disable=SC2086
  if ! $cc $flags $srcs "$@" -o "$out" $(pkg-config --libs libuv) -lz 2>"$dir/build.log"; then
    echo "TSan build failed:"; tail -20 "$dir/build.log"
    return 1
  fi
}

tsan_check() {
  local label=$1 n=$2 output=$3 rc=$4 pass=$5 races ok
  races=$(echo "$output" | grep -c 'WARNING: ThreadSanitizer')
  echo "$output" | grep -A16 'WARNING: ThreadSanitizer' | head -80
  ok=$(echo "$output" | grep -c "$pass")
  echo "TSan $label: expected exit 0, $n '$pass' lines and 0 reports; got exit $rc, $ok and $races"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] && [ "$races" = 0 ]
}
