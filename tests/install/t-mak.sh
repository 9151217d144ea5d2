#!/bin/bash
# t-mak.sh - a C client built only through the installed .mak fragment:
# timeout: 90
# conduits: udp tcp
# the tree is installed with DESTDIR into a temporary directory; client.mk
# includes $(GASNET_PREFIX)/include/$CONDUIT-conduit/$CONDUIT-<mode>.mak
# (GASNET_PREFIX given on make's command line, as a client of a moved tree
# would) and compiles t_client.c with $(GASNET_CC) $(GASNET_CPPFLAGS)
# $(GASNET_CFLAGS), links with $(GASNET_LD) $(GASNET_LDFLAGS) ... $(GASNET_LIBS),
# for the seq and par modes; each binary runs on 2 and 4 ranks with the
# installed gasnetrun_$CONDUIT, and every rank's put/get/AM check must pass.
set -u -o pipefail
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/install/common.sh"
install_tree

for mode in seq par; do
  out="$TMP/$mode"; mkdir -p "$out"
  echo "== $CONDUIT-$mode.mak: build"
  if ! make -f "$CLIENT_SRC/client.mk" GASNET_PREFIX="$PREFIX" CONDUIT="$CONDUIT" MODE=$mode \
        SRC="$CLIENT_SRC" OUT="$out" c 2>&1 | sed "s|$TMP|\$TMP|g"; then
    echo "FAIL: building t_client with $CONDUIT-$mode.mak"; fails=$((fails + 1)); continue
  fi
  [ -x "$out/t_client" ] || { echo "FAIL: no $out/t_client"; fails=$((fails + 1)); continue; }
  for n in 2 4; do run_client "$out/t_client" $n "t_client($mode)"; done
done
[ $fails = 0 ] && echo "t-mak: all passed"
exit $fails
