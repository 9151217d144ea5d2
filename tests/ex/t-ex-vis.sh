#!/bin/bash
# timeout: 420
# conduits: udp tcp
# bypass: on (it runs its own cases with the segments shared, not shared and mixed)
# t-ex-vis.sh - VIS (gasnet_vis.h): t_ex_vis (GASNet-EX) and t_ex_vis_g1
# (the same model check through GASNet-1's calls, compiled against gasnet.h)
# check random vector, indexed and strided puts and gets, shaped
# differently on the two sides, against a model of the remote memory, then
# every region whole (the list is at the top of t_ex_vis.c); on 2, 3 and 4
# ranks with the segments shared (the default: memmove), not shared
# (GASNET_SUPERNODE_MAXSIZE=1: packed AMs), and mixed (neighbourhoods of 2
# on 4 ranks); on udp under 10% loss and 5% duplicates; once under
# valgrind (udp, skipped without it). It sets the bypass for each run
# itself (hence "# bypass: on": one variant per conduit). Then each misuse of
# t_ex_vis_misuse must end the job with its message (udp: the API layer's
# checks). Under tcp the runs with shared segments are left to udp
# (tests/lib/conduit.sh: shm_repeats, misuse_here).
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/misuse.sh"
cd "$BIN" || exit 1
fails=0
run() { # label, program, ranks, env...
  local label=$1 bin=$2 n=$3; shift 3
  out=$(env "$@" "$GASNETRUN" -n "$n" "$bin" 2>&1); rc=$?
  echo "== $bin $label"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all GASNet-[EX1-]* VIS checks passed')
  echo "-n $n: expected exit 0 and $n 'all ... VIS checks passed' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $bin $label"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
for bin in ./t_ex_vis ./t_ex_vis_g1; do
  for n in 2 3 4; do
    shm_repeats || run "-n $n, shared segments" $bin $n   # [udp]'s under tcp
    run "-n $n, no shared memory" $bin $n GASNET_SUPERNODE_MAXSIZE=1
  done
  run "-n 4, neighbourhoods of 2" $bin 4 GASNET_SUPERNODE_MAXSIZE=2
  run "-n 2, a small pipeline window, no shared memory" $bin 2 T_VIS_OPS=100 \
    GASNET_SUPERNODE_MAXSIZE=1 GASNET_EXT_PIPELINE_BYTES=64k
  if [ "$CONDUIT" = udp ]; then
    run "-n 3, 10% loss, 5% duplicates, no shared memory" $bin 3 T_VIS_OPS=150 \
      GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05
  fi
done
if [ "$CONDUIT" = udp ]; then
  if command -v valgrind >/dev/null; then
    vg="valgrind -q --error-exitcode=9 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
    out=$(GASNET_SUPERNODE_MAXSIZE=1 T_VIS_OPS=60 "$GASNETRUN" -n 2 $vg ./t_ex_vis 2>&1); rc=$?
    got=$(echo "$out" | grep -c 'all GASNet-EX VIS checks passed')
    echo "== valgrind, -n 2, no shared memory: expected exit 0, 2 passed lines and no valgrind report; got exit $rc and $got"
    [ $rc = 0 ] && [ "$got" = 2 ] && ! echo "$out" | grep -q '^==[0-9]*== [A-Z]' \
      || { echo "FAIL: valgrind"; echo "$out" | tail -20; fails=$((fails + 1)); }
  else
    echo "== valgrind: not installed, that run skipped (Debian package: valgrind)"
  fi
fi
if misuse_here; then
misuse() { t_misuse ./t_ex_vis_misuse 2 "$@"; } # case expected-text
echo "== misuse: one per run, each must end the job"
out=$("$GASNETRUN" -n 2 ./t_ex_vis_misuse none 2>&1)
rc=$?; echo "none: expected exit 0; got $rc"
[ "$rc" = 0 ] || { echo "FAIL: the correct case"; echo "$out" | tail -6; fails=$((fails + 1)); }
else
  echo "== misuse: in [udp] (misuse_here)"; misuse() { :; }
fi
misuse put-outside "gex_VIS_VectorPutBlocking: destination list entry 1 ["
misuse get-outside "gex_VIS_IndexedGetBlocking: source list entry 1 ["
misuse strided-outside "gex_VIS_StridedGetNB: source box (lowest to highest byte) ["
misuse negative-outside "gex_VIS_StridedPutNBI: destination box (lowest to highest byte) ["
misuse vector-totals "gex_VIS_VectorPutNBI: the destination holds 24 bytes and the source 16 (the sums of their lists); the two sides of a VIS operation must hold the same number of bytes"
misuse indexed-totals "gex_VIS_IndexedGetBlocking: the destination holds 24 bytes and the source 16 (dstcount*dstlen = 3*8, srccount*srclen = 2*8)"
misuse levels-null "gex_VIS_StridedPutBlocking: stridelevels = 2 with a NULL count[]"
misuse levels-strides-null "gex_VIS_StridedPutBlocking: stridelevels = 2 with a NULL dststrides[]"
misuse levels-overflow "gex_VIS_StridedGetBlocking: elemsz 8 times count[0..0] is more than SIZE_MAX bytes"
misuse bad-rank "gex_VIS_VectorPutNB: rank 8 does not exist (the team has 2)"
misuse leaf-lc-get "gex_VIS_VectorGetNB: GEX_FLAG_ENABLE_LEAF_LC is for VIS puts only"
misuse seg-flag "gex_VIS_IndexedPutNB: flags 0x4000: a VIS call takes only"
misuse pc-get "gex_VIS_StridedGetBlocking: a peer completion handler is armed on this thread"
misuse pc-immediate "gex_VIS_VectorPutNB: GEX_FLAG_IMMEDIATE on the VIS put an armed peer completion handler binds to"
misuse pc-size "gex_VIS_SetPeerCompletionHandler: nbytes = 4097 is above GEX_VIS_MAX_PEERCOMPLETION = 4096"
misuse pc-index "gex_VIS_SetPeerCompletionHandler: handler 77 is not a client handler index (128..255)"
misuse pc-registration "gex_VIS_SetPeerCompletionHandler: handler 202 on node 1 is registered with flags 0x9 and 0 arguments; a peer completion handler must be registered with GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY and 0 arguments"
misuse g1-totals "gasnet_putv_bulk: the destination holds 8 bytes and the source 9"
misuse g1-bad-node "gasnet_gets_bulk: node 8 does not exist (the job has 2 nodes)"
[ $fails = 0 ] && echo "t-ex-vis: all passed"
exit $fails
