#!/bin/bash
# t-headers.sh - gasnet_tools.h as clients compile it:
# timeout: 120
#  1. C gnu99, gnu11, gnu17 with -Wall -Wextra -Werror (gcc, and clang if
#     present), tools-only in both modes and with gasnet.h in both orders;
#  2. C++17 (g++ -std=c++17 -Wall -Wextra -Werror): a tools-only program
#     compiled, linked with libgasnet_tools-par.a and run; gasnet.h in both
#     orders compiled;
#  3. the mode checks: no mode, two modes, a mode that contradicts
#     GASNET_SEQ/PAR -> #error saying what to define;
#  4. a THREAD_SAFE client linked with the SINGLE library fails to link,
#     naming gasnett__linkcheck_THREAD_SAFE.
set -u
cd "$TOP" || exit 1
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
I="-Iinclude"

# A TU that touches each area, so unused-function and conversion warnings show.
cat > "$tmp/use.h" <<'C'
static gasnett_atomic_t use_a = gasnett_atomic_init(1);
static gasnett_atomic64_t use_b = gasnett_atomic64_init(-1);
static gasnett_mutex_t use_m = GASNETT_MUTEX_INITIALIZER;
GASNETT_THREADKEY_DEFINE(use_key);
int use_tools(void);
int use_tools(void) {
  gasnett_tick_t t = gasnett_ticks_now();
  gasnett_mutex_lock(&use_m);
  gasnett_atomic_increment(&use_a, GASNETT_ATOMIC_REL);
  gasnett_mutex_unlock(&use_m);
  gasnett_threadkey_set(use_key, &use_a);
  gasnett_local_mb();
  gasnett_weak_wmb();
  GASNETT_TRACE_PRINTF("x %d", 1);
  if_pf (gasnett_ticks_to_us(t) == 1) return 1;
  return (int)gasnett_atomic_read(&use_a, 0) + (int)gasnett_atomic64_read(&use_b, 0) +
         (gasnett_threadkey_get(use_key) != NULL) + (int)gasnett_getenv_int_withdefault("X", 0, 0);
}
C
printf '#include <gasnet_tools.h>\n#include "use.h"\n' > "$tmp/tools.c"
printf '#include <gasnet.h>\n#include <gasnet_tools.h>\n#include "use.h"\n' > "$tmp/gasnet_first.c"
printf '#include <gasnet_tools.h>\n#include <gasnet.h>\n#include <gasnet_tools.h>\n#include "use.h"\n' > "$tmp/tools_first.c"

echo "== 1. C standards"
compilers="gcc"; command -v clang >/dev/null && compilers="gcc clang"
for cc in $compilers; do
  for std in gnu99 gnu11 gnu17; do
    for v in "tools.c -DGASNETT_THREAD_SINGLE" "tools.c -DGASNETT_THREAD_SAFE" \
             "gasnet_first.c -DGASNET_PAR" "tools_first.c -DGASNET_SEQ" "gasnet_first.c -DGASNET_PARSYNC"; do
      set -- $v
      if $cc -std=$std -Wall -Wextra -Werror -fsyntax-only $I -I"$tmp" $2 "$tmp/$1" 2>"$tmp/err"; then
        echo "ok   $cc -std=$std -Wall -Wextra -Werror $1 $2"
      else
        fail "$cc -std=$std $1 $2"; head -20 "$tmp/err"
      fi
    done
  done
done

echo "== 2. C++17"
if command -v g++ >/dev/null; then
  cat > "$tmp/app.cpp" <<'CPP'
#include <gasnet_tools.h>
#include <cstdio>
#include <thread>
#include "use.h"
static gasnett_strongatomic64_t counter = gasnett_strongatomic64_init(0);
int main() {
  std::thread a([] { for (int i = 0; i < 100000; i++) gasnett_strongatomic64_increment(&counter, 0); });
  std::thread b([] { for (int i = 0; i < 100000; i++) gasnett_strongatomic64_add(&counter, 2, 0); });
  a.join(); b.join();
  char buf[32];
  gasnett_format_number(gasnett_parse_int("3MB", 1), buf, sizeof buf, 1);
  std::printf("C++17: counter %llu (want 300000), 3MB -> %s, use_tools %d, diagnostics %d\n",
              (unsigned long long)gasnett_strongatomic64_read(&counter, 0), buf, use_tools(),
              gasnett_run_diagnostics(100, 2, "TAL", NULL, NULL, 0, NULL, 1));
  return gasnett_strongatomic64_read(&counter, 0) == 300000 ? 0 : 1;
}
CPP
  if g++ -std=c++17 -Wall -Wextra -Werror $I -I"$tmp" -DGASNETT_THREAD_SAFE "$tmp/app.cpp" \
       tools/.libs/libgasnet_tools-par.a -pthread -o "$tmp/app" 2>"$tmp/err"; then
    out=$("$tmp/app"); rc=$?; echo "$out"
    [ $rc = 0 ] && echo "$out" | grep -q 'counter 300000 .* 3MB -> 3MB, .* diagnostics 0' \
      && echo "ok   g++ -std=c++17 tools-only program linked with libgasnet_tools-par.a ran" \
      || fail "C++17 program: exit $rc"
  else
    fail "g++ -std=c++17 tools-only"; head -20 "$tmp/err"
  fi
  for v in "gasnet_first.c -DGASNET_PAR" "tools_first.c -DGASNET_SEQ"; do
    set -- $v
    cp "$tmp/$1" "$tmp/$1.cpp"
    g++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only $I -I"$tmp" $2 "$tmp/$1.cpp" 2>"$tmp/err" \
      && echo "ok   g++ -std=c++17 -Wall -Wextra -Werror $1 $2" \
      || { fail "g++ -std=c++17 $1 $2"; head -20 "$tmp/err"; }
  done
else
  echo "skip 2: no g++"
fi

echo "== 3. mode checks"
check_error() { # flags, expected text
  out=$(gcc -fsyntax-only $I $1 "$tmp/tools.c" 2>&1)
  echo "$out" | grep -m1 '#error'
  echo "$out" | grep -q -- "$2" && echo "ok   $1: #error with \"$2\"" || fail "$1: no #error with \"$2\""
}
check_error "" "define GASNETT_THREAD_SAFE (threaded client) or GASNETT_THREAD_SINGLE (one thread)"
check_error "-DGASNETT_THREAD_SAFE -DGASNETT_THREAD_SINGLE" "define only one of GASNETT_THREAD_SAFE or GASNETT_THREAD_SINGLE"
check_error "-DGASNETT_THREAD_SAFE -DGASNET_SEQ" "GASNETT_THREAD_SAFE conflicts with GASNET_SEQ"
check_error "-DGASNETT_THREAD_SINGLE -DGASNET_PAR" "GASNETT_THREAD_SINGLE conflicts with GASNET_PAR"

echo "== 4. link check"
printf '#include <gasnet_tools.h>\nint main(void) { return (int)gasnett_ticks_to_us(gasnett_ticks_now()) & 0; }\n' > "$tmp/min.c"
out=$(gcc $I -DGASNETT_THREAD_SAFE "$tmp/min.c" tools/.libs/libgasnet_tools-seq.a -o "$tmp/min" 2>&1); rc=$?
echo "$out" | grep -m1 'undefined reference'
[ $rc != 0 ] && echo "$out" | grep -q "undefined reference to \`gasnett__linkcheck_THREAD_SAFE'" \
  && echo "ok   THREAD_SAFE client + SINGLE library: link error naming gasnett__linkcheck_THREAD_SAFE" \
  || fail "THREAD_SAFE client + SINGLE library linked (exit $rc)"
gcc $I -DGASNETT_THREAD_SAFE "$tmp/min.c" tools/.libs/libgasnet_tools-par.a -pthread -o "$tmp/min" \
  && echo "ok   THREAD_SAFE client + SAFE library links" || fail "THREAD_SAFE + par library"
[ $fails = 0 ] && echo "t-headers: all passed"
exit $fails
