#!/bin/bash
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# timeout: 300
# parallel: yes  (it mostly waits: the launcher's grace and the exit's linger; its jobs are its own copy of t_launch)
# t-exitcodes.sh - the job's exit code is the code a rank gave gasnet_exit
# (or returned from main), in every way a job ends (t_launch.c, "exit S":
# the scenarios of Berkeley's testexit that a launcher decides), at 2 and 4
# ranks (4 only after the first variant), each run bounded and leaving no
# process behind:
#   1 all gasnet_exit(1)   2 all return 2     3 last exits, others in a barrier
#   4 last gets SIGINT, its SIGQUIT handler exits 4 (spec 2.1.0.5)
#   5 last exits, others spin   6 all exit between init and attach
#   7 last exits between init and attach   8/9 last returns, others in a
#   barrier / spinning   10 every rank's handler exits   11 one handler exits
# and (first variant only, it is the launcher's) issue 45: 4 ranks that all
# call gasnet_exit(18) before gasnet_init (a failed gex_Client_Init), or
# right after it, 20 times each: exit 18 every time, each within 10 s.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/hang.sh"
cd "$BIN" || exit 1
# its own copy of t_launch, so that the processes it waits to be gone are
# its own (t-launch.sh runs t_launch too, maybe at the same time)
prog=$(mktemp "${TMPDIR:-/tmp}/t_launch.XXXXXX") && cp "$BIN/t_launch" "$prog" && chmod 755 "$prog" || exit 1
trap 'rm -f "$prog"' EXIT
export GASNET_EXIT_GRACE=0.5   # scenarios 5, 7, 9: the spinning ranks end by SIGQUIT
fails=0
# 2 ranks only in the first variant: the other variants add the conduit's
# way of reporting a lost peer, which 4 ranks show as well.
sizes="4"; first_variant && sizes="2 4"
for n in $sizes; do
  for s in 1 2 3 4 5 6 7 8 9 10 11; do
    hang_t0
    out=$(timeout -k 2 30 "$GASNETRUN" -n $n "$prog" exit $s 2>&1); rc=$?
    echo "scenario $s, $n ranks: expected exit $s; got exit $rc ($(hang_secs) s)"
    if [ "$rc" != "$s" ]; then
      echo "FAIL: scenario $s, $n ranks"; echo "$out" | sed 's/^/     | /' | tail -6; fails=$((fails + 1))
    fi
  done
done
if first_variant; then
  for mode in early initexit; do
    bad=0 codes=""
    for i in $(seq 20); do
      hang_t0
      timeout -k 2 10 "$GASNETRUN" -n 4 "$prog" $mode 18 >/dev/null 2>&1; rc=$?
      codes="$codes $rc"
      [ "$rc" = 18 ] || bad=$((bad + 1))
    done
    echo "$mode: 20 jobs of 4 ranks calling gasnet_exit(18): expected exit 18 each time; got$codes"
    [ $bad = 0 ] || { echo "FAIL: $mode ($bad of 20)"; fails=$((fails + 1)); }
  done
fi
hang_wait_gone 10 "0 s" "$prog" || fails=$((fails + 1))
[ $fails = 0 ] && echo "t-exitcodes: all passed"
exit $fails
