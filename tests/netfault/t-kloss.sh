#!/bin/bash
# timeout: 240
# parallel: yes (5 of 29 s on the CPU: jobs that wait out losses; namespaces, addresses and sshd ports of its own)
# t-kloss.sh - GASNet jobs across two network namespaces whose veth link
# loses, duplicates and reorders packets in the kernel (tests/lib/netns.sh,
# netns_fault: nftables on both ends' egress; the library sends by raw
# system calls, so no libc shim could see a datagram), both conduits, shared
# memory on (2 ranks per namespace: their traffic stays in memory, the pairs
# across the link cross it) and off (GASNET_SUPERNODE_MAXSIZE=1: all of it
# crosses sockets, half of it the link). The ranks are started by gasnetrun
# over ssh from A onto A's and B's addresses (ssh spared by the faults: the
# start is not what is checked; for udp jobs all of TCP, the launcher's
# connections to its relays, whose 20 s to authenticate a 30 % loss once
# outlasted). Each job checks its data: tests/core
# t_amstress (every payload and argument byte for byte, both ways, requests
# handled = sent) and, on udp with shared memory off, tests/ex t_ex_rma
# (a model check of random puts and gets of 1 B to 2 MiB, every byte
# compared); the kernel's counters show the faults happened, the counts
# printed. Loss 20% (shm off) and 30% (shm on) each way; duplication
# 10% + reordering 10% + loss 5% (shm off).
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/netns.sh"
. "$lib/probe.sh"
netns_require
netns_fault_require
sshd_require
for p in core/t_amstress core/tcp/t_amstress ex/t_ex_rma; do
    [ -x "$TOP/tests/$p" ] || mh_fail "tests/$p not built"
done
netns_setup 2 2 || mh_fail "netns_setup"
sshd_start -n "$NETNS_A" a "${NETNS_A_ADDRS[@]}" || mh_fail "sshd in A"
sshd_start -n "$NETNS_B" -p "$SSHD_PORT" b "${NETNS_B_ADDRS[@]}" || mh_fail "sshd in B"
sshd_check "${NETNS_B_ADDRS[0]}" "$NETNS_A" || mh_fail "ssh from A to B does not work"
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SSH_REMOTE_PATH
JOB_PREFIX=(ip netns exec "$NETNS_A")
hl="${NETNS_A_ADDRS[0]},${NETNS_A_ADDRS[1]},${NETNS_B_ADDRS[0]},${NETNS_B_ADDRS[1]}"
# shm on: 2 ranks on one address of each namespace (one host each); off: 4
hl_shm="${NETNS_A_ADDRS[0]},${NETNS_B_ADDRS[0]}"

# faults SPARE SPEC...: the same faults on both ends' egress, sparing ssh
# and SPARE (syn: TCP's set-up; tcp: all of TCP, for a udp job, whose data
# is all UDP: the launcher's connections are not what is checked)
faults() {
    local spare=$1; shift
    netns_fault A "$@" "except=$SSHD_PORT" spare=$spare && netns_fault B "$@" "except=$SSHD_PORT" spare=$spare ||
        mh_fail "netns_fault $*"
}
sum_counts() { # "dropped N duplicated N delayed N" of A and B, added up
    echo "$(netns_fault_counts A) $(netns_fault_counts B)" |
        awk '{ for (i = 1; i < NF; i += 2) c[$i] += $(i + 1) } END { printf "dropped %d, duplicated %d, delayed %d", c["dropped"], c["duplicated"], c["delayed"] }'
}

# job CONDUIT SHM PROGRAM LABEL (PROGRAM: am, t_amstress; rma, t_ex_rma's
# model check, 60 random operations of 1 B to 2 MiB each rank): run it,
# check its data lines
job() {
    local conduit=$1 shm=$2 prog=$3 label=$4 dir hosts want n
    dir=$TOP/tests/core
    [ "$prog" = rma ] && dir=$TOP/tests/ex
    [ "$conduit" = tcp ] && dir=$dir/tcp
    GASNETRUN=$TOP/spawner/gasnetrun_$conduit
    if [ "$shm" = on ]; then hosts=$hl_shm; unset GASNET_SUPERNODE_MAXSIZE
    else hosts=$hl; export GASNET_SUPERNODE_MAXSIZE=1; fi
    marker="gnt-kloss-$$-$conduit-$shm-$prog"
    local t0=$SECONDS
    if [ "$prog" = rma ]; then
        T_RMA_OPS=60 probe_job 120 "$label" -n 4 -H "$hosts" "$dir/t_ex_rma"
        n=$(grep -c 'all GASNet-EX RMA checks passed' "$JOB_OUT")
        want="4 of 4 ranks 'all GASNet-EX RMA checks passed'"
    else
        probe_job 120 "$label" -n 4 -H "$hosts" "$dir/t_amstress" 60 7 8192 "$marker"
        n=$(grep -c 'storm done: .*verified' "$JOB_OUT")
        grep -q '^node 0: all nodes: .*: equal$' "$JOB_OUT" || n="$n (no 'equal' total)"
        want="4 of 4 ranks 'storm done ... verified', node 0 'handled: equal'"
    fi
    echo "  $label: exit $JOB_RC, $n of 4 verified ($((SECONDS - t0)) s; want exit 0, $want); kernel: $(sum_counts)"
    [ "$JOB_RC" = 0 ] && [ "$n" = 4 ] || { fail "$label"; probe_show_job; }
    no_leftovers 15 "the launcher exited"
}

echo "A=$NETNS_A ${NETNS_A_ADDRS[*]}; B=$NETNS_B ${NETNS_B_ADDRS[*]}; sshd port $SSHD_PORT"
# shm off at 20%, shm on at 30%, shm off with duplication and reordering:
# each conduit sees both rates and both shm settings (the whole grid took
# minutes: over TCP a lost segment costs the kernel's RTO, 200 ms or more)
for run in "off loss=20" "on loss=30" "off loss=5 dup=10 reorder=10"; do
    shm=${run%% *} spec=${run#* }
    echo "faults each way: $spec"
    for conduit in udp tcp; do
        if [ $conduit = udp ]; then faults tcp $spec; else faults syn $spec; fi
        job $conduit $shm am "$conduit shm $shm, t_amstress, $spec"
    done
    # puts and gets of up to 2 MiB: udp's loss recovery (RACK, amudp_reliable.c)
    faults tcp $spec
    [ "$shm" = off ] && job udp off rma "udp shm off, t_ex_rma, $spec"
done
mh_finish
