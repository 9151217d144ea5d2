#!/bin/bash
# tests/bench/incast.sh - congestion control under incast (issue 15 item 4):
# 3 ranks on host A send Long and Medium requests to 1 rank on host B
# (tests/amudp/t_incast) over the veth between two network namespaces,
# whose A side is limited by tbf (rate, burst, and a switch-port-sized
# queue limit). Per setting, in one run:
#   - the raw probe: one plain UDP stream from A to B, paced at 0.8..1.1x
#     the nominal rate; its best received rate is the link's usable rate;
#   - the incast with congestion control (GASNET_UDP_CC=1, the default) and
#     without (GASNET_UDP_CC=0): goodput vs the nominal and the usable rate,
#     per-sender shares while all three were sending (fair: 0.333), the
#     tbf's drops, and the senders' retransmissions and window cuts.
# Every byte is verified by the receiver either way.
# Usage: tests/bench/incast.sh [MIB_PER_SENDER]   (root; after contrib/build.sh)
#   INCAST_SETTINGS="RATE_MBIT:BURST:LIMIT ..."  (default below)
set -u
export TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/incast.sh"
MIB=${1:-8}
SETTINGS=${INCAST_SETTINGS:-"50:16kb:32kb 100:16kb:32kb 100:16kb:96kb"}
incast_setup
echo "incast of 3 ranks into 1, $MIB MiB per sender, 64 KiB Long/Medium requests; $(uptime | sed 's/.*\(load.*\)/\1/')"

# ctr FILE NAME: a counter of a rank's stats file
ctr() { sed -n "s/^$2 //p" "$1" 2>/dev/null; }

for s in $SETTINGS; do
    IFS=: read -r rate burst limit <<<"$s"
    incast_tbf "$rate" "$burst" "$limit"
    echo "tbf rate ${rate}mbit burst $burst limit $limit:"
    probe_job 60 raw-$rate -n 4 -H "$INCAST_HOSTS" "$TOP/tests/amudp/t_incast" 0 "$INCAST_B" "$rate" >/dev/null
    usable=$(sed -n 's/^.*incast: raw usable \([0-9.]*\).*/\1/p' "$JOB_OUT")
    echo "  raw paced UDP stream (best of 0.8..1.1x the rate): usable ${usable:-?} Mbit/s" \
         "= $(awk -v u="${usable:-0}" -v r="$rate" 'BEGIN { printf "%.2f", u / r }')x the link"
    for cc in 1 0; do
        rm -f "$MH_DIR"/stats.*
        d0=$(incast_drops)
        GASNET_UDP_CC=$cc GASNET_STATSFILE=$MH_DIR/stats probe_job 120 incast-$rate-$cc \
            -n 4 -H "$INCAST_HOSTS" "$TOP/tests/amudp/t_incast" "$MIB" >/dev/null
        d1=$(incast_drops)
        [ "$JOB_RC" = 0 ] || { echo "  GASNET_UDP_CC=$cc: the job failed (exit $JOB_RC)"; probe_show_job; continue; }
        g=$(sed -n 's/^.*incast: goodput \([0-9.]*\) Mbit.*/\1/p' "$JOB_OUT")
        sh=$(sed -n 's/^.*incast: shares \(.*\) (fair.*/\1/p' "$JOB_OUT")
        v=$(sed -n 's/^.*incast: verified \([0-9]* of [0-9]*\) chunks.*, \([0-9]*\) bad, \([0-9]*\) dup.*/\1 verified, \2 bad, \3 dup/p' "$JOB_OUT")
        retx=0 cuts=""
        for r in 0 1 2; do
            retx=$((retx + $(ctr "$MH_DIR/stats.$r" udp_retransmitted || echo 0)))
            cuts="$cuts $(ctr "$MH_DIR/stats.$r" udp_cc_cuts_loss)/$(ctr "$MH_DIR/stats.$r" udp_cc_cuts_delay)/$(ctr "$MH_DIR/stats.$r" udp_cc_cuts_rto)"
        done
        awk -v g="${g:-0}" -v r="$rate" -v u="${usable:-0}" -v cc=$cc -v sh="${sh:-}" -v v="$v" \
            -v drops=$((d1 - d0)) -v retx=$retx -v cuts="$cuts" 'BEGIN {
            printf "  GASNET_UDP_CC=%d: goodput %.1f Mbit/s = %.2fx the link, %.2fx raw; shares %s; %s\n",
                cc, g, g / r, u ? g / u : 0, sh, v
            printf "      tbf drops %d, retransmitted %d", drops, retx
            if (cc) printf ", cuts loss/delay/rto per sender:%s", cuts
            printf "\n" }'
    done
done
mh_finish
