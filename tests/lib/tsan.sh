# tsan.sh - sourced by test scripts that run a PAR test program under
# ThreadSanitizer: the library's sources for $CONDUIT and the program's,
# compiled with -fsanitize=thread (core/t-par.sh, extended/t-par.sh,
# amtcp/t-par.sh, ex/t-ex-ratomic.sh, ex/t-ex-coll-par.sh).
#
#   tsan_build OUT SOURCE...   build OUT; 0 built, 77 no libtsan here (a
#                              line says so), 1 failed (the log's tail shown)
#   tsan_check LABEL N OUTPUT RC PASSLINE
#                              0 when the run exited 0, printed PASSLINE N
#                              times and ThreadSanitizer reported nothing
#
# The library's part (every source of the PAR library for $CONDUIT: tools,
# core, conduit/$CONDUIT.c, its transports and amshm, live, extended-ref,
# boot, common) is compiled once per conduit into tests/out/tsan-lib-$CONDUIT/,
# two files at a time, and linked, object by object, into every TSan
# program of that conduit: the same objects as compiling all the sources in
# one command. The objects are reused while a stamp matches: the sha256 of
# the flags, the compiler's version and the contents of every source and of
# every header in the include directories; any change rebuilds them all.
# (Every TSan program of the suite used to compile the whole library itself:
# 14 s a script on the 2-core machine, 17 times a run.)

tsan_flags() {
  echo "-std=gnu11 -g -O1 -fsanitize=thread -pthread -D_GNU_SOURCE -DGASNET_PAR -DGASNETC_THREADS=1
    -I$TOP -I$TOP/include -I$TOP/core -I$TOP/tools -I$TOP/common -I$TOP/bootstrap -I$TOP/spawnproto -I$TOP/amudp
    -I$TOP/amtcp -I$TOP/amshm -I$TOP/live -I$TOP/extended-ref -I$TOP/tests/lib"
}

# tsan_lib: TSAN_OBJS, the library's objects for $CONDUIT, built or reused.
tsan_lib() {
  local cc=${CC:-gcc} dir="$TOP/tests/out/tsan-lib-$CONDUIT" flags tdirs d srcs stamp s o
  flags=$(tsan_flags)
  case $CONDUIT in mix) tdirs="amudp amtcp amshm" ;; *) tdirs="am$CONDUIT amshm" ;; esac
  srcs=$(cd "$TOP" && ls tools/*.c core/gasnetc_*.c live/*.c conduit/$CONDUIT.c $(for d in $tdirs; do echo "$d/*.c"; done) \
    extended-ref/*.c bootstrap/boot.c bootstrap/boot_gasnetrun.c bootstrap/boot_kvs.c bootstrap/boot_pmi1.c \
    bootstrap/boot_dl.c bootstrap/boot_self.c spawnproto/spawn_proto.c common/*.c)
  stamp=$( { echo "$flags"; $cc --version | head -n 1
             cd "$TOP" && cat $srcs include/*.h core/*.h tools/*.h common/*.h bootstrap/*.h spawnproto/*.h amudp/*.h \
               amtcp/*.h amshm/*.h live/*.h extended-ref/*.h tests/lib/*.h; } 2>/dev/null | sha256sum | cut -c1-64)
  TSAN_OBJS=""
  for s in $srcs; do TSAN_OBJS="$TSAN_OBJS $dir/$(echo "${s%.c}" | tr / _).o"; done
  if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$stamp" ]; then
    echo "TSan library for $CONDUIT: reusing tests/out/tsan-lib-$CONDUIT (sources unchanged)"
    return 0
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  local t0=$EPOCHSECONDS
  # shellcheck disable=SC2086
  if ! (cd "$TOP" && printf '%s\n' $srcs | TSAN_CC=$cc TSAN_CFLAGS=$(echo $flags) xargs -P 2 -I{} \
          sh -c 'exec $TSAN_CC $TSAN_CFLAGS -c "$1" -o "$2/$(echo "${1%.c}" | tr / _).o"' sh {} "$dir") \
        >"$dir/build.log" 2>&1; then
    echo "TSan build failed (the library for $CONDUIT):"; tail -20 "$dir/build.log"
    return 1
  fi
  for o in $TSAN_OBJS; do [ -f "$o" ] || { echo "TSan build failed: no ${o#$TOP/}"; return 1; }; done
  echo "$stamp" >"$dir/stamp"
  echo "TSan library for $CONDUIT: built in tests/out/tsan-lib-$CONDUIT ($((EPOCHSECONDS - t0)) s)"
}

tsan_build() {
  local out=$1; shift
  local cc=${CC:-gcc} dir
  dir=$(dirname "$out")
  mkdir -p "$dir"
  if ! echo 'int main(void){return 0;}' | $cc -fsanitize=thread -x c - -o "$dir/probe" 2>/dev/null; then
    echo "SKIPPED PART: the ThreadSanitizer run ($cc cannot build with -fsanitize=thread: no libtsan?)"
    return 77
  fi
  tsan_lib || return 1
  # shellcheck disable=SC2046,SC2086
  if ! $cc $(tsan_flags) "$@" $TSAN_OBJS -o "$out" $(pkg-config --libs libuv) -lz 2>"$dir/build.log"; then
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
