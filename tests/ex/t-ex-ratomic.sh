#!/bin/bash
# timeout: 400
# conduits: udp tcp
# bypass: on (it runs its own cases with the segments shared, not shared and mixed)
# t-ex-ratomic.sh - GASNet-EX remote atomics (t_ex_ratomic: a counter on
# every rank hammered by every rank, FCAS/CAS with one winner a round, every
# type x opcode against a sequential model, acquire/release; the list is at
# the top of t_ex_ratomic.c) on 2, 3 and 4 ranks with the segments shared
# (every operation CPU atomics on the mapping), not shared
# (GASNET_SUPERNODE_MAXSIZE=1: every operation on a peer an AM) and mixed
# (neighbourhoods of 2 on 3 and 4 ranks: one domain, one counter, reached
# both ways at once); from 4 threads per rank (GASNET_PAR); with little
# room, so that GEX_FLAG_IMMEDIATE is refused (surely on udp, with one
# credit; over tcp when the 4 KiB socket buffer fills) and what it refused
# was not done (the counters stay exact); on udp under injected loss, duplication
# and reordering (each operation done exactly once); then every misuse's
# message (udp), the PAR program under ThreadSanitizer on 2 ranks without shared
# memory (handlers on several threads) and the SEQ one under valgrind.
# Under tcp only the runs that use the network.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/misuse.sh"
. "$TOP/tests/lib/tsan.sh"
cd "$BIN" || exit 1
fails=0
run() { # label, program, ranks, env...
  local label=$1 bin=$2 n=$3; shift 3
  out=$(env "$@" "$GASNETRUN" -n "$n" "$bin" 2>&1); rc=$?
  echo "== $label"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all remote atomic checks passed')
  echo "-n $n: expected exit 0 and $n 'all ... passed' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $label"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
# The runs whose segments are all shared, and the misuse cases (the API
# layer's checks), are [udp]'s: under tcp they would repeat them
# (tests/lib/conduit.sh: shm_repeats, misuse_here).
for n in 2 3 4; do
  shm_repeats || run "-n $n, segments shared" ./t_ex_ratomic $n
  run "-n $n, no shared memory" ./t_ex_ratomic $n GASNET_SUPERNODE_MAXSIZE=1
done
run "-n 3, neighbourhoods of 2 (ranks 0-1, 2)" ./t_ex_ratomic 3 GASNET_SUPERNODE_MAXSIZE=2
run "-n 3, a split team in reverse order, neighbourhoods of 2" ./t_ex_ratomic 3 \
  GASNET_SUPERNODE_MAXSIZE=2 T_RA_TEAM=reverse T_RA_OPS=300
run "-n 4, neighbourhoods of 2 (ranks 0-1, 2-3)" ./t_ex_ratomic 4 GASNET_SUPERNODE_MAXSIZE=2
shm_repeats || run "PAR, 4 threads, -n 2, segments shared" ./t_ex_ratomic_par 2
run "PAR, 4 threads, -n 4, neighbourhoods of 2" ./t_ex_ratomic_par 4 GASNET_SUPERNODE_MAXSIZE=2 T_RA_OPS=500
run "-n 2, little room, no shared memory" ./t_ex_ratomic 2 T_RA_OPS=300 GASNET_SUPERNODE_MAXSIZE=1 \
  GASNET_UDP_CREDITS=1 GASNET_UDP_AGG=0 GASNET_TCP_QUEUE_MAX=0 GASNET_TCP_SOCKBUF=4096
# With one UDP credit the second request of a batch has no room (without
# aggregation: with it, small requests may queue beyond the credits); over tcp
# a full 4 KiB socket buffer depends on timing, so only udp must refuse.
if [ "$CONDUIT" = udp ] && ! echo "$out" | grep -q 'IMMEDIATE refusals so far [1-9]'; then
  echo "FAIL: little room: no GEX_FLAG_IMMEDIATE call was refused"; fails=$((fails + 1))
fi
if [ "$CONDUIT" = udp ]; then
  run "-n 3, 10% loss, 5% duplicates, 5% reordered, no shared memory" ./t_ex_ratomic 3 T_RA_OPS=300 \
    GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05
fi

if misuse_here; then
misuse() { t_misuse ./t_ex_ratomic_misuse 2 "$@"; } # case expected-text
echo "== misuse: one per run, each must end the job"
out=$("$GASNETRUN" -n 2 ./t_ex_ratomic_misuse none 2>&1)
rc=$?; echo "none: expected exit 0; got $rc"
[ "$rc" = 0 ] || { echo "FAIL: the correct case"; echo "$out" | tail -6; fails=$((fails + 1)); }
else
  echo "== misuse: in [udp] (misuse_here)"; misuse() { :; }
fi
misuse op-not-in-domain "gex_AD_OpNB_U64: opcode GEX_OP_FSUB is not in the domain's ops"
misuse two-ops "gex_AD_OpNBI_U64: opcode 0x1000020 is not one GEX_OP_* value"
misuse float-bitwise "gex_AD_Create: GEX_OP_AND is not valid on GEX_DT_DBL: the bit-wise operations are for integer types only"
misuse user-op "gex_AD_Create: GEX_OP_USER is valid only for reductions"
misuse bad-dt "gex_AD_Create: dt 0x40 is not a data type of remote atomics"
misuse two-dts "gex_AD_Create: dt 0x3 is not a data type of remote atomics"
misuse no-ops "gex_AD_Create: ops is 0"
misuse two-favor "gex_AD_Create: flags 0x500000: pass 0 or one of GEX_FLAG_AD_FAVOR_MY_RANK"
misuse pair-team "is a TM-pair, which no gex_AD_ call accepts"
misuse dt-mismatch "gex_AD_OpNB_U32: the domain's data type is GEX_DT_I32"
misuse outside-segment "gex_AD_OpNB_U64: target ["
misuse not-aligned "is not aligned for GEX_DT_I32"
misuse bad-rank "gex_AD_OpNB_U64: rank 7 does not exist (the team has 2)"
misuse bad-jobrank "gex_AD_OpNBI_U64: job rank 7 does not exist (the job has 2; GEX_FLAG_RANK_IS_JOBRANK)"
misuse invalid-ad "gex_AD_OpNB_U64: ad is GEX_AD_INVALID"
misuse team-with-ad "gex_TM_Destroy: team 1 still has 1 atomic domain: gex_AD_Destroy it first"
misuse destroyed "is not an atomic domain (destroyed, or never made by gex_AD_Create)"
misuse seg-offset "gex_AD_OpNB_U64: flags 0x4000 include GEX_FLAG_SELF_SEG_OFFSET or GEX_FLAG_PEER_SEG_OFFSET, which the description marks [UNIMPLEMENTED]"
misuse favor-at-op "gex_AD_OpNB_U64: flags 0x400000: a remote atomic takes only"
misuse my-rank-false "GEX_FLAG_AD_MY_RANK asserts that the target is this rank, but it is job rank 1"
GASNET_SUPERNODE_MAXSIZE=1 misuse my-nbrhd-false "GEX_FLAG_AD_MY_NBRHD asserts that the target is in this rank's neighbourhood, but job rank 1 is not"
misuse rank-and-nbrhd "GEX_FLAG_AD_MY_RANK and GEX_FLAG_AD_MY_NBRHD exclude each other"
misuse null-result "gex_AD_OpNB_U64: result_p is NULL for the fetching GEX_OP_FADD"

# ThreadSanitizer: the library and t_ex_ratomic (PAR) compiled here, as
# tests/extended/t-par.sh does; no shared memory, so that every operation
# on a peer runs in a handler, on whichever of the 4 threads polls.
tsan="$TOP/tests/out/tsan-ratomic-$CONDUIT/t_ex_ratomic_par"
tsan_build "$tsan" "$TOP/tests/ex/t_ex_ratomic.c"; built=$?
if [ $built = 0 ]; then
  out=$(TSAN_OPTIONS="halt_on_error=0 exitcode=66" GASNET_SUPERNODE_MAXSIZE=1 T_RA_OPS=200 \
        setarch -R "$GASNETRUN" -n 2 "$tsan" 2>&1); rc=$?
  tsan_check "-n 2, 4 threads" 2 "$out" $rc 'all remote atomic checks passed' \
    || { echo "FAIL: TSan"; echo "$out" | tail -5; fails=$((fails + 1)); }
elif [ $built = 1 ]; then
  fails=$((fails + 1))
fi

# valgrind memcheck, as tests/extended/t-memcheck.sh: no invalid access, no
# uninitialised value used, no definite leak; mixed, so both paths run.
if command -v valgrind >/dev/null; then
  vg="valgrind -q --error-exitcode=9 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
  out=$(env GASNET_SUPERNODE_MAXSIZE=2 T_RA_OPS=100 "$GASNETRUN" -n 3 $vg ./t_ex_ratomic 2>&1); rc=$?
  ok=$(echo "$out" | grep -c 'all remote atomic checks passed')
  echo "$out" | grep '^==[0-9]*== ' | head -30
  echo "valgrind -n 3, neighbourhoods of 2: expected exit 0, 3 'all ... passed' lines and no report; got exit $rc and $ok"
  [ $rc = 0 ] && [ "$ok" = 3 ] && ! echo "$out" | grep -q '^==[0-9]*== [A-Z]' \
    || { echo "FAIL: valgrind"; echo "$out" | tail -8; fails=$((fails + 1)); }
else
  echo "SKIPPED PART: valgrind not installed (Debian package: valgrind)"
fi
[ $fails = 0 ] && echo "t-ex-ratomic: all passed"
exit $fails
