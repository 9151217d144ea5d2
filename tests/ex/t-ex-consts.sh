#!/bin/bash
# timeout: 120
# t-ex-consts.sh - the GASNet-EX constants in #if (t_ex_consts.c, a
# compile-only check: every GEX_FLAG_*, GEX_TI_*, GEX_EP_CAPABILITY_*,
# GEX_THREAD_ROLE_* constant of the v0.19 description defined and usable in
# #if, GASNET_SUPPORTS_TI_* 1 or undefined, the unions equal to their
# members' OR), compiled -Wall -Wextra -Werror -fsyntax-only as C (gnu99,
# gnu11) and C++ (c++11, c++17), three ways each: gasnetex.h alone;
# gasnet_fwd.h first, then gasnetex.h (the description lets a client include
# both; the repeated #defines must be the same); gasnet_fwd.h alone (its
# GEX_FLAG_*, GEX_TI_*, GEX_EP_CAPABILITY_*).
set -u
cd "$TOP" || exit 1
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for cc in "gcc -x c -std=gnu99" "gcc -x c -std=gnu11" "g++ -x c++ -std=c++11" "g++ -x c++ -std=c++17"; do
  for how in "" -DT_FWD_FIRST -DT_FWD_ONLY; do
    if $cc -Wall -Wextra -Werror -fsyntax-only -DGASNET_SEQ -Iinclude $how tests/ex/t_ex_consts.c 2>"$tmp/err"; then
      echo "ok   $cc ${how:-(gasnetex.h)}"
    else
      echo "FAIL $cc ${how:-(gasnetex.h)}: $(grep -c 'error' "$tmp/err") errors, the first:"
      grep 'error' "$tmp/err" | head -3
      fails=$((fails + 1))
    fi
  done
done
[ $fails = 0 ] && echo "t-ex-consts: all passed"
exit $fails
