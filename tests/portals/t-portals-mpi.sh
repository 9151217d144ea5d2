#!/bin/bash
# timeout: 240
# conduits: udp tcp
# t-portals-mpi.sh - an MPI-style send/receive layer built only on Portals
# (ptl_mpi.c: posted receives before unexpected-message buffers, PtlMDUpdate's
# test queue closing the posted-receive race, eager and rendezvous messages,
# source/tag wildcards) in jobs of 2, 4 and 16 ranks: a ring across the
# eager/rendezvous boundary, all-to-all with random sizes and tags (posted
# and unexpected), any-source receives (non-overtaking checked), truncation;
# puts and gets of 9 MiB (more than a transport frame) on 2 and 4 ranks;
# every byte and status checked, no request dropped. Receives are posted
# slowly (T_PTL_MPI_POST_DELAY_US between the search of the unexpected
# messages and PtlMDUpdate) so that messages from other processes arrive in
# that window: the update must be refused and the search redone; the
# refusals are counted and must happen. 16 ranks on a small host: one
# message per pair and phase. Over the udp network ([udp,noshm]) also 4
# ranks with 10% of the datagrams dropped, 5% duplicated and 5% reordered
# (the transport's fault injection): every check still passes, and the
# counters (GASNET_STATSFILE) show the losses were met and repaired.
set -u
. "$TOP/tests/lib/conduit.sh"
fails=0 refused=0
run() { # ranks, K (messages per pair and phase), env...
  local n=$1 k=$2; shift 2
  start=$(date +%s.%N)
  out=$(env T_PTL_MPI_K=$k T_PTL_MPI_POST_DELAY_US=300 "$@" timeout 200 "$GASNETRUN" -n "$n" "$BIN/t_ptl_mpi" 2>&1); rc=$?
  took=$(awk "BEGIN{print $(date +%s.%N) - $start}")
  got=$(echo "$out" | grep -c 'all [0-9]* checks passed')
  if [ $rc = 0 ] && [ "$got" = "$n" ]; then
    printf 'PASS %d ranks, %d messages per pair: every rank passed every check (%.1f s)\n' "$n" "$k" "$took"
    sums=$(echo "$out" | grep 'posted' | tr -d ',' | awk '{p+=$7; u+=$9; r+=$11; x+=$14; b+=$NF} END {print p, u, r, x, b}')
    set -- $sums
    echo "   all ranks: posted $1, unexpected $2, rendezvous $3, PtlMDUpdate refused (arrivals in the race) $4, unexpected buffers recycled $5"
    refused=$((refused + $4))
  else
    echo "FAIL $n ranks: exit $rc, $got of $n ranks passed"; echo "$out" | grep -v 'posted' | tail -20 | sed 's/^/   /'
    fails=$((fails + 1))
  fi
}
run 2 20 T_PTL_MPI_BIG=1
run 4 3 T_PTL_MPI_BIG=1
run 16 1
if [ "$CONDUIT" = udp ] && [ "${GASNET_SUPERNODE_MAXSIZE:-}" = 1 ]; then
  stats="$TOP/tests/out/ptl-mpi-loss-$$"
  run 4 3 T_PTL_MPI_BIG=1 GASNET_STATSFILE="$stats" GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05
  lost=$(cat "$stats".* 2>/dev/null | awk '$1 == "udp_fault_dropped" { s += $2 } END { print s + 0 }')
  resent=$(cat "$stats".* 2>/dev/null | awk '$1 == "udp_retransmitted" { s += $2 } END { print s + 0 }')
  rm -f "$stats".*
  echo "   under loss: datagrams dropped $lost, retransmitted $resent"
  if [ "$lost" = 0 ] || [ "$resent" = 0 ]; then
    echo "FAIL: the loss run met no loss (dropped $lost, retransmitted $resent)"; fails=$((fails + 1))
  fi
fi
if [ $refused = 0 ]; then
  echo "FAIL: no PtlMDUpdate was refused: the posted-receive race was never met"; fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-portals-mpi: all passed"
exit $fails
