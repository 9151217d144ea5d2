#!/bin/bash
# timeout: 60
# parallel: yes (1 of 7 s on the CPU; its sshd on ports of its own, what it cleans is keyed by dead runs' pids)
# t-ssh-infra.sh - the throw-away sshd the ssh launcher tests stand on
# (tests/lib/sshd.sh), checked without the launcher: it listens only where
# asked, takes the test's key, passes PATH and the cleanup tag to sessions,
# stops completely, and what a killed test leaves is removed by the next one.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
sshd_require

hosts=(127.0.0.1 127.0.0.2 127.0.0.3)
export PATH="/nonexistent/gnt-path-probe:$PATH"
sshd_start lo "${hosts[@]}" || mh_fail "sshd did not start"
pid=$(cat "$MH_DIR/sshd-lo/pid")
echo "sshd pid $pid port $SSHD_PORT on ${hosts[*]}"

# listens on exactly the three addresses, nowhere else
got=$(ss -Hltnp | grep "pid=$pid," | awk '{print $4}' | sort | tr '\n' ' ')
want=$(printf '%s\n' "${hosts[@]/%/:$SSHD_PORT}" | sort | tr '\n' ' ')
echo "listening: $got (want: $want)"
[ "$got" = "$want" ] || mh_fail "sshd listens on '$got', expected '$want'"

for h in "${hosts[@]}"; do
    sshd_check "$h" || mh_fail "ssh to $h"
done
echo "ssh true works on ${hosts[*]}"

# the session sees the test's PATH, the tag, and which address it was reached on
out=$(timeout 20 ssh $ssh_opts 127.0.0.2 'echo "$PATH"; echo "$GNT_MH_TAG"; echo "$SSH_CONNECTION"' </dev/null)
echo "remote: $(echo "$out" | tr '\n' '|')"
echo "$out" | sed -n 1p | grep -q '/nonexistent/gnt-path-probe' || mh_fail "PATH not passed to the session"
[ "$(echo "$out" | sed -n 2p)" = "$MH_TAG" ] || mh_fail "GNT_MH_TAG not passed to the session"
[ "$(echo "$out" | sed -n 3p | awk '{print $3}')" = 127.0.0.2 ] || mh_fail "SSH_CONNECTION does not name 127.0.0.2"

# an address nobody listens on is refused at once (no traffic leaves lo)
t0=$EPOCHREALTIME
timeout 20 ssh $ssh_opts 127.0.0.9 true </dev/null 2>"$MH_DIR/refused.err"
rc=$?
echo "ssh 127.0.0.9: exit $rc in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')s: $(cat "$MH_DIR/refused.err")"
[ $rc = 255 ] || mh_fail "ssh to 127.0.0.9 gave $rc, expected 255"

# a remote process, then stop: daemon, session and process all gone
marker="gnt-infra-$$-$RANDOM"
GNT_MH_TAG=$MH_TAG ssh $ssh_opts 127.0.0.3 "sleep 300; : $marker" </dev/null >/dev/null 2>&1 &
# the remote side is the login shell running the command: "bash -c sleep..."
for i in $(seq 100); do pgrep -f -- "^[a-z/]*sh -c sleep 300; : $marker" >/dev/null && break; sleep 0.1; done
pgrep -af -- "$marker" | sed 's/^/running: /'
pgrep -f -- "^[a-z/]*sh -c sleep 300; : $marker" >/dev/null || mh_fail "remote command did not start"
sshd_stop lo
mh_kill_tagged "$MH_TAG"
[ -e "/proc/$pid" ] && mh_fail "sshd $pid still running after sshd_stop"
ss -Hltn | grep -q ":$SSHD_PORT " && mh_fail "port $SSHD_PORT still listened on"
mh_wait_gone 3 "$marker" || mh_fail "remote process survived the stop"
echo "stopped: no daemon, no listener, no session"

# a test killed with -9 leaves an sshd and a remote process; the next test
# that sources the library removes them
child_marker="gnt-infra-child-$$-$RANDOM"
bash -c '
    . "$1/sshd.sh"
    sshd_start lo 127.0.0.1 || exit 1
    GNT_MH_TAG=$MH_TAG ssh $ssh_opts 127.0.0.1 "sleep 300; : $2" </dev/null >/dev/null 2>&1 &
    cat "$MH_DIR/sshd-lo/pid" >"$3"
    echo ready >>"$3"
    sleep 300' child "$lib" "$child_marker" "$MH_DIR/child" &
child=$!
for i in $(seq 100); do grep -q ready "$MH_DIR/child" 2>/dev/null && pgrep -f -- "^[a-z/]*sh -c sleep 300; : $child_marker" >/dev/null && break; sleep 0.1; done
cpid=$(head -n 1 "$MH_DIR/child")
echo "child test $child: sshd $cpid, remote shell: $(pgrep -f -- "^[a-z/]*sh -c sleep 300; : $child_marker" | tr '\n' ' ')"
pgrep -f -- "^[a-z/]*sh -c sleep 300; : $child_marker" >/dev/null || mh_fail "child's remote command did not start"
kill -KILL "$child"; wait "$child" 2>/dev/null
[ -e "/proc/$cpid" ] || mh_fail "child's sshd died with it: the check below would prove nothing"
bash -c '. "$1/mh.sh"' next "$lib"
[ -e "/proc/$cpid" ] && mh_fail "leftover sshd $cpid of the killed test not removed"
mh_wait_gone 3 "$child_marker" || mh_fail "leftover remote process of the killed test not removed"
[ -d "$MH_ROOT/$child" ] && mh_fail "state dir of the killed test not removed"
echo "leftovers of a test killed with -9 removed by the next one"
echo "PASS"
