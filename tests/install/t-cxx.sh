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
# Then every function the installed headers declare `extern` (gasnet.h and
# all it includes, gasnetex.h, gasnet_coll.h, gasnet_vis.h, gasnet_ratomic.h,
# gasnet_mk.h) has its address taken in a C++ program, which must compile
# and link: a declaration left outside `extern "C"` has a C++ name the
# library lacks (the tracing calls behind GASNETT_TRACE_PRINTF once were:
# Berkeley's testcxx did not link).
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
echo "== every extern function of the installed headers, from C++"
python3 - "$PREFIX/include" "$out/cxx_linkage.cpp" <<'PY'
import glob, re, sys
inc, dst = sys.argv[1], sys.argv[2]
names = set()
for h in glob.glob(inc + "/*.h"):
    text = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
    for m in re.finditer(r'^[ \t]*extern[ \t]+(?!"C")[^;(#]*?\b([a-z]\w*)[ \t]*\(', text, flags=re.M):
        names.add(m.group(1))
names -= {"int", "void", "char", "short", "long", "unsigned", "signed", "double", "float", "const"}
heads = ["gasnet.h", "gasnetex.h", "gasnet_coll.h", "gasnet_vis.h", "gasnet_ratomic.h", "gasnet_mk.h"]
with open(dst, "w") as f:
    f.writelines("#include <%s>\n" % h for h in heads)
    f.write("#include <cstdio>\nint main() {\n")
    f.writelines('  std::printf("%%p\\n", reinterpret_cast<void *>(&%s));\n' % n for n in sorted(names))
    f.write("  return 0;\n}\n")
print("%d functions" % len(names))
PY
if make -f "$CLIENT_SRC/client.mk" GASNET_PREFIX="$PREFIX" CONDUIT="$CONDUIT" MODE=$mode \
     SRC="$CLIENT_SRC" OUT="$out" cxxlink > "$out/cxxlink.log" 2>&1 && [ -x "$out/cxx_linkage" ]; then
  echo "ok: a C++ program takes the address of each and links"
else
  echo "FAIL: from C++, these do not compile or link:"
  grep -E "undefined reference|error" "$out/cxxlink.log" | sed "s|$TMP|\$TMP|g" | sort -u | head -20
  fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-cxx: all passed"
exit $fails
