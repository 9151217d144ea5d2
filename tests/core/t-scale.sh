#!/bin/bash
# timeout: 150
# t-scale.sh - 256-rank jobs of the AM stress test (core/t_amstress in its
# CAP mode: every pair exchanges one request per category with verified
# payloads both ways, then a seeded storm; node 0 checks that the requests
# handled over all nodes equal those sent):
#   1. udp, 256 ranks on this host, bypass off: every rank has 255 UDP peers;
#   2. tcp, 256 ranks over two network-namespace hosts (128 + 128, started
#      by ssh from A): each rank has 127 shared-memory peers and 128 TCP
#      connections over the veth link.
# So udp serves 255 peers per rank, tcp 128, and amshm neighbourhoods of
# 128 (the rings it sizes by the neighbourhood). A neighbourhood of 256 on
# one host (tcp serving nobody) and tcp with the bypass off on one host
# (32640 connections) are bench/scale.sh's: each took 20 to 25 s of a
# suite that must stay short. Each run prints node 0's times from launch.
# Nothing of a job may be left behind.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/netns.sh"
. "$lib/probe.sh"
N=256 NSTORM=40 CAP=4096
for p in core/t_amstress core/tcp/t_amstress; do
    [ -x "$TOP/tests/$p" ] || mh_fail "tests/$p not built"
done
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SSH_REMOTE_PATH

# check LABEL: the job of $JOB_OUT passed, all N nodes verified their replies.
check() {
    local total sweeps storms
    total=$(sed -n 's/^node 0: all nodes: \(.*\)$/\1/p' "$JOB_OUT")
    sweeps=$(grep -c "sweep done: $((4 * N)) requests .* all replies verified" "$JOB_OUT")
    storms=$(grep -c "storm done: sent $((4 * N + NSTORM)) requests" "$JOB_OUT")
    echo "  $1: exit $JOB_RC; $sweeps of $N nodes verified replies from all $N," \
         "$storms of $N finished the storm; totals: ${total:-none}"
    grep '^node 0: .* ms after launch' "$JOB_OUT" | sed 's/^/    /'
    [ "$JOB_RC" = 0 ] && [ -n "$total" ] && [ "$sweeps" = $N ] && [ "$storms" = $N ] ||
        { fail "$1 (exit $JOB_RC)"; probe_show_job; }
}

marker="gnt-scale-$$"
export T_LAUNCH_NS
T_LAUNCH_NS=$(date +%s%N)
GASNETRUN=$TOP/spawner/gasnetrun_udp GASNET_SUPERNODE_MAXSIZE=1 \
    probe_job 60 udp-local -n $N "$TOP/tests/core/t_amstress" $NSTORM 0 $CAP "$marker"
check "udp, $N ranks on one host, bypass off"
no_leftovers 15 "the launcher exited"

netns_require
sshd_require
netns_setup 1 1 || mh_fail "netns_setup"
sshd_start -n "$NETNS_A" a "${NETNS_A_ADDRS[@]}" || mh_fail "sshd in A"
sshd_start -n "$NETNS_B" -p "$SSHD_PORT" b "${NETNS_B_ADDRS[@]}" || mh_fail "sshd in B"
sshd_check "${NETNS_B_ADDRS[0]}" "$NETNS_A" || mh_fail "ssh from A to B does not work"
echo "A=$NETNS_A ${NETNS_A_ADDRS[*]}; B=$NETNS_B ${NETNS_B_ADDRS[*]}; sshd port $SSHD_PORT"
JOB_PREFIX=(ip netns exec "$NETNS_A")
T_LAUNCH_NS=$(date +%s%N)
GASNETRUN=$TOP/spawner/gasnetrun_tcp GASNET_SUPERNODE_MAXSIZE=0 \
    probe_job 90 tcp-netns -n $N -H "${NETNS_A_ADDRS[0]},${NETNS_B_ADDRS[0]}" -E T_LAUNCH_NS \
    "$TOP/tests/core/tcp/t_amstress" $NSTORM 0 $CAP "$marker"
check "tcp, $N ranks on A and B (128 + 128), bypass on"
no_leftovers 15 "the launcher exited"

mh_finish
