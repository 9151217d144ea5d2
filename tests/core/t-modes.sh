#!/bin/bash
# t-modes.sh - configuration checks, once per conduit:
# timeout: 150
# conduits: udp tcp
# bypass: on  (builds and installs; its runs set GASNET_SUPERNODE_MAXSIZE themselves, 4. both ways)
#  1. a client that defines none, or two, of GASNET_SEQ/PARSYNC/PAR gets a
#     compile error that says so (spec 1.5);
#  2. a client compiled for PAR linked with the SEQ library fails to link,
#     naming gasnetc_init_PAR;
#  3. the installed libraries, headers and pkg-config files build a client
#     with `cc app.c $(pkg-config --cflags --libs gasnet-$CONDUIT-<mode>)` in every
#     mode (installed with DESTDIR into a temporary directory), and it runs;
#  4. the core built for GASNET_SEGMENT_EVERYTHING works (t_everything), and
#     RMA to an on-host neighbour goes through AMs, bypass on and off.
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$TOP" || exit 1
CC=${CC:-cc}
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/app.c" <<'C'
#include <gasnet.h>
int main(int argc, char **argv) { gasnet_init(&argc, &argv); gasnet_attach(0, 0, 0, 0); gasnet_exit(0); }
C
echo "== 1. mode macros"
out=$($CC -c -Iinclude "$tmp/app.c" -o "$tmp/a.o" 2>&1)
echo "$out" | grep '#error' | head -1
echo "$out" | grep -q 'define exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR before including gasnet.h (none is defined' \
  || { echo "FAIL: no mode: no such #error"; fails=$((fails + 1)); }
out=$($CC -c -Iinclude -DGASNET_SEQ -DGASNET_PAR "$tmp/app.c" -o "$tmp/a.o" 2>&1)
echo "$out" | grep '#error' | head -1
echo "$out" | grep -q '(more than one is defined' || { echo "FAIL: two modes: no such #error"; fails=$((fails + 1)); }

echo "== 2. PAR client + SEQ library"
out=$($CC -Iinclude -DGASNET_PAR "$tmp/app.c" .libs/libgasnet-$CONDUIT-seq.a $(pkg-config --libs libuv) -lz -pthread -o "$tmp/a" 2>&1); rc=$?
echo "$out" | grep -m1 'undefined reference'
[ $rc != 0 ] && echo "$out" | grep -q "undefined reference to \`gasnetc_init_PAR'" \
  || { echo "FAIL: expected a link error naming gasnetc_init_PAR (exit $rc)"; fails=$((fails + 1)); }

echo "== 3. install + pkg-config"
dest="$tmp/root"
{ make -s install-libLTLIBRARIES install-pkgconfigDATA DESTDIR="$dest" &&
  make -s -C include install DESTDIR="$dest"; } >"$tmp/install.log" 2>&1 \
  || { echo "FAIL: install"; tail "$tmp/install.log"; fails=$((fails + 1)); }
pcdir=$(find "$dest" -name gasnet-$CONDUIT-seq.pc -printf '%h\n' | head -1)
for mode in seq parsync par; do
  flags=$(PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config --cflags --libs gasnet-$CONDUIT-$mode)
  echo "pkg-config --cflags --libs gasnet-$CONDUIT-$mode: $flags"
  if $CC contrib/examples/hello.c $flags -o "$tmp/hello-$mode" 2>"$tmp/cc.log"; then
    out=$("$GASNETRUN" -n 2 "$tmp/hello-$mode" 2>&1); rc=$?
    echo "$out"
    [ $rc = 0 ] && [ "$(echo "$out" | grep -c '^hello from')" = 2 ] || { echo "FAIL: hello-$mode run"; fails=$((fails + 1)); }
  else
    echo "FAIL: cc with gasnet-$CONDUIT-$mode"; cat "$tmp/cc.log"; fails=$((fails + 1))
  fi
done

echo "== 4. GASNET_SEGMENT_EVERYTHING"
mkdir -p "$tmp/ev"
sed -e 's/%GASNET_SEGMENT_MACRO%/GASNET_SEGMENT_EVERYTHING/' -e 's/%GASNET_SEGMENT_NAME%/EVERYTHING/' \
    -e 's/%RELEASE_MAJOR%/0/;s/%RELEASE_MINOR%/0/;s/%RELEASE_PATCH%/0/;s/%RELEASE_STRING%/test/' \
    include/gasnet_config.h.in > "$tmp/ev/gasnet_config.h"
cp include/gasnet.h include/gasnet_am.h "$tmp/ev/"  # so "gasnet_config.h" resolves to this one
# one source a compiler, two at a time (the machine's 2 cores: in one cc
# command the whole library took 9 s), then one link
evflags="-std=gnu11 -O1 -pthread -D_GNU_SOURCE -DGASNET_SEQ -I$tmp/ev -I. -Iinclude -Icore -Itools -Icommon -Ibootstrap -Ispawnproto -Ilive -Iam$CONDUIT -Iamshm -Iextended-ref"
evsrcs=$(ls tools/*.c core/gasnetc_*.c live/*.c conduit/$CONDUIT.c am$CONDUIT/*.c amshm/*.c extended-ref/*.c bootstrap/boot.c bootstrap/boot_gasnetrun.c \
         bootstrap/boot_kvs.c bootstrap/boot_pmi1.c bootstrap/boot_dl.c bootstrap/boot_self.c spawnproto/spawn_proto.c common/*.c tests/core/t_everything.c)
mkdir -p "$tmp/ev/o"
if printf '%s\n' $evsrcs | EVCC=$CC EVFLAGS=$evflags EVO=$tmp/ev/o xargs -P 2 -I{} \
     sh -c 'exec $EVCC $EVFLAGS -c "$1" -o "$EVO/$(echo "${1%.c}" | tr / _).o"' sh {} 2>"$tmp/ev.log" &&
   $CC -pthread "$tmp"/ev/o/*.o -o "$tmp/ev/t_everything" $(pkg-config --libs libuv) -lz 2>>"$tmp/ev.log"; then
  for max in 0 1; do # RMA to the neighbour over the shm transport's AMs, then the network's
    out=$(GASNET_SUPERNODE_MAXSIZE=$max "$GASNETRUN" -n 2 "$tmp/ev/t_everything" 2>&1); rc=$?
    echo "GASNET_SUPERNODE_MAXSIZE=$max:"; echo "$out"
    [ $rc = 0 ] && [ "$(echo "$out" | grep -c 'get_val .* verified')" = 2 ] || { echo "FAIL: EVERYTHING run, GASNET_SUPERNODE_MAXSIZE=$max (exit $rc)"; fails=$((fails + 1)); }
  done
else
  echo "FAIL: EVERYTHING build"; tail -20 "$tmp/ev.log"; fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-modes: all passed"
exit $fails
