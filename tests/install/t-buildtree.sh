#!/bin/bash
# t-buildtree.sh - the built (uninstalled) tree used as a GASNet build
# directory, the way UPC++'s `configure --with-gasnet=<builddir>` uses one:
# timeout: 150
# conduits: udp tcp
# bypass: on  (it checks the build tree's fragments and idents; the bypass changes neither)
#  1. what a client's configure reads there: <builddir>/gasnet_config.h
#     with `#define GASNETI_EX_SPEC_VERSION_MAJOR 0` / `_MINOR 19` and
#     GASNET_RELEASE_VERSION_*, read by grep as scripts do; the
#     $CONDUIT-conduit/ directory with the three .mak, .pc, gasnet_core.h;
#  2. for seq and par: t_client.c built by client.mk through
#     $CONDUIT-conduit/$CONDUIT-<mode>.mak alone (no install, no prefix)
#     runs on 2 ranks (every rank's put/get/AM check), and `strings` of the
#     binary shows "$GASNetConduitName: <CONDUIT> $" and
#     "$GASNetThreadModel: GASNET_<MODE> $" (t_client refers to nothing of
#     the object that holds them: they come with gasnet_init);
#  3. GASNET_LIBS brings -lm: a client calling log() links with it alone,
#     and so does a tools-only one through <builddir>/gasnet_tools-seq.mak.
set -u -o pipefail
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/install/common.sh"
INSTRUN=$GASNETRUN   # run_client's launcher: the tree's own
UC=$(echo "$CONDUIT" | tr a-z A-Z)

echo "== 1. the build directory's files"
cfg="$TOP/gasnet_config.h"
for want in "GASNETI_EX_SPEC_VERSION_MAJOR 0" "GASNETI_EX_SPEC_VERSION_MINOR 19" \
            "GASNET_RELEASE_VERSION_MAJOR 2026" "GASNET_RELEASE_VERSION_MINOR 11" \
            "GASNET_RELEASE_VERSION_PATCH 0"; do
  got=$(grep "^#define ${want% *} " "$cfg" 2>/dev/null | awk '{print $2, $3}')
  [ "$got" = "$want" ] && echo "ok: gasnet_config.h: #define $got" \
    || { echo "FAIL: gasnet_config.h: want '#define $want', got '${got:-nothing}'"; fails=$((fails + 1)); }
done
for f in $CONDUIT-seq.mak $CONDUIT-parsync.mak $CONDUIT-par.mak gasnet-$CONDUIT-seq.pc gasnet_core.h Makefile; do
  [ -f "$TOP/$CONDUIT-conduit/$f" ] && echo "ok: $CONDUIT-conduit/$f" \
    || { echo "FAIL: no $CONDUIT-conduit/$f in the build tree"; fails=$((fails + 1)); }
done

echo "== 2. clients of the build tree"
for mode in seq par; do
  MODE=$(echo $mode | tr a-z A-Z) out="$TMP/$mode" mak="$TOP/$CONDUIT-conduit/$CONDUIT-$mode.mak"
  mkdir -p "$out"
  echo "-- $CONDUIT-$mode: make -f client.mk MAK=$CONDUIT-conduit/$CONDUIT-$mode.mak c"
  if make -s -f "$CLIENT_SRC/client.mk" MAK="$mak" GASNET_PREFIX=/nonexistent CONDUIT="$CONDUIT" \
       MODE=$mode SRC="$CLIENT_SRC" OUT="$out" c 2>&1 && [ -x "$out/t_client" ]; then
    run_client "$out/t_client" 2 "t_client($mode, build tree)"
    for id in "\$GASNetConduitName: $UC \$" "\$GASNetThreadModel: GASNET_$MODE \$"; do
      n=$(strings "$out/t_client" | grep -cxF "$id")
      [ "$n" = 1 ] && echo "ok: strings t_client($mode): '$id'" \
        || { echo "FAIL: strings t_client($mode): '$id' found $n times, want 1"; fails=$((fails + 1)); }
    done
  else
    echo "FAIL: building t_client with the build tree's $CONDUIT-$mode.mak"; fails=$((fails + 1))
  fi
done

echo "== 3. -lm from GASNET_LIBS"
cat > "$TMP/m.c" <<'C'
#include <math.h>
#include <stdio.h>
#ifdef TOOLS
#include <gasnet_tools.h>
#else
#include <gasnet.h>
#endif
volatile double t_x = 20.085536923187668; /* e^3: log() is not folded away */
int main(void) { printf("%.3f\n", log(t_x)); return 0; }
C
printf 'include $(MAK)\n$(OUT): $(SRC) ; $(GASNET_CC) $(GASNET_CPPFLAGS) $(X) $(GASNET_CFLAGS) $(GASNET_LDFLAGS) -o $@ $< $(GASNET_LIBS)\n' > "$TMP/m.mk"
for how in "$TOP/$CONDUIT-conduit/$CONDUIT-seq.mak:" "$TOP/gasnet_tools-seq.mak:-DTOOLS"; do
  mak=${how%:*} label=${how%:*}; label=${label#$TOP/}
  if make -s -f "$TMP/m.mk" MAK="$mak" X="${how##*:}" SRC="$TMP/m.c" OUT="$TMP/m" 2>&1 &&
     [ "$("$TMP/m")" = 3.000 ]; then
    echo "ok: a client calling log() links with $label's GASNET_LIBS and prints 3.000"
  else
    echo "FAIL: a client calling log() with $label's GASNET_LIBS"; fails=$((fails + 1))
  fi
  rm -f "$TMP/m"
done
[ $fails = 0 ] && echo "t-buildtree: all passed"
exit $fails
