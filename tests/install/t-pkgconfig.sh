#!/bin/bash
# t-pkgconfig.sh - the installed gasnet-$CONDUIT-<mode>.pc files carry the
# .mak fragment's variables, and a client builds from them alone:
# timeout: 90
# conduits: udp tcp
# bypass: on  (it checks the installed .pc files; the bypass changes none of them)
#  1. for every mode, each GASNET_* name has the same value from
#     `pkg-config --variable=NAME` as from the installed .mak: both as
#     configured (prefix /usr/local, the .mak's GASNET_PREFIX default), and
#     relocated to the DESTDIR tree (pkg-config --define-prefix and
#     PKG_CONFIG_SYSROOT_DIR; the .mak with GASNET_PREFIX=that tree);
#  2. t_client.c built only with `pkg-config --variable` values (GASNET_CC,
#     _CPPFLAGS, _CFLAGS, then GASNET_LD, _LDFLAGS, _LIBS; --define-prefix)
#     in the parsync mode runs on 2 and 4 ranks and every rank's check passes;
#  3. a Portals program (tests/portals/t_ptl.c) built as docs/portals.md
#     says, `cc app.c $(pkg-config --cflags --libs portals3-$CONDUIT)`,
#     against the installed header and library alone, runs on 2 ranks with
#     the installed launcher and both ranks pass every check; a program
#     that includes <portals/portals3.h> (the Cray and Sandia path) builds
#     and runs the same way.
set -u -o pipefail
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/install/common.sh"
install_tree
NAMES="GASNET_PREFIX GASNET_CC GASNET_CXX GASNET_LD GASNET_LD_REQUIRES_CXX GASNET_DEFINES
  GASNET_INCLUDES GASNET_CPPFLAGS GASNET_CXXCPPFLAGS GASNET_CFLAGS GASNET_CXXFLAGS
  GASNET_LDFLAGS GASNET_LIBS"
# Prints NAME=value for every name, as make expands them after including $1.
cat > "$TMP/print.mk" <<'MK'
include $(MAK)
all: ; @:
$(foreach v,$(NAMES),$(info $(v)=$($(v))))
MK
mak_values() { make -s -f "$TMP/print.mk" MAK="$1" NAMES="$NAMES" "${@:2}"; }
pc_values() { local v; for v in $NAMES; do echo "$v=$(pkg-config "$@" --variable=$v)"; done; }

export PKG_CONFIG_PATH="$PCDIR"
for mode in seq parsync par; do
  pc=gasnet-$CONDUIT-$mode mak="$PREFIX/include/$CONDUIT-conduit/$CONDUIT-$mode.mak"
  echo "== 1. $pc.pc vs $CONDUIT-$mode.mak"
  mak_values "$mak" > "$TMP/mak.conf"
  pc_values $pc > "$TMP/pc.conf"
  mak_values "$mak" GASNET_PREFIX="$PREFIX" > "$TMP/mak.moved"
  pc_values --define-prefix $pc > "$TMP/pc.moved"
  PKG_CONFIG_SYSROOT_DIR="$TMP/root" pc_values $pc > "$TMP/pc.sysroot"
  sed "s|$TMP|\$TMP|g" "$TMP/mak.moved"
  for pair in "mak.conf pc.conf" "mak.moved pc.moved" "mak.moved pc.sysroot"; do
    set -- $pair
    if diff "$TMP/$1" "$TMP/$2" > "$TMP/diff"; then
      echo "ok: $1 = $2 ($(wc -l < "$TMP/$1") names)"
    else
      echo "FAIL: $1 differs from $2:"; sed "s|$TMP|\$TMP|g" "$TMP/diff"; fails=$((fails + 1))
    fi
  done
  grep -qx "GASNET_PREFIX=$(sed -n 's/^prefix=//p' "$TOP/contrib/$pc.pc")" "$TMP/mak.conf" \
    && echo "ok: GASNET_PREFIX defaults to the configured prefix" \
    || { echo "FAIL: GASNET_PREFIX default"; fails=$((fails + 1)); }
done

echo "== 2. a parsync client from pkg-config variables only"
pcv() { pkg-config --define-prefix --variable="$1" gasnet-$CONDUIT-parsync; }
out="$TMP/pc"; mkdir -p "$out"
compile="$(pcv GASNET_CC) $(pcv GASNET_CPPFLAGS) $(pcv GASNET_CFLAGS) -Wall -Wextra -Werror -c $CLIENT_SRC/t_client.c -o $out/t_client.o"
link="$(pcv GASNET_LD) $(pcv GASNET_LDFLAGS) -o $out/t_client $out/t_client.o $(pcv GASNET_LIBS)"
echo "$compile" | sed "s|$TMP|\$TMP|g"; echo "$link" | sed "s|$TMP|\$TMP|g"
if $compile && $link; then
  for n in 2 4; do run_client "$out/t_client" $n "t_client(parsync, pkg-config)"; done
else
  echo "FAIL: building t_client from pkg-config variables"; fails=$((fails + 1))
fi
echo "== 3. a Portals program from pkg-config portals3-$CONDUIT"
pflags=$(pkg-config --define-prefix --cflags --libs portals3-$CONDUIT)
echo "cc t_ptl.c $pflags" | sed "s|$TMP|\$TMP|g"
if cc -std=gnu11 -Wall -Werror -o "$out/t_ptl" "$TOP/tests/portals/t_ptl.c" $pflags; then
  pout=$(timeout 60 "$INSTRUN" -n 2 "$out/t_ptl" 2>&1); prc=$?
  if [ $prc = 0 ] && [ "$(echo "$pout" | grep -c 'all [0-9]* checks passed')" = 2 ]; then
    echo "ok: t_ptl (installed portals3-$CONDUIT) on 2 ranks: both passed every check"
  else
    echo "FAIL: t_ptl (installed portals3-$CONDUIT): exit $prc"; echo "$pout" | tail -8; fails=$((fails + 1))
  fi
else
  echo "FAIL: building t_ptl from pkg-config portals3-$CONDUIT"; fails=$((fails + 1))
fi
cat > "$out/ptl_path.c" <<'C'
#include <portals/portals3.h>
#include <stdio.h>
int main(void) {
  int n;
  ptl_handle_ni_t ni;
  ptl_process_id_t id;
  unsigned rank, size;
  if (PtlInit(&n) != PTL_OK || PtlNIInit(PTL_IFACE_DEFAULT, PTL_PID_ANY, NULL, NULL, &ni) != PTL_OK ||
      PtlGetId(ni, &id) != PTL_OK || PtlGetRank(ni, &rank, &size) != PTL_OK || PtlNIFini(ni) != PTL_OK)
    return 1;
  PtlFini();
  printf("ptl_path: rank %u of %u: id (%u,%u)\n", rank, size, (unsigned)id.nid, (unsigned)id.pid);
  return 0;
}
C
if cc -std=c99 -Wall -Werror -o "$out/ptl_path" "$out/ptl_path.c" $pflags &&
   [ "$(timeout 60 "$INSTRUN" -n 2 "$out/ptl_path" 2>&1 | grep -c '^ptl_path: rank [01] of 2')" = 2 ]; then
  echo "ok: a program including <portals/portals3.h> builds and runs on 2 ranks"
else
  echo "FAIL: a program including <portals/portals3.h>"; fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-pkgconfig: all passed"
exit $fails
