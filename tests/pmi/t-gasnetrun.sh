#!/bin/bash
# timeout: 240
# conduits: udp tcp
# bypass: on (what it tests is how gasnetrun starts the ranks inside Slurm and through custom spawn commands, as t-launchers.sh; the network path under PMI is tests/pmi/t-netns.sh's)
# t-gasnetrun.sh - gasnetrun with the launchers clusters run
# (docs/launcher.md, "Inside a Slurm allocation", "Custom commands"):
#   - inside a Slurm allocation (salloc, this test's one-node Slurm) with no
#     host list, gasnetrun starts its relay with srun: the ranks run in a
#     Slurm step and a classic client passes on 4 ranks; GASNET_SPAWNFN=L
#     keeps them local;
#   - GASNET_CSPAWN_CMD='mpiexec.mpich -n %N %C' and 'srun ... %C': the
#     launcher's PMI_FD and variables reach each rank, which takes its number
#     from PMI_RANK / SLURM_PROCID: a hybrid MPI + GASNet program agrees.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/slurm.sh"
. "$TOP/tests/pmi/build.sh"
cd "$TOP" || exit 1
tmp=$(mktemp -d)
trap 'slurm_stop; pkill -9 -f "$tmp/"; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
pmi_build_classic "$CONDUIT" "$tmp/classic" || { echo "cannot build the classic client"; exit 1; }
cat >"$tmp/where.sh" <<'EOS'
#!/bin/sh
echo "step=${SLURM_STEP_ID:-none}"
exec "$@"
EOS
chmod +x "$tmp/where.sh"
have_mpich=0
pmi_build_hybrid mpich "$CONDUIT" "$tmp/hy-mpich" && have_mpich=1

if [ $have_mpich = 1 ] && command -v mpiexec.mpich >/dev/null; then
    for order in mpi-first gasnet-first; do
        out=$(GASNET_CSPAWN_CMD='mpiexec.mpich -n %N %C' timeout -k 5 120 "$GASNETRUN" -n 4 "$tmp/hy-mpich" $order 2>&1); rc=$?
        n=$(echo "$out" | grep -c "^hybrid rank .* ok$")
        if [ $rc = 0 ] && [ "$n" = 4 ]; then echo "ok   GASNET_CSPAWN_CMD=mpiexec.mpich: hybrid $order, 4 of 4 agree"
        else fail "GASNET_CSPAWN_CMD=mpiexec.mpich: hybrid $order: exit $rc, $n of 4"; echo "$out" | tail -5; fi
    done
else
    echo "SKIPPED PART: mpiexec.mpich custom command (no MPICH)"
fi

if ! slurm_start; then
    echo "SKIPPED PART: Slurm ($SLURM_WHY)"
    exit $fails
fi
out=$(timeout -k 5 120 salloc -N1 -O "$GASNETRUN" -n 4 "$tmp/where.sh" "$tmp/classic" 30 2>&1); rc=$?
n=$(echo "$out" | grep -c "classic client PASSED"); steps=$(echo "$out" | grep -c "^step=[0-9]")
if [ $rc = 0 ] && [ "$n" = 4 ] && [ "$steps" = 4 ]; then
    echo "ok   salloc gasnetrun -n 4: the relay ran under srun (4 ranks in a Slurm step), 4 of 4 PASSED"
else fail "salloc gasnetrun -n 4: exit $rc, $n PASSED, $steps in a step"; echo "$out" | tail -5; fi
out=$(GASNET_SPAWNFN=L timeout -k 5 120 salloc -N1 -O "$GASNETRUN" -n 2 "$tmp/where.sh" "$tmp/classic" 30 2>&1); rc=$?
n=$(echo "$out" | grep -c "classic client PASSED"); local_=$(echo "$out" | grep -c "^step=none")
if [ $rc = 0 ] && [ "$n" = 2 ] && [ "$local_" = 2 ]; then
    echo "ok   salloc GASNET_SPAWNFN=L gasnetrun -n 2: ranks forked here, 2 of 2 PASSED"
else fail "salloc GASNET_SPAWNFN=L: exit $rc, $n PASSED, $local_ local"; echo "$out" | tail -5; fi
if [ $have_mpich = 1 ]; then
    out=$(GASNET_CSPAWN_CMD='srun -n %N -O --mpi=pmi2 %C' timeout -k 5 120 "$GASNETRUN" -n 4 "$tmp/hy-mpich" gasnet-first 2>&1); rc=$?
    n=$(echo "$out" | grep -c "^hybrid rank .* ok$")
    if [ $rc = 0 ] && [ "$n" = 4 ]; then echo "ok   GASNET_CSPAWN_CMD=srun --mpi=pmi2: hybrid gasnet-first, 4 of 4 agree"
    else fail "GASNET_CSPAWN_CMD=srun --mpi=pmi2: hybrid: exit $rc, $n of 4"; echo "$out" | tail -5; fi
fi
[ $fails = 0 ] && echo "t-gasnetrun: all passed"
exit $fails
