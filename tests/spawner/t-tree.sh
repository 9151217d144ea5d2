#!/bin/bash
# timeout: 120
# t-tree.sh - the ssh spawn tree without sshd: GASNET_SSH_CMD is fake-ssh,
# which runs each relay here as if on the named host (h1..h8, names that do
# not resolve: relays find the launcher through SSH_CONNECTION). Checks:
# data on every rank of 64 over 8 relays with GASNET_SSH_OUT_DEGREE=2; ranks
# blocked by host; the tree's fan-out <= 2, every host once, depth > 1; a
# rank killed deep in the tree ends the job with a line naming the rank and
# its host; SIGTERM is forwarded to every rank; kill -9 of the launcher
# leaves nothing; an unreachable host is named; the launcher's environment
# and -E reach remote ranks. Durations are checked only for hangs; the tree's
# start-up time is measured by tests/bench/tree_startup.sh.
. "$(dirname "$0")/common.sh"
export GASNET_SSH_CMD=$TOP/tests/spawner/fake-ssh GASNET_SSH_OPTIONS="-o Fake=yes" GASNET_SSH_OUT_DEGREE=2
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SPAWNFN
H8=h1,h2,h3,h4,h5,h6,h7,h8
export GNT_SNAP="snap $$"

run 60 "$GASNETRUN" -n 64 -H $H8 "$TB" -x 100 -b 6000 17 -B 2 -g GNT_FAKE_HOST -g GNT_SNAP "$MARK"
check_eq "64 ranks on 8 relays: status" "$RC" 0
[ $RC = 0 ] || show
check_eq "rank lines" "$(grep -c '^rank [0-9]*/64: exchange(100 x 64) ok' "$OUT")" 64
check_eq "distinct results (sums)" "$(sed 's/^rank [0-9]*//; s/ boot_getenv(GNT_FAKE_HOST).*//' "$OUT" | sort -u | wc -l)" 1
check_eq "snapshot on remote ranks" "$(grep -c "boot_getenv(GNT_SNAP)=$GNT_SNAP getenv(GNT_SNAP)=(null)" "$OUT")" 64
# rank r must be on host h(r/8 + 1): blocked by host, in list order
bad=$(sed -n 's/^rank \([0-9]*\)\/64:.*getenv(GNT_FAKE_HOST)=\([^ ]*\) .*/\1 \2/p' "$OUT" |
      awk '{ if ($2 != "h" (int($1 / 8) + 1)) print "rank " $1 " on " $2 }' | head -3)
check_eq "ranks blocked by host" "$bad" ""

# output through relays: whole lines, every one, -v prefixes
run 30 "$GASNETRUN" -v -n 8 -H h1,h2,h3,h4 "$TB" -p 200 5000 -q "$MARK"
check_eq "output via relays: status" "$RC" 0
bad=$(awk '{ r = substr($0, 2, index($0, "]") - 2); body = substr($0, index($0, "] ") + 2)
             L = sprintf("%c", 65 + r % 26); s = body; gsub(L, "", s)
             if (length(body) != 5000 || s != "") print "bad line of rank " r; n[r]++ }
           END { for (r = 0; r < 8; r++) if (n[r] != 200) print "rank " r " has " n[r] " lines" }' "$OUT" | head -3)
check_eq "output via relays: 8 x 200 lines of 5000, none mixed or lost" "$bad" ""

# -E: exported into the remote ranks' real environment
run 30 "$GASNETRUN" -n 4 -H h1,h2 -E GNT_SNAP "$TB" -B 1 -g GNT_SNAP "$MARK"
check_eq "-E over ssh: real env" "$(grep -c "getenv(GNT_SNAP)=$GNT_SNAP\$" "$OUT")" 4

# the tree's shape, seen while a job sleeps: who started each relay
"$GASNETRUN" -n 16 -H $H8 "$TB" -P -B 1 -s 30 "$MARK" >"$T/out" 2>"$T/err" </dev/null &
lp=$!
wait_for 60 sh -c "[ \$(grep -c '^pid:' '$T/out') = 16 ]" || fail "16 ranks did not start"
declare -A host_of
for p in $(pgrep -f -- "--relay"); do
  h=$(tr '\0' '\n' </proc/$p/environ 2>/dev/null | sed -n 's/^GNT_FAKE_HOST=//p')
  [ -n "$h" ] && host_of[$p]=$h
done
tree=""
for p in "${!host_of[@]}"; do
  pp=$(awk '{print $4}' /proc/$p/stat)
  parent=${host_of[$pp]:-}
  [ "$pp" = "$lp" ] && parent=launcher
  [ -n "$parent" ] && tree="$tree$parent>${host_of[$p]} "
done
tree=$(echo $tree | tr ' ' '\n' | sort | tr '\n' ' ')
echo "     tree edges: $tree"
check_eq "relays (hosts)" "$(echo $tree | tr ' ' '\n' | cut -d'>' -f2 | sort -u | tr '\n' ' ')" "h1 h2 h3 h4 h5 h6 h7 h8 "
check_eq "largest fan-out" "$(echo $tree | tr ' ' '\n' | cut -d'>' -f1 | sort | uniq -c | sort -rn | head -1 | awk '{print $1}')" 2
check_eq "edges from the launcher" "$(echo $tree | tr ' ' '\n' | grep -c '^launcher>')" 2
# a rank on the deepest host (h8: ranks 14, 15) killed
victim=$(sed -n 's/^pid: rank 15 pid \([0-9]*\)$/\1/p' "$T/out")
hang_t0
kill -9 "$victim"
wait $lp; rc=$?
secs=$(hang_secs)
check_eq "rank 15 on h8 killed: status" "$rc" 137
check_eq "rank 15 on h8 killed: message" "$(cat "$T/err")" "gasnetrun: rank 15 (on host h8) killed by signal 9 (SIGKILL) before calling gasnet_exit"
hang_check "teardown after the kill (the ranks sleep 30 s)" "$secs" 20 "0.2 s" || fail "teardown hung"
wait_for 30 no_survivors
check_eq "survivors (ranks, relays)" "$(survivors)" 0

# SIGTERM at the launcher reaches the ranks on every relay: with
# GASNET_KILL_GRACE=60, only a forwarded SIGTERM ends them before their 30 s
# sleep is over
GASNET_KILL_GRACE=60 "$GASNETRUN" -n 16 -H $H8 "$TB" -P -B 1 -s 30 "$MARK" >"$T/out" 2>"$T/err" </dev/null &
lp=$!
wait_for 60 sh -c "[ \$(grep -c '^pid:' '$T/out') = 16 ]" || fail "16 ranks did not start"
hang_t0
kill -TERM $lp
wait $lp; rc=$?
secs=$(hang_secs)
check_eq "SIGTERM through the tree: status" "$rc" 143
hang_check "SIGTERM through the tree: the job" "$secs" 20 "0.2 s" || fail "SIGTERM not forwarded?"
wait_for 30 no_survivors
check_eq "SIGTERM through the tree: survivors" "$(survivors)" 0

# kill -9 of the launcher: relays see their parent go and take their ranks
"$GASNETRUN" -n 16 -H $H8 "$TB" -P -B 1 -s 30 "$MARK" >"$T/out" 2>"$T/err" </dev/null &
lp=$!
wait_for 60 sh -c "[ \$(grep -c '^pid:' '$T/out') = 16 ]" || fail "16 ranks did not start"
hang_t0
kill -9 $lp
wait $lp 2>/dev/null
wait_for 30 no_survivors
hang_check "ranks and relays ending after kill -9 of the launcher" "$(hang_secs)" 30 "0.2 s"
check_eq "kill -9 launcher: survivors" "$(survivors)" 0
check_eq "kill -9 launcher: relays left" "$(pgrep -f -- "--relay" | while read p; do tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -c "^GNT_FAKE_HOST="; done | grep -c 1)" 0

# an unreachable host in the list
run 30 "$GASNETRUN" -n 8 -H h1,h2,down3,h4 "$TB" -B 1 -s 20 "$MARK"
check_eq "unreachable host: status" "$RC" 1
check_eq "unreachable host: named" "$(grep -c '^gasnetrun: cannot start the relay on host down3: ' "$ERR")" 1
echo "     $(grep down3 "$ERR" | tr '\n' ' ')"
hang_check "unreachable host: the job" "$(ms_to_s "$MS")" 25 "0.1 s" || fail "unreachable host: hung"
wait_for 30 no_survivors
check_eq "unreachable host: survivors" "$(survivors)" 0

# failures on the remote side are reported by the relay, naming its host
GASNET_SSH_REMOTE_PATH=$T run 20 "$GASNETRUN" -n 4 -H h1,h2 no-such-prog-$$
check_eq "program missing remotely: status" "$RC" 1
check_eq "program missing remotely: message" "$(head -1 "$ERR" | sed "s/host h[12]:/host hN:/")" "gasnetrun: host hN: cannot find program 'no-such-prog-$$'"
GASNET_SSH_REMOTE_PATH=$T/none run 20 "$GASNETRUN" -n 4 -H h1,h2 "$TB" -B 1
check_eq "remote directory missing: status" "$RC" 1
check_eq "remote directory missing: message" "$(head -1 "$ERR" | sed "s/host h[12]:/host hN:/")" "gasnetrun: host hN: cannot enter directory $T/none: No such file or directory"
GASNET_SSH_REMOTE_PATH=$(dirname "$TB") run 20 "$GASNETRUN" -n 4 -H h1,h2 t_boot -B 1 "$MARK"
check_eq "bare name found in GASNET_SSH_REMOTE_PATH: status" "$RC" 0
check_eq "bare name in GASNET_SSH_REMOTE_PATH: ranks" "$(grep -c 'barriers(1) ok' "$OUT")" 4
wait_for 30 no_survivors
check_eq "survivors" "$(survivors)" 0
finish
