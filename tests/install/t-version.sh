#!/bin/bash
# t-version.sh - what client configure scripts check, on the installed tree:
# timeout: 90
# conduits: udp tcp
# bypass: on  (it starts no job: nothing to run with the bypass off)
#  1. a program compiled against the installed gasnet_config.h (alone, and
#     through gasnet.h) with `#if` on GASNET_RELEASE_VERSION_MAJOR/MINOR/PATCH
#     accepts ">= 1.18.0" (GASNet-1-era clients), ">= 2000.0.0" (any GASNet-EX
#     release) and ">= 2026.11.0", and runs, printing 2026.11.0; asking for
#     ">= 2026.11.1", ">= 2026.12.0" or ">= 2027.1.0" is a compile error;
#  1b. the release is a GASNet-EX one (YEAR.MONTH.PATCH: MAJOR >= 2000, MINOR
#     a month) in gasnet.h, gasnetex.h and gasnet_tools.h alike, while the
#     spec versions are GASNET_SPEC 1.8, GEX_SPEC 0.19, GASNETT_SPEC 1.20,
#     and gasnet_config.h's GASNETI_SPEC_VERSION_*, GASNETI_EX_SPEC_VERSION_*
#     and GASNETI_TOOLS_SPEC_VERSION_* (what configure scripts grep for)
#     say the same;
#  2. pkg-config: --modversion is 2026.11.0 for every mode,
#     --atleast-version=1.18.0 and =2026.11.0 succeed, =2026.12.0 fails;
#  3. the installed gasnetrun_$CONDUIT --version (and -V) prints
#     "gasnetrun (gasnet-ethernet) 2026.11.0" and the conduits, exit 0;
#  4. (in the udp run: both runs install the same headers) every installed
#     header compiles after gasnet.h, and alone (unless it is a part of
#     gasnet.h whose own #error says to include gasnet.h), in a
#     C++17 translation unit (g++ -std=c++17 -fsyntax-only, GASNET_SEQ and
#     GASNET_PAR) and as C (gnu99, gnu17; GASNET_SEQ); gasnet_core.h of the
#     conduit directory also compiles with no mode defined.
set -u -o pipefail
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/install/common.sh"
install_tree
VERSION=2026.11.0
CC=${CC:-cc} CXX=${CXX:-g++}
inc="$PREFIX/include"

echo "== 1. release version macros, as a configure script tests them"
cat > "$TMP/conftest.c" <<'C'
#include <stdio.h>
#ifdef VIA_GASNET_H
#include <gasnet.h>
#else
#include <gasnet_config.h>
#endif
#if !defined(GASNET_RELEASE_VERSION_MAJOR) || !defined(GASNET_RELEASE_VERSION_MINOR) || \
    !defined(GASNET_RELEASE_VERSION_PATCH)
#error "no GASNET_RELEASE_VERSION_* macros"
#endif
#if GASNET_RELEASE_VERSION_MAJOR > WANT_MAJOR || \
    (GASNET_RELEASE_VERSION_MAJOR == WANT_MAJOR && \
     (GASNET_RELEASE_VERSION_MINOR > WANT_MINOR || \
      (GASNET_RELEASE_VERSION_MINOR == WANT_MINOR && GASNET_RELEASE_VERSION_PATCH >= WANT_PATCH)))
int main(void) {
  printf("%d.%d.%d\n", GASNET_RELEASE_VERSION_MAJOR, GASNET_RELEASE_VERSION_MINOR,
         GASNET_RELEASE_VERSION_PATCH);
  return 0;
}
#else
#error "GASNet release too old"
#endif
C
# conftest HOW MAJ MIN PATCH: compile and run; prints the version, fails if older.
conftest() {
  local how=$1; shift
  $CC -I"$inc" -DGASNET_SEQ $how -DWANT_MAJOR=$1 -DWANT_MINOR=$2 -DWANT_PATCH=$3 \
      "$TMP/conftest.c" -o "$TMP/conftest" 2>"$TMP/conftest.err" && "$TMP/conftest"
}
for how in "" -DVIA_GASNET_H; do
  src=${how:+gasnet.h}; src=${src:-gasnet_config.h}
  for want in "1 18 0" "2000 0 0" "2026 11 0"; do
    got=$(conftest "$how" $want)
    if [ "$got" = $VERSION ]; then echo "ok: $src: >= ${want// /.} accepted, version $got"
    else echo "FAIL: $src: >= ${want// /.} not accepted (got '$got')"; cat "$TMP/conftest.err"; fails=$((fails + 1)); fi
  done
  for want in "2026 11 1" "2026 12 0" "2027 1 0"; do
    if conftest "$how" $want >/dev/null; then echo "FAIL: $src: >= ${want// /.} accepted"; fails=$((fails + 1))
    else echo "ok: $src: >= ${want// /.} refused: $(grep -o '#error.*' "$TMP/conftest.err" | head -1)"; fi
  done
done

echo "== 1b. a GASNet-EX release; the spec versions, in the headers and gasnet_config.h"
cat > "$TMP/exrel.c" <<'C'
#include <stdio.h>
#include <gasnet.h>
#include <gasnetex.h>
#include <gasnet_tools.h>
#if GASNET_RELEASE_VERSION_MAJOR < 2000
#error "GASNET_RELEASE_VERSION_MAJOR < 2000: a GASNet-1 release number, not YEAR.MONTH.PATCH"
#endif
#if GASNET_RELEASE_VERSION_MINOR < 1 || GASNET_RELEASE_VERSION_MINOR > 12
#error "GASNET_RELEASE_VERSION_MINOR is not a month"
#endif
#if GASNETI_EX_SPEC_VERSION_MAJOR != GEX_SPEC_VERSION_MAJOR || \
    GASNETI_EX_SPEC_VERSION_MINOR != GEX_SPEC_VERSION_MINOR || \
    GASNETI_SPEC_VERSION_MAJOR != GASNET_SPEC_VERSION_MAJOR || \
    GASNETI_SPEC_VERSION_MINOR != GASNET_SPEC_VERSION_MINOR || \
    GASNETI_TOOLS_SPEC_VERSION_MAJOR != GASNETT_SPEC_VERSION_MAJOR || \
    GASNETI_TOOLS_SPEC_VERSION_MINOR != GASNETT_SPEC_VERSION_MINOR
#error "gasnet_config.h's GASNETI_*SPEC_VERSION_* differ from the headers' spec versions"
#endif
#if GASNETT_RELEASE_VERSION_MAJOR != GASNET_RELEASE_VERSION_MAJOR || \
    GASNETT_RELEASE_VERSION_MINOR != GASNET_RELEASE_VERSION_MINOR || \
    GASNETT_RELEASE_VERSION_PATCH != GASNET_RELEASE_VERSION_PATCH
#error "gasnet_tools.h names another release than gasnet.h"
#endif
#define S_(x) #x
#define S(x) S_(x)
int main(void) {
  printf("release %d.%d.%d tools %d.%d.%d core %s; specs GASNET %d.%d GEX %d.%d GASNETT %d.%d\n",
         GASNET_RELEASE_VERSION_MAJOR, GASNET_RELEASE_VERSION_MINOR, GASNET_RELEASE_VERSION_PATCH,
         GASNETT_RELEASE_VERSION_MAJOR, GASNETT_RELEASE_VERSION_MINOR,
         GASNETT_RELEASE_VERSION_PATCH, S(GASNET_CORE_VERSION), GASNET_SPEC_VERSION_MAJOR,
         GASNET_SPEC_VERSION_MINOR, GEX_SPEC_VERSION_MAJOR, GEX_SPEC_VERSION_MINOR,
         GASNETT_SPEC_VERSION_MAJOR, GASNETT_SPEC_VERSION_MINOR);
  return 0;
}
C
want="release $VERSION tools $VERSION core ${VERSION%.*}; specs GASNET 1.8 GEX 0.19 GASNETT 1.20"
if got=$($CC -I"$inc" -I"$inc/$CONDUIT-conduit" -DGASNET_SEQ "$TMP/exrel.c" -o "$TMP/exrel" 2>"$TMP/exrel.err" && "$TMP/exrel") &&
   [ "$got" = "$want" ]; then echo "ok: $got"
else echo "FAIL: got '${got:-}', want '$want'"; cat "$TMP/exrel.err"; fails=$((fails + 1)); fi

echo "== 2. pkg-config versions"
export PKG_CONFIG_PATH="$PCDIR"
for mode in seq parsync par; do
  v=$(pkg-config --modversion gasnet-$CONDUIT-$mode)
  [ "$v" = $VERSION ] && echo "ok: gasnet-$CONDUIT-$mode --modversion $v" \
    || { echo "FAIL: gasnet-$CONDUIT-$mode --modversion '$v'"; fails=$((fails + 1)); }
done
for v in 1.18.0 $VERSION; do
  if pkg-config --atleast-version=$v gasnet-$CONDUIT-seq; then echo "ok: --atleast-version=$v gasnet-$CONDUIT-seq succeeds"
  else echo "FAIL: --atleast-version=$v"; fails=$((fails + 1)); fi
done
if pkg-config --atleast-version=2026.12.0 gasnet-$CONDUIT-seq; then echo "FAIL: --atleast-version=2026.12.0 succeeds"; fails=$((fails + 1))
else echo "ok: --atleast-version=2026.12.0 gasnet-$CONDUIT-seq fails"; fi

echo "== 3. gasnetrun_$CONDUIT --version"
for opt in --version -V; do
  out=$("$INSTRUN" $opt 2>&1); rc=$?
  echo "$out" | sed "s/^/  [$opt] /"
  if [ $rc = 0 ] && [ "$(echo "$out" | head -1)" = "gasnetrun (gasnet-ethernet) $VERSION" ] &&
     echo "$out" | grep -q "^conduits:.* $CONDUIT\b"; then
    echo "ok: $opt: exit 0, version $VERSION, conduit $CONDUIT listed"
  else
    echo "FAIL: $opt: exit $rc, expected 'gasnetrun (gasnet-ethernet) $VERSION' and a conduits line with $CONDUIT"
    fails=$((fails + 1))
  fi
done

echo "== 4. installed headers in C++17 and C translation units"
# compile_tu LABEL COMPILER... : compiles $TMP/tu.c (syntax only); counts a failure.
compile_tu() {
  local label=$1; shift
  if "$@" -fsyntax-only -Wall -Wextra -I"$inc" "$TMP/tu.c" >"$TMP/tu.err" 2>&1; then
    [ -s "$TMP/tu.err" ] && sed 's/^/    warning output: /' "$TMP/tu.err" | head -5
    return 0
  fi
  echo "FAIL: $label"; sed 's/^/    /' "$TMP/tu.err" | head -8; fails=$((fails + 1)); return 1
}
compilers=("$CXX -x c++ -std=c++17 -DGASNET_SEQ" "$CXX -x c++ -std=c++17 -DGASNET_PAR"
           "$CC -x c -std=gnu99 -DGASNET_SEQ" "$CC -x c -std=gnu17 -DGASNET_SEQ")
headers=$(cd "$inc" && find . -name '*.h' | sed 's|^\./||' | sort)
echo "headers: $(echo $headers)"
# The install is the whole tree's, the same files in both conduits' runs,
# and these compiles name no conduit: the tcp run would repeat the udp
# run's word for word. (Its own conduit's gasnet_core.h: below, in both.)
if [ "$CONDUIT" != udp ]; then
  echo "(every installed header, both conduits' included: checked in the udp run, the same install)"
  headers=""
fi
for h in $headers; do
  ok=0
  for c in "${compilers[@]}"; do
    printf '#include <gasnet.h>\n#include <%s>\nint t_tu;\n' "$h" > "$TMP/tu.c"
    compile_tu "$h after gasnet.h: $c" $c || continue
    printf '#include <%s>\nint t_tu;\n' "$h" > "$TMP/tu.c"
    if $c -fsyntax-only -I"$inc" "$TMP/tu.c" >"$TMP/tu.err" 2>&1; then ok=$((ok + 1)); continue; fi
    # A part of gasnet.h may refuse to be included alone, saying so itself.
    if grep -q "$h:[0-9]*:[0-9]*: error: #error.*gasnet\.h" "$TMP/tu.err"; then
      ok=$((ok + 1)); alone="part of gasnet.h ($(grep -o '#error.*' "$TMP/tu.err" | head -1))"
    else
      compile_tu "$h alone: $c" $c
    fi
  done
  [ $ok = ${#compilers[@]} ] && echo "ok: $h: ${alone:-alone and} after gasnet.h, C++17 (SEQ, PAR), gnu99, gnu17"
  unset alone
done
printf '#include <gasnet_core.h>\nint t_tu;\n' > "$TMP/tu.c"
compile_tu "$CONDUIT-conduit/gasnet_core.h with no mode" $CXX -x c++ -std=c++17 -I"$inc/$CONDUIT-conduit" &&
  echo "ok: $CONDUIT-conduit/gasnet_core.h compiles with no mode defined"
printf '#include <gasnet_core.h>\nint t_tu(void) { return (int)gasnet_mynode(); }\n' > "$TMP/tu.c"
compile_tu "$CONDUIT-conduit/gasnet_core.h declares the API" $CXX -x c++ -std=c++17 -DGASNET_SEQ -I"$inc/$CONDUIT-conduit" &&
  echo "ok: with -DGASNET_SEQ, <gasnet_core.h> from $CONDUIT-conduit/ declares gasnet_mynode (it includes gasnet.h)"
[ $fails = 0 ] && echo "t-version: all passed"
exit $fails
