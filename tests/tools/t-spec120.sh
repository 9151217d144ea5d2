#!/bin/bash
# t-spec120.sh - tools spec 1.20 through the INSTALLED files (make install
# DESTDIR=<temporary directory>, removed at the end):
# timeout: 240
#  1. t_spec120.c built through gasnet_tools-seq.mak and -par.mak, as C
#     (GASNETTOOLS_CC) and as C++ (GASNETTOOLS_CXX), -Wall -Wextra -Werror;
#     each run reports 0 failures (sizes, formats, platform names, the 1.20
#     arities, weak fences between two threads in the SEQ build too) and,
#     with GASNET_VERBOSEENV=1, the gasnett_env*_display lines once each;
#  2. gasnett_fatalerror names the call site, gasnett_fatalerror_nopos not;
#  3. GASNETT_LITE_MODE: no thread mode, no library, links and runs;
#  4. gasnet_fwd.h alone, and with gasnetex.h in either order, C and C++.
set -u
cd "$TOP" || exit 1
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }
dest="$tmp/root"
prefix=$(sed -n 's/^prefix = //p' Makefile)
root="$dest$prefix"
{ make -s -C tools install DESTDIR="$dest" && make -s -C include install DESTDIR="$dest"; } \
  >"$tmp/install.log" 2>&1 || { fail "install"; tail "$tmp/install.log"; }
cp tests/tools/t_spec120.c "$tmp/"

cat > "$tmp/Makefile" <<'MK'
include $(GASNETTOOLS_PREFIX)/include/gasnet_tools-$(MODE).mak
W = -Wall -Wextra -Werror
c-$(MODE): t_spec120.c
	$(GASNETTOOLS_CC) $(GASNETTOOLS_CPPFLAGS) $(GASNETTOOLS_CFLAGS) $(W) -c t_spec120.c -o $@.o
	$(GASNETTOOLS_LD) $(GASNETTOOLS_LDFLAGS) -o $@ $@.o $(GASNETTOOLS_LIBS)
cxx-$(MODE): t_spec120.c
	$(GASNETTOOLS_CXX) $(GASNETTOOLS_CXXCPPFLAGS) $(GASNETTOOLS_CXXFLAGS) $(W) -x c++ -c t_spec120.c -o $@.o
	$(GASNETTOOLS_CXX) $(GASNETTOOLS_CXXFLAGS) $(GASNETTOOLS_LDFLAGS) -o $@ $@.o $(GASNETTOOLS_LIBS)
MK

echo "== 1. C and C++ through gasnet_tools-{seq,par}.mak"
for mode in seq par; do
  for lang in c cxx; do
    prog="$lang-$mode"
    if ! make -s -C "$tmp" GASNETTOOLS_PREFIX="$root" MODE=$mode $prog >"$tmp/$prog.make" 2>&1; then
      fail "$prog: build"; head -20 "$tmp/$prog.make"; continue
    fi
    GASNET_VERBOSEENV=1 timeout 60 "$tmp/$prog" >"$tmp/$prog.out" 2>"$tmp/$prog.err"; rc=$?
    sed "s/^/    [$prog] /" "$tmp/$prog.out" | grep -v '^    \[[a-z-]*\] ok  '
    [ $rc = 0 ] && grep -q '^t_spec120: 0 failures$' "$tmp/$prog.out" \
      && ok "$prog: exit 0, $(grep -c '^ok  ' "$tmp/$prog.out") checks passed" \
      || fail "$prog: exit $rc"
    n=$(grep -c '^ENV parameter: T_SPEC120_STR = hello   (set)$' "$tmp/$prog.err")
    grep -q '^ENV parameter: T_SPEC120_INT = 2MB   (default)$' "$tmp/$prog.err" &&
      grep -q '^ENV parameter: T_SPEC120_DBL = 0.5   (default)$' "$tmp/$prog.err" && [ "$n" = 1 ] \
      && ok "$prog: envint/envstr/envdbl_display lines, T_SPEC120_STR once" \
      || { fail "$prog: env display lines"; cat "$tmp/$prog.err"; }
  done
done

echo "== 2. fatal errors"
if [ -x "$tmp/c-seq" ]; then
  "$tmp/c-seq" fatal >"$tmp/fatal.out" 2>&1; rc=$?
  sed 's/^/    [fatal] /' "$tmp/fatal.out"
  [ $rc = 134 ] && grep -q '^\*\*\* FATAL ERROR: spec120 fatal 7$' "$tmp/fatal.out" &&
    grep -q '^    at t_spec120.c:[0-9]* in main()$' "$tmp/fatal.out" \
    && ok "gasnett_fatalerror: SIGABRT, message, '    at t_spec120.c:LINE in main()'" \
    || fail "gasnett_fatalerror (exit $rc)"
  "$tmp/c-seq" nopos >"$tmp/nopos.out" 2>&1; rc=$?
  [ $rc = 134 ] && grep -q '^\*\*\* FATAL ERROR: spec120 nopos$' "$tmp/nopos.out" &&
    ! grep -q '^    at ' "$tmp/nopos.out" \
    && ok "gasnett_fatalerror_nopos: SIGABRT, message, no position" || fail "nopos (exit $rc)"
  "$tmp/c-seq" noreturn >/dev/null 2>&1; rc=$?
  [ $rc = 3 ] && ok "GASNETT_NORETURN function ending by gasnett_killmyprocess(3): exit 3" \
    || fail "killmyprocess(3): exit $rc"
fi

echo "== 3. GASNETT_LITE_MODE: header only"
cat > "$tmp/lite.c" <<'C'
#define GASNETT_LITE_MODE
#include <gasnet_tools.h>
#include <stdio.h>
static gasnett_atomic64_t n = gasnett_atomic64_init(0);
int main(void) {
  gasnett_tick_t t0 = gasnett_ticks_now();
  for (int i = 0; i < 1000; i++) gasnett_atomic64_increment(&n, GASNETT_ATOMIC_REL);
  gasnett_weak_mb();
  gasnett_tick_t t1 = gasnett_ticks_now();
  if_pf(t1 < t0) return 2;
  printf("lite: %s %llu increments in %llu ns\n", GASNETT_CONFIG_STRING,
         (unsigned long long)gasnett_atomic64_read(&n, 0),
         (unsigned long long)gasnett_ticks_to_ns(t1 - t0));
  return gasnett_atomic64_read(&n, 0) == 1000 ? 0 : 1;
}
C
if ${CC:-cc} -Wall -Wextra -Werror -I"$root/include" "$tmp/lite.c" -o "$tmp/lite" 2>"$tmp/lite.log"; then
  out=$("$tmp/lite"); rc=$?; echo "    $out"
  [ $rc = 0 ] && echo "$out" | grep -q 'LITE' && ok "lite: no mode, no library, ran" || fail "lite run"
else
  fail "lite compile/link without a library"; cat "$tmp/lite.log"
fi

echo "== 4. gasnet_fwd.h"
printf '#include <gasnet_fwd.h>\nint f(void);\nint f(void) { gex_Rank_t r = GEX_RANK_INVALID; gex_Event_t e = GEX_EVENT_INVALID;\n  gex_EP_Index_t i = 0; gex_Addr_t a = 0; gex_DT_t d = GEX_DT_I32; gex_OP_t o = GEX_OP_FADD;\n  gex_EP_Capabilities_t c = GEX_EP_CAPABILITY_ALL; gex_Flags_t fl = GEX_FLAG_IMMEDIATE;\n  return (int)(r + d + o + c + fl + i) + (e == 0) + (a == 0); }\n' > "$tmp/fwd.c"
printf '#include <gasnet_fwd.h>\n#include <gasnetex.h>\n#include "fwd.c"\n' > "$tmp/fwd_first.c"
printf '#include <gasnetex.h>\n#include <gasnet_fwd.h>\n#include "fwd.c"\n' > "$tmp/fwd_after.c"
for f in fwd fwd_first fwd_after; do
  for cc in "${CC:-cc} -std=gnu99" "${CC:-cc} -std=gnu17" "${CXX:-c++} -std=c++17 -x c++"; do
    if $cc -Wall -Wextra -Werror -DGASNET_SEQ -I"$root/include" -I"$tmp" -fsyntax-only "$tmp/$f.c" \
         2>"$tmp/fwd.log"; then ok "$f.c: $cc"; else fail "$f.c: $cc"; head "$tmp/fwd.log"; fi
  done
done
[ $fails = 0 ] && echo "t-spec120: all passed"
exit $fails
