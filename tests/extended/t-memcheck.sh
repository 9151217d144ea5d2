#!/bin/bash
# t-memcheck.sh - the extended API under valgrind memcheck on 2 ranks
# (t_stress, t_barrier, and t_stress with injected faults): no invalid access,
# no use of uninitialised memory, no definite leak (a rank with errors exits
# 9). Skipped with a message when valgrind is not installed.
# timeout: 240
set -u
cd "$TOP/tests/extended" || exit 1
if ! command -v valgrind >/dev/null; then echo "SKIPPED: valgrind not installed (Debian package: valgrind)"; exit 77; fi
vg="valgrind -q --error-exitcode=9 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
fails=0
run() { # label want-pattern command...
  local label=$1 want=$2; shift 2
  out=$("$@" 2>&1); rc=$?
  echo "$out" | tail -n 12
  got=$(echo "$out" | grep -c -- "$want")
  echo "$label: expected exit 0, 2 '$want' lines and no valgrind report; got exit $rc and $got"
  [ $rc = 0 ] && [ "$got" = 2 ] && ! echo "$out" | grep -q '^==[0-9]*== [A-Z]' \
    || { echo "FAIL: $label"; fails=$((fails + 1)); }
}
run "memcheck t_stress 300" 'match the model' "$GASNETRUN" -n 2 $vg ./t_stress 300 9
run "memcheck t_barrier 40" 'as spec 3.5 prescribes' "$GASNETRUN" -n 2 $vg ./t_barrier 40
run "memcheck t_stress 150 with faults" 'match the model' env GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 \
  GASNET_UDP_REORDER=0.05 "$GASNETRUN" -n 2 $vg ./t_stress 150 10
[ $fails = 0 ] && echo "t-memcheck: all passed"
exit $fails
