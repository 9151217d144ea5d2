#!/bin/bash
# timeout: 240
# conduits: udp tcp
# bypass: on (it runs its own cases with shared memory on, off and mixed)
# t-ex-coll.sh - the GASNet-EX collectives (t_ex_coll: broadcasts of 0 B
# to 1 MiB+3 from every root, many in flight waited in reverse order, late
# callers; every type x op of ReduceToOne (every root) and ReduceToAll
# against a sequential model; user ops: arg-max, and USER_NC in rank
# order; 1M-element reductions (T_COLL_BIG; 8 MiB, 128 Medium chunks a
# message: the engine has no size threshold past the 64 KiB Medium, so the
# program's default 4M only took 4x as long); mixed kinds in flight; the
# list is at the top of t_ex_coll.c), on the job and on a team in reverse
# order, on 2, 3 and 4 ranks with shared memory on (the default), off
# (GASNET_SUPERNODE_MAXSIZE=1) and mixed (neighbourhoods of 2 on 3 and 4
# ranks; reduce-to-all by host, the default, and by every member,
# GASNET_COLL_BY_HOST=0); with one UDP credit / a 4 KiB TCP socket buffer; on udp under 10%
# loss, 5% duplicates and 5% reordering; once under valgrind (udp). Then
# each misuse of t_ex_coll_misuse must end the job with its message (udp).
# Under tcp only the runs that use the network.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/misuse.sh"
cd "$BIN" || exit 1
fails=0
export T_COLL_BIG=1048576   # runs that want less set their own
run() { # label, ranks, env...
  local label=$1 n=$2; shift 2
  out=$(env "$@" "$GASNETRUN" -n "$n" ./t_ex_coll 2>&1); rc=$?
  echo "== $label"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all collective checks passed')
  echo "-n $n: expected exit 0 and $n 'all collective checks passed' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $label"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
# The runs whose ranks all share memory, and the misuse cases (the API
# layer's checks), are [udp]'s: under tcp they would repeat them
# (tests/lib/conduit.sh: shm_repeats, misuse_here).
for n in 2 3 4; do
  shm_repeats || run "-n $n, shared memory" $n
  run "-n $n, no shared memory" $n GASNET_SUPERNODE_MAXSIZE=1
done
run "-n 3, neighbourhoods of 2 (ranks 0-1, 2)" 3 GASNET_SUPERNODE_MAXSIZE=2
run "-n 4, neighbourhoods of 2 (ranks 0-1, 2-3)" 4 GASNET_SUPERNODE_MAXSIZE=2
run "-n 4, neighbourhoods of 2, reduce-to-all by every member (GASNET_COLL_BY_HOST=0)" 4 \
  GASNET_SUPERNODE_MAXSIZE=2 GASNET_COLL_BY_HOST=0
shm_repeats || run "-n 3, one neighbourhood, reduce-to-all by every member (GASNET_COLL_BY_HOST=0)" 3 \
  GASNET_COLL_BY_HOST=0
run "-n 3, little room, no shared memory" 3 T_COLL_BIG=262144 GASNET_SUPERNODE_MAXSIZE=1 \
  GASNET_UDP_CREDITS=1 GASNET_TCP_QUEUE_MAX=0 GASNET_TCP_SOCKBUF=4096
if [ "$CONDUIT" = udp ]; then
  run "-n 3, 10% loss, 5% duplicates, 5% reordered, no shared memory" 3 T_COLL_BIG=262144 \
    GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05
  if command -v valgrind >/dev/null; then
    vg="valgrind -q --error-exitcode=9 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
    out=$(env GASNET_SUPERNODE_MAXSIZE=2 T_COLL_BIG=65536 T_COLL_LATE=2 "$GASNETRUN" -n 3 $vg ./t_ex_coll 2>&1); rc=$?
    ok=$(echo "$out" | grep -c 'all collective checks passed')
    echo "$out" | grep '^==[0-9]*== ' | head -30
    echo "== valgrind -n 3, neighbourhoods of 2: expected exit 0, 3 passed lines and no report; got exit $rc and $ok"
    [ $rc = 0 ] && [ "$ok" = 3 ] && ! echo "$out" | grep -q '^==[0-9]*== [A-Z]' \
      || { echo "FAIL: valgrind"; echo "$out" | tail -8; fails=$((fails + 1)); }
  else
    echo "SKIPPED PART: valgrind not installed (Debian package: valgrind)"
  fi
fi

if misuse_here; then
misuse() { t_misuse ./t_ex_coll_misuse 2 "$@"; } # case expected-text
echo "== misuse: one per run, each must end the job"
out=$("$GASNETRUN" -n 2 ./t_ex_coll_misuse none 2>&1)
rc=$?; echo "none: expected exit 0; got $rc"
[ "$rc" = 0 ] || { echo "FAIL: the correct case"; echo "$out" | tail -6; fails=$((fails + 1)); }
else
  echo "== misuse: in [udp] (misuse_here)"; misuse() { :; }
fi
misuse bcast-root "gex_Coll_BroadcastNB: root 2 does not exist (the team has 2 members)"
misuse reduce-root "gex_Coll_ReduceToOneNB: root 5 does not exist (the team has 2 members)"
misuse pair-team "gex_Coll_BroadcastNB: a TM-pair is not a team"
misuse invalid-team "gex_Coll_ReduceToAllNB: the team is GEX_TM_INVALID"
misuse bcast-flags "gex_Coll_BroadcastNB: flags 0x1: none is defined for collectives yet; pass 0"
misuse reduce-flags "gex_Coll_ReduceToAllNB: flags 0x1: none is defined for collectives yet; pass 0"
misuse barrier-flags "gex_Coll_BarrierNB: flags 0x4: the description reserves them; pass 0"
misuse user-dt-builtin-op "gex_Coll_ReduceToAllNB: GEX_DT_USER needs GEX_OP_USER or GEX_OP_USER_NC (op is 0x10)"
misuse and-on-flt "gex_Coll_ReduceToAllNB: op 0x40000 (AND, OR, XOR) is valid for the integer types only, not the floating-point dt 0x10"
misuse not-a-reduction "gex_Coll_ReduceToAllNB: op 0x20 is not valid for reductions"
misuse two-dts "gex_Coll_ReduceToAllNB: dt 0xc is not one GEX_DT_* constant"
misuse dt-sz "gex_Coll_ReduceToAllNB: dt_sz 4: must be the size of the built-in type dt"
misuse dt-cnt-0 "gex_Coll_ReduceToOneNB: dt_cnt is 0"
misuse user-op-null "gex_Coll_ReduceToAllNB: op is GEX_OP_USER with a NULL user_op"
misuse destroy-primordial "gex_TM_Destroy: the primordial team cannot be destroyed"
misuse split-negative-color "gex_TM_Split: color -1 is negative"
misuse create-ep-index "gex_TM_Create: args[0] names EP index 1: only EP 0 exists"
misuse scratch-outside "lies outside this rank's bound segment [0x"
misuse destroyed "is not a team of this process (destroyed, or not a gex_TM_t)"
misuse destroy-in-flight "is not quiesced here: collectives are in flight"
misuse scratch-size-0 "gex_TM_Split: scratch_size is 0"
misuse create-no-scratch-kind "gex_TM_Create: flags 0: give exactly one of GEX_FLAG_TM_{GLOBAL,LOCAL,SYMMETRIC,NO}_SCRATCH"
misuse before-attach "gex_Coll_BroadcastNB: called before gasnet_attach"
[ $fails = 0 ] && echo "t-ex-coll: all passed"
exit $fails
