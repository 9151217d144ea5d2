#!/bin/bash
# tests/bench/kloss.sh - what loss in the kernel costs (issue 41): a Short AM
# round trip and a blocking 4 MiB put between one rank in each of two
# network namespaces, over a veth whose ends drop packets at random
# (tests/lib/netns.sh netns_fault: nftables, both directions), beside a raw
# TCP ping-pong and a raw TCP 4 MiB stream of the same run over the same
# link (tests/bench/loss_bench.c). Loss rates are interleaved, RUNS rounds
# of each; per rate the median over the runs of each run's median, and the
# ratio to the loss-free figure (goal: at most 5x at 20%).
# Usage: tests/bench/kloss.sh [RUNS]   (root; after contrib/build.sh)
#   KLOSS_RATES="0 20 30"  KLOSS_CONDUIT=udp|tcp  KLOSS_ARGS="400 6 40"
set -u
export TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
lib=$TOP/tests/lib
. "$lib/sshd.sh"
. "$lib/netns.sh"
. "$lib/probe.sh"
RUNS=${1:-5}
RATES=${KLOSS_RATES:-"0 20 30"}
CONDUIT=${KLOSS_CONDUIT:-udp}
ARGS=${KLOSS_ARGS:-"400 6 40"}
prog=$TOP/tests/bench/loss_bench; [ "$CONDUIT" = tcp ] && prog=${prog}_tcp
[ -x "$prog" ] || mh_fail "$prog not built"
netns_require; netns_fault_require; sshd_require
netns_setup 1 1 || mh_fail "netns_setup"
sshd_start -n "$NETNS_A" a "${NETNS_A_ADDRS[0]}" || mh_fail "sshd in A"
sshd_start -n "$NETNS_B" -p "$SSHD_PORT" b "${NETNS_B_ADDRS[0]}" || mh_fail "sshd in B"
sshd_check "${NETNS_B_ADDRS[0]}" "$NETNS_A" || mh_fail "ssh from A to B does not work"
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SSH_REMOTE_PATH
JOB_PREFIX=(ip netns exec "$NETNS_A")
GASNETRUN=$TOP/spawner/gasnetrun_$CONDUIT
export RAW_PROBE_IP=${NETNS_B_ADDRS[0]}
echo "kloss: $CONDUIT, 1 rank in each namespace, loss_bench $ARGS, $RUNS rounds of rates: $RATES; $(uptime | sed 's/.*\(load.*\)/\1/')"
res=$MH_DIR/kloss.tsv
: >"$res"
for ((r = 1; r <= RUNS; r++)); do
    for rate in $RATES; do
        if [ "$rate" = 0 ]; then netns_fault_clear A; netns_fault_clear B
        else netns_fault A loss=$rate except=$SSHD_PORT && netns_fault B loss=$rate except=$SSHD_PORT || mh_fail "netns_fault"; fi
        rs=1; [ "$rate" = 0 ] || rs=0 # TCP takes minutes for 4 MiB at 20% loss
        probe_job 300 kloss-$rate-$r -n 2 -H "${NETNS_A_ADDRS[0]},${NETNS_B_ADDRS[0]}" $prog $ARGS $rs >/dev/null
        line=$(grep '^summary:' "$JOB_OUT")
        [ "$JOB_RC" = 0 ] && [ -n "$line" ] || { echo "  loss $rate% round $r: failed (exit $JOB_RC)"; probe_show_job; continue; }
        echo "  loss $rate% round $r: ${line#summary: }"
        echo "$line" | awk -v rate=$rate '{ for (i = 1; i <= NF; i++) if ($i == "median") { v[++n] = $(i + 1) }
            printf "%s\t%s\t%s\t%s\n", rate, v[1], v[2], v[3] }' >>"$res"
        # v[1] AM median us, v[2] put median ms, v[3] raw TCP rt median us
        grep -o 'raw TCP 4 MiB [0-9.]* ms' "$JOB_OUT" | awk -v rate=$rate '{ printf "%s\traw\t%s\n", rate, $5 }' >>"$res"
    done
done
echo "medians over the rounds ($CONDUIT):"
awk -F'\t' '
function med(s,   a, n, t, i, j) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
$2 == "raw" { raw[$1] = raw[$1] " " $3; next }
{ am[$1] = am[$1] " " $2; put[$1] = put[$1] " " $3; rtt[$1] = rtt[$1] " " $4; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
END {
    a0 = med(am[0]); p0 = med(put[0]); r0 = med(raw[0])
    for (i = 1; i <= k; i++) { q = order[i]; a = med(am[q]); p = med(put[q]); w = med(raw[q])
        printf "  loss %2s%%: Short AM round trip %8.1f us (%5.2fx), 4 MiB put %8.2f ms (%5.2fx); raw TCP: round trip %8.1f us, 4 MiB %8.2f ms (%5.2fx)\n",
            q, a, a0 ? a / a0 : 0, p, p0 ? p / p0 : 0, med(rtt[q]), w, r0 ? w / r0 : 0 } }' "$res"
mh_finish
