#!/bin/bash
# timeout: 90
# parallel: yes (it mostly waits out liveness timeouts; namespaces, sshd and addresses of its own, and it looks only at their processes)
# t-netns-partition.sh - a partition left down ends the job (docs/launcher.md,
# "A host that stops answering"): namespaces A and B joined by a veth pair,
# an sshd in each; the launcher runs in A and starts t_live pause 60 (udp)
# on 4 ranks over ssh, 2 on A's address and 2 on B's, with
# GASNET_UDP_TIMEOUT=4. Once every rank runs, the veth link is brought down
# on both ends and left down. Then, with the link still down:
#  - the launcher is gone within the liveness timeout + 5 s (9 s) of the
#    link going down (before the fix it waited for the link to come back);
#  - it exits non-zero, and a line names B's address, the host it lost;
#  - nothing of the job is left in A or B (ranks, relays, ssh clients);
# and once more with the relays' own liveness alone deciding
# (GASNET_RELAY_TIMEOUT=4, t_live with the udp timeout at 0: the ranks never
# notice): the launcher gone within 4 + 5 s, nothing left on either side;
# and once with the relays' timeout longer (8 s) and the ranks' off: SIGTERM
# to the launcher a second after the link went down ends it within 6 s with
# 143, B's host named; B's relay kills its ranks when its own liveness gives
# up on the launcher (8 s): nothing left on either side.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/netns.sh"
. "$lib/probe.sh"
netns_require
sshd_require
LIVE=$TOP/tests/core/t_live
[ -x "$LIVE" ] || mh_fail "tests/core/t_live not built"
GASNETRUN=$TOP/spawner/gasnetrun_udp
[ -x "$GASNETRUN" ] || mh_fail "launcher not built: $GASNETRUN"

netns_setup 1 1 || mh_fail "netns_setup"
sshd_start -n "$NETNS_A" a "${NETNS_A_ADDRS[0]}" || mh_fail "sshd in A"
sshd_start -n "$NETNS_B" -p "$SSHD_PORT" b "${NETNS_B_ADDRS[0]}" || mh_fail "sshd in B"
pid_a=$(cat "$MH_DIR/sshd-a/pid") pid_b=$(cat "$MH_DIR/sshd-b/pid")
sshd_check "${NETNS_B_ADDRS[0]}" "$NETNS_A" || mh_fail "ssh from A to B does not work"
A=${NETNS_A_ADDRS[0]} B=${NETNS_B_ADDRS[0]}
echo "A=$NETNS_A $A; B=$NETNS_B $B; sshd port $SSHD_PORT"
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SSH_REMOTE_PATH GASNET_SUPERNODE_MAXSIZE
JOB_PREFIX=(ip netns exec "$NETNS_A")

# the job's processes in namespace NS: ranks, relays, ssh clients (sshd's
# own session processes keep their dead TCP connection: they are sshd's)
left_in() {
    local p out=""
    for p in $(ip netns pids "$1" 2>/dev/null); do
        case "$(cat "/proc/$p/comm" 2>/dev/null)" in
            gasnetrun*|t_live|ssh) out="$out $p";;
        esac
    done
    echo $out
}

# partition NAME SECS-BOUND [SIG]: run the job, cut the link once all
# ranks run (and send SIG to the launcher a second later), check the end
partition() {
    local name=$1 bound=$2 sig=${3:-}
    ip -n "$NETNS_A" link set "$NETNS_VETH_A" up; ip -n "$NETNS_B" link set "$NETNS_VETH_B" up
    sleep 0.2
    probe_bg "$name" -n 4 -H "$A,$B" "$LIVE" pause 60
    probe_wait_line "$JOB_OUT" "t_live: node 3: pid" 30 || { fail "$name: the job did not start"; probe_bg_wait 5; probe_show_job; return; }
    sleep 0.5
    ip -n "$NETNS_A" link set "$NETNS_VETH_A" down; ip -n "$NETNS_B" link set "$NETNS_VETH_B" down
    local t0=$EPOCHREALTIME
    echo "  link down; the launcher (pid $MH_BG) must be gone within $bound s"
    [ -n "$sig" ] && { sleep 1; echo "  kill -$sig the launcher"; kill -"$sig" "$MH_BG"; }
    local end=$((EPOCHSECONDS + 30))
    while [ -e "/proc/$MH_BG" ] && [ "$(cat "/proc/$MH_BG/stat" 2>/dev/null | awk '{print $3}')" != Z ] && [ $EPOCHSECONDS -lt $end ]; do sleep 0.1; done
    local secs; secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    if [ -e "/proc/$MH_BG" ] && [ "$(awk '{print $3}' "/proc/$MH_BG/stat" 2>/dev/null)" != Z ]; then
        fail "$name: the launcher still runs 30 s after the link went down"
        kill -TERM "$MH_BG"; sleep 1; kill -TERM "$MH_BG"; sleep 1
        echo "  two SIGTERMs: $([ -e "/proc/$MH_BG" ] && echo "it still runs" || echo "it ended")"
        kill -KILL "$MH_BG" 2>/dev/null
    fi
    wait "$MH_BG" 2>/dev/null; JOB_RC=$?
    echo "  -> launcher gone after $secs s (bound $bound s), exit $JOB_RC; its messages:"
    sed 's/^/    /' "$JOB_ERR" | head -n 8
    awk -v s="$secs" -v b="$bound" 'BEGIN { exit !(s <= b) }' || fail "$name: the launcher took $secs s, more than $bound s"
    { [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "$name: exit $JOB_RC, want non-zero"
    [ -z "$sig" ] || [ "$JOB_RC" = $((128 + $(kill -l "$sig"))) ] || fail "$name: exit $JOB_RC after SIG$sig, want $((128 + $(kill -l "$sig")))"
    grep -q "host $B[ :(]" "$JOB_ERR" || fail "$name: no line names the lost host $B"
    # B's side ends by itself (its ranks or its relay notice): bounded wait
    local la lb
    end=$((EPOCHSECONDS + 15))
    while la=$(left_in "$NETNS_A"); lb=$(left_in "$NETNS_B"); [ -n "$la$lb" ] && [ $EPOCHSECONDS -lt $end ]; do sleep 0.2; done
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    echo "  job processes left in A: ${la:-none}; in B: ${lb:-none} ($secs s after the link went down)"
    [ -z "$la" ] || { fail "$name: left in A: $la"; ps -o pid=,args= -p "$(echo $la | tr ' ' ,)"; }
    [ -z "$lb" ] || { fail "$name: left in B: $lb"; ps -o pid=,args= -p "$(echo $lb | tr ' ' ,)"; }
}

# 1. the ranks notice (udp liveness, 4 s): the launcher must not wait on B
GASNET_UDP_TIMEOUT=4 partition p1 9

# 2. the ranks never notice (udp liveness off): the relays' own liveness
GASNET_UDP_TIMEOUT=0 GASNET_RELAY_TIMEOUT=4 partition p2 9

# 3. nobody notices (both liveness timeouts long), and the user sends
#    SIGTERM a second after the link went down: the launcher ends at once
#    (a relay silent for 3 s while the job ends is given up), exit 143
GASNET_UDP_TIMEOUT=0 GASNET_RELAY_TIMEOUT=8 partition p3 6 TERM

mh_finish
