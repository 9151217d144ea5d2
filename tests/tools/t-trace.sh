#!/bin/bash
# t-trace.sh - tracing and statistics (docs/api.md, "Tracing and
# statistics") on a 4-rank job with known traffic (t_trace K M S: each rank
# sends K AM requests to the next, gets K replies, puts and gets M times S
# bytes there, 3 barriers, 1 broadcast; see t_trace.c), through gasnetrun.
# timeout: 150
#   all    every category: each rank's trace holds exactly the known events
#          of the client (handlers 200/201, puts, gets, barriers, the
#          broadcast, the H and U lines) and its statistics the known
#          counts; the job's sum (st-sum) is 4 times them; the transports'
#          counters (retransmissions, acks, drops, window, ring full) are in
#          the statistics
#   mask   GASNET_TRACEMASK=PG: PUT and GET lines only (and U); GASNET_STATSMASK=P:
#          ext.put* and nothing of A, G, C
#   complement  GASNET_TRACEMASK='^AW': no AM or collective line, the puts
#   nodes  GASNET_TRACENODES=1,3: only ranks 1 and 3 write a trace
#   local  the bypass on: the puts are local copies (ext.puts_local = M) and
#          GASNET_TRACELOCAL=0 leaves them out of the trace
set -u
cd "$TOP/tests/tools" || exit 1
K=5 M=3 S=1000 N=4
fails=0
d=$(mktemp -d "${TMPDIR:-/tmp}/t-trace.XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT
check() { # what, expected, got
  if [ "$2" = "$3" ]; then echo "$1: expected $2, got $3: ok"
  else echo "FAIL $1: expected $2, got $3"; fails=$((fails + 1)); fi
}
job() { # label, env...
  local label=$1; shift
  rm -f "$d"/*
  out=$(env "$@" "$GASNETRUN" -n $N ./t_trace $K $M $S 2>&1); rc=$?
  echo "== $label"; echo "$out" | sed 's/^/  /'
  check "$label: exit code, ranks ok" "0 $N" "$rc $(echo "$out" | grep -c 't_trace: ok')"
}
events() { grep -v '^#' "$1" | grep -c "$2"; }   # file, pattern
stat() { awk -v k="$2" '$1 == k { print $2 }' "$1"; } # file, name (last value)

job all GASNET_SUPERNODE_MAXSIZE=1 GASNET_TRACEFILE="$d/tr-%" GASNET_STATSFILE="$d/st-%"
for r in 0 1 2 3; do
  nx=$(( (r + 1) % N )) pv=$(( (r + N - 1) % N )) t="$d/tr-$r" st="$d/st-$r"
  check "rank $r: AM requests to $nx (handler 200)" $K "$(events "$t" "AM_SEND request short to=$nx handler=200 ")"
  check "rank $r: AM requests from $pv (handler 200)" $K "$(events "$t" "AM_RECV request short from=$pv handler=200 ")"
  check "rank $r: replies sent to $pv / received from $nx (handler 201)" "$K $K" \
    "$(events "$t" "AM_SEND reply short to=$pv handler=201 ") $(events "$t" "AM_RECV reply short from=$nx handler=201 ")"
  check "rank $r: PUT to=$nx bytes=$S, GET from=$nx bytes=$S, other PUT/GET" "$M $M 0" \
    "$(events "$t" "(P) PUT to=$nx bytes=$S local=0$") $(events "$t" "(G) GET from=$nx bytes=$S local=0$") $(events "$t" '(P)\|(G)' | awk -v m=$M '{print $1 - 2*m}')"
  check "rank $r: barriers notified, done; broadcasts started, done" "3 3 1 1" \
    "$(events "$t" 'BARRIER_NOTIFY team=0') $(events "$t" 'BARRIER_DONE team=0') $(events "$t" 'COLL_START op=gex_Coll_BroadcastNB') $(events "$t" 'COLL_DONE op=gex_Coll_BroadcastNB')"
  check "rank $r: H and U lines" "1 1" "$(events "$t" "(H) t_trace hello $r$") $(events "$t" "(U) t_trace forced $r$")"
  check "rank $r: every line rank $r, a time, a known category" 0 \
    "$(grep -v '^#' "$t" | grep -cv "^$r [0-9]*\.[0-9]\{3\} ([ABCGHIPRSUW]) .")"
  check "rank $r: ext.puts put_bytes gets get_bytes barriers collectives" "$M $((M * S)) $M $((M * S)) 3 1" \
    "$(for k in puts put_bytes gets get_bytes barriers collectives; do printf '%s ' "$(stat "$st" ext.$k)"; done | sed 's/ $//')"
  check "rank $r: the STATS_PRINTF line" 1 "$(grep -c "^# (H) t_trace stats note $r$" "$st")"
  check "rank $r: transport counters present" 6 \
    "$(grep -c '^udp_retransmitted \|^udp_acks_sent \|^udp_bad_mac \|^udp_dup_dropped \|^udp_cc_cwnd_max \|^shm_eagain ' "$st")"
done
sum=$d/st-sum
check "st-sum: ext.puts, put_bytes, gets, barriers (sum min max)" \
  "$((N * M)) $M $M|$((N * M * S))|$((N * M))|$((3 * N))" \
  "$(awk '$1 == "ext.puts" { print $2, $3, $4 }' "$sum")|$(stat "$sum" ext.put_bytes)|$(stat "$sum" ext.gets)|$(stat "$sum" ext.barriers)"
# Replies are only ever answers; requests handled also count the exit
# notices (up to N-1 per rank, as many as arrive before the job ends).
want=0; for r in 0 1 2 3; do want=$((want + $(stat "$d/st-$r" core.requests_sent))); done
check "st-sum: core.requests_sent = the ranks' sum; replies_sent = replies_handled" "$want yes" \
  "$(stat "$sum" core.requests_sent) $([ "$(stat "$sum" core.replies_sent)" = "$(stat "$sum" core.replies_handled)" ] && echo yes)"
h=$(stat "$sum" core.requests_handled)
check "st-sum: requests handled - sent, in [0, N(N-1)] (exit notices)" yes \
  "$([ $((h - want)) -ge 0 ] && [ $((h - want)) -le $((N * (N - 1))) ] && echo yes)"

job mask GASNET_SUPERNODE_MAXSIZE=1 GASNET_TRACEFILE="$d/tr-%" GASNET_TRACEMASK=PG \
  GASNET_STATSFILE="$d/st-%" GASNET_STATSMASK=P
check "mask: GASNETT_TRACE_GETMASK, STATS_GETMASK on rank 0" "'GPU' 'PU'" \
  "$(echo "$out" | sed -n "s/^node 0: trace mask \(.*\) stats mask \(.*\)$/\1 \2/p")"
for r in 0 1 2 3; do
  t="$d/tr-$r" st="$d/st-$r"
  check "mask: rank $r: PUT, GET, U lines, any other" "$M $M 1 0" \
    "$(events "$t" '(P) PUT ') $(events "$t" '(G) GET ') $(events "$t" '(U) ') $(events "$t" '(A)\|(B)\|(C)\|(H)\|(S)\|(W)\|(R)\|(I)')"
  check "mask: rank $r: ext.puts, ext.gets, core.*, udp_* lines" "$M 0 0 0" \
    "$(stat "$st" ext.puts) $(grep -c '^ext.gets ' "$st") $(grep -c '^core\.' "$st") $(grep -c '^udp_' "$st")"
done

job complement GASNET_SUPERNODE_MAXSIZE=1 GASNET_TRACEFILE="$d/tr-%" GASNET_TRACEMASK='^AW'
for r in 0 1 2 3; do
  check "^AW: rank $r: AM and collective lines, PUT lines" "0 0 $M" \
    "$(events "$d/tr-$r" '(A) ') $(events "$d/tr-$r" '(W) ') $(events "$d/tr-$r" '(P) PUT ')"
done

job nodes GASNET_SUPERNODE_MAXSIZE=1 GASNET_TRACEFILE="$d/tr-%" GASNET_TRACENODES=1,3
check "nodes: the trace files" "tr-1 tr-3" "$(cd "$d" && echo tr-*)"

job local GASNET_TRACEFILE="$d/tr-%" GASNET_STATSFILE="$d/st-%" GASNET_TRACELOCAL=0
for r in 0 1 2 3; do
  check "local: rank $r: ext.puts_local, ext.gets_local, PUT/GET lines" "$M $M 0" \
    "$(stat "$d/st-$r" ext.puts_local) $(stat "$d/st-$r" ext.gets_local) $(events "$d/tr-$r" '(P)\|(G)')"
done

[ $fails = 0 ] && echo "t-trace: all passed"
exit $fails
