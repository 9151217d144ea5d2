#!/bin/bash
# timeout: 120
# parallel: yes (9 of 22 s on the CPU: it waits for teardowns; its sshd on ports of its own, processes found by its own tag)
# t-ssh-fault.sh - the ssh spawn tree (8 hosts 127.0.0.1-8, fan-out 2) when
# things go wrong:
#  - a rank on a host deep in the tree is killed with -9: every other rank on
#    every host is gone (the ranks would sleep 60 s), the launcher exits
#    non-zero and prints one line naming the rank and the cause; the same when
#    every rank ignores SIGTERM (the teardown must get to SIGKILL);
#  - a rank _exit(5)s without gasnet_exit: launcher exits 5, others gone;
#  - a rank calls boot_abort(3): launcher exits 3 and prints its message;
#  - the launcher is killed with -9, after start-up or during it: no relay,
#    ssh or rank survives on any host;
#  - a host nobody listens on (127.0.0.9) in the list, or a host without
#    gasnetrun: an error naming it, non-zero exit,
#    nothing left running;
#  - a relay (with a relay below it) killed with -9: one line naming its
#    host, every rank gone;
#  - SIGTERM / SIGINT to the launcher: every rank gone, exit 128+signal;
#  - a host that accepts TCP and never speaks (stopped sshd): error naming
#    it after ssh's ConnectTimeout, or GASNET_CONNECT_TIMEOUT without it.
# Every duration is checked only for a hang (bounds >= 5x the expected time,
# below the ranks' sleep so that a job that was not torn down still fails).
# Where the ranks ignore SIGTERM, GASNET_KILL_GRACE=0.5 (default 2 s): the
# same SIGKILL, sooner.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/probe.sh"
sshd_require

probe_require
hosts=(); for i in 1 2 3 4 5 6 7 8; do hosts+=("127.0.0.$i"); done
sshd_start lo "${hosts[@]}" || mh_fail "sshd did not start"
sshd_check 127.0.0.8 || mh_fail "ssh to the test sshd does not work"
echo "sshd on ${hosts[*]} port $SSHD_PORT"
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SSH_REMOTE_PATH
export GASNET_SSH_OUT_DEGREE=2
hl=$(IFS=,; echo "${hosts[*]}")

# 1. rank 11 (host 127.0.0.6) killed with -9 while all ranks sleep
marker="gnt-ssh-fault1-$$"
probe_bg f1 -n 16 -H "$hl" "$PROBE" --sleep 60 "$marker"
if probe_wait_ok "$JOB_OUT" 16 60; then
    probe_pids "$JOB_OUT" | sort -n >"$MH_DIR/f1.pids"
    victim=$(awk '$1 == 11 {print $2}' "$MH_DIR/f1.pids")
    others=$(awk '$1 != 11 {print $2}' "$MH_DIR/f1.pids")
    echo "  kill -9 rank 11 (pid $victim); the other 15 ranks must go"
    kill -KILL "$victim"
    gone_within 30 "0.5 s" $others || fail "ranks survived rank 11's death (hang bound 30 s)"
    probe_bg_wait 20
    echo "  -> launcher exit $JOB_RC; its messages:"; sed 's/^/    /' "$JOB_ERR" | head -n 20
    [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ] || fail "launcher exit $JOB_RC after a rank was killed, expected non-zero"
    n=$(grep -ciE "rank 11([^0-9]|$).*(signal|sigkill|killed)|(signal|sigkill|killed).*rank 11([^0-9]|$)" "$JOB_ERR" "$JOB_OUT" | awk -F: '{s += $NF} END {print s}')
    echo "  lines naming rank 11 and its cause: $n (want 1)"
    [ "$n" = 1 ] || fail "want exactly one line naming rank 11 and the signal"
    no_leftovers 15 "the launcher exited"
else
    fail "16 ranks did not all report within 60 s"; probe_bg_wait 5; probe_show_job
fi

# 1b. the same when every rank ignores SIGTERM/SIGQUIT/SIGINT/SIGHUP: the
#     teardown must end with SIGKILL
marker="gnt-ssh-fault1b-$$"
GASNET_KILL_GRACE=0.5 probe_bg f1b -n 16 -H "$hl" "$PROBE" --ignore-term --sleep 60 "$marker"
if probe_wait_ok "$JOB_OUT" 16 60; then
    victim=$(probe_pids "$JOB_OUT" | awk '$1 == 11 {print $2}')
    others=$(probe_pids "$JOB_OUT" | awk '$1 != 11 {print $2}')
    echo "  kill -9 rank 11 (pid $victim); the other 15 ignore SIGTERM and must still go"
    kill -KILL "$victim"
    gone_within 30 "0.5 s: GASNET_KILL_GRACE=0.5, then SIGKILL" $others ||
        fail "ranks that ignore SIGTERM survived rank 11's death (hang bound 30 s)"
    probe_bg_wait 20
    echo "  -> launcher exit $JOB_RC; messages: $(head -n 2 "$JOB_ERR" | tr '\n' ' ')"
    { [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "launcher exit $JOB_RC after a rank was killed"
    no_leftovers 15 "the launcher exited"
else
    fail "16 ranks did not all report within 60 s"; probe_bg_wait 5; probe_show_job
fi

# 2. rank 13 _exit(5)s without telling the launcher
marker="gnt-ssh-fault2-$$"
probe_bg f2 -n 16 -H "$hl" "$PROBE" --sleep 60 --die 13:5 "$marker"
# every rank said hello before the exchange that precedes the _exit
if probe_wait_line "$JOB_OUT" "probe-die: rank 13" 60; then
    others=$(probe_pids "$JOB_OUT" | awk '$1 != 13 {print $2}')
    echo "  rank 13 exited; the other $(echo $others | wc -w) ranks must go"
    gone_within 30 "0.5 s" $others || fail "ranks survived rank 13's exit (hang bound 30 s)"
    probe_bg_wait 20
    echo "  -> launcher exit $JOB_RC (want 5); messages: $(head -n 3 "$JOB_ERR" | tr '\n' ' ')"
    [ "$JOB_RC" = 5 ] || fail "launcher exit $JOB_RC, expected 5 (the rank's code)"
    grep -qE "rank 13([^0-9]|$)" "$JOB_ERR" "$JOB_OUT" || fail "no message names rank 13"
else
    fail "rank 13 did not get to its _exit within 60 s"; probe_bg_wait 5; probe_show_job
fi
no_leftovers 15 "the launcher exited"

# 3. rank 6 calls boot_abort(3, "probe abort")
marker="gnt-ssh-fault3-$$"
probe_job 60 f3 -n 16 -H "$hl" "$PROBE" --sleep 60 --abort 6:3 "$marker"
echo "  -> want exit 3 and the message 'probe abort'; messages: $(head -n 3 "$JOB_ERR" | tr '\n' ' ')"
[ "$JOB_RC" = 3 ] || fail "launcher exit $JOB_RC after boot_abort(3), expected 3"
grep -q "probe abort" "$JOB_ERR" "$JOB_OUT" || fail "boot_abort's message not printed"
hang_check "boot_abort: the job" "$MH_ELAPSED" 30 "2 s" || fail "abort did not tear down the others (they sleep 60 s)"
no_leftovers 15 "the launcher exited"

# 4. the launcher killed with -9 (ranks ignore SIGTERM): nothing of the job
#    survives anywhere
marker="gnt-ssh-fault4-$$"
GASNET_KILL_GRACE=0.5 probe_bg f4 -n 16 -H "$hl" "$PROBE" --ignore-term --sleep 60 "$marker"
if probe_wait_ok "$JOB_OUT" 16 60; then
    all=$(job_procs | grep -vx "$MH_BG")
    echo "  kill -9 the launcher (pid $MH_BG); $(echo $all | wc -w) processes of the job must go:"
    ps -o pid=,args= -p $(echo $all | tr ' ' ,) | cut -c1-100 | awk '{ $1 = $1; c[$0 ~ /ssh_probe/ ? "rank" : $0 ~ /--relay/ ? "relay" : $0 ~ /^[0-9]+ ssh / ? "ssh" : $0 ~ /sshd/ ? "sshd session" : $0]++ }
        END { for (k in c) printf "    %d %s\n", c[k], k }' | sort
    kill -KILL "$MH_BG"; wait "$MH_BG" 2>/dev/null
    gone_within 30 "0.5 s: GASNET_KILL_GRACE=0.5" $all || fail "processes survived the launcher's death (hang bound 30 s)"
    no_leftovers 15 "the launcher was killed"
else
    fail "16 ranks did not all report within 60 s"; probe_bg_wait 5; probe_show_job
fi

# 4b. the launcher killed with -9 while the tree is still being built (ssh
#     connections and relays half set up): nothing left
for d in 0.1 0.3 0.6; do
    marker="gnt-ssh-fault4b$d-$$"
    probe_bg f4b -n 16 -H "$hl" "$PROBE" --sleep 60 "$marker" >/dev/null
    sleep "$d"
    n=$(grep -c 'probe-self:' "$JOB_OUT")
    kill -KILL "$MH_BG"; wait "$MH_BG" 2>/dev/null
    echo "  launcher killed $d s after its start ($n of 16 ranks had started)"
    no_leftovers 30 "the launcher was killed during start-up"
done

# 5. 127.0.0.9 (no sshd there: connection refused) third in the list, so it
#    would be a relay with children of its own
marker="gnt-ssh-fault5-$$"
probe_job 45 f5 -n 8 -H 127.0.0.1,127.0.0.2,127.0.0.9,127.0.0.3,127.0.0.4,127.0.0.5,127.0.0.6,127.0.0.7 "$PROBE" --sleep 30 "$marker"
echo "  -> want non-zero exit and a line naming 127.0.0.9; messages: $(head -n 4 "$JOB_ERR" | tr '\n' ' ')"
{ [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "exit $JOB_RC with an unreachable host"
hang_check "giving up on 127.0.0.9" "$MH_ELAPSED" 30 "2 s: connection refused" || fail "hung on 127.0.0.9"
grep -q "127\.0\.0\.9" "$JOB_ERR" || fail "no error line names 127.0.0.9"
no_leftovers 15 "the launcher exited"

# 5b. 127.0.0.3 answers ssh but has no gasnetrun where the launcher expects
#     it (an ssh wrapper changes the remote command for that host only; the
#     relays use GASNET_SSH_CMD too): an error naming 127.0.0.3, nothing left
cat >"$MH_DIR/ssh-nogasnetrun" <<'EOS'
#!/bin/bash
# ssh, except that 127.0.0.3 has no gasnetrun where the launcher expects it
args=("$@"); n=${#args[@]}
for a in "$@"; do [ "$a" = 127.0.0.3 ] && args[n-1]="exec /nonexistent/gasnetrun --relay"; done
exec ssh "${args[@]}"
EOS
chmod +x "$MH_DIR/ssh-nogasnetrun"
marker="gnt-ssh-fault5b-$$"
GASNET_SSH_CMD=$MH_DIR/ssh-nogasnetrun probe_job 60 f5b -n 16 -H "$hl" "$PROBE" --sleep 30 "$marker"
echo "  -> want non-zero exit and a line naming 127.0.0.3; messages: $(head -n 3 "$JOB_ERR" | tr '\n' ' ')"
{ [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "exit $JOB_RC when 127.0.0.3 has no gasnetrun"
hang_check "giving up on 127.0.0.3" "$MH_ELAPSED" 30 "2 s" || fail "hung on 127.0.0.3 without gasnetrun"
grep -q "host 127\.0\.0\.3" "$JOB_ERR" || fail "no error line names 127.0.0.3"
no_leftovers 15 "the launcher exited"

# 6. the relay on 127.0.0.3 (it has a relay of its own below: 127.0.0.4) is
#    killed with -9: the line names 127.0.0.3, every rank everywhere goes
marker="gnt-ssh-fault6-$$"
probe_bg f6 -n 16 -H "$hl" "$PROBE" --sleep 60 "$marker"
if probe_wait_ok "$JOB_OUT" 16 60; then
    relay=""
    for p in $(mh_tagged_pids "$MH_TAG"); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = gasnetrun ] || continue
        conn=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^SSH_CONNECTION=//p')
        [ "$(echo "$conn" | awk '{print $3}')" = 127.0.0.3 ] && relay=$p
    done
    ranks=$(probe_pids "$JOB_OUT" | awk '{print $2}')
    echo "  kill -9 the relay on 127.0.0.3 (pid ${relay:-not found}); all 16 ranks must go"
    if [ -n "$relay" ]; then
        kill -KILL "$relay"
        gone_within 30 "2 s" $ranks || fail "ranks survived the relay's death (hang bound 30 s)"
        probe_bg_wait 20
        echo "  -> launcher exit $JOB_RC; messages: $(head -n 3 "$JOB_ERR" | tr '\n' ' ')"
        { [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "launcher exit $JOB_RC after a relay died"
        n=$(grep -c "127\.0\.0\.3" "$JOB_ERR")
        echo "  lines naming 127.0.0.3: $n (want 1)"
        [ "$n" = 1 ] || fail "want one line naming the relay's host 127.0.0.3"
    else
        fail "relay on 127.0.0.3 not found"; probe_bg_wait 5
    fi
    no_leftovers 15 "the launcher exited"
else
    fail "16 ranks did not all report within 60 s"; probe_bg_wait 5; probe_show_job
fi

# 7. SIGTERM and SIGINT to the launcher: sent to every rank on every host
#    (ranks that ignore it get SIGKILL GASNET_KILL_GRACE later), launcher
#    exits 128+signal
for sig in TERM INT; do
    marker="gnt-ssh-fault7$sig-$$"
    ign=""; expect="0.5 s"
    # INT: the ranks ignore it, SIGKILL must follow
    [ $sig = INT ] && { ign=--ignore-term; expect="0.5 s: GASNET_KILL_GRACE=0.5, then SIGKILL"; }
    GASNET_KILL_GRACE=0.5 probe_bg f7$sig -n 16 -H "$hl" "$PROBE" $ign --sleep 60 "$marker"
    if probe_wait_ok "$JOB_OUT" 16 60; then
        ranks=$(probe_pids "$JOB_OUT" | awk '{print $2}')
        want=$((128 + $(kill -l "$sig")))
        echo "  kill -$sig the launcher (pid $MH_BG): ranks gone, exit $want"
        kill -"$sig" "$MH_BG"
        gone_within 30 "$expect" $ranks || fail "ranks survived SIG$sig to the launcher (hang bound 30 s)"
        probe_bg_wait 20
        echo "  -> launcher exit $JOB_RC; messages: $(head -n 3 "$JOB_ERR" | tr '\n' ' ')"
        [ "$JOB_RC" = "$want" ] || fail "launcher exit $JOB_RC after SIG$sig, expected $want"
        no_leftovers 15 "the launcher exited"
    else
        fail "16 ranks did not all report within 60 s"; probe_bg_wait 5; probe_show_job
    fi
done

# 8. a host that accepts the TCP connection and then says nothing (a stopped
#    sshd on 127.0.0.10, same port): bounded by ssh's ConnectTimeout (3 s
#    here, 5 in ssh_opts), and, without it, by GASNET_CONNECT_TIMEOUT=4
sshd_start -p "$SSHD_PORT" mute 127.0.0.10 || mh_fail "second sshd did not start"
mute=$(cat "$MH_DIR/sshd-mute/pid")
kill -STOP "$mute"
echo "  sshd on 127.0.0.10:$SSHD_PORT stopped (pid $mute): connections are accepted by the kernel, never answered"
marker="gnt-ssh-fault8-$$"
GASNET_SSH_OPTIONS=${ssh_opts/ConnectTimeout=5/ConnectTimeout=3} \
    probe_job 60 f8 -n 4 -H 127.0.0.1,127.0.0.10,127.0.0.2,127.0.0.3 "$PROBE" --sleep 30 "$marker"
echo "  -> want non-zero exit and a line naming 127.0.0.10; messages: $(head -n 3 "$JOB_ERR" | tr '\n' ' ')"
{ [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "exit $JOB_RC with a mute host"
hang_check "giving up on 127.0.0.10" "$MH_ELAPSED" 30 "3 s: ConnectTimeout=3" || fail "hung on 127.0.0.10"
grep -q "127\.0\.0\.10" "$JOB_ERR" || fail "no error line names 127.0.0.10"
no_leftovers 15 "the launcher exited"
marker="gnt-ssh-fault9-$$"
GASNET_SSH_OPTIONS=${ssh_opts/-o ConnectTimeout=5/} GASNET_CONNECT_TIMEOUT=4 \
    probe_job 60 f9 -n 4 -H 127.0.0.1,127.0.0.10,127.0.0.2,127.0.0.3 "$PROBE" --sleep 30 "$marker"
echo "  -> want non-zero exit and a line naming 127.0.0.10; messages: $(head -n 3 "$JOB_ERR" | tr '\n' ' ')"
{ [ "$JOB_RC" != 0 ] && [ "$JOB_RC" != 124 ]; } || fail "exit $JOB_RC with a mute host"
hang_check "giving up on 127.0.0.10" "$MH_ELAPSED" 30 "4 s: GASNET_CONNECT_TIMEOUT=4" || fail "hung on 127.0.0.10"
grep -q "127\.0\.0\.10" "$JOB_ERR" || fail "no error line names 127.0.0.10"
no_leftovers 15 "the launcher exited"
kill -CONT "$mute"; sshd_stop mute

mh_finish
