#!/bin/bash
# timeout: 300
# conduits: udp tcp
# bypass: on (it runs its own cases with shared memory on, off and mixed)
# t-ex-rma.sh - GASNet-EX RMA, events, NBI and gex_Coll_BarrierNB
# (t_ex_rma: the description's MUST sentences, listed at the top of
# t_ex_rma.c, and a randomized model check of put/get/NBI of 1 B to 2 MiB)
# on 1, 2 and 4 ranks with the ranks' segments shared (the default), on 2
# and 4 not shared, and in two neighbourhoods (hence "# bypass: on": one
# variant per conduit; under tcp only the runs that use the network); on 2
# ranks over the network with one
# request credit (udp) or a tiny socket buffer (tcp), so that
# GEX_FLAG_IMMEDIATE has something to refuse; and on udp under injected
# loss, duplication and reordering. Then each misuse of t_ex_rma_misuse
# must end the job naming the call (in [udp]: the checks are the API
# layer's).
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/misuse.sh"
cd "$BIN" || exit 1
bin=./t_ex_rma
fails=0
run() { # label, ranks, env...
  local label=$1 n=$2; shift 2
  out=$(env "$@" "$GASNETRUN" -n "$n" $bin 2>&1); rc=$?
  echo "== $label"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all GASNet-EX RMA checks passed')
  echo "-n $n: expected exit 0 and $n 'all ... passed' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $label"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
# shared memory on (the default: every peer's segment is mapped, RMA is a
# memcpy), off (every operation is AMs over the network), and mixed (two
# neighbourhoods of 2)
# (Under tcp the runs whose ranks all share memory would repeat [udp]'s:
# tests/lib/conduit.sh, shm_repeats.) Its RMA as AMs with aggregation off
# is tests/extended/t-stress.sh's [noshm,noagg].
shm_repeats || for n in 1 2 4; do run "-n $n" $n; done
run "-n 2, no shared memory" 2 GASNET_SUPERNODE_MAXSIZE=1
run "-n 4, no shared memory" 4 GASNET_SUPERNODE_MAXSIZE=1
run "-n 4, neighbourhoods of 2" 4 GASNET_SUPERNODE_MAXSIZE=2
run "-n 2, little room, no shared memory" 2 T_RMA_OPS=50 GASNET_SUPERNODE_MAXSIZE=1 \
  GASNET_UDP_CREDITS=1 GASNET_TCP_QUEUE_MAX=0 GASNET_TCP_SOCKBUF=4096 GASNET_EXT_PIPELINE_BYTES=64k
if [ "$CONDUIT" = udp ]; then
  run "-n 2, 10% loss, 5% duplicates, 5% reordered, no shared memory" 2 T_RMA_OPS=100 \
    GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05
fi
# The misuse cases are checks of the API layer (a call's arguments and state,
# on the calling rank or in the handler a request ran), whatever carries or
# packs the frames: they run in [udp] (misuse_here).
if ! misuse_here; then
  echo "== misuse: not run here (they run in [udp])"
  misuse() { :; }
else
  misuse() { t_misuse ./t_ex_rma_misuse 2 "$@"; } # case expected-text
  echo "== misuse: one per run, each must end the job"
  out=$("$GASNETRUN" -n 2 ./t_ex_rma_misuse none 2>&1)
  rc=$?; echo "none: expected exit 0; got $rc"
  [ "$rc" = 0 ] || { echo "FAIL: the correct case"; echo "$out" | tail -6; fails=$((fails + 1)); }
fi
misuse wait-no-op "gex_Event_Wait: GEX_EVENT_NO_OP is not an event"
misuse test-twice "gex_Event_Test:"
misuse put-outside "gex_RMA_PutBlocking: destination ["
misuse get-bad-rank "gex_RMA_GetBlocking: rank 8 does not exist (the team has 2)"
misuse seg-flag "gex_RMA_PutNBI: flags 0x4000 include GEX_FLAG_*_SEG_OFFSET, GEX_FLAG_PEER_SEG_SOME or _UNKNOWN, which the description marks [UNIMPLEMENTED]"
misuse nb-group "gex_RMA_PutNB: lc_opt"
misuse nbi-pointer "gex_RMA_PutNBI: lc_opt"
misuse leaf-get "gex_Event_QueryLeaf: no operation here has a leaf of category 0x1"
misuse leaf-all "gex_Event_QueryLeaf: event_category 0x1f is not one GEX_EC_* constant"
misuse nbi-mask "gex_NBI_Wait: event_mask 0x200"
misuse event-flags "gex_Event_WaitAll: flags 0x1"
misuse nbi-in-region "gex_NBI_Wait: called inside an access region"
misuse val-size "gex_RMA_PutBlockingVal: nbytes = 9; value operations need 0 < nbytes <= SIZEOF_GEX_RMA_VALUE_T"
misuse am-defer "gex_AM_RequestMedium0: lc_opt is GEX_EVENT_DEFER"
misuse am-seg-flag "gex_AM_RequestMedium0: flags 0x2000 include GEX_FLAG_LC_COPY_* or GEX_FLAG_*_SEG_*, which the description marks [UNIMPLEMENTED]"
misuse barrier-pair "gex_Coll_BarrierNB: a TM-pair is not a team"
misuse barrier-overlap "gex_Coll_BarrierNB: a GASNet-1 barrier is in progress"
[ $fails = 0 ] && echo "t-ex-rma: all passed"
exit $fails
