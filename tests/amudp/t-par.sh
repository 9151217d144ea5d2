#!/bin/bash
# timeout: 100
# PAR build (libamudp-par): 4 threads per rank sending and polling at once,
# every request and reply exactly once. Then the same test built with
# ThreadSanitizer (gcc -fsanitize=thread, needs libtsan: Debian's gcc
# provides it) must report no data race. Skipped with a message if the
# compiler cannot build TSan binaries.
set -eu
top="${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}"
echo "== t_amudp_par 2 200"; "$top/tests/amudp/t_amudp_par" 2 200
echo "== t_amudp_par 3 100"; "$top/tests/amudp/t_amudp_par" 3 100
cc=${CC:-gcc}
tsan="$top/tests/out/t_amudp_par_tsan"
mkdir -p "$top/tests/out"
# Can this compiler make TSan binaries at all? If not, skip; if it can, a
# failure to build the test is a failure.
echo 'int main(void){return 0;}' > "$tsan.probe.c"
if ! $cc -fsanitize=thread -o "$tsan.probe" "$tsan.probe.c" 2>"$tsan.cc.log" || ! "$tsan.probe"; then
  cat "$tsan.cc.log"
  echo "SKIPPED PART: the ThreadSanitizer run ($cc cannot build -fsanitize=thread programs: no libtsan?)"
  exit 0
fi
$cc -O1 -g -fsanitize=thread -D_GNU_SOURCE -DGASNETC_THREADS=1 -DGASNET_PAR -pthread \
  -I"$top/core" -I"$top/tools" -I"$top/common" -I"$top/include" -I"$top/amudp" -I"$top/tests/lib" $(pkg-config --cflags libuv) \
  -o "$tsan" "$top/tests/amudp/t_amudp_par.c" "$top"/amudp/amudp*.c "$top"/tools/*.c "$top"/common/*.c \
  $(pkg-config --libs libuv)
echo "== ThreadSanitizer: t_amudp_par 2 100"
log="$top/tests/out/t_amudp_par_tsan.log"
rc=0; TSAN_OPTIONS="halt_on_error=0" "$tsan" 2 100 2>"$log" || rc=$?
cat "$log"
echo "== ThreadSanitizer, 1472-byte datagrams and faults: t_amudp_par 3 40"
GASNET_UDP_MTU=1472 GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05 \
  TSAN_OPTIONS="halt_on_error=0" "$tsan" 3 40 2>>"$log" || rc=$?
races=$(grep -c 'WARNING: ThreadSanitizer' "$log" || true)
cat "$log"
echo "ThreadSanitizer warnings: expected 0, got $races"
[ "$rc" = 0 ] && [ "$races" = 0 ]
