#!/bin/bash
# agg: on off
# timeout: 240
# conduits: udp tcp
# t-ex-npam.sh - GASNet-EX negotiated-payload AMs (t_ex_npam: the
# description's sentences, listed at the top of t_ex_npam.c) on 1, 2 and 4
# ranks; on 2 ranks the core's requests_sent must count every NPAM request
# committed; then with one request credit (udp) or a 4 KiB socket buffer and
# no queue (tcp), so that GEX_FLAG_IMMEDIATE has something to refuse; then
# from 4 threads per rank (t_ex_npam_par, GASNET_PAR) on 2 and 4 ranks; then
# each misuse of t_ex_npam_misuse must end the job naming the call (in
# [udp] and [tcp,noshm]: the checks are the API layer's). Under [tcp] only
# "little room" runs (tests/lib/conduit.sh, shm_repeats).
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/misuse.sh"
cd "$BIN" || exit 1
fails=0
stats=$(mktemp -d "${TMPDIR:-/tmp}/t-ex-npam.XXXXXX") || exit 1
trap 'rm -rf "$stats"' EXIT
run() { # label, ranks, env...
  local label=$1 n=$2; shift 2
  out=$(env "$@" "$GASNETRUN" -n "$n" ./t_ex_npam 2>&1); rc=$?
  echo "== $label"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'all negotiated-payload checks passed')
  echo "-n $n: expected exit 0 and $n 'all ... passed' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: $label"; echo "$out" | tail -6; fails=$((fails + 1)); }
}
# Under tcp with the bypass on, the jobs of one host would repeat [udp]'s
# through shared memory: there only "little room" (the network) runs.
if shm_repeats; then
  echo "== -n 1, 2, 4 and PAR: one host's jobs, through shared memory as in [udp]: not repeated here"
else
run "-n 1 (loopback)" 1
run "-n 2" 2 GASNET_STATSFILE="$stats/st"
for r in 0 1; do
  want=$(echo "$out" | sed -n "s/^node $r: NPAM requests committed: //p")
  got=$(awk '$1 == "core.requests_sent" { print $2 }' "$stats/st.$r" 2>/dev/null)
  echo "node $r: core.requests_sent $got, NPAM requests committed $want (expected sent >= committed)"
  [ -n "$want" ] && [ -n "$got" ] && [ "$got" -ge "$want" ] || { echo "FAIL: NPAM requests not counted"; fails=$((fails + 1)); }
done
run "-n 4" 4
fi
run "-n 2, little room" 2 GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_CREDITS=1 GASNET_TCP_QUEUE_MAX=0 GASNET_TCP_SOCKBUF=4096
if echo "$out" | grep -q ' refused (NO_OP)' && ! echo "$out" | grep -q ' 0 refused (NO_OP)'; then
  echo "GEX_FLAG_IMMEDIATE: some Prepares returned NO_OP, as room ran out"
elif [ "$CONDUIT" = tcp ]; then
  echo "GEX_FLAG_IMMEDIATE: no Prepare returned NO_OP over tcp (expected: amtcp lends no buffer, so a Prepare cannot learn of a full queue; docs/api.md)"
else
  echo "FAIL: no Prepare returned NO_OP with one request credit"; fails=$((fails + 1))
fi

shm_repeats || for n in 2 4; do # GASNET_PAR: 4 threads per rank Prepare and Commit at once (t_ex_npam_par)
  out=$("$GASNETRUN" -n $n ./t_ex_npam_par 2>&1); rc=$?
  echo "== PAR, -n $n"; echo "$out" | grep '^node 0'
  ok=$(echo "$out" | grep -c 'NPAM threads: all passed')
  echo "-n $n: expected exit 0 and $n 'all passed' lines; got exit $rc and $ok"
  [ "$rc" = 0 ] && [ "$ok" = "$n" ] || { echo "FAIL: PAR -n $n"; echo "$out" | tail -6; fails=$((fails + 1)); }
done

# The misuse cases are checks of the API layer (a call's arguments and state,
# on the calling rank or in the handler a request ran), whatever carries or
# packs the frames: they run in [udp] and [tcp,noshm] (misuse_here).
if ! misuse_here; then
  echo "== misuse: not run here (they run in [udp] and [tcp,noshm])"
  misuse() { :; }
else
  misuse() { t_misuse ./t_ex_npam_misuse "$@"; } # ranks case expected-text
  echo "== misuse: one per run, each must end the job"
  out=$("$GASNETRUN" -n 2 ./t_ex_npam_misuse none 2>&1); rc=$?
  echo "-n 2 none: expected exit 0; got $rc"
  [ "$rc" = 0 ] || { echo "FAIL: the correct case"; echo "$out" | tail -6; fails=$((fails + 1)); }
fi
misuse 2 commit-no-op "gex_AM_CommitRequestMedium0: the SrcDesc is GEX_AM_SRCDESC_NO_OP"
misuse 2 commit-twice "gex_AM_CommitRequestMedium0: no Prepare is open on this thread"
misuse 2 srcdesc-after-commit "gex_AM_SrcDescAddr: no Prepare is open on this thread"
misuse 2 nbytes-above-size "gex_AM_CommitRequestMedium0: nbytes 513 is above gex_AM_SrcDescSize() = 512"
misuse 2 second-prepare "gex_AM_PrepareRequestMedium: called between gex_AM_PrepareRequestLong and its Commit"
misuse 2 am-between "gex_AM_RequestShort0: called between gex_AM_PrepareRequestMedium and its Commit"
misuse 2 reply-outside-handler "gex_AM_PrepareReplyMedium: called outside a request handler"
misuse 2 request-in-handler "gex_AM_PrepareRequestMedium: called inside an AM handler"
misuse 2 reply-after-prepare "gex_AM_ReplyMedium0: second reply from one request handler"
misuse 2 handler-returns-open "AM handler 200 returned between a gex_AM_PrepareReplyMedium and its Commit"
misuse 2 least-above-max "gex_AM_PrepareRequestMedium: least_payload 65537 is above gex_AM_MaxRequestMedium() = 65536"
misuse 2 most-below-least "gex_AM_PrepareRequestMedium: most_payload 63 is below least_payload 64"
misuse 2 lc-with-gasnet-buffer "gex_AM_PrepareRequestMedium: lc_opt must be NULL when client_buf is NULL"
misuse 2 lc-defer "gex_AM_PrepareRequestMedium: lc_opt is GEX_EVENT_DEFER"
misuse 2 nargs-mismatch "gex_AM_CommitRequestMedium3: 3 arguments, but gex_AM_PrepareRequestMedium said numargs 2"
misuse 2 wrong-commit "gex_AM_CommitRequestLong0: the open Prepare is gex_AM_PrepareRequestMedium"
misuse 2 dest-mismatch "gex_AM_CommitRequestLong0: dest_addr"
misuse 2 long-outside "gex_AM_CommitRequestLong0: destination ["
misuse 1 handler-returns-open "AM handler 200 returned between a gex_AM_PrepareReplyMedium and its Commit"
misuse 1 long-outside "outside node 0's segment"
[ $fails = 0 ] && echo "t-ex-npam: all passed"
exit $fails
