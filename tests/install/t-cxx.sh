#!/bin/bash
# t-cxx.sh - a C++17 client built only through the installed .mak fragment:
# timeout: 150  (the first install test of a run installs the tree: 14 s here, 55 s and more under load)
# conduits: udp tcp
# bypass: on  (it checks a C++ client built from the installed .mak; the bypass changes neither)
# client.mk compiles t_client.cpp with $(GASNET_CXX) $(GASNET_CXXCPPFLAGS)
# $(GASNET_CXXFLAGS) -std=c++17 and links it with $(GASNET_CXX) (the C
# libraries need no C++ linker, but a C++ client links with one), in the par
# mode, where two std::threads do the puts; it runs on 2 and 4 ranks with the
# installed gasnetrun_$CONDUIT and prints the same checked line as t_client.c.
set -u -o pipefail
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/install/common.sh"
command -v g++ >/dev/null || { echo "FAIL: no g++ (Debian package g++)"; exit 1; }
install_tree

mode=par out="$TMP/cxx"; mkdir -p "$out"
echo "== $CONDUIT-$mode.mak: build the C++ client"
if make -f "$CLIENT_SRC/client.mk" GASNET_PREFIX="$PREFIX" CONDUIT="$CONDUIT" MODE=$mode \
     SRC="$CLIENT_SRC" OUT="$out" cxx 2>&1 | sed "s|$TMP|\$TMP|g" && [ -x "$out/t_client_cxx" ]; then
  for n in 2 4; do run_client "$out/t_client_cxx" $n "t_client_cxx($mode)"; done
else
  echo "FAIL: building t_client_cxx with $CONDUIT-$mode.mak"; fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-cxx: all passed"
exit $fails
