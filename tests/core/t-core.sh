#!/bin/bash
# t-core.sh - every core call of spec sections 1 and 2 (t_core): started
# without the launcher (a one-node job), then through gasnetrun on 1, 2, 4
# and 8 ranks; every node talks to every node, itself included.
# timeout: 120
# conduits: udp tcp mix
# omit: tcp mix,noshm,noagg  ([tcp]: every job here is one host's, tcp would carry nothing with the bypass on; [mix,noshm,noagg]: each transport's path without aggregation is its own conduit's [noagg])
# agg: on off
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
export T_CORE_ENV=hello-env
fails=0
echo "== without launcher (one-node job)"
./t_core || { echo "FAIL: t_core without launcher: exit $?"; fails=$((fails + 1)); }
for n in 1 2 4 8; do
  echo "== gasnetrun -n $n"
  out=$("$GASNETRUN" -n "$n" ./t_core 2>&1); rc=$?
  echo "$out"
  got=$(echo "$out" | grep -c 'round trips with all')
  echo "expected exit 0 and $n 'round trips' lines; got exit $rc and $got"
  [ "$rc" = 0 ] && [ "$got" = "$n" ] || { echo "FAIL: -n $n"; fails=$((fails + 1)); }
done
[ $fails = 0 ] && echo "t-core: all passed"
exit $fails
