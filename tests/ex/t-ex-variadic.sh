#!/bin/bash
# t-ex-variadic.sh - a client compiled as strict ISO C99 (-std=c99 -pedantic
# -Werror), including gasnetex.h and gasnet_vis.h, uses the GASNet-EX AM
# forms without [M] (the argument count
# inferred), every category, request and reply, fixed and negotiated
# payload, with 0 to 16 arguments; gasnet_ratomic.h (one FADD of each
# type) and gasnet_vis.h (a VIS put and get); run on one rank (every AM
# loops back).
# timeout: 60
set -u
cd "$TOP/tests/ex" || exit 1
out=$("$TOP/spawner/gasnetrun" -n 1 ./t_ex_variadic 2>&1); rc=$?
echo "$out"
echo "expected exit 0 and 'all variadic checks passed'; got exit $rc"
[ "$rc" = 0 ] && echo "$out" | grep -q 'all variadic checks passed'
