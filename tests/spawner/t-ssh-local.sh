#!/bin/bash
# timeout: 90
# parallel: yes (1 of 3 s on the CPU; its sshd on ports of its own, processes found by its own tag)
# t-ssh-local.sh - gasnetrun's ssh spawn to one host, 127.0.0.1, through a
# throw-away sshd: a job of 4 ranks boots, every rank's exchange, broadcast
# and barrier data are right, all ranks ran through ssh on 127.0.0.1; the
# launcher's environment reaches the ranks (snapshot always, the real
# environment only with -E); arguments, environment values and a working
# directory full of shell metacharacters arrive verbatim; -v prefixes each
# line with its rank; GASNET_SSH_CMD may be a wrapper with arguments; a bare
# program name is found in GASNET_SSH_REMOTE_PATH; two jobs at once stay
# apart; a rank's exit code comes back; bad options exit 2.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/probe.sh"
sshd_require

probe_require
sshd_start lo 127.0.0.1 || mh_fail "sshd did not start"
sshd_check 127.0.0.1 || mh_fail "ssh to the test sshd does not work"
echo "sshd on 127.0.0.1:$SSHD_PORT; GASNET_SSH_OPTIONS=$GASNET_SSH_OPTIONS"
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD
marker="gnt-ssh-local-$$"

# 1. four ranks over ssh to 127.0.0.1; environment: the snapshot reaches
#    boot_getenv, -E puts a variable in the ranks' real environment
mkdir -p "$MH_DIR/b1"
export GNT_PROBE_BENV="snap-$$" GNT_PROBE_ENV="real-$$"
probe_job 60 j1 -n 4 -H 127.0.0.1 -E GNT_PROBE_ENV "$PROBE" --dir "$MH_DIR/b1" "$marker"
if [ "$JOB_RC" != 0 ]; then fail "4-rank ssh job exited $JOB_RC, expected 0"; probe_show_job
else
    probe_check_job 4 127.0.0.1 || fail "4-rank ssh job data"
    n=$(grep -c "probe-self: .* sshd lo .* env real-$$ benv snap-$$\$" "$JOB_OUT")
    echo "  ranks started by the test sshd with env real-$$ and benv snap-$$: $n of 4"
    [ "$n" = 4 ] || { fail "environment not propagated (want 4 ranks with env and benv)"; probe_show_job; }
fi
# without -E, a variable of the launcher is in the snapshot only: an ssh
# host gives the rank its own environment
probe_job 60 j1b -n 2 -H 127.0.0.1 "$PROBE" "$marker"
n=$(grep -c "probe-self: .* env (unset) benv snap-$$\$" "$JOB_OUT")
echo "  without -E: ranks with GNT_PROBE_ENV unset and benv snap-$$: $n of 2"
[ "$JOB_RC" = 0 ] && [ "$n" = 2 ] || { fail "without -E: exit $JOB_RC, $n of 2 ranks as expected"; probe_show_job; }
unset GNT_PROBE_BENV GNT_PROBE_ENV

# -v: every line of a rank starts with [rank]
probe_job 60 j1c -v -n 3 -H 127.0.0.1 "$PROBE" "$marker"
bad=$(awk '/probe-self:/ { split($4, rs, "/"); if ($1 != "[" rs[1] "]") print }' "$JOB_OUT")
echo "  -v: $(grep -c '^\[[0-9]*\] probe-' "$JOB_OUT") prefixed probe lines, misattributed: ${bad:-none}"
[ "$JOB_RC" = 0 ] && [ -z "$bad" ] && grep -q '^\[2\] probe-self: rank 2/3' "$JOB_OUT" || { fail "-v prefixes"; probe_show_job; }

# GASNET_SSH_CMD: a wrapper (with an argument of its own) is what runs
cat >"$MH_DIR/myssh" <<'EOS'
#!/bin/sh
echo "$*" >>"${0%/*}/myssh.log"
[ "$1" = --wrapper-flag ] || { echo "myssh: no --wrapper-flag" >&2; exit 99; }
shift
exec ssh "$@"
EOS
chmod +x "$MH_DIR/myssh"
GASNET_SSH_CMD="$MH_DIR/myssh --wrapper-flag" probe_job 60 j1d -n 2 -H 127.0.0.1 "$PROBE" "$marker"
echo "  wrapper saw: $(cut -c1-120 "$MH_DIR/myssh.log" 2>/dev/null)"
[ "$JOB_RC" = 0 ] && [ "$(grep -c ' 127\.0\.0\.1 ' "$MH_DIR/myssh.log" 2>/dev/null)" = 1 ] ||
    { fail "GASNET_SSH_CMD wrapper not used once for 127.0.0.1 (exit $JOB_RC)"; probe_show_job; }

# 2. the program named relative to GASNET_SSH_REMOTE_PATH on the remote host
mkdir -p "$MH_DIR/b2"
GASNET_SSH_REMOTE_PATH=$(dirname "$PROBE") \
    probe_job 60 j2 -n 2 -H 127.0.0.1 "$(basename "$PROBE")" --dir "$MH_DIR/b2" "$marker"
if [ "$JOB_RC" != 0 ]; then fail "GASNET_SSH_REMOTE_PATH job exited $JOB_RC"; probe_show_job
else probe_check_job 2 127.0.0.1 || fail "GASNET_SSH_REMOTE_PATH job data"; fi

# 2b. arguments, environment values and a working directory full of shell
#     metacharacters reach the ranks on the ssh host verbatim
wd="$MH_DIR/dir with space 'q' \$x"
mkdir -p "$wd"
args=("a b" "q'x" '$HOME' '`id`' '"dq"' ';|&' '' '  lead' "$marker")
val=$' a  "b" \'c\' $HOME `x` \\ ;|& *'
want_argv="argc $(( ${#args[@]} + 3 )):$(printf ' [%s]' "--dir" "$MH_DIR/b1" "${args[@]}")"
rm -f "$MH_DIR"/b1/pre.*
JOB_PREFIX=(env -C "$wd")
GNT_PROBE_ENV=$val GNT_PROBE_BENV=$val \
    probe_job 60 j2b -n 2 -H 127.0.0.1 -E GNT_PROBE_ENV "$PROBE" --dir "$MH_DIR/b1" "${args[@]}"
unset JOB_PREFIX
na=$(grep -cF -- "$want_argv" "$JOB_OUT"); nc=$(grep -cxF -- "probe-cwd: rank 0 $wd" "$JOB_OUT")
ne=$(grep -cF -- " env $val benv $val" "$JOB_OUT")
echo "  want argv:$want_argv"
echo "  got  $(grep -m1 'probe-argv: rank 0' "$JOB_OUT")"
echo "  ranks with that argv: $na of 2; rank 0 in '$wd': $nc; ranks with env and benv [$val]: $ne of 2"
[ "$JOB_RC" = 0 ] && [ "$na" = 2 ] && [ "$nc" = 1 ] && [ "$ne" = 2 ] || { fail "metacharacters in argv/env/cwd over ssh"; probe_show_job; }

# 2c. two jobs at once on the same host: each rank joins its own job
mkdir -p "$MH_DIR/bA" "$MH_DIR/bB"
probe_bg jA -n 4 -H 127.0.0.1 "$PROBE" --dir "$MH_DIR/bA" --sleep 1 "$marker"; pa=$MH_BG
probe_bg jB -n 3 -H 127.0.0.1 "$PROBE" --dir "$MH_DIR/bB" --sleep 1 "$marker"; pb=$MH_BG
MH_BG=$pa; probe_bg_wait 60; rca=$JOB_RC
MH_BG=$pb; probe_bg_wait 60; rcb=$JOB_RC
echo "  two jobs at once: exit $rca and $rcb"
JOB_OUT=$MH_DIR/jA.out JOB_ERR=$MH_DIR/jA.err
[ "$rca" = 0 ] && probe_check_job 4 127.0.0.1 || fail "first of two concurrent jobs (exit $rca)"
JOB_OUT=$MH_DIR/jB.out JOB_ERR=$MH_DIR/jB.err
[ "$rcb" = 0 ] && probe_check_job 3 127.0.0.1 || fail "second of two concurrent jobs (exit $rcb)"

# 3. rank 3 ends with exit code 7 (boot_fini(7)): the launcher exits 7
probe_job 60 j3 -n 4 -H 127.0.0.1 "$PROBE" --exit 3:7 "$marker"
echo "  expected exit 7 (rank 3 exits 7, the others 0)"
[ "$JOB_RC" = 7 ] || { fail "launcher exited $JOB_RC, expected 7"; probe_show_job; }

# 4. bad options: exit 2, nothing started
bad_cmds=("-n 2 -H" "-n 0 -H 127.0.0.1 $PROBE $marker" "-n 2 -H 127.0.0.1 --no-such-option $PROBE $marker"
          "-n 2 --hostfile $MH_DIR/no-such-file $PROBE $marker" "-n 4 -N 2 -H 127.0.0.1 $PROBE $marker"
          "-n 2 -H 127.0.0.1 $MH_DIR/no-such-program $marker")
for bad in "${bad_cmds[@]}"; do
    probe_job 20 j4 $bad
    echo "  expected exit 2; stderr: $(head -n 2 "$JOB_ERR" | tr '\n' ' ')"
    [ "$JOB_RC" = 2 ] || { fail "gasnetrun $bad exited $JOB_RC, expected 2"; probe_show_job; }
    grep -q 'probe-self' "$JOB_OUT" && fail "gasnetrun $bad started ranks"
done

# nothing of any job is left on the host
mh_wait_gone 5 "$marker" || fail "processes of the jobs left behind"
mh_finish
