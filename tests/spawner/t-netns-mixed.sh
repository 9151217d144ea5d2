#!/bin/bash
# timeout: 200
# t-netns-mixed.sh - a job of 2 hosts x 2 ranks mixes shared memory and the
# network in every test of RMA, AMs and barriers (issue 13). Each program
# of tests/ex (t_ex_rma, t_ex_am, t_ex_npam, t_ex_npam_par, t_ex_ratomic,
# t_ex_ratomic_par, t_ex_team, t_ex_coll, t_ex_vis, t_ex_vis_g1), tests/extended
# (t_ext, t_barrier, t_stress, t_stress_parsync, t_par, t_neighbor in its 4
# modes, t_coll) and tests/core (t_par) runs over udp, and 10 of them over
# tcp (tcp_too below: one of each kind of traffic), on
# ranks 0, 1 in namespace A and 2, 3 in namespace B, started by gasnetrun
# over ssh from A, with the arguments of its own t-*.sh made small. Each
# job must exit 0 with the data checks its t-*.sh counts printed by all 4
# ranks, and every rank's counters (GASNET_STATSFILE) must show both paths:
# the shared-memory transport served exactly its one neighbour (the other
# rank of its namespace) and carried some of its frames, frames arrived
# over shared memory on each host, and the network transport carried
# frames both ways. t_ext also shows where the bytes went: its sweep to an
# on-host peer is a memcpy through the mapped segment (next to nothing
# through the shm transport), to a peer across, network traffic.
# (t_core, t_amstress, t_clientext, t_ex_sys: t-netns-core.sh.) Portals
# (tests/portals/t_ptl_mpi with its 9 MiB puts) runs the same way, its
# counters written by PtlNIFini.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/netns.sh"
. "$lib/probe.sh"
netns_require
sshd_require
[ -x "${GASNETRUN:-}" ] || mh_fail "launcher not built: GASNETRUN='${GASNETRUN:-}'"
progs="ex/t_ex_rma ex/t_ex_am ex/t_ex_npam ex/t_ex_npam_par ex/t_ex_ratomic ex/t_ex_ratomic_par ex/t_ex_team ex/t_ex_coll ex/t_ex_vis ex/t_ex_vis_g1 core/t_par extended/t_ext
       extended/t_barrier extended/t_stress extended/t_stress_parsync extended/t_neighbor extended/t_par
       extended/t_coll portals/t_ptl_mpi"
for p in $progs; do
    for b in "$TOP/tests/$p" "$TOP/tests/${p%/*}/tcp/${p#*/}"; do
        [ -x "$b" ] || mh_fail "${b#$TOP/} not built"
    done
done

netns_setup 2 2 || mh_fail "netns_setup"
sshd_start -n "$NETNS_A" a "${NETNS_A_ADDRS[@]}" || mh_fail "sshd in A"
sshd_start -n "$NETNS_B" -p "$SSHD_PORT" b "${NETNS_B_ADDRS[@]}" || mh_fail "sshd in B"
sshd_check "${NETNS_B_ADDRS[1]}" "$NETNS_A" || mh_fail "ssh from A to B does not work"
echo "A=$NETNS_A ${NETNS_A_ADDRS[*]}; B=$NETNS_B ${NETNS_B_ADDRS[*]}; sshd port $SSHD_PORT"
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SSH_REMOTE_PATH GASNET_SUPERNODE_MAXSIZE
export GASNET_SSH_OUT_DEGREE=2
JOB_PREFIX=(ip netns exec "$NETNS_A")
hl="${NETNS_A_ADDRS[0]},${NETNS_A_ADDRS[1]},${NETNS_B_ADDRS[0]},${NETNS_B_ADDRS[1]}"
# The ranks in B write their counters here too: a namespace has a network
# of its own, not files of its own. The ranks read GASNET_* from the
# launcher's environment (boot_getenv); T_RMA_OPS, T_COLL_BIG, T_VIS_OPS and
# T_RA_OPS go by -E.
stats=$MH_DIR/stats
mkdir -p "$stats"
export GASNET_STATSFILE=$stats/st T_RMA_OPS=40 T_COLL_BIG=262144 T_VIS_OPS=60 T_RA_OPS=300 T_PTL_MPI_K=3 T_PTL_MPI_BIG=1

# load_counters: every rank's counters into CNT["RANK NAME"] (the first
# line of a name), each file read once by the shell itself: a sed per value
# (36 a job) was a third of this test's time.
declare -A CNT=()
load_counters() {
    local r k v
    CNT=()
    for r in 0 1 2 3; do
        [ -f "$stats/st.$r" ] || continue
        while read -r k v; do
            case $k in ""|"#"*) continue ;; esac
            [ -n "${CNT[$r $k]+set}" ] || CNT[$r $k]=$v
        done <"$stats/st.$r"
    done
}
counter() { # rank name -> the counter's value, empty when absent
    printf '%s' "${CNT[$1 $2]:-}"
}

# mixed_job NAME WANT PROG ARGS...: run PROG ARGS on a0, a1, b0, b1; every
# rank must print a line with WANT, the job exit 0, every rank's counters
# show shared memory and the network, and nothing of the job stay behind.
# Under tcp the programs whose traffic is the same kinds of AMs and RMA as
# another's (the layers above the transports are neither conduit's) are
# left to udp: remote atomics, teams, GASNet-1 VIS and collectives, the
# PAR builds of NPAM and extended, PARSYNC (core's t_par runs threads over
# tcp), and t_neighbor but for one mode.
tcp_too=" ex-rma ex-am ex-npam ex-coll ex-vis core-par ext barrier stress neighbor-nbi ptl-mpi "
mixed_job() {
    local name=$1 want=$2 prog=$3; shift 3
    if [ "$conduit" = tcp ] && [[ "$tcp_too" != *" $name "* ]]; then
        echo "  tcp $name: left to udp (tcp runs:$tcp_too)"; return 0
    fi
    rm -f "$stats"/st.*
    marker="gnt-netns-mixed-$conduit-$name-$$"
    probe_job 90 "$name-$conduit" -n 4 -E T_RMA_OPS,T_COLL_BIG,T_VIS_OPS,T_RA_OPS,T_PTL_MPI_K,T_PTL_MPI_BIG -H "$hl" "$prog" "$@"
    local n; n=$(grep -c -- "$want" "$JOB_OUT")
    echo "  $conduit $name, ranks on A, A, B, B: exit $JOB_RC, $n of 4 ranks printed '$want'"
    [ "$JOB_RC" = 0 ] && [ "$n" = 4 ] || { fail "$conduit $name across namespaces (exit $JOB_RC, $n of 4)"; probe_show_job; }
    mixed_counters "$conduit $name"
    no_leftovers 15 "the launcher exited"
}

# mixed_counters LABEL: the counters of ranks 0-3 show both paths: every
# rank's shared-memory transport served its one neighbour (shm_peers 1: the
# other rank of its namespace) and sent or received frames there, frames
# arrived over shared memory on each host, and every rank sent and received
# frames over the network. (Frames, not bytes: put/get between neighbours
# are a memcpy through the mapped segment, no frame at all; which way the
# frames go depends on the program: t_barrier's dissemination sends only
# 0 -> 1 and 2 -> 3 on a host.) Prints "sent/received" frames and bytes.
mixed_counters() {
    local label=$1 r peers ss sr ns nr bad="" line="" got_a=0 got_b=0
    load_counters
    for r in 0 1 2 3; do
        [ -f "$stats/st.$r" ] || { bad="$bad rank $r wrote no counters;"; continue; }
        peers=${CNT[$r shm_peers]:-}
        ss=${CNT[$r shm_frames_sent]:-} sr=${CNT[$r shm_frames_received]:-}
        ns=${CNT[$r ${conduit}_frames_sent]:-} nr=${CNT[$r ${conduit}_frames_delivered]:-}
        line="$line $r: shm $ss/$sr (${CNT[$r shm_bytes_sent]:-}/${CNT[$r shm_bytes_received]:-} B)"
        line="$line $conduit $ns/$nr (${CNT[$r ${conduit}_bytes_sent]:-}/${CNT[$r ${conduit}_bytes_received]:-} B);"
        [ "$peers" = 1 ] || bad="$bad rank $r: shm_peers '$peers', want 1;"
        [ $(( ${ss:-0} + ${sr:-0} )) -gt 0 ] || bad="$bad rank $r: no shm frame;"
        [ "${ns:-0}" -gt 0 ] && [ "${nr:-0}" -gt 0 ] || bad="$bad rank $r: $conduit frames '$ns/$nr', want both > 0;"
        if [ $r -lt 2 ]; then got_a=$(( got_a + ${sr:-0} )); else got_b=$(( got_b + ${sr:-0} )); fi
    done
    echo "  frames sent/received (bytes) by rank:$line"
    [ $got_a -gt 0 ] || bad="$bad no shm frame arrived on A;"
    [ $got_b -gt 0 ] || bad="$bad no shm frame arrived on B;"
    [ -z "$bad" ] && { echo "  every rank: shm served its 1 neighbour and carried its frames; $conduit frames both ways"; return 0; }
    fail "$label: counters do not show both paths:$bad"
}

for conduit in udp tcp; do
    GASNETRUN=$TOP/spawner/gasnetrun_$conduit
    xbin=$TOP/tests/ex ebin=$TOP/tests/extended cbin=$TOP/tests/core pbin=$TOP/tests/portals
    [ $conduit = tcp ] && xbin=$xbin/tcp ebin=$ebin/tcp cbin=$cbin/tcp pbin=$pbin/tcp

    # t-ex-rma.sh's checks with a 40-operation model check; ranks 0 and 1
    # share a neighbourhood, so "Test does not poll" waits on a barrier
    mixed_job ex-rma 'all GASNet-EX RMA checks passed' "$xbin/t_ex_rma"
    by=$(grep -c 'gex_Event_Test x200 without polling (a barrier)' "$JOB_OUT")
    echo "  node 0 saw ranks 0 and 1 in one neighbourhood (Test-does-not-poll on a barrier): $by (want 1)"
    [ "$by" = 1 ] || fail "$conduit t_ex_rma: ranks 0 and 1 not one neighbourhood"

    mixed_job ex-am 'all GASNet-EX checks passed' "$xbin/t_ex_am"

    # t-ex-ratomic.sh's checks: each rank's counters are hit at once by the
    # rank itself and its neighbour (CPU atomics on the mapped segment) and
    # by the other host's two ranks (AMs), also from 4 threads per rank
    mixed_job ex-ratomic 'all remote atomic checks passed' "$xbin/t_ex_ratomic"
    mixed_job ex-ratomic-par 'all remote atomic checks passed' "$xbin/t_ex_ratomic_par"

    # t-ex-team.sh's and t-ex-coll.sh's checks: every team (splits, creates,
    # the reversed job) and every collective spans both hosts, so each tree
    # and each recursive doubling takes shared memory on a host and the
    # network across; USER_NC must still combine in team rank order
    mixed_job ex-team 'all team checks passed' "$xbin/t_ex_team"
    mixed_job ex-coll 'all collective checks passed' "$xbin/t_ex_coll"
    nc=$(grep -c 'USER_NC element 0 spells the job ranks in team rank order: "0123"' "$JOB_OUT")
    rv=$(grep -c 'USER_NC element 0 spells the job ranks in team rank order: "3210"' "$JOB_OUT")
    echo "  t_ex_coll: USER_NC gave \"0123\" on the job on $nc ranks and \"3210\" on the reversed team on $rv (want 4 and 4)"
    [ "$nc" = 4 ] && [ "$rv" = 4 ] || fail "$conduit t_ex_coll: USER_NC not in team rank order across hosts"

    # t-ex-vis.sh's model check, EX and GASNet-1: a vector, indexed or
    # strided transfer to the neighbour is memmoves through the mapped
    # segment, to the other host packed Medium AMs
    mixed_job ex-vis 'all GASNet-EX VIS checks passed' "$xbin/t_ex_vis"
    mixed_job ex-vis-g1 'all GASNet-1 VIS checks passed' "$xbin/t_ex_vis_g1"

    # as t-ex-npam.sh: the core counted every NPAM request committed
    mixed_job ex-npam 'all negotiated-payload checks passed' "$xbin/t_ex_npam"
    for r in 0 1 2 3; do
        want=$(sed -n "s/^node $r: NPAM requests committed: //p" "$JOB_OUT")
        got=$(counter $r core.requests_sent)
        echo "  node $r: core.requests_sent $got, NPAM requests committed $want (want sent >= committed)"
        [ -n "$want" ] && [ -n "$got" ] && [ "$got" -ge "$want" ] || fail "$conduit t_ex_npam: node $r's NPAM requests not counted"
    done
    mixed_job ex-npam-par 'NPAM threads: all passed' "$xbin/t_ex_npam_par" 500
    # tests/core/t-par.sh: 4 threads per rank send requests to random ranks
    mixed_job core-par 'threads sent [0-9]* requests, got [0-9]* replies' "$cbin/t_par" 300
    eq=$(grep -c '^node 0: all nodes: [0-9]* requests sent, [0-9]* handled: equal' "$JOB_OUT")
    echo "  node 0: requests sent = handled on all ranks: $eq (want 1)"
    [ "$eq" = 1 ] || fail "$conduit core t_par: requests sent and handled differ"

    # t-ext.sh's sweep up to 1 MiB (its default: 16 MiB); peer = rank + 1, so
    # 0 -> 1 and 2 -> 3 stay on a host, 1 -> 2 and 3 -> 0 cross
    mixed_job ext 'transfers verified' "$ebin/t_ext" 1048576
    # ranks 0 and 2 swept their on-host peer through the mapped segment: the
    # shm transport moved less than the sweep's largest transfer; ranks 1
    # and 3 swept theirs across: more than that went out over the network
    shm=0; for r in 0 1 2 3; do v=$(counter $r shm_bytes_sent); shm=$(( shm + ${v:-0} )); done
    n1=$(counter 1 ${conduit}_bytes_sent) n3=$(counter 3 ${conduit}_bytes_sent)
    echo "  t_ext: shm bytes sent by all ranks $shm (want < 1048576); $conduit bytes sent by ranks 1, 3: $n1, $n3 (want > 1048576)"
    [ "$shm" -lt 1048576 ] && [ "${n1:-0}" -gt 1048576 ] && [ "${n3:-0}" -gt 1048576 ] ||
        fail "$conduit t_ext: RMA did not take shared memory on a host and the network across"

    mixed_job barrier 'as spec 3.5 prescribes' "$ebin/t_barrier" 100
    nr=$(grep -c 'GASNET_ERR_NOT_READY while node' "$JOB_OUT")
    echo "  gasnet_barrier_try NOT_READY line: $nr (want 1)"
    [ "$nr" = 1 ] || fail "$conduit t_barrier: $nr NOT_READY lines, want 1"

    mixed_job stress 'slices match the model' "$ebin/t_stress" 500 2
    mixed_job stress-parsync 'slices match the model' "$ebin/t_stress_parsync" 300 6
    # tests/extended/t-par.sh: 4 threads per rank, each syncing only its own
    mixed_job ext-par 'each thread synced only its own' "$ebin/t_par" 15

    # t-coll.sh's model checks of GASNet-1's gasnet_coll.h, sizes up to 1000
    # B: every collective on teams that span both hosts (all, rev) and on
    # odd/even, whose two members sit on different hosts
    mixed_job coll 'all GASNet-1 collective checks passed' "$ebin/t_coll" 1000

    # Portals across the two hosts: the MPI-style layer (ring, all-to-all,
    # any-source, truncation, 9 MiB puts and gets), the neighbour through
    # shared memory, the others over the network
    mixed_job ptl-mpi 'all [0-9]* checks passed' "$pbin/t_ptl_mpi"

    for mode in all some one nbi; do
        mixed_job "neighbor-$mode" "mode $mode: 20 iterations, 40 ghost blocks of 4096 bytes verified" \
            "$ebin/t_neighbor" $mode 20 4096
    done
done

mh_finish
