#!/bin/bash
# t-env.sh - boot_getenv answers from the launcher's environment snapshot;
# -E VAR exports VAR into the ranks' real environment. With a local spawn the
# ranks inherit the launcher's environment anyway, so the difference is shown
# through GASNET_CSPAWN_CMD, whose template removes the variable ("env -u")
# from the processes it starts; the template itself runs %C with sh locally.
# Checks also %N %D %P %% expansion, and that the ticket file is gone after.
# timeout: 60
. "$(dirname "$0")/common.sh"
export GNT_SNAP="snap value $$" GASNET_CSPAWN_KEYDIR=$T

run 10 "$GASNETRUN" -n 2 "$TB" -g GNT_SNAP -g GASNET_BOOT_FD "$MARK"
check_eq "local: status" "$RC" 0
check_eq "local: ranks see the variable" "$(grep -c "boot_getenv(GNT_SNAP)=$GNT_SNAP getenv(GNT_SNAP)=$GNT_SNAP " "$OUT")" 2
check_eq "local: GASNET_BOOT_FD is gone after boot_init" "$(grep -c "getenv(GASNET_BOOT_FD)=(null)" "$OUT")" 2

export GASNET_CSPAWN_CMD="echo 'N=%N D=%D P=%P pct=%%' >$T/expand; for i in \$(seq %N); do env -u GNT_SNAP %C & done; wait"
run 20 "$GASNETRUN" -n 4 "$TB" -x 32 -B 2 -g GNT_SNAP "$MARK"
check_eq "cspawn: status" "$RC" 0
[ $RC = 0 ] || show
check_eq "cspawn: exchange on every rank" "$(grep -c 'exchange(32 x 4) ok' "$OUT")" 4
check_eq "cspawn: distinct ranks" "$(sed -n 's/^rank \([0-9]*\)\/4.*/\1/p' "$OUT" | sort -u | wc -l)" 4
check_eq "cspawn without -E: snapshot yes, real env no" \
  "$(grep -c "boot_getenv(GNT_SNAP)=$GNT_SNAP getenv(GNT_SNAP)=(null)" "$OUT")" 4
check_eq "cspawn: expansion" "$(cat "$T/expand")" "N=4 D=$PWD P=$TB pct=%"
check_eq "cspawn: ticket files left" "$(ls -A "$T" | grep -c '\.ticket$')" 0

run 20 "$GASNETRUN" -n 3 -E GNT_SNAP,GNT_UNSET "$TB" -B 1 -g GNT_SNAP "$MARK"
check_eq "cspawn -E: status" "$RC" 0
check_eq "cspawn -E: real env too" "$(grep -c "boot_getenv(GNT_SNAP)=$GNT_SNAP getenv(GNT_SNAP)=$GNT_SNAP\$" "$OUT")" 3

# a rank of a cspawn job killed: the job ends, naming it
run 20 "$GASNETRUN" -n 3 "$TB" -B 1 -k 1 9 -s 20 "$MARK"
check_eq "cspawn, rank 1 SIGKILL: status" "$RC" 137
check_eq "cspawn, rank 1 SIGKILL: message" "$(grep -c '^gasnetrun: rank 1 (on host .*) killed by signal 9 (SIGKILL)' "$ERR")" 1
hang_check "cspawn, rank 1 SIGKILL: the job" "$(ms_to_s "$MS")" 15 "0.1 s: the others sleep 20 s unless torn down" ||
  fail "the job was not torn down"
check_eq "cspawn: survivors" "$(survivors)" 0
finish
