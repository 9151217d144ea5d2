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
#
# Faults, where the kernel drops packets (the library sends by raw system
# calls, common/gasneti_sys.h, so nothing in libc could see a datagram):
#   netns_fault_require        SKIP (or fail, GNT_REQUIRE_NETNS=1) without nft
#                              or a kernel that takes its netdev egress hook
#   netns_fault SIDE [loss=PCT] [dup=PCT] [reorder=PCT] [except=PORT] [spare=syn|tcp]
#       On the egress of SIDE's (A or B) veth end, every IP packet is dropped
#       with probability loss, a survivor duplicated with probability dup,
#       and delayed with probability reorder behind a slow queue so that it
#       arrives after packets sent later (reordering and delay). TCP to or
#       from PORT (the test's sshd) is spared, so starting the job and
#       forwarding its output are not what is measured; spare=syn lets TCP
#       connection set-up (SYN, SYN-ACK) through, spare=tcp all of TCP (a
#       udp job: its data is UDP, its TCP the launcher's). An nftables netdev
#       egress chain (numgen random; dup to the device) and, for reorder, an
#       HTB qdisc whose slow class the chain picks by skb priority: this
#       kernel has no netem. PCT: percent, to 0.1. Replaces SIDE's faults.
#   netns_fault_clear SIDE     no more faults on SIDE's egress
#   netns_fault_counts SIDE    "dropped N duplicated N delayed N" so far

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

# ---- faults in the kernel -------------------------------------------------

netns_fault_require() {
    local why="" ns=gnt$$-fprobe
    if ! command -v nft >/dev/null 2>&1; then why="no 'nft' (nftables: contrib/install-deps.sh --tests)"
    elif ! command -v tc >/dev/null 2>&1; then why="no 'tc' (iproute2)"
    elif ip netns add "$ns" 2>/dev/null; then
        ip -n "$ns" link add gntfp0 type veth peer name gntfp1 2>/dev/null &&
        ip netns exec "$ns" nft add table netdev gntfault 2>/dev/null &&
        ip netns exec "$ns" nft add chain netdev gntfault eg "{ type filter hook egress device gntfp0 priority 0; }" 2>/dev/null ||
            why="the kernel refuses an nftables netdev egress chain"
        ip netns del "$ns"
    else why="ip netns add failed"; fi
    [ -z "$why" ] && return 0
    [ "${GNT_REQUIRE_NETNS:-0}" = 1 ] && mh_fail "kernel fault injection required but unavailable: $why"
    mh_skip "kernel fault injection: $why"
}

# SIDE -> "namespace device"
netns__side() {
    case $1 in
        A) echo "$NETNS_A $NETNS_VETH_A" ;;
        B) echo "$NETNS_B $NETNS_VETH_B" ;;
        *) echo "netns_fault: side '$1' is neither A nor B" >&2; return 1 ;;
    esac
}

# percent (to 0.1) -> per mille; fails on anything else
netns__permille() {
    awk -v p="$1" 'BEGIN { if (p !~ /^[0-9]+(\.[0-9])?$/ || p + 0 > 100) exit 1; printf "%d", p * 10 + 0.5 }'
}

netns_fault() {
    local side=$1 sd ns dev kv k v loss=0 dup=0 reorder=0 except="" spare=""
    sd=$(netns__side "$side") || return 1
    read -r ns dev <<<"$sd"
    shift
    for kv in "$@"; do
        k=${kv%%=*} v=${kv#*=}
        case $k in
            loss|dup|reorder)
                v=$(netns__permille "$v") || { echo "netns_fault: $kv: not a percentage 0..100 (to 0.1)" >&2; return 1; }
                printf -v "$k" %s "$v" ;;
            except) [[ "$v" =~ ^[0-9]+$ ]] || { echo "netns_fault: $kv: not a port" >&2; return 1; }
                    except=$v ;;
            spare) [ "$v" = syn ] || [ "$v" = tcp ] || { echo "netns_fault: $kv: spare=syn or spare=tcp" >&2; return 1; }
                   spare=$v ;;
            *) echo "netns_fault: unknown fault '$kv' (loss=, dup=, reorder=, except=, spare=)" >&2; return 1 ;;
        esac
    done
    netns_fault_clear "$side"
    local rules="meta protocol != ip accept"
    [ -n "$except" ] && rules="$rules
        tcp sport $except accept
        tcp dport $except accept"
    # spare=syn: TCP connection set-up passes untouched (a lost SYN costs
    # the kernel's 1-3-7-15 s backoff, which no protocol of ours controls:
    # at 30 % it kept a relay from connecting back within 30 s)
    [ "$spare" = syn ] && rules="$rules
        tcp flags & syn == syn accept"
    # spare=tcp: all of TCP passes (a udp job's TCP is only the launcher's
    # own connections, whose 20 s to authenticate a relay is not what a
    # loss test checks: at 30 % a relay's first bytes once took longer)
    [ "$spare" = tcp ] && rules="$rules
        meta l4proto tcp accept"
    [ "$loss" != 0 ] && rules="$rules
        numgen random mod 1000 < $loss counter name dropped drop"
    # the copy leaves through the same device without passing this chain
    # again (the kernel skips egress for it): it is not dropped or copied
    [ "$dup" != 0 ] && rules="$rules
        numgen random mod 1000 < $dup counter name duplicated dup to \"$dev\""
    [ "$reorder" != 0 ] && rules="$rules
        numgen random mod 1000 < $reorder counter name delayed meta priority set 1:20"
    ip netns exec "$ns" nft -f - <<EOF || { echo "netns_fault: nft refused the rules" >&2; return 1; }
table netdev gntfault {
    counter dropped { }
    counter duplicated { }
    counter delayed { }
    chain eg {
        type filter hook egress device "$dev" priority 0;
        $rules
    }
}
EOF
    [ "$reorder" = 0 ] && return 0
    # 1:10 all the rest, unlimited in effect; 1:20 the delayed: 1 Mbit/s (a
    # 1500-byte packet waits 12 ms, an ack 1 ms, behind those before it)
    # and a queue of 32 packets, beyond which it drops as a switch would
    tc -n "$ns" qdisc add dev "$dev" root handle 1: htb default 10 r2q 100000 &&
    tc -n "$ns" class add dev "$dev" parent 1: classid 1:10 htb rate 100gbit &&
    tc -n "$ns" class add dev "$dev" parent 1: classid 1:20 htb rate 1mbit burst 1600 quantum 1600 &&
    tc -n "$ns" qdisc add dev "$dev" parent 1:20 pfifo limit 32 ||
        { echo "netns_fault: tc htb on $dev failed" >&2; return 1; }
}

netns_fault_clear() {
    local sd ns dev
    sd=$(netns__side "$1") || return 1
    read -r ns dev <<<"$sd"
    ip netns exec "$ns" nft delete table netdev gntfault 2>/dev/null
    tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null
    return 0
}

netns_fault_counts() {
    local sd ns dev out c n res=""
    sd=$(netns__side "$1") || return 1
    read -r ns dev <<<"$sd"
    out=$(ip netns exec "$ns" nft list counters table netdev gntfault 2>/dev/null)
    for c in dropped duplicated delayed; do
        n=$(echo "$out" | awk -v c="$c" '$1 == "counter" && $2 == c { f = 1 } f && /packets/ { print $2; exit }')
        res="$res${res:+ }$c ${n:-0}"
    done
    echo "$res"
}
