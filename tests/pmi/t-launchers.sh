#!/bin/bash
# timeout: 300
# conduits: udp tcp
# parallel: yes (it mostly waits for launchers and Slurm; its Slurm, programs and markers are its own: tests/lib/slurm.sh, a copy of t_exit in its directory)
# bypass: on (what it tests is the start under each launcher and the neighbourhoods it yields; the network path under PMI is tests/pmi/t-netns.sh's)
# t-launchers.sh - GASNet jobs started by the launchers clusters run, through
# PMI (docs/launcher.md, "Other launchers"): MPICH's mpiexec (PMI-1 wire),
# Open MPI's mpirun (PMIx), and a one-node Slurm started by this test
# (tests/lib/slurm.sh) with srun --mpi=pmi2 and --mpi=pmix. Under each:
#   - a classic client on 4 ranks: AM checksums, puts/gets; every rank PASSED
#   - (udp run only: the bootstrap alone) the bootstrap collectives through
#     the launcher's key-value space on 12 ranks (past bootstrap/boot_kvs.c's
#     KVS_DIRECT_MAX, so PMI-1 and PMI2 exchanges gather at rank 0; the
#     4-rank jobs above get directly): exchanges of 3000 bytes per rank
#     (raw, several values at PMI's 1024-byte limit) and 20000 (compressed),
#     a 100000-byte broadcast, barriers; every rank checks every byte
#   - (udp run only) a hybrid MPI + GASNet program (t_hybrid.c), both init orders where the
#     launcher allows them: gasnet_mynode() == MPI rank, one MPI_Allreduce
#     of values fetched over GASNet AMs
#   - a Portals program (t_ptl_mpi, the MPI-style layer over Portals: ring,
#     all-to-all, any-source, truncation, every byte checked) on 4 ranks:
#     Portals starts under the launcher through the same PMI bootstrap
#   - gasnet_exit(42) on the last rank: the launcher ends with 42
#   - (udp run only) SIGKILL of one rank: the launcher ends, no rank is left
#   - (udp run only) a fatal error in rank 1 alone (GASNET_NETWORK naming a
#     subnet this host lacks) while the others wait for it in the bootstrap
#     exchange: the launcher is told through the PMI abort and ends them
#     (srun without -K), the job ends non-zero, the error line reaches the user
#     (a launcher that hangs in its own teardown once every rank has ended,
#     as Open MPI's mpirun sometimes does, is killed and reported: run_abort)
# MPICH programs under srun --mpi=pmi2 must call MPI_Init first; the other
# order must stop with the message that says so, not hang.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/hang.sh"
. "$TOP/tests/lib/slurm.sh"
. "$TOP/tests/pmi/build.sh"
cd "$TOP" || exit 1
tmp=$(mktemp -d)
trap 'slurm_stop; pkill -9 -f "$tmp/"; pkill -9 -f "$EXIT_PROG wait"; rm -rf "$tmp"' EXIT
fails=0; skips=""
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

# ---- the programs ----
pmi_build_classic "$CONDUIT" "$tmp/classic" || { echo "cannot build the classic client"; exit 1; }
# A copy of its own: the kill test finds and reaps its ranks by this path.
EXIT_PROG="$TOP/tests/core/t_exit"; [ "$CONDUIT" = tcp ] && EXIT_PROG="$TOP/tests/core/tcp/t_exit"
cp "$EXIT_PROG" "$tmp/t_exit" && EXIT_PROG="$tmp/t_exit" || { echo "cannot copy $EXIT_PROG"; exit 1; }
have_mpich=0; have_ompi=0
# The hybrid programs, the kills, srun --mpi=none and PMI-1 under Slurm's
# PMI2 check the launchers and the bootstrap, whichever conduit is linked:
# udp run only. Under tcp: each launcher starts the classic client and
# returns gasnet_exit's code.
if [ "$CONDUIT" = udp ]; then
pmi_build_hybrid mpich "$CONDUIT" "$tmp/hy-mpich" && have_mpich=1
pmi_build_hybrid openmpi "$CONDUIT" "$tmp/hy-ompi" && have_ompi=1
fi

cat >"$tmp/rank1-bad-network.sh" <<'EOS'
#!/bin/sh
# rank 1 (by its launcher's variables) gets a network this host lacks
r=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:-}}}
[ "$r" = 1 ] && export GASNET_NETWORK=198.51.100.0/24
exec "$@"
EOS
chmod +x "$tmp/rank1-bad-network.sh"
OMPIRUN="mpirun.openmpi --allow-run-as-root --oversubscribe"
export OMPI_MCA_btl_vader_single_copy_mechanism=none   # no CMA in containers

# run_classic LABEL CMD...: 4 ranks, each PASSED, the conduit named
run_classic() {
    local label=$1; shift
    out=$(timeout -k 5 120 "$@" "$tmp/classic" 30 2>&1); rc=$?
    n=$(echo "$out" | grep -c "classic client PASSED")
    if [ $rc = 0 ] && [ "$n" = 4 ]; then ok "$label: classic client, 4 of 4 ranks PASSED"
    else fail "$label: classic client: exit $rc, $n of 4 PASSED"; echo "$out" | tail -5; fi
}

# run_portals LABEL CMD...: t_ptl_mpi on 4 ranks, every rank passes every check
PTL_PROG="$TOP/tests/portals/t_ptl_mpi"; [ "$CONDUIT" = tcp ] && PTL_PROG="$TOP/tests/portals/tcp/t_ptl_mpi"
run_portals() {
    local label=$1; shift
    out=$(T_PTL_MPI_K=2 timeout -k 5 120 "$@" "$PTL_PROG" 2>&1); rc=$?
    n=$(echo "$out" | grep -c "all [0-9]* checks passed")
    if [ $rc = 0 ] && [ "$n" = 4 ]; then ok "$label: Portals t_ptl_mpi, 4 of 4 ranks passed every check"
    else fail "$label: Portals t_ptl_mpi: exit $rc, $n of 4 passed"; echo "$out" | tail -5; fi
}

# run_boot LABEL CMD...: t_boot's collectives, every byte checked by every rank
run_boot() {
    [ "$CONDUIT" = udp ] || return 0
    local label=$1; shift
    out=$(timeout -k 5 120 "$@" "$TOP/tests/spawner/t_boot" -x 3000 -x 20000 -b 100000 2 -B 2 2>&1); rc=$?
    n=$(echo "$out" | grep -c "exchange(3000 x 12) ok .*exchange(20000 x 12) ok .*bcast(100000 from 2) ok .*barriers(2) ok")
    sums=$(echo "$out" | grep "^rank" | sed 's/^rank [0-9]*\/12: //' | sort -u | wc -l)
    if [ $rc = 0 ] && [ "$n" = 12 ] && [ "$sums" = 1 ]; then ok "$label: bootstrap exchange 3000/20000 B, broadcast 100000 B: 12 of 12 ranks, same sums"
    else fail "$label: bootstrap collectives: exit $rc, $n of 12 ok, $sums distinct lines"; echo "$out" | tail -5; fi
}

# run_abort LABEL CMD...: a fatal error ends the job through the PMI abort:
# every rank, and the launcher, end within 20 s. Open MPI's mpirun (4.1,
# Debian's) sometimes fails in its own teardown once every rank has ended:
# it crashes (SIGSEGV in PMIx_server_finalize, 3 runs in 12 here) or
# deadlocks there, ignoring SIGTERM (1 run in 17 with the CPUs busy). A
# launcher still running at 20 s with no rank left is killed and reported,
# not failed: nothing of ours remains for it to wait on.
run_abort() {
    [ "$CONDUIT" = udp ] || return 0
    local label=$1; shift
    local lpid rc secs why live="" killed=0
    hang_t0
    "$@" "$tmp/rank1-bad-network.sh" "$tmp/classic" >"$tmp/abort.out" 2>&1 &
    lpid=$!
    while kill -0 "$lpid" 2>/dev/null && awk -v s="$(hang_secs)" 'BEGIN { exit !(s < 20) }'; do
        sleep 0.1
    done
    secs=$(hang_secs)
    if kill -0 "$lpid" 2>/dev/null; then
        live=$(pgrep -f -- "^$tmp/classic")
        pkill -9 -P "$lpid"; kill -9 "$lpid"; killed=1
    fi
    { wait "$lpid"; } 2>/dev/null; rc=$?
    out=$(cat "$tmp/abort.out")
    why=$(echo "$out" | grep -m1 "GASNET_NETWORK='198.51.100.0/24' matches no interface")
    if [ -z "$why" ] || [ -n "$live" ] || [ "$rc" = 0 ]; then
        fail "$label: rank 1's fatal error: exit $rc after $secs s${live:+, ranks still running}"
        echo "$out" | tail -5
    elif [ $killed = 1 ]; then
        ok "$label: rank 1's fatal error ended every rank; the launcher itself hung in its teardown and was killed at $secs s: ${why:0:60}..."
    else
        ok "$label: rank 1's fatal error ended the job (exit $rc, $secs s): ${why:0:60}..."
    fi
}

# run_hybrid LABEL PROG ORDER CMD...: 4 ranks agree and the sum is right
run_hybrid() {
    local label=$1 prog=$2 order=$3; shift 3
    out=$(timeout -k 5 120 "$@" "$prog" "$order" 2>&1); rc=$?
    n=$(echo "$out" | grep -c "^hybrid rank .* ok$")
    echo "$out" | grep -m1 "^hybrid rank 0" | sed 's/^/     /'
    if [ $rc = 0 ] && [ "$n" = 4 ]; then ok "$label: hybrid $order, 4 of 4 ranks agree with MPI"
    else fail "$label: hybrid $order: exit $rc, $n of 4 ok"; echo "$out" | tail -5; fi
}

# run_exit LABEL CMD...: the last rank's gasnet_exit(42) is the job's code
run_exit() {
    local label=$1; shift
    out=$(timeout -k 5 120 "$@" "$EXIT_PROG" poll 2>&1); rc=$?
    if [ $rc = 42 ] && ! echo "$out" | grep -q SURVIVED; then ok "$label: gasnet_exit(42) on rank 3 ends the job with 42"
    else fail "$label: gasnet_exit(42): exit $rc"; echo "$out" | tail -5; fi
}

# run_kill LABEL CMD...: SIGKILL one rank; the launcher ends, nothing is left
run_kill() {
    [ "$CONDUIT" = udp ] || return 0
    local label=$1; shift
    "$@" "$EXIT_PROG" wait >"$tmp/kill.out" 2>&1 &
    local lpid=$! pid="" i
    for i in $(seq 1 150); do
        pid=$(sed -n 's/^node 1: pid \([0-9]*\) .*/\1/p' "$tmp/kill.out")
        [ -n "$pid" ] && [ "$(grep -c ': pid ' "$tmp/kill.out")" = 4 ] && break
        sleep 0.2
    done
    [ -n "$pid" ] || { fail "$label: kill: the job never started"; cat "$tmp/kill.out" | tail -5; kill -9 $lpid; wait $lpid; return; }
    hang_t0
    kill -9 "$pid"
    for i in $(seq 1 100); do kill -0 $lpid 2>/dev/null || break; sleep 0.2; done
    kill -0 $lpid 2>/dev/null && kill -9 $lpid
    wait $lpid; rc=$?
    secs=$(hang_secs)
    if hang_check "$label: launcher ended after rank 1 was killed (exit $rc)" "$secs" 20 1 &&
       hang_wait_gone 10 1 "$EXIT_PROG wait" >/dev/null; then
        ok "$label: SIGKILL of rank 1 ended the job (exit $rc), no rank left"
    else
        fail "$label: SIGKILL of rank 1: ranks left"; pgrep -af "$EXIT_PROG" | head
        pkill -9 -f "$EXIT_PROG wait"
    fi
}

# ---- MPICH's mpiexec (Hydra, PMI-1) ----
if command -v mpiexec.mpich >/dev/null; then
    M="mpiexec.mpich -n 4"
    run_classic "mpiexec.mpich" $M
    run_portals "mpiexec.mpich" $M
    run_boot "mpiexec.mpich" mpiexec.mpich -n 12
    if [ $have_mpich = 1 ]; then
        run_hybrid "mpiexec.mpich" "$tmp/hy-mpich" mpi-first $M
        run_hybrid "mpiexec.mpich" "$tmp/hy-mpich" gasnet-first $M
    fi
    run_exit "mpiexec.mpich" $M
    run_abort "mpiexec.mpich" $M
    run_kill "mpiexec.mpich" $M
else
    skips="$skips mpiexec.mpich"
fi

# ---- Open MPI's mpirun (PMIx) ----
if command -v mpirun.openmpi >/dev/null; then
    run_classic "mpirun.openmpi" $OMPIRUN -n 4
    run_portals "mpirun.openmpi" $OMPIRUN -n 4
    run_boot "mpirun.openmpi" $OMPIRUN -n 12
    if [ $have_ompi = 1 ]; then
        run_hybrid "mpirun.openmpi" "$tmp/hy-ompi" mpi-first $OMPIRUN -n 4
        run_hybrid "mpirun.openmpi" "$tmp/hy-ompi" gasnet-first $OMPIRUN -n 4
    fi
    run_exit "mpirun.openmpi" $OMPIRUN -n 4
    run_abort "mpirun.openmpi" $OMPIRUN -n 4
    run_kill "mpirun.openmpi" $OMPIRUN -n 4
else
    skips="$skips mpirun.openmpi"
fi

# ---- Slurm's srun: PMI2 and PMIx ----
if slurm_start; then
    S="srun -n 4 -O"
    run_classic "srun --mpi=pmi2" $S --mpi=pmi2
    run_classic "srun --mpi=pmix" $S --mpi=pmix
    run_portals "srun --mpi=pmi2" $S --mpi=pmi2
    run_portals "srun --mpi=pmix" $S --mpi=pmix
    # Slurm's PMI2 server speaks PMI-1 too: the in-tree client there
    [ "$CONDUIT" = udp ] && run_classic "srun --mpi=pmi2, GASNET_SPAWNER=pmi1" env GASNET_SPAWNER=pmi1 $S --mpi=pmi2
    run_boot "srun --mpi=pmi2" srun -n 12 -O --mpi=pmi2
    run_boot "srun --mpi=pmix" srun -n 12 -O --mpi=pmix
    if [ $have_mpich = 1 ]; then
        run_hybrid "srun --mpi=pmi2" "$tmp/hy-mpich" mpi-first $S --mpi=pmi2
        out=$(timeout -k 5 60 $S --mpi=pmi2 "$tmp/hy-mpich" gasnet-first 2>&1); rc=$?
        if [ $rc != 0 ] && [ $rc != 124 ] && echo "$out" | grep -q "gasnet_init was called before MPI_Init"; then
            ok "srun --mpi=pmi2: hybrid gasnet-first stops at once (exit $rc): $(echo "$out" | grep -m1 'gasnet boot' | cut -c1-90)..."
        else fail "srun --mpi=pmi2: hybrid gasnet-first: exit $rc"; echo "$out" | tail -3; fi
    fi
    if [ $have_ompi = 1 ]; then
        run_hybrid "srun --mpi=pmix" "$tmp/hy-ompi" mpi-first $S --mpi=pmix
        run_hybrid "srun --mpi=pmix" "$tmp/hy-ompi" gasnet-first $S --mpi=pmix
    fi
    run_exit "srun --mpi=pmi2" $S --mpi=pmi2
    run_exit "srun --mpi=pmix" $S --mpi=pmix
    run_abort "srun --mpi=pmi2" $S --mpi=pmi2
    run_abort "srun --mpi=pmix" $S --mpi=pmix
    # -K (--kill-on-bad-exit): Slurm ends the step when a task dies
    run_kill "srun -K --mpi=pmi2" $S -K --mpi=pmi2
    run_kill "srun -K --mpi=pmix" $S -K --mpi=pmix
    if [ "$CONDUIT" = udp ]; then
    out=$(timeout -k 5 60 $S --mpi=none "$tmp/classic" 2>&1); rc=$?
    if [ $rc != 0 ] && [ "$(echo "$out" | grep -c 'started by srun with 4 tasks')" = 4 ]; then
        ok "srun --mpi=none: every task says srun gave it no PMI (exit $rc)"
    else fail "srun --mpi=none: exit $rc"; echo "$out" | tail -3; fi
    fi
else
    skips="$skips slurm($SLURM_WHY)"
fi

for s in $skips; do echo "SKIPPED PART: $s"; done
[ $fails = 0 ] && echo "t-launchers: all passed"
exit $fails
