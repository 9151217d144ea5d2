#!/bin/bash
# timeout: 180
# t-netns-core.sh - real GASNet traffic between two network stacks: the core
# tests (tests/core t_core: every core call, round trips between all nodes;
# t_amstress: AM storms between all pairs) started by gasnetrun over ssh from
# namespace A onto two addresses of A and two of B, for both conduits (udp,
# tcp). The ranks in B reach the ranks in A only over the veth pair, so this
# checks that every rank advertises an address the others can reach, and
# that gasnet_getNodeInfo and GASNet-EX's host queries (tests/ex t_ex_sys)
# see A and B as two hosts. Then
# the same udp job with A's host named 127.0.0.1 (what a host name mapped to
# 127.0.1.1 in /etc/hosts, Debian's default, amounts to): the ranks on A must
# still advertise an address B can reach.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/netns.sh"
. "$lib/probe.sh"
netns_require
sshd_require
[ -x "${GASNETRUN:-}" ] || mh_fail "launcher not built: GASNETRUN='${GASNETRUN:-}'"
for p in core/t_core core/t_amstress core/tcp/t_core core/tcp/t_amstress \
         extended/t_clientext extended/tcp/t_clientext ex/t_ex_sys ex/tcp/t_ex_sys; do
    [ -x "$TOP/tests/$p" ] || mh_fail "tests/$p not built"
done

netns_setup 2 2 || mh_fail "netns_setup"
sshd_start -n "$NETNS_A" a "${NETNS_A_ADDRS[@]}" 127.0.0.1 || mh_fail "sshd in A"
sshd_start -n "$NETNS_B" -p "$SSHD_PORT" b "${NETNS_B_ADDRS[@]}" || mh_fail "sshd in B"
sshd_check "${NETNS_B_ADDRS[1]}" "$NETNS_A" || mh_fail "ssh from A to B does not work"
echo "A=$NETNS_A ${NETNS_A_ADDRS[*]}; B=$NETNS_B ${NETNS_B_ADDRS[*]}; sshd port $SSHD_PORT"
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SSH_REMOTE_PATH
export GASNET_SSH_OUT_DEGREE=2 T_CORE_ENV=hello-env
JOB_PREFIX=(ip netns exec "$NETNS_A")
hl="${NETNS_A_ADDRS[0]},${NETNS_A_ADDRS[1]},${NETNS_B_ADDRS[0]},${NETNS_B_ADDRS[1]}"

for conduit in udp tcp; do
    bin=$TOP/tests/core; [ $conduit = tcp ] && bin=$TOP/tests/core/tcp
    GASNETRUN=$TOP/spawner/gasnetrun_$conduit

    marker="gnt-netns-core-$conduit-$$"
    probe_job 60 core-$conduit -n 8 -H "$hl" "$bin/t_core" "$marker"
    n=$(grep -c 'round trips with all 8 nodes' "$JOB_OUT")
    echo "  $conduit t_core, 8 ranks on A and B: exit $JOB_RC, $n of 8 nodes verified round trips with all"
    [ "$JOB_RC" = 0 ] && [ "$n" = 8 ] || { fail "$conduit t_core across namespaces (exit $JOB_RC, $n of 8)"; probe_show_job; }
    no_leftovers 15 "the launcher exited"

    marker="gnt-netns-amstress-$conduit-$$"
    probe_job 90 amstress-$conduit -n 8 -H "$hl" "$bin/t_amstress" 300
    total=$(sed -n 's/^node 0: all nodes: \(.*\)$/\1/p' "$JOB_OUT")
    echo "  $conduit t_amstress 300, 8 ranks on A and B: exit $JOB_RC, totals: ${total:-none}"
    [ "$JOB_RC" = 0 ] && [ -n "$total" ] || { fail "$conduit t_amstress across namespaces (exit $JOB_RC)"; probe_show_job; }
    no_leftovers 15 "the launcher exited"

    # gasnet_getNodeInfo: a host is a kernel plus a network namespace, so the
    # two addresses of A are one host and B's are another, although all four
    # share the kernel, the host name and /dev/shm: 2 + 2 ranks -> 0 0 1 1.
    ebin=$TOP/tests/extended; [ $conduit = tcp ] && ebin=$TOP/tests/extended/tcp
    probe_job 60 nodeinfo-$conduit -n 4 -H "$hl" "$ebin/t_clientext"
    table=$(sed -n 's/^node 0: host table: *//p' "$JOB_OUT")
    n=$(grep -c 'client extensions verified' "$JOB_OUT")
    echo "  $conduit gasnet_getNodeInfo, ranks on A, A, B, B: host table '$table' (want '0 0 1 1'), $n of 4 verified"
    [ "$JOB_RC" = 0 ] && [ "$table" = "0 0 1 1" ] && [ "$n" = 4 ] || { fail "$conduit getNodeInfo across namespaces (exit $JOB_RC, table '$table')"; probe_show_job; }
    no_leftovers 15 "the launcher exited"

    # GASNet-EX's host queries agree: node 0's host holds ranks 0 and 1, and
    # every rank sees 2 hosts and 2 neighbourhoods (a host's ranks share
    # memory; the job runs shm within a host and the network between them;
    # t_ex_sys checks the rest on every rank).
    xbin=$TOP/tests/ex; [ $conduit = tcp ] && xbin=$TOP/tests/ex/tcp
    probe_job 60 exsys-$conduit -n 4 -H "$hl" "$xbin/t_ex_sys"
    members=$(sed -n 's/^node 0: host: [0-9]* members*: *//p' "$JOB_OUT")
    hosts=$(grep -c 'position: neighbourhood [01] of 2, host [01] of 2$' "$JOB_OUT")
    n=$(grep -c 'all GASNet-EX system checks passed' "$JOB_OUT")
    echo "  $conduit gex_System_QueryHostInfo on node 0: members '$members' (want '0 1'); $hosts of 4 ranks see host 0 or 1 of 2; $n of 4 passed t_ex_sys"
    [ "$JOB_RC" = 0 ] && [ "$members" = "0 1" ] && [ "$hosts" = 4 ] && [ "$n" = 4 ] || { fail "$conduit GASNet-EX host queries across namespaces (exit $JOB_RC)"; probe_show_job; }
    no_leftovers 15 "the launcher exited"
done

# A's host named by a loopback address (A's own 127.0.0.1): the ranks there
# must still advertise an address B can reach. udp, with the dead-peer
# timeout cut to 5 s so a failure is quick.
GASNETRUN=$TOP/spawner/gasnetrun_udp
marker="gnt-netns-core-lo-$$"
GASNET_UDP_TIMEOUT=5 probe_job 60 core-lo -n 4 -H "127.0.0.1,${NETNS_B_ADDRS[0]}" "$TOP/tests/core/t_core" "$marker"
n=$(grep -c 'round trips with all 4 nodes' "$JOB_OUT")
echo "  udp t_core, A named 127.0.0.1: exit $JOB_RC, $n of 4 nodes verified; messages: $(head -n 2 "$JOB_ERR" | cut -c1-160 | tr '\n' ' ')"
[ "$JOB_RC" = 0 ] && [ "$n" = 4 ] || fail "udp t_core with A's host named 127.0.0.1 (exit $JOB_RC, $n of 4): the ranks on A advertise an address B cannot reach"
no_leftovers 15 "the launcher exited"

mh_finish
