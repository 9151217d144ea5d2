#!/bin/bash
# timeout: 120
# t-badpmi.sh - bad input from a PMI server, and launchers this build cannot
# use (docs/launcher.md, "Other launchers"):
#   - a fake PMI-1 server (fake_pmi1.py) that truncates a reply, sends an
#     oversized or garbled one, fails a put, returns a foreign value, or
#     closes the socket: the rank exits 1 with one line that names the back
#     end ("gasnet boot (pmi1)"), never by a signal, never hangs;
#   - per-task signs of a launcher without a usable PMI (OMPI_COMM_WORLD_SIZE,
#     SLURM_STEP_ID with SLURM_NTASKS, PMI_SIZE) stop the program with one
#     line naming it; SLURM_NTASKS alone (any batch script) is a one-rank job;
#   - GASNET_SPAWNER: an unknown name, gasnetrun without gasnetrun, none.
set -u
cd "$TOP" || exit 1
P="$TOP/contrib/examples/hello"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
for m in truncated oversized badrc garbage badvalue silent-eof; do
    out=$(timeout 60 python3 tests/pmi/fake_pmi1.py $m "$P" 2>&1)
    st=$(echo "$out" | head -n 1); why=$(echo "$out" | grep -m1 "gasnet boot (pmi1)")
    if [ "$st" = "exit 1" ] && [ -n "$why" ] && ! echo "$out" | grep -q HUNG; then
        echo "ok   $m: $st: $why"
    else fail "$m: $st"; echo "$out" | head -5; fi
done

# expect_stop LABEL PATTERN ENV...: exit 1 with PATTERN on stderr, no hello
expect_stop() {
    local label=$1 pat=$2; shift 2
    out=$(env -u GASNET_BOOT_FD -u PMI_FD -u PMIX_NAMESPACE "$@" timeout 30 "$P" 2>&1); rc=$?
    if [ $rc = 1 ] && echo "$out" | grep -q -- "$pat" && ! echo "$out" | grep -q "^hello"; then
        echo "ok   $label: exit $rc: $(echo "$out" | head -n 1 | cut -c1-110)"
    else fail "$label: exit $rc"; echo "$out" | head -3; fi
}
expect_stop "OMPI_COMM_WORLD_SIZE=4" "Open MPI's launcher (OMPI_COMM_WORLD_SIZE=4)" OMPI_COMM_WORLD_SIZE=4
expect_stop "SLURM_STEP_ID, SLURM_NTASKS=4" "srun with 4 tasks" SLURM_STEP_ID=0 SLURM_NTASKS=4
expect_stop "PMI_SIZE=4 without PMI_FD" "a PMI launcher (PMI_SIZE=4)" PMI_SIZE=4
expect_stop "GASNET_SPAWNER=bogus" "'bogus' is not one of gasnetrun, pmi1, pmi2, pmix, none" GASNET_SPAWNER=bogus
expect_stop "GASNET_SPAWNER=gasnetrun alone" "not started by gasnetrun" GASNET_SPAWNER=gasnetrun

# expect_one LABEL ENV...: runs as a job of one rank
expect_one() {
    local label=$1; shift
    out=$(env -u GASNET_BOOT_FD -u PMI_FD -u PMIX_NAMESPACE "$@" timeout 30 "$P" 2>&1); rc=$?
    if [ $rc = 0 ] && echo "$out" | grep -q "^hello from node 0 of 1"; then echo "ok   $label: a job of one rank"
    else fail "$label: exit $rc"; echo "$out" | head -3; fi
}
expect_one "SLURM_NTASKS=4 alone (a batch script)" SLURM_NTASKS=4 SLURM_JOB_ID=7
expect_one "GASNET_SPAWNER=none under srun's variables" GASNET_SPAWNER=none SLURM_STEP_ID=0 SLURM_NTASKS=4
expect_one "no launcher at all"
[ $fails = 0 ] && echo "t-badpmi: all passed"
exit $fails
