#!/bin/bash
# timeout: 120
# conduits: udp tcp
# bypass: on (it runs its own cases with shared memory on, off and mixed)
# t-ex-team.sh - GASNet-EX teams (t_ex_team: gex_TM_Split orders, splits
# of splits, NULL new_tm_p, gex_TM_Create in its scratch kinds and with a
# numargs 0 caller, the scratch-size query, gex_TM_Destroy's scratch, the
# queries and translations, AMs and collectives through every new team,
# collectives on several teams in flight, CData; the list is at the top of
# t_ex_team.c) on 2, 3 and 4 ranks with shared memory on (the default),
# off (GASNET_SUPERNODE_MAXSIZE=1) and mixed (neighbourhoods of 2 on 3 and
# 4 ranks); on udp under 10% loss, 5% duplicates and 5% reordering; once
# under valgrind (udp).
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
run() { # label, ranks, env...
  local label=$1 n=$2; shift 2
  out=$(env "$@" "$GASNETRUN" -n "$n" ./t_ex_team 2>&1); rc=$?
  echo "== $label"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all team checks passed')
  echo "-n $n: expected exit 0 and $n 'all team checks passed' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $label"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
for n in 2 3 4; do
  run "-n $n, shared memory" $n
  run "-n $n, no shared memory" $n GASNET_SUPERNODE_MAXSIZE=1
done
run "-n 3, neighbourhoods of 2 (ranks 0-1, 2)" 3 GASNET_SUPERNODE_MAXSIZE=2
run "-n 4, neighbourhoods of 2 (ranks 0-1, 2-3)" 4 GASNET_SUPERNODE_MAXSIZE=2
if [ "$CONDUIT" = udp ]; then
  run "-n 3, 10% loss, 5% duplicates, 5% reordered, no shared memory" 3 T_TEAM_CHURN=20 \
    GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05
  if command -v valgrind >/dev/null; then
    vg="valgrind -q --error-exitcode=9 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
    out=$(env GASNET_SUPERNODE_MAXSIZE=2 T_TEAM_CHURN=10 "$GASNETRUN" -n 3 $vg ./t_ex_team 2>&1); rc=$?
    ok=$(echo "$out" | grep -c 'all team checks passed')
    echo "$out" | grep '^==[0-9]*== ' | head -30
    echo "== valgrind -n 3, neighbourhoods of 2: expected exit 0, 3 passed lines and no report; got exit $rc and $ok"
    [ $rc = 0 ] && [ "$ok" = 3 ] && ! echo "$out" | grep -q '^==[0-9]*== [A-Z]' \
      || { echo "FAIL: valgrind"; echo "$out" | tail -8; fails=$((fails + 1)); }
  else
    echo "SKIPPED PART: valgrind not installed (Debian package: valgrind)"
  fi
fi
[ $fails = 0 ] && echo "t-ex-team: all passed"
exit $fails
