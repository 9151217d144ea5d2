#!/bin/bash
# timeout: 90
# t-incast.sh - congestion control (amudp_cc.c): an incast of 3 ranks into 1
# through a bottleneck. Three ranks on host A send Long and Medium requests
# (tests/amudp/t_incast) to one rank on host B, over the veth between two
# network namespaces, whose A side is limited by tbf to RATE with a
# switch-port-sized buffer (LIMIT: tens of KB; an uncontrolled sender's
# burst overflows it). Checks: every chunk verified at the receiver, exactly
# once; goodput at least 0.8 x RATE; every sender's share of the bytes while
# all three were sending at least half the fair share (1/3). Prints the
# senders' congestion counters. GASNET_UDP_CC=0 runs the same without
# congestion control (compare: tests/bench/incast.sh).
set -u
. "$(cd "$(dirname "$0")/../lib" && pwd)/incast.sh"
RATE_MBIT=${INCAST_RATE_MBIT:-80} BURST=${INCAST_BURST:-16kb} LIMIT=${INCAST_LIMIT:-32kb}
MIB=${INCAST_MIB:-10}   # per sender: 30 MiB at 80 Mbit/s is ~3 s
incast_setup
# the bottleneck: A's egress into the veth (ssh's few bytes share it, as
# any control traffic would share a switch port)
incast_tbf "$RATE_MBIT" "$BURST" "$LIMIT"
echo "A=${NETNS_A_ADDRS[*]} -> B=$INCAST_B: tbf rate ${RATE_MBIT}mbit burst $BURST limit $LIMIT"

marker="gnt-incast-$$"
GASNET_STATSFILE=$MH_DIR/stats probe_job 60 incast -n 4 -H "$INCAST_HOSTS" "$TOP/tests/amudp/t_incast" "$MIB"
sed -n 's/^.*incast: /  incast: /p' "$JOB_OUT"
tc -n "$NETNS_A" -s qdisc show dev "$NETNS_VETH_A" | sed -n 's/^ *\(Sent .*\)/  tbf: \1/p'
for r in 0 1 2; do
    echo "  sender $r: $(grep -E '^udp_(cc_cuts_loss|cc_cuts_delay|cc_cuts_rto|cc_undos|retransmitted|cc_cwnd_max) ' \
        "$MH_DIR/stats.$r" 2>/dev/null | tr '\n' ' ')"
done
want=$((3 * MIB * 16))
verified=$(sed -n 's/^.*incast: verified \([0-9]*\) of \([0-9]*\) chunks.*, 0 bad, 0 duplicate$/\1 \2/p' "$JOB_OUT")
goodput=$(sed -n 's/^.*incast: goodput \([0-9.]*\) Mbit.*/\1/p' "$JOB_OUT")
shares=$(sed -n 's/^.*incast: shares \(.*\) (fair.*/\1/p' "$JOB_OUT")
[ "$JOB_RC" = 0 ] || { fail "the incast job exited $JOB_RC"; probe_show_job; }
[ "$verified" = "$want $want" ] || fail "chunks verified exactly once: '$verified', want '$want $want'"
echo "  goodput ${goodput:-none} Mbit/s vs link $RATE_MBIT Mbit/s (want >= 0.8 x)"
awk -v g="${goodput:-0}" -v r="$RATE_MBIT" 'BEGIN { exit !(g >= 0.8 * r) }' ||
    fail "goodput ${goodput:-none} Mbit/s < 0.8 x $RATE_MBIT Mbit/s"
echo "  shares while all sent: ${shares:-none} (want each >= 0.167, half of 1/3)"
awk -v s="${shares:-}" 'BEGIN { n = split(s, a, " "); if (n != 3) exit 1;
    for (i = 1; i <= n; i++) if (a[i] < 0.5 / 3) exit 1 }' || fail "a sender starved: shares '${shares:-}'"
no_leftovers 15 "the launcher exited"
mh_finish
