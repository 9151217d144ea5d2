#!/bin/bash
# timeout: 180
# t-netns.sh - PMI jobs over two hosts (docs/launcher.md, "Which
# network"), 2 + 2 ranks on one address of network namespace A and one of B
# (tests/lib/netns.sh): MPICH's mpiexec in A starting its proxies over this
# test's ssh (tests/lib/sshd.sh), then a two-node Slurm (node na in A, nb in
# B, tests/lib/slurm.sh) with srun --mpi=pmi2 and --mpi=pmix. Under PMI no launcher connection tells
# a rank its address: each must find, by itself, the one the other host can
# reach (never loopback). Checked on both conduits with real data (a classic
# client: AM checksums, puts/gets between all ranks) and gasnet_getNodeInfo
# (host table 0 0 1 1); under mpiexec also with GASNET_NETWORK naming the
# namespaces' subnet, and naming a subnet nobody has (the job stops,
# listing the host's interfaces).
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/netns.sh"
. "$lib/slurm.sh"
. "$TOP/tests/pmi/build.sh"
netns_require
sshd_require
command -v mpiexec.mpich >/dev/null || mh_skip "mpiexec.mpich not installed (mpich)"

netns_setup 1 1 || mh_fail "netns_setup"
sshd_start -n "$NETNS_A" a "${NETNS_A_ADDRS[@]}" || mh_fail "sshd in A"
sshd_start -n "$NETNS_B" -p "$SSHD_PORT" b "${NETNS_B_ADDRS[@]}" || mh_fail "sshd in B"
sshd_check "${NETNS_B_ADDRS[0]}" "$NETNS_A" || mh_fail "ssh from A to B does not work"
echo "A=$NETNS_A ${NETNS_A_ADDRS[*]}; B=$NETNS_B ${NETNS_B_ADDRS[*]}; sshd port $SSHD_PORT"
printf '#!/bin/sh\nexec ssh %s "$@"\n' "$ssh_opts" >"$MH_DIR/ssh-wrap"
chmod +x "$MH_DIR/ssh-wrap"
unset GASNET_NETWORK

# mpiexec in A: Hydra's proxies over our ssh, its own connections on A's veth
mpx() {
    timeout -k 5 60 ip netns exec "$NETNS_A" mpiexec.mpich -launcher ssh -launcher-exec "$MH_DIR/ssh-wrap" \
        -iface "$NETNS_VETH_A" -hosts "${NETNS_A_ADDRS[0]}:2,${NETNS_B_ADDRS[0]}:2" -n 4 "$@"
}
for conduit in udp tcp; do
    pmi_build_classic "$conduit" "$MH_DIR/classic-$conduit" || mh_fail "cannot build the classic client"
    out=$(GASNET_UDP_TIMEOUT=10 mpx "$MH_DIR/classic-$conduit" 30 2>&1); rc=$?
    n=$(echo "$out" | grep -c "classic client PASSED")
    echo "  $conduit classic client, ranks 0-1 on A, 2-3 on B: exit $rc, $n of 4 PASSED"
    [ $rc = 0 ] && [ "$n" = 4 ] || { fail "$conduit classic client across namespaces under mpiexec (exit $rc, $n of 4)"; echo "$out" | tail -5; }

    ebin=$TOP/tests/extended; [ $conduit = tcp ] && ebin=$TOP/tests/extended/tcp
    out=$(GASNET_UDP_TIMEOUT=10 mpx "$ebin/t_clientext" 2>&1); rc=$?
    table=$(echo "$out" | sed -n 's/^node 0: host table: *//p')
    echo "  $conduit gasnet_getNodeInfo under mpiexec: host table '$table' (want '0 0 1 1'), exit $rc"
    [ $rc = 0 ] && [ "$table" = "0 0 1 1" ] || { fail "$conduit getNodeInfo across namespaces (exit $rc, table '$table')"; echo "$out" | tail -5; }
done

out=$(GASNET_NETWORK="$NETNS_NET.0/24" GASNET_UDP_TIMEOUT=10 mpx "$MH_DIR/classic-udp" 30 2>&1); rc=$?
n=$(echo "$out" | grep -c "classic client PASSED")
echo "  udp, GASNET_NETWORK=$NETNS_NET.0/24: exit $rc, $n of 4 PASSED"
[ $rc = 0 ] && [ "$n" = 4 ] || { fail "GASNET_NETWORK=$NETNS_NET.0/24 (exit $rc, $n of 4)"; echo "$out" | tail -5; }

out=$(GASNET_NETWORK=198.51.100.0/24 mpx "$MH_DIR/classic-udp" 30 2>&1); rc=$?
why=$(echo "$out" | grep -m1 "GASNET_NETWORK='198.51.100.0/24' matches no interface")
echo "  GASNET_NETWORK=198.51.100.0/24 (no such subnet here): exit $rc: ${why:0:160}"
[ $rc != 0 ] && [ -n "$why" ] || { fail "GASNET_NETWORK naming no subnet: exit $rc"; echo "$out" | head -8; }
# ---- a two-node Slurm: srun --mpi=pmi2 and --mpi=pmix across A and B ----
mh_at_exit slurm_stop
if slurm_start_two "$NETNS_A" "${NETNS_A_ADDRS[0]}" "$NETNS_B" "${NETNS_B_ADDRS[0]}"; then
    echo "  Slurm: $(slurm_srun_env sinfo -h -o '%N %t' | tr '\n' ' ')"
    for conduit in udp tcp; do
        for mpi in pmi2 pmix; do
            out=$(GASNET_UDP_TIMEOUT=10 slurm_srun_env timeout -k 5 60 srun -N2 -n4 -O --mpi=$mpi "$MH_DIR/classic-$conduit" 30 2>&1); rc=$?
            n=$(echo "$out" | grep -c "classic client PASSED")
            echo "  $conduit classic client under srun --mpi=$mpi, tasks 0-1 on na (A), 2-3 on nb (B): exit $rc, $n of 4 PASSED"
            [ $rc = 0 ] && [ "$n" = 4 ] || { fail "$conduit classic client under two-node srun --mpi=$mpi (exit $rc, $n of 4)"; echo "$out" | tail -5; }
        done
        ebin=$TOP/tests/extended; [ $conduit = tcp ] && ebin=$TOP/tests/extended/tcp
        out=$(GASNET_UDP_TIMEOUT=10 slurm_srun_env timeout -k 5 60 srun -N2 -n4 -O --mpi=pmix "$ebin/t_clientext" 2>&1); rc=$?
        table=$(echo "$out" | sed -n 's/^node 0: host table: *//p')
        echo "  $conduit gasnet_getNodeInfo under srun --mpi=pmix: host table '$table' (want '0 0 1 1'), exit $rc"
        [ $rc = 0 ] && [ "$table" = "0 0 1 1" ] || { fail "$conduit getNodeInfo under two-node srun (exit $rc, table '$table')"; echo "$out" | tail -5; }
    done
else
    echo "SKIPPED PART: two-node Slurm ($SLURM_WHY)"
fi
slurm_stop
mh_finish
