# tests/lib/netns.sh - two network namespaces joined by a veth pair (sourced).
#
#   netns_require
#       SKIP the test (exit 77, "SKIPPED: why") when namespaces cannot be made
#       here: not root, no `ip`, or the kernel refuses (unprivileged
#       container). Set GNT_REQUIRE_NETNS=1 to make that a failure instead.
#   netns_setup NA NB
#       Create namespaces NETNS_A=gnt<pid>-a and NETNS_B=gnt<pid>-b, a veth
#       pair gnt<pid>a <-> gnt<pid>b created directly inside them (it never
#       exists in the host's namespace), lo up in both, NA addresses on A's
#       end and NB on B's, all in one /24 (NETNS_NET) that exists only inside
#       these two namespaces. Sets arrays NETNS_A_ADDRS, NETNS_B_ADDRS.
#   netns_exec NS CMD...       run CMD inside NS
#   netns_inode NS             the namespace's inode (as in /proc/PID/ns/net)
#   netns_teardown             kill what runs inside, delete both namespaces
#                              (the veth pair goes with them). Idempotent;
#                              also registered to run at exit.

. "$(dirname "${BASH_SOURCE[0]}")/mh.sh"

NETNS_A=gnt$$-a
NETNS_B=gnt$$-b
NETNS_VETH_A=gnt$$a
NETNS_VETH_B=gnt$$b
NETNS_A_ADDRS=()
NETNS_B_ADDRS=()
NETNS_NET=

netns_require() {
    local why="" out
    if [ "$(id -u)" != 0 ]; then why="not root (network namespaces need CAP_SYS_ADMIN)"
    elif ! command -v ip >/dev/null 2>&1; then why="no 'ip' command (iproute2)"
    else
        out=$(ip netns add "gnt$$-probe" 2>&1)
        if [ $? != 0 ]; then why="ip netns add failed: $out"
        else ip netns del "gnt$$-probe"; fi
    fi
    [ -z "$why" ] && return 0
    [ "${GNT_REQUIRE_NETNS:-0}" = 1 ] && mh_fail "network namespaces required but unavailable: $why"
    mh_skip "network namespace tests: $why"
}

netns_exec() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

netns_inode() { stat -L -c %i "/run/netns/$1"; }

netns_setup() {
    local na=${1:-1} nb=${2:-1} i net
    # a /24 in 10.0.0.0/8 the host itself does not use (it would not leak
    # anyway, the namespaces have no route out; this keeps logs unambiguous)
    for i in 231 232 233 234 235 236 237 238; do
        net=10.$i.$(( $$ % 250 + 1 ))
        ip -o addr show | grep -qF " $net." || { NETNS_NET=$net; break; }
    done
    [ -n "$NETNS_NET" ] || { echo "netns_setup: no free /24" >&2; return 1; }
    mh_state netns "$NETNS_A"
    mh_state netns "$NETNS_B"
    mh_at_exit netns_teardown
    ip netns add "$NETNS_A" && ip netns add "$NETNS_B" || return 1
    ip link add "$NETNS_VETH_A" netns "$NETNS_A" type veth peer name "$NETNS_VETH_B" netns "$NETNS_B" || return 1
    NETNS_A_ADDRS=(); NETNS_B_ADDRS=()
    for ((i = 1; i <= na; i++)); do NETNS_A_ADDRS+=("$NETNS_NET.$i"); done
    for ((i = 1; i <= nb; i++)); do NETNS_B_ADDRS+=("$NETNS_NET.$((100 + i))"); done
    local ns dev a
    for ns in A B; do
        if [ $ns = A ]; then ns=$NETNS_A dev=$NETNS_VETH_A; set -- "${NETNS_A_ADDRS[@]}"
        else ns=$NETNS_B dev=$NETNS_VETH_B; set -- "${NETNS_B_ADDRS[@]}"; fi
        ip -n "$ns" link set lo up || return 1
        for a in "$@"; do ip -n "$ns" addr add "$a/24" dev "$dev" || return 1; done
        ip -n "$ns" link set "$dev" up || return 1
    done
    # addresses are usable once duplicate address detection is irrelevant
    # (IPv4: at once) and the link is up on both ends
    for i in $(seq 30); do
        ip -n "$NETNS_A" -o link show "$NETNS_VETH_A" | grep -q 'state UP' &&
        ip -n "$NETNS_B" -o link show "$NETNS_VETH_B" | grep -q 'state UP' && return 0
        sleep 0.1
    done
    echo "netns_setup: veth did not come up" >&2
    return 1
}

netns_teardown() {
    local ns pids
    for ns in "$NETNS_A" "$NETNS_B"; do
        [ -e "/run/netns/$ns" ] || continue
        pids=$(ip netns pids "$ns" 2>/dev/null)
        [ -n "$pids" ] && mh_kill_pids $pids
        ip netns del "$ns" 2>/dev/null
    done
    return 0
}

# netns_tcp_probe NS ADDR PORT: connect from NS to ADDR:PORT and read the
# first bytes (an sshd greets with "SSH-"). Prints them; fails on no connect.
netns_tcp_probe() {
    ip netns exec "$1" timeout 5 bash -c 'exec 3<>"/dev/tcp/$0/$1" && head -c 4 <&3' "$2" "$3" 2>/dev/null
}
