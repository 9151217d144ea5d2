#!/bin/bash
# t-shm-end.sh - nothing outlives a job whose ranks share memory (issue 13):
# however it ends, no process is left and nothing new is in /dev/shm or /tmp.
# timeout: 120
# conduits: udp tcp
# bypass: on (ends jobs whose ranks share memory: the bypass's own test)
#
# 3 ranks of one host (t_exit: segments and shm regions are memfds, mapped
# by the neighbours) end by: a normal gasnet_exit(0) after barriers and a
# put into the neighbour's mapped segment (mode barrier); gasnet_exit(42)
# from the last rank (poll); return 44 from main on the last rank (return);
# kill -9 of the launcher while every rank polls (wait). Before the
# launcher is killed, rank 0's /proc/<pid>/maps must show the memfd
# mappings (its segment, its 2 neighbours' segments, shm regions), so the
# case does test shared memory. kill -9 of a rank: t-shm-kill.sh.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/hang.sh"
cd "$TOP/tests/core" || exit 1
bin=./t_exit; [ "$CONDUIT" = tcp ] && bin=./tcp/t_exit
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
snapshot() { ls -A /dev/shm /tmp 2>/dev/null | sort; }
# /tmp is shared with the machine's other users: only names that could be ours count
check_clean() { # label before-snapshot marker
  hang_wait_gone 15 "0 s" "$3" || { fail "$1: processes left"; pkill -KILL -f -- "$3"; }
  local new ours
  new=$(comm -13 <(echo "$2") <(snapshot) | grep -v '^$' | grep -v ':$')
  ours=$(echo "$new" | grep -iE 'gasnet|shm|memfd|t_exit' || true)
  echo "   $1: new entries in /dev/shm or /tmp: $(echo ${new:-none})"
  [ -z "$ours" ] || fail "$1: left behind: $ours"
}
end_case() { # mode want-rc want-pattern
  local marker="t-shm-end-$1-$$" before out rc
  before=$(snapshot)
  out=$(GASNET_SUPERNODE_MAXSIZE=0 "$GASNETRUN" -n 3 $bin "$1" "$marker" 2>&1); rc=$?
  echo "== mode $1: exit $rc (want $2)"; echo "$out" | tail -4 | sed 's/^/   /'
  [ "$rc" = "$2" ] || fail "mode $1: exit $rc, want $2"
  echo "$out" | grep -q -- "$3" || fail "mode $1: no line matching '$3'"
  check_clean "mode $1" "$before" "$marker"
}
end_case barrier 0 "after the barrier, got 0x5eed0001 from node 1"
end_case poll 42 "pid"
end_case return 44 "pid"

echo "== kill -9 of the launcher while 3 ranks poll"
marker="t-shm-end-launcher-$$"
before=$(snapshot)
out=$(mktemp)
GASNET_SUPERNODE_MAXSIZE=0 "$GASNETRUN" -n 3 $bin wait "$marker" >"$out" 2>&1 </dev/null &
lp=$!
for _ in $(seq 300); do [ "$(grep -c 'mode wait' "$out")" = 3 ] && break; sleep 0.1; done
pid0=$(sed -n 's/^node 0: pid \([0-9]*\) mode wait$/\1/p' "$out")
if [ -n "$pid0" ]; then
  seg=$(grep -c 'memfd:gasnet-segment' "/proc/$pid0/maps"); reg=$(grep -c 'memfd:gasnet-shm' "/proc/$pid0/maps")
  echo "   rank 0 (pid $pid0) maps $seg segment memfd mappings (want 3: its own, 2 neighbours') and $reg shm region mappings"
  [ "$seg" -ge 3 ] && [ "$reg" -ge 1 ] || fail "rank 0 does not map the shared segments and regions"
else
  fail "the ranks did not start: $(tail -3 "$out")"
fi
hang_t0
kill -9 "$lp"; wait "$lp" 2>/dev/null
check_clean "kill -9 of the launcher" "$before" "$marker"
echo "   the ranks were gone $(hang_secs) s after the kill"
rm -f "$out"
[ $fails = 0 ] && echo "t-shm-end: all passed"
exit $fails
