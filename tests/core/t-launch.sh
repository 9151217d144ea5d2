#!/bin/bash
# conduits: udp tcp
# bypass: on
# timeout: 120
# t-launch.sh - starting a job without gasnetrun's own command line
# (docs/launcher.md, "A program started by itself" and "amudprun"):
#   ./t_launch 4 argv 4 A 'B c'   no launcher, a number first: 4 ranks, each
#                                 sees gasnet_nodes() == 4 and argv without
#                                 the 4 (t_launch checks both)      -> 0
#   ./t_launch argv 1 A 'B c'     not a number first: a job of one rank with
#                                 argv untouched                     -> 0
#   ./t_launch 0 argv             no such rank count: one line       -> not 0
#   GASNET_LAUNCHER=/nonexistent  no gasnetrun to start: one line    -> not 0
#   GASNET_SPAWNFN=C GASNET_CSPAWN_CMD=...  ./t_launch 3 ...: the custom
#                                 spawner starts the ranks           -> 0
#   GASNET_CSPAWN_SERVERS="h1 h2 h3 h4", 3 ranks: %M is h1,h2,h3      -> 0
#   GASNET_SPAWNFN=S, no hosts    gasnetrun's own error              -> 2
#   amudprun -np 4 [-spawn L -depth 8 -v] t_launch argv 4 A 'B c'    -> 0
#   amudprun -np 2 -bogus / -spawn X / no -np: one line each         -> 2
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/hang.sh"
cd "$BIN" || exit 1
export GASNET_LAUNCHER="$TOP/spawner/gasnetrun"
AMUDPRUN="$TOP/spawner/amudprun"
T=$(mktemp -d "${TMPDIR:-/tmp}/gnt-launch.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; sed 's/^/     | /' "$T/out" | tail -8; fails=$((fails + 1)); }
# run WHAT WANT_RC WANT_OK_LINES CMD...: rc and the number of "argv ok" lines
run() {
  local what=$1 want=$2 lines=$3; shift 3
  hang_t0
  timeout -k 2 30 "$@" >"$T/out" 2>&1 </dev/null; local rc=$?
  local ok; ok=$(grep -c ': argv ok' "$T/out")
  echo "$what: expected exit $want and $lines 'argv ok' lines; got exit $rc and $ok ($(hang_secs) s)"
  [ "$rc" = "$want" ] && [ "$ok" = "$lines" ] || fail "$what"
}
# expect_line WHAT PATTERN: the last run's output has a line matching it
expect_line() {
  if grep -q -- "$2" "$T/out"; then echo "$1: says '$(grep -m1 -- "$2" "$T/out" | cut -c1-150)'"
  else fail "$1: no line matching '$2'"; fi
}

run "./t_launch 4 argv" 0 4 "$BIN/t_launch" 4 argv 4 A 'B c'
for r in 0 1 2 3; do grep -q "^rank $r of 4: argv ok" "$T/out" || fail "rank $r's line"; done
run "./t_launch argv (no number)" 0 1 "$BIN/t_launch" argv 1 A 'B c'
grep -q "^rank 0 of 1: argv ok (argc 5)" "$T/out" || fail "one rank, argc 5"

timeout -k 2 30 "$BIN/t_launch" 0 argv >"$T/out" 2>&1 </dev/null; rc=$?
echo "./t_launch 0 argv: expected a non-zero exit; got $rc"; [ $rc != 0 ] || fail "./t_launch 0"
expect_line "./t_launch 0" "the number of ranks to start must be 1 to"
GASNET_LAUNCHER=/nonexistent timeout -k 2 30 "$BIN/t_launch" 2 argv >"$T/out" 2>&1 </dev/null; rc=$?
echo "no launcher: expected a non-zero exit; got $rc"; [ $rc != 0 ] || fail "no launcher"
expect_line "no launcher" "asks for 2 ranks, but no gasnetrun was found (looked for GASNET_LAUNCHER=/nonexistent)"

# the custom spawner, as Berkeley's udp conduit runs it: %N copies of %C
GASNET_SPAWNFN=C GASNET_CSPAWN_CMD='for i in $(seq %N); do %C & done; wait' \
  run "GASNET_SPAWNFN=C ./t_launch 3" 0 3 "$BIN/t_launch" 3 argv 3 A 'B c'
# %M from GASNET_CSPAWN_SERVERS, the first N of them (Berkeley's)
GASNET_CSPAWN_SERVERS="h1 h2 h3 h4" GASNET_CSPAWN_CMD='echo hosts %M; for i in $(seq %N); do %C & done; wait' \
  run "GASNET_CSPAWN_SERVERS, ./t_launch 3" 0 3 "$BIN/t_launch" 3 argv 3 A 'B c'
expect_line "%M of GASNET_CSPAWN_SERVERS" "^hosts h1,h2,h3$"
GASNET_SPAWNFN=S GASNET_SSH_SERVERS= run "GASNET_SPAWNFN=S without hosts" 2 0 "$BIN/t_launch" 2 argv 2 A 'B c'
expect_line "GASNET_SPAWNFN=S without hosts" "gasnetrun: ssh spawn needs hosts"

run "amudprun -np 4" 0 4 "$AMUDPRUN" -np 4 "$BIN/t_launch" argv 4 A 'B c'
run "amudprun -np 4 -spawn L -depth 8 -v" 0 4 "$AMUDPRUN" -np 4 -spawn L -depth 8 -v "$BIN/t_launch" argv 4 A 'B c'
expect_line "amudprun -v" "^amudprun: starting 4 ranks of .*t_launch, spawn L (on this host)"
run "amudprun -np 2 -bogus" 2 0 "$AMUDPRUN" -np 2 -bogus "$BIN/t_launch" argv 2 A 'B c'
expect_line "amudprun -bogus" "^amudprun: unknown option -bogus (amudprun takes -np N, -spawn L|S|C, -depth D, -v"
run "amudprun -spawn X" 2 0 "$AMUDPRUN" -np 2 -spawn X "$BIN/t_launch" argv 2 A 'B c'
expect_line "amudprun -spawn X" "^amudprun: -spawn takes L (this host), S (ssh) or C (GASNET_CSPAWN_CMD), not 'X'"
run "amudprun without -np" 2 0 "$AMUDPRUN" "$BIN/t_launch" argv 1 A 'B c'
expect_line "amudprun without -np" "^amudprun: -np is required"

hang_wait_gone 10 "0 s" "$BIN/t_launch" || fails=$((fails + 1))
[ $fails = 0 ] && echo "t-launch: all passed"
exit $fails
