#!/bin/bash
# timeout: 60
# t-netns-infra.sh - the two-namespace network the netns launcher test stands
# on (tests/lib/netns.sh), checked without the launcher: A and B reach each
# other over the veth pair, each has its own sshd on its own addresses only,
# a command ssh'ed to B runs in B's namespace, nothing of it shows in the
# host's namespace, and teardown leaves no namespace, veth or process.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/netns.sh"
netns_require
sshd_require

netns_setup 2 2 || mh_fail "netns_setup"
echo "namespaces $NETNS_A (${NETNS_A_ADDRS[*]}) and $NETNS_B (${NETNS_B_ADDRS[*]}), net $NETNS_NET.0/24"
ino_a=$(netns_inode "$NETNS_A"); ino_b=$(netns_inode "$NETNS_B")
echo "inodes: A $ino_a, B $ino_b, host $(stat -L -c %i /proc/self/ns/net)"

sshd_start -n "$NETNS_A" a "${NETNS_A_ADDRS[@]}" || mh_fail "sshd in A"
pid_a=$(cat "$MH_DIR/sshd-a/pid")
sshd_start -n "$NETNS_B" -p "$SSHD_PORT" b "${NETNS_B_ADDRS[@]}" || mh_fail "sshd in B"
pid_b=$(cat "$MH_DIR/sshd-b/pid")
echo "sshd A pid $pid_a, B pid $pid_b, both port $SSHD_PORT"

# TCP both ways (no ping on a minimal system; the sshd greeting is enough)
for a in "${NETNS_B_ADDRS[@]}"; do
    g=$(netns_tcp_probe "$NETNS_A" "$a" "$SSHD_PORT"); echo "A -> $a:$SSHD_PORT: '$g'"
    [ "$g" = SSH- ] || mh_fail "A cannot reach $a"
done
for a in "${NETNS_A_ADDRS[@]}"; do
    g=$(netns_tcp_probe "$NETNS_B" "$a" "$SSHD_PORT"); echo "B -> $a:$SSHD_PORT: '$g'"
    [ "$g" = SSH- ] || mh_fail "B cannot reach $a"
done

# ssh from A to every address; the command runs in the namespace owning it
for a in "${NETNS_A_ADDRS[@]}" "${NETNS_B_ADDRS[@]}"; do
    ns=$(netns_exec "$NETNS_A" timeout 20 ssh $ssh_opts "$a" 'readlink /proc/self/ns/net' </dev/null 2>&1)
    want=$ino_a
    for b in "${NETNS_B_ADDRS[@]}"; do [ "$a" = "$b" ] && want=$ino_b; done
    echo "ssh $a from A ran in $ns (want net:[$want])"
    [ "$ns" = "net:[$want]" ] || mh_fail "command for $a ran in $ns, not net:[$want]"
done

# nothing in the host's namespace: no address of the net, no veth, no listener
ip -o addr show | grep -F " $NETNS_NET." && mh_fail "address of $NETNS_NET.0/24 in the host namespace"
ip -o link show | grep -E "gnt$$[ab]" && mh_fail "veth end in the host namespace"
ss -Hltnp | grep -E "pid=($pid_a|$pid_b)," && mh_fail "a namespace sshd listens in the host namespace"
echo "host namespace: no address, no veth, no listener of ours"

# teardown: a process left running in B goes with it
GNT_MH_TAG=$MH_TAG netns_exec "$NETNS_A" ssh $ssh_opts "${NETNS_B_ADDRS[0]}" "sleep 300; : gnt-netns-$$" </dev/null >/dev/null 2>&1 &
for i in $(seq 100); do pgrep -f -- "^[a-z/]*sh -c sleep 300; : gnt-netns-$$" >/dev/null && break; sleep 0.1; done
echo "in B before teardown: $(ip netns pids "$NETNS_B" | tr '\n' ' ')"
sshd_stop
netns_teardown
mh_kill_tagged "$MH_TAG"
ip netns list | grep -E "^gnt$$-" && mh_fail "namespace left after teardown"
ip -o link show | grep -E "gnt$$[ab]" && mh_fail "veth left after teardown"
for p in $pid_a $pid_b; do [ -e "/proc/$p" ] && mh_fail "sshd $p left after teardown"; done
mh_wait_gone 3 "gnt-netns-$$" || mh_fail "process left after teardown"
echo "teardown: no namespace, no veth, no sshd, no process"
echo "PASS"
