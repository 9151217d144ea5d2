#!/bin/bash
# timeout: 90
# t-hold.sh - strangers that hold connections cannot stall a tcp job (issue
# 41): 8 ranks start; before any two of them but node 0 have connected,
# 20 silent TCP connections (no handshake ever) are opened to every rank's
# amtcp listener and held for 40 s; then the ranks run all-to-all traffic
# (a2a: every payload checked by its receiver, node 0 checks the totals).
# The job must finish while the strangers still hold their connections
# (they used to fill every handshake place, ranks + 8, for
# GASNET_TCP_CONNECT_TIMEOUT, 60 s, and real ranks were refused "too many
# handshakes at once"), and the refusals must be logged a few lines per
# rank (3 lines, then a count per 10 s), not one line each.
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
cd "$TOP/tests/amtcp" || exit 1
command -v ss >/dev/null || { echo "SKIPPED: ss (iproute2) is needed to find the ports"; exit 77; }
N=8; PER=20; HOLD_S=40
T=$(mktemp -d "${TMPDIR:-/tmp}/gnt-hold.XXXXXX")
holders=()
cleanup() { [ ${#holders[@]} -gt 0 ] && kill "${holders[@]}" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$TOP/spawner/gasnetrun_tcp" -n $N ./t_amtcp_traffic a2a-go 2 "$T/go" >"$T/out" 2>"$T/err" &
job=$!
for i in $(seq 300); do [ "$(grep -c '^node [0-9]* pid' "$T/out")" = $N ] && break; sleep 0.1; done
for pid in $(sed -n 's/^node [0-9]* pid \([0-9]*\)$/\1/p' "$T/out"); do
  port=$(ss -ltnpH | grep "pid=$pid," | awk '{print $4}' | sed 's/.*://' | head -1)
  [ -n "$port" ] || { fail "no listening port for pid $pid"; continue; }
  # a stranger: PER connections, nothing ever sent, held HOLD_S seconds
  (for i in $(seq $PER); do exec {fd}<>"/dev/tcp/127.0.0.1/$port" || exit 1; done
   exec sleep $HOLD_S) 2>/dev/null &
  holders+=($!)
done
sleep 0.5
held=0
for h in "${holders[@]}"; do held=$((held + $(ls -l /proc/$h/fd 2>/dev/null | grep -c "socket:"))); done
echo "strangers: $held connections held to $N listeners (expected $((N * PER)))"
[ $held = $((N * PER)) ] || fail "the strangers hold $held connections, not $((N * PER))"
t0=$EPOCHREALTIME
touch "$T/go"
wait $job; rc=$?
secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
alive=0; for h in "${holders[@]}"; do kill -0 "$h" 2>/dev/null && alive=$((alive + 1)); done
summary=$(grep '^node 0: all nodes' "$T/out")
refused=$(grep -c '^amtcp: rank [0-9]*: refused' "$T/err")
other=$(grep -vc '^amtcp: rank [0-9]*: refused' "$T/err")
echo "job: exit $rc after ${secs}s of traffic; $alive of ${#holders[@]} strangers still holding at its end"
echo "     ${summary:-no summary}"
echo "     stderr: $refused refusal lines, $other other lines"
grep '^amtcp' "$T/err" | head -12 | sed 's/^/     | /'
[ "$rc" = 0 ] || fail "exit $rc, want 0"
[ "$summary" = "node 0: all nodes: handled $((2 * 2 * N * N)) requests (expected $((2 * 2 * N * N))), 0 bad: ok" ] ||
  fail "the traffic's totals: '${summary:-none}'"
[ $alive = ${#holders[@]} ] || fail "the job ended only after the strangers let go"
# 20 refusals per rank: 3 lines, a count at the interval's end or the rank's
[ "$refused" -le $((N * 5)) ] || fail "$refused refusal lines, want at most $((N * 5)) (5 per rank)"
[ "$other" = 0 ] || { fail "unexpected stderr lines"; grep -v '^amtcp: rank [0-9]*: refused' "$T/err" | head -5; }
[ $fails = 0 ] && echo "t-hold: all passed"
exit $fails
