#!/bin/bash
# timeout: 240
# conduits: udp tcp
# t-coll.sh - GASNet-1's gasnet_coll.h over the collectives engine: t_coll
# (every collective in every form, sync pair and address mode against a
# model, on GASNET_TEAM_ALL and split teams; many in flight; a late node;
# reduce order; team barriers) on 1, 2, 3 and 4 ranks, and on 4 ranks in
# supernodes of 2 (GASNET_SUPERNODE_MAXSIZE=2: shared memory and the
# network in one job); once under valgrind memcheck (udp, bypass on, 2
# ranks: no invalid access, no definite leak); then t_coll_misuse: each misuse is fatal and
# names the GASNet-1 call. Each run goes where it adds something (see
# shm_repeats, misuse_here, first_variant in tests/lib/conduit.sh): the
# 1-rank job in [udp] only, the misuse cases in [udp] and [tcp,noshm],
# under [tcp] only the supernodes of 2.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/misuse.sh"
cd "$BIN" || exit 1
fails=0
run() { # label ranks [env...] -- args...
  local label=$1 n=$2; shift 2
  local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  local t0=$(date +%s%N)
  out=$(env "${envs[@]}" timeout 120 "$GASNETRUN" -n "$n" "$@" 2>&1); rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  ok=$(echo "$out" | grep -c "all GASNet-1 collective checks passed")
  order=$(echo "$out" | grep -c "reduce(cat) on team rev.*: rank order$")
  flight=$(echo "$out" | grep -c "in flight on 3 teams, synced by .*: all correct")
  bar=$(echo "$out" | grep -c "barrier: ids 11, 12 (try), 15 and anonymous GASNET_OK")
  echo "$out" | grep -E "^node 0: team all|reduce\(cat\)|checks passed" | sed 's/^/     /'
  if [ "$rc" = 0 ] && [ "$ok" = "$n" ] && [ "$order" = 1 ] && [ "$flight" = 5 ] && [ "$bar" -ge 3 ]; then
    echo "ok   $label: $ok of $n nodes passed; reduce in rank order; 5 in-flight sync modes; $bar team barrier lines (${ms} ms)"
  else
    echo "FAIL $label: exit $rc, $ok of $n nodes passed, rank-order line $order (want 1)," \
      "in-flight lines $flight (want 5), team barrier lines $bar (want >= 3)"
    echo "$out" | grep -v "^node 0: \(team\|teams\|IN_NOSYNC\|[0-9]* collectives\)" | tail -8 | sed 's/^/     | /'
    fails=$((fails + 1))
  fi
}
# 1 rank talks only to itself: once ([udp]). Under tcp with the bypass on
# the 2 to 4 ranks of one host would repeat [udp]'s shared-memory runs; the
# supernodes of 2 below are tcp's there.
first_variant && run "-n 1" 1 -- ./t_coll
shm_repeats || for n in 2 3 4; do run "-n $n" $n -- ./t_coll; done
if [ "$BYPASS" = on ]; then
  run "-n 4, GASNET_SUPERNODE_MAXSIZE=2" 4 GASNET_SUPERNODE_MAXSIZE=2 -- ./t_coll
fi
if [ "$BYPASS" = on ] && [ "$CONDUIT" = udp ]; then
  if command -v valgrind >/dev/null; then
    vg="valgrind -q --error-exitcode=9 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
    run "-n 2 under valgrind" 2 -- $vg ./t_coll
    if echo "$out" | grep -q '^==[0-9]*== [A-Z]'; then
      echo "FAIL valgrind reported:"; echo "$out" | grep '^==' | head -20; fails=$((fails + 1))
    fi
  else
    echo "SKIPPED PART: t_coll under valgrind (valgrind not installed)"
  fi
fi

check() { misuse_here && t_misuse ./t_coll_misuse "$@"; } # ranks case expected-text
misuse_here || echo "== misuse: in [udp] and [tcp,noshm] (tests/lib/conduit.sh, misuse_here)"
check 2 init-twice "gasnet_coll_init: called twice"
check 2 images "gasnet_coll_init: images != NULL: this library runs one image per node"
check 2 two-in "gasnet_coll_gather_all: flags 0xd: give exactly one GASNET_COLL_IN_* and one GASNET_COLL_OUT_*"
check 2 no-out "gasnet_coll_exchange_nb: flags 0x1: give exactly one"
check 2 single-local "gasnet_coll_scatter: flags 0xd2: GASNET_COLL_SINGLE and GASNET_COLL_LOCAL exclude each other"
check 2 root-range "gasnet_coll_broadcast: srcimage 2 does not exist (the team has 2 images, one per node)"
check 2 gather-root-range "gasnet_coll_gatherM_nb: dstimage 5 does not exist"
check 2 reduce-func "gasnet_coll_reduce: func 1 is not a function of gasnet_coll_init's fn_table (fn_count 1)"
check 2 reduce-func-nb "gasnet_coll_reduceM_nb: func 7 is not a function"
check 2 team-null "gasnet_coll_broadcast: team is NULL; give GASNET_TEAM_ALL or a team of gasnet_coll_team_split"
check 2 team-garbage "gasnet_coll_broadcast: team 0x"
check 2 barrier-team-garbage "gasnet_coll_barrier_notify: team 0x"
check 2 rank2node-range "gasnet_coll_team_rank2node: rank 2 is not in the team (its size is 2)"
[ $fails = 0 ] && echo "t-coll: all passed"
exit $fails
