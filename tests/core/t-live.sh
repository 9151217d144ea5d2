#!/bin/bash
# timeout: 90
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-live.sh - liveness tells a busy rank from a dead one (docs/transports.md,
# "Liveness"), with the timeout lowered to 1 s (GASNET_UDP_TIMEOUT,
# GASNET_TCP_TIMEOUT; the shared-memory transport uses its conduit's; 1 s
# probes every 250 ms, the same code as the default's 7.5 s):
#   busy     the last of 2 nodes computes 2.5 s without a GASNet call while
#            node 0 waits 2 s, twice the timeout, on it (AM round trip,
#            blocking get, barrier): the job ends 0 with every value intact;
#            the counters show the probes node 1's liveness thread answered.
#   never    timeout 0: the last node is stopped (kill -STOP) for 2 s, twice
#            the 1 s of "busy", while node 0 waits on it, then continued
#            (kill -CONT): the job ends 0, every round trip answered.
# Every run is bounded (t_live ends itself after 60 s; timeout(1) backs it);
# no process of the job is left, nothing in /tmp or /dev/shm.
# (A stopped node with a timeout is detected: tests/core/t-stop.sh.)
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/hang.sh"
cd "$BIN" || exit 1
marker="t-live-$$"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-live.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
before=$(ls -A /dev/shm 2>/dev/null | sort)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# ---- busy: computing without polling for twice the timeout is no death
hang_t0
out=$(GASNET_UDP_TIMEOUT=1 GASNET_TCP_TIMEOUT=1 GASNET_STATSFILE="$tmp/stats" \
      timeout -k 5 70 "$GASNETRUN" -n 2 ./t_live compute 2.5 "$marker" 2>&1); rc=$?
secs=$(hang_secs)
echo "$out"
probes=$(awk '/^live_probes_sent/ {print $2}' "$tmp/stats.0" 2>/dev/null)
answered=$(awk '/^live_probes_answered/ {print $2}' "$tmp/stats.1" 2>/dev/null)
retx=$(awk '/^udp_retransmitted/ {print $2}' "$tmp/stats.0" 2>/dev/null)
echo "busy: expected exit 0, 2 'ok' lines, the reply and the get intact; got exit $rc after ${secs}s"
echo "busy: node 0 sent ${probes:-?} liveness probes, node 1's thread answered ${answered:-?}; udp retransmissions by node 0: ${retx:-n/a (not udp, or the bypass)}"
[ "$rc" = 0 ] || fail "busy: exit $rc"
[ "$(echo "$out" | grep -c ': ok$')" = 2 ] || fail "busy: not every node said ok"
echo "$out" | grep -q "0x11fe5eea (expected 0x11fe5eea); get: 0xabcdef0000000001 (expected 0xabcdef0000000001)" ||
  fail "busy: the reply or the get is wrong"
echo "$out" | grep -q "lost node" && fail "busy: a node was declared dead"
[ "${answered:-0}" -ge 1 ] || fail "busy: node 1 answered no probe (was it ever silent?)"
hang_check "busy" "$secs" 40 "2.5 s" || fails=$((fails + 1))

# ---- never: timeout 0, the last node stopped for 2 s then continued
rm -f "$tmp"/stats.*
hang_t0
GASNET_UDP_TIMEOUT=0 GASNET_TCP_TIMEOUT=0 \
  timeout -k 5 70 "$GASNETRUN" -n 2 ./t_live pause 5 "$marker" >"$tmp/out" 2>&1 &
job=$!
pid=
for _ in $(seq 100); do # up to 20 s for the job to start
  pid=$(sed -n 's/^t_live: node 1: pid \([0-9]*\)$/\1/p' "$tmp/out")
  [ -n "$pid" ] && break
  sleep 0.2
done
if [ -n "$pid" ]; then
  sleep 1
  kill -STOP "$pid"; echo "never: node 1 (pid $pid) stopped at $(hang_secs) s"
  sleep 2
  kill -CONT "$pid"; echo "never: node 1 continued at $(hang_secs) s"
else
  fail "never: node 1 never printed its pid"
fi
wait $job; rc=$?
secs=$(hang_secs)
cat "$tmp/out"
echo "never: expected exit 0, 2 'ok' lines, a longest round trip of about 2 s; got exit $rc after ${secs}s"
[ "$rc" = 0 ] || fail "never: exit $rc"
[ "$(grep -c ': ok$' "$tmp/out")" = 2 ] || fail "never: not every node said ok"
grep -q "lost node" "$tmp/out" && fail "never: a node was declared dead"
grep -q "the longest [2-9]" "$tmp/out" || fail "never: node 0 did not wait the 2 s the stop lasted"
hang_check "never" "$secs" 40 "5 s" || fails=$((fails + 1))

# ---- nothing left behind
hang_wait_gone 10 "0 s" "$marker" || { pkill -KILL -f -- "$marker"; fails=$((fails + 1)); }
after=$(ls -A /dev/shm 2>/dev/null | sort)
new=$(comm -13 <(echo "$before") <(echo "$after") | grep -v '^$')
[ -z "$new" ] || echo "(new in /dev/shm, maybe not ours: $new)"
[ $fails = 0 ] && echo "t-live: passed"
exit $fails
