#!/bin/bash
# timeout: 120
# parallel: yes (3 of 11 s on the CPU; namespaces named and addressed by its own pid)
# t-netns.sh - gasnetrun's ssh spawn between two real network stacks: network
# namespaces A and B joined by a veth pair, 3 addresses each, one sshd per
# namespace on its own addresses. The launcher runs inside A; the host list
# is A's and B's addresses (a tree, fan-out 2). Checks: every rank's data,
# ranks blocked by host, the ranks of B's addresses really ran in B's
# namespace (inode of /proc/self/ns/net) and A's in A; every rank's
# boot_self_addr is its namespace's veth address (when A's host is named by a
# loopback address, A's ranks may report loopback: boot.h; t-netns-core.sh
# shows GASNet traffic then still flows both ways); killing the launcher
# leaves nothing in B; a rank killed in B takes every rank down;
# GASNET_MASTERIP is the address B's relays connect to; an address of the subnet nobody has gives an error
# naming it (durations are checked for hangs only); teardown leaves no namespace, veth or
# process. Traffic never leaves the two namespaces.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/netns.sh"
. "$lib/probe.sh"
netns_require
sshd_require

probe_require
netns_setup 3 3 || mh_fail "netns_setup"
ino_a=$(netns_inode "$NETNS_A"); ino_b=$(netns_inode "$NETNS_B")
# A's sshd also listens on A's own 127.0.0.1 (step 1b)
sshd_start -n "$NETNS_A" a "${NETNS_A_ADDRS[@]}" 127.0.0.1 || mh_fail "sshd in A"
sshd_start -n "$NETNS_B" -p "$SSHD_PORT" b "${NETNS_B_ADDRS[@]}" || mh_fail "sshd in B"
pid_a=$(cat "$MH_DIR/sshd-a/pid") pid_b=$(cat "$MH_DIR/sshd-b/pid")
sshd_check "${NETNS_B_ADDRS[2]}" "$NETNS_A" || mh_fail "ssh from A to B does not work"
echo "A=$NETNS_A (net:[$ino_a]) ${NETNS_A_ADDRS[*]}; B=$NETNS_B (net:[$ino_b]) ${NETNS_B_ADDRS[*]}; sshd port $SSHD_PORT"
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SSH_REMOTE_PATH
export GASNET_SSH_OUT_DEGREE=2
JOB_PREFIX=(ip netns exec "$NETNS_A")
hosts=("${NETNS_A_ADDRS[@]}" "${NETNS_B_ADDRS[@]}")
hl=$(IFS=,; echo "${hosts[*]}")

# 1. 12 ranks, 2 per address: 0-5 in A, 6-11 in B
marker="gnt-netns1-$$"
mkdir -p "$MH_DIR/b1"
probe_job 90 n1 -n 12 -H "$hl" "$PROBE" --dir "$MH_DIR/b1" "$marker"
no_leftovers 15 "the launcher exited"
if [ "$JOB_RC" != 0 ]; then fail "12-rank job exited $JOB_RC"; probe_show_job
else
    probe_check_job 12 "${hosts[@]}" || fail "12-rank job data"
    # the namespace each rank ran in, from its own report
    bad=$(awk -v a="${NETNS_A_ADDRS[*]}" -v ia="$ino_a" -v ib="$ino_b" '
        { i = index($0, "probe-"); if (i > 1) $0 = substr($0, i) }
        $1 == "probe-self:" { inA = 0; n = split(a, A, " "); for (k = 1; k <= n; k++) if ($5 == A[k]) inA = 1
            want = inA ? ia : ib; wname = inA ? "a" : "b"
            printf "  rank %s: host %s sshd %s netns %s\n", $3, $5, $7, $9 > "/dev/stderr"
            if ($9 != want || $7 != wname) printf "rank %s on %s ran in netns %s via sshd %s, want %s via %s; ", $3, $5, $9, $7, want, wname }' "$JOB_OUT" 2>"$MH_DIR/n1.where")
    sort -k2n "$MH_DIR/n1.where"
    [ -z "$bad" ] || fail "$bad"
    [ -z "$bad" ] && echo "  ranks of A's addresses ran in net:[$ino_a], those of B's in net:[$ino_b]"
fi

# 1b. boot_self_addr (boot.h: the address of the interface that reaches the rest
#     of the job", boot.h) of every rank is an address of its namespace on
#     the veth, never a loopback address B cannot reach: with the host list
#     as in step 1, and with A's own host named 127.0.0.1 (as a host name
#     that /etc/hosts maps to 127.0.1.1, Debian's default, would name it)
check_addrs() {   # FILE: every probe-addr is in NETNS_NET and in the rank's namespace
    awk -v net="$NETNS_NET." -v ia="$ino_a" -v a="${NETNS_A_ADDRS[*]}" -v b="${NETNS_B_ADDRS[*]}" '
        { i = index($0, "probe-"); if (i > 1) $0 = substr($0, i) }
        $1 == "probe-self:" { split($3, rs, "/"); ns[rs[1]] = $9 }
        $1 == "probe-addr:" { addr[$3] = $4 }
        END { na = split(a, A, " "); nb = split(b, B, " ")
              for (r in addr) { ok = 0
                  if (ns[r] == ia) { for (k = 1; k <= na; k++) if (addr[r] == A[k]) ok = 1 }
                  else { for (k = 1; k <= nb; k++) if (addr[r] == B[k]) ok = 1 }
                  if (!ok) printf "rank %s (netns %s) has boot_self_addr %s; ", r, ns[r], addr[r] } }' "$1"
}
bad=$(check_addrs "$MH_DIR/n1.out")
echo "  boot_self_addr: $(awk '{ i = index($0, "probe-addr:"); if (i) { $0 = substr($0, i); printf "%s=%s ", $3, $4 } }' "$MH_DIR/n1.out")"
[ -z "$bad" ] || fail "step 1: $bad"
marker="gnt-netns1b-$$"
probe_job 60 n1b -n 6 -H "127.0.0.1,${NETNS_B_ADDRS[0]},${NETNS_B_ADDRS[1]}" "$PROBE" "$marker"
if [ "$JOB_RC" != 0 ]; then fail "job with A named 127.0.0.1 exited $JOB_RC"; probe_show_job
else
    probe_check_job 6 127.0.0.1 "${NETNS_B_ADDRS[0]}" "${NETNS_B_ADDRS[1]}" || fail "job with A named 127.0.0.1: data"
    echo "  boot_self_addr: $(awk '{ i = index($0, "probe-addr:"); if (i) { $0 = substr($0, i); printf "%s=%s ", $3, $4 } }' "$JOB_OUT")"
    # A's ranks reached their relay over loopback: boot_self_addr is then
    # loopback for them (boot.h), B's must still be B's veth addresses.
    bad=$(check_addrs "$JOB_OUT" | tr ';' '\n' | grep -v 'has boot_self_addr 127\.' | grep -v '^ *$')
    [ -z "$bad" ] || fail "A named 127.0.0.1: $bad"
fi
no_leftovers 15 "the launcher exited"

# 2. the launcher (in A) killed with -9 while the ranks sleep: nothing of the
#    job survives in A or B
marker="gnt-netns2-$$"
probe_bg n2 -n 12 -H "$hl" "$PROBE" --sleep 60 "$marker"
if probe_wait_ok "$JOB_OUT" 12 60; then
    all=$(job_procs | grep -vx "$MH_BG")
    inb=$(ip netns pids "$NETNS_B" | grep -vx "$pid_b" | wc -l)
    echo "  kill -9 the launcher (pid $MH_BG); $(echo $all | wc -w) processes of the job must go ($inb in B besides its sshd)"
    kill -KILL "$MH_BG"; wait "$MH_BG" 2>/dev/null
    gone_within 30 "2 s" $all || fail "processes survived the launcher's death (hang bound 30 s)"
    no_leftovers 15 "the launcher was killed"
    inb=$(ip netns pids "$NETNS_B" | grep -vx "$pid_b")
    [ -z "$inb" ] || { fail "processes left in B: $inb"; ps -o pid=,args= -p $inb; }
else
    fail "12 ranks did not all report within 60 s"; probe_bg_wait 5; probe_show_job
fi

# 2b. a rank in B (rank 9, on B's second address) killed with -9: every
#     other rank in A and B gone, one line naming rank 9
marker="gnt-netns2b-$$"
probe_bg n2b -n 12 -H "$hl" "$PROBE" --sleep 60 "$marker"
if probe_wait_ok "$JOB_OUT" 12 60; then
    victim=$(probe_pids "$JOB_OUT" | awk '$1 == 9 {print $2}')
    others=$(probe_pids "$JOB_OUT" | awk '$1 != 9 {print $2}')
    echo "  kill -9 rank 9 (pid $victim, in B: $(ip netns identify "$victim"))"
    kill -KILL "$victim"
    gone_within 30 "0.5 s" $others || fail "ranks survived rank 9's death (hang bound 30 s)"
    probe_bg_wait 20
    n=$(grep -cE "rank 9([^0-9]|$).*(signal|SIGKILL|killed)" "$JOB_ERR")
    echo "  -> launcher exit $JOB_RC; lines naming rank 9 and the signal: $n (want 1): $(head -n 2 "$JOB_ERR" | tr '\n' ' ')"
    { [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "launcher exit $JOB_RC after a rank was killed"
    [ "$n" = 1 ] || fail "want one line naming rank 9 and its signal"
    no_leftovers 15 "the launcher exited"
else
    fail "12 ranks did not all report within 60 s"; probe_bg_wait 5; probe_show_job
fi

# 2c. GASNET_MASTERIP names the address relays reach the launcher at
#     (docs/launcher.md: "address relays/workers use to reach the launcher"):
#     with A's third address there, B's relays connect to it
marker="gnt-netns2c-$$"
mip=${NETNS_A_ADDRS[2]}
GASNET_MASTERIP=$mip probe_bg n2c -n 4 -H "${NETNS_A_ADDRS[0]},${NETNS_B_ADDRS[0]},${NETNS_B_ADDRS[1]},${NETNS_B_ADDRS[2]}" "$PROBE" --sleep 3 "$marker"
if probe_wait_ok "$JOB_OUT" 4 60; then
    lport=$(ip netns exec "$NETNS_A" ss -Hltnp | awk -v p="pid=$MH_BG," 'index($0, p) { n = split($4, a, ":"); print a[n] }' | head -n 1)
    conns=$(ip netns exec "$NETNS_B" ss -Htn state established "dport = :$lport" | awk '{print $4}' | sort | uniq -c | awk '{printf "%s x%s ", $2, $1}')
    echo "  launcher listens on port $lport; connections from B to it: ${conns:-none} (want only $mip:$lport)"
    [ -n "$conns" ] && [ -z "$(ip netns exec "$NETNS_B" ss -Htn state established "dport = :$lport" | awk -v m="$mip:$lport" '$4 != m')" ] ||
        fail "GASNET_MASTERIP=$mip not used by the relays in B (connections: ${conns:-none})"
else
    fail "4 ranks did not all report within 60 s"
fi
probe_bg_wait 30
[ "$JOB_RC" = 0 ] || { fail "GASNET_MASTERIP job exited $JOB_RC"; probe_show_job; }
no_leftovers 15 "the launcher exited"

# 3. an address of the subnet that no one has (ARP gets no answer): an
#    error naming it after ssh's ConnectTimeout=5 (in ssh_opts)
marker="gnt-netns3-$$"
ghost=$NETNS_NET.250
probe_job 60 n3 -n 4 -H "${NETNS_A_ADDRS[0]},${NETNS_B_ADDRS[0]},$ghost,${NETNS_B_ADDRS[1]}" "$PROBE" --sleep 30 "$marker"
echo "  -> want non-zero exit and a line naming $ghost; messages: $(head -n 4 "$JOB_ERR" | tr '\n' ' ')"
{ [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "exit $JOB_RC with unreachable $ghost"
hang_check "giving up on $ghost" "$MH_ELAPSED" 30 "3 to 5 s: ARP gives up, or ConnectTimeout=5" || fail "hung on $ghost"
grep -qF "$ghost" "$JOB_ERR" || fail "no error line names $ghost"
no_leftovers 15 "the launcher exited"

# 4. teardown: nothing left
sshd_stop
netns_teardown
ip netns list | grep -E "^gnt$$-" && fail "namespace left after teardown"
ip -o link show | grep -E "gnt$$[ab]" && fail "veth left after teardown"
for p in $pid_a $pid_b; do [ -e "/proc/$p" ] && fail "sshd $p left after teardown"; done
left=$(mh_tagged_pids "$MH_TAG"); [ -z "$left" ] || { fail "tagged processes left: $left"; ps -o pid=,args= -p $left; }
echo "  teardown: no namespace, veth, sshd or process left"

mh_finish
