# tests/lib/incast.sh - the incast setup of tests/amudp/t-incast.sh and
# tests/bench/incast.sh (sourced): 3 ranks on host A, 1 on host B, the
# link between them limited by tbf.
#
#   incast_setup   SKIP unless namespaces, sshd, tc and tests/amudp/t_incast
#                  are there; namespaces A (3 addresses) and B (1), an sshd
#                  in each, ssh from A to B checked. Sets INCAST_HOSTS (the
#                  host list: ranks 0-2 on A, 3 on B), INCAST_B (B's
#                  address), JOB_PREFIX (jobs start in A) and GASNETRUN (udp).
#   incast_tbf RATE_MBIT BURST LIMIT
#                  (re)place the tbf on A's egress into the veth: the
#                  bottleneck, like a switch port of that rate and buffer
#   incast_drops   packets the tbf has dropped so far

lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$lib/sshd.sh"
. "$lib/netns.sh"
. "$lib/probe.sh"

incast_setup() {
    netns_require
    sshd_require
    command -v tc >/dev/null || mh_skip "no tc (iproute2)"
    [ -x "$TOP/tests/amudp/t_incast" ] || mh_fail "tests/amudp/t_incast not built"
    netns_setup 3 1 || mh_fail "netns_setup"
    sshd_start -n "$NETNS_A" a "${NETNS_A_ADDRS[@]}" || mh_fail "sshd in A"
    sshd_start -n "$NETNS_B" -p "$SSHD_PORT" b "${NETNS_B_ADDRS[@]}" || mh_fail "sshd in B"
    sshd_check "${NETNS_B_ADDRS[0]}" "$NETNS_A" || mh_fail "ssh from A to B does not work"
    unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SSH_REMOTE_PATH
    JOB_PREFIX=(ip netns exec "$NETNS_A")
    GASNETRUN=$TOP/spawner/gasnetrun_udp
    INCAST_B=${NETNS_B_ADDRS[0]}
    INCAST_HOSTS="${NETNS_A_ADDRS[0]},${NETNS_A_ADDRS[1]},${NETNS_A_ADDRS[2]},$INCAST_B"
}

incast_tbf() {
    tc -n "$NETNS_A" qdisc replace dev "$NETNS_VETH_A" root tbf rate "$1mbit" burst "$2" limit "$3" ||
        mh_fail "tc tbf on $NETNS_VETH_A"
}

incast_drops() {
    tc -n "$NETNS_A" -s qdisc show dev "$NETNS_VETH_A" | sed -n 's/.*dropped \([0-9]*\).*/\1/p'
}
