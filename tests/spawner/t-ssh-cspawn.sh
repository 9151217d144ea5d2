#!/bin/bash
# timeout: 120
# parallel: yes (2 of 5 s on the CPU; its sshd on ports of its own, processes found by its own tag)
# t-ssh-cspawn.sh - gasnetrun's custom spawn (GASNET_CSPAWN_CMD): the
# template runs once through /bin/sh -c after %N %C %D %M %P %% are expanded
# (%D %M %P shell-quoted, %C a complete command), and starts %N copies of %C
# that join the job in connect order. Checked: the expansion, byte for byte,
# from a working directory with a space and a quote in its name; a local sh
# template; an ssh template that sends %C to the hosts of %M, a rank killed
# there (all gone) and the launcher killed (nothing left); the exit code;
# a template that starts too few processes or fails fails the job in bounded
# time with nothing left running. Durations are checked only for hangs.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/probe.sh"
sshd_require

probe_require
sshd_start lo 127.0.0.1 127.0.0.2 || mh_fail "sshd did not start"
sshd_check 127.0.0.2 || mh_fail "ssh to the test sshd does not work"
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_SPAWNFN GASNET_SSH_REMOTE_PATH
# workers reach the launcher on loopback, and the ticket file stays in the test's dir
export GASNET_MASTERIP=127.0.0.1 GASNET_CSPAWN_KEYDIR=$MH_DIR
cwd="$MH_DIR/work dir 'q"
mkdir -p "$cwd"
JOB_PREFIX=(env -C "$cwd")

# 1. local template: the expansion, and 4 ranks through sh
marker="gnt-cspawn1-$$"
mkdir -p "$MH_DIR/b1"
export GASNET_CSPAWN_CMD='printf "%s|" N=%N D=%D P=%P M=%M pct=%% lit=%%N unk=%Z >"$GNT_EXP"; i=0; while [ $i -lt %N ]; do %C & i=$((i + 1)); done; wait'
echo "GASNET_CSPAWN_CMD=$GASNET_CSPAWN_CMD"
GNT_EXP=$MH_DIR/exp1 probe_job 60 c1 -n 4 "$PROBE" --dir "$MH_DIR/b1" "$marker"
want="N=4|D=$cwd|P=$PROBE|M=|pct=%|lit=%N|unk=%Z|"
got=$(cat "$MH_DIR/exp1" 2>/dev/null)
echo "  expansion: $got"
echo "  expected:  $want"
[ "$got" = "$want" ] || fail "template expansion"
if [ "$JOB_RC" != 0 ]; then fail "local cspawn job exited $JOB_RC"; probe_show_job
else probe_check_job 4 local || fail "local cspawn job data"; fi
no_leftovers 15 "the launcher exited"
ls "$MH_DIR"/.gasnetrun-*.ticket >/dev/null 2>&1 && fail "ticket file left in GASNET_CSPAWN_KEYDIR"

# 2. ssh template: %C sent to the hosts of %M in turn (-H gives %M)
marker="gnt-cspawn2-$$"
mkdir -p "$MH_DIR/b2"
export GASNET_CSPAWN_CMD='hl=%M; IFS=,; set -- $hl; IFS=" "; i=0; while [ $i -lt %N ]; do for h; do [ $i -lt %N ] || break; ssh $GASNET_SSH_OPTIONS "$h" "%C" </dev/null & i=$((i + 1)); done; done; wait'
echo "GASNET_CSPAWN_CMD=$GASNET_CSPAWN_CMD"
probe_job 60 c2 -n 6 -H 127.0.0.1,127.0.0.2 "$PROBE" --dir "$MH_DIR/b2" "$marker"
if [ "$JOB_RC" != 0 ]; then fail "ssh cspawn job exited $JOB_RC"; probe_show_job
else
    PROBE_ANYHOST=1 probe_check_job 6 127.0.0.1 127.0.0.2 || fail "ssh cspawn job data"
    h=$(awk '{ i = index($0, "probe-self:"); if (i) { $0 = substr($0, i); print $5 } }' "$JOB_OUT" | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')
    echo "  ranks per host: $h (want 127.0.0.1:3 127.0.0.2:3)"
    [ "$h" = "127.0.0.1:3 127.0.0.2:3 " ] || fail "ssh template: ranks per host $h"
fi
no_leftovers 15 "the launcher exited"

# 2b. with the ssh template: a rank killed with -9 takes the others down
#     (durations checked for hangs only); then the launcher killed with -9
#     leaves nothing anywhere
marker="gnt-cspawn2b-$$"
probe_bg c2b -n 4 -H 127.0.0.1,127.0.0.2 "$PROBE" --sleep 60 "$marker"
if probe_wait_ok "$JOB_OUT" 4 60; then
    victim=$(probe_pids "$JOB_OUT" | awk '$1 == 2 {print $2}')
    others=$(probe_pids "$JOB_OUT" | awk '$1 != 2 {print $2}')
    echo "  kill -9 rank 2 (pid $victim)"
    kill -KILL "$victim"
    gone_within 30 "0.5 s" $others || fail "cspawn: ranks survived rank 2's death (hang bound 30 s)"
    probe_bg_wait 20
    echo "  -> launcher exit $JOB_RC; messages: $(head -n 2 "$JOB_ERR" | tr '\n' ' ')"
    { [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "cspawn: launcher exit $JOB_RC after a rank was killed"
    grep -qE "rank 2([^0-9]|$)" "$JOB_ERR" || fail "cspawn: no line names rank 2"
    no_leftovers 15 "the launcher exited"
else
    fail "cspawn: 4 ranks did not all report within 60 s"; probe_bg_wait 5; probe_show_job
fi
marker="gnt-cspawn2c-$$"
probe_bg c2c -n 4 -H 127.0.0.1,127.0.0.2 "$PROBE" --sleep 60 "$marker"
if probe_wait_ok "$JOB_OUT" 4 60; then
    echo "  kill -9 the launcher (pid $MH_BG) of a job started by the ssh template"
    kill -KILL "$MH_BG"; wait "$MH_BG" 2>/dev/null
    no_leftovers 30 "the launcher was killed"
else
    fail "cspawn: 4 ranks did not all report within 60 s"; probe_bg_wait 5; probe_show_job
fi

# 3. exit code through custom spawn
marker="gnt-cspawn3-$$"
export GASNET_CSPAWN_CMD='i=0; while [ $i -lt %N ]; do %C & i=$((i + 1)); done; wait'
probe_job 60 c3 -n 3 "$PROBE" --exit 1:6 "$marker"
echo "  want exit 6 (rank 1 exits 6)"
[ "$JOB_RC" = 6 ] || { fail "exit $JOB_RC, expected 6"; probe_show_job; }
no_leftovers 15 "the launcher exited"

# 4. a template that starts 1 of 3 processes: the job fails within
#    GASNET_CONNECT_TIMEOUT, naming the shortfall
marker="gnt-cspawn4-$$"
export GASNET_CSPAWN_CMD='%C'
GASNET_CONNECT_TIMEOUT=3 probe_job 30 c4 -n 3 "$PROBE" "$marker"
echo "  want non-zero exit after GASNET_CONNECT_TIMEOUT=3; messages: $(head -n 3 "$JOB_ERR" | tr '\n' ' ')"
{ [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "exit $JOB_RC with 2 of 3 processes never started"
hang_check "the short-handed job" "$MH_ELAPSED" 20 "3 s: GASNET_CONNECT_TIMEOUT=3" || fail "the short-handed job hung"
grep -q "GASNET_CSPAWN_CMD" "$JOB_ERR" || fail "the message does not name GASNET_CSPAWN_CMD"
no_leftovers 15 "the launcher exited"

# 5. a template that fails at once
marker="gnt-cspawn5-$$"
export GASNET_CSPAWN_CMD='echo "no batch system here" >&2; exit 3'
probe_job 30 c5 -n 2 "$PROBE" "$marker"
echo "  want non-zero exit at once; messages: $(head -n 3 "$JOB_ERR" | tr '\n' ' ')"
{ [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "exit $JOB_RC with a failing template"
hang_check "the failed template's job" "$MH_ELAPSED" 20 "0.1 s" || fail "the failed template's job hung"
no_leftovers 15 "the launcher exited"

mh_finish
