#!/bin/bash
# timeout: 90
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-output-exit.sh - output at the end of a job (issue 41): every line a
# rank printed before it called gasnet_exit reaches the launcher's stdout,
# and the job exits 0 with nothing on stderr.
#   barrier  the idiom spec 2.1.0.5 recommends, barrier, one line,
#            gasnet_exit(0), at 128 ranks (3 runs) and 64 (5 runs) on this
#            host: all the lines, every run. With the bypass off 1 and 2
#            runs: what ends the ranks (the linger, the launcher's
#            output) is the core's and the launcher's, which [udp]
#            repeats; the notices then travel over udp or tcp. (The first ranks out of the
#            barrier used to end the others inside it 250 ms of the clock
#            after their exit notice; on a crowded host 77-128 of 128 lines
#            arrived. They now linger 250 ms of their own CPU time.)
#            Also 64 ranks (3 runs) through the ssh spawn tree (udp).
#   reply    rank 1 waits, asleep, for a reply that rank 2 sends after
#            600 ms of work, when rank 0's gasnet_exit comes: the reply
#            arrives and so does the line rank 1 prints after it (2 runs;
#            before the fix, never).
#   print    8 ranks print numbered lines and record how many; the last
#            calls gasnet_exit(0) 200 ms in. Every line a printer recorded
#            arrives, whole and in order, whether the printers poll (ended
#            by the exit notice) or never call GASNet again (ended by the
#            launcher's SIGQUIT, GASNET_EXIT_GRACE=0.5).
. "$(dirname "$0")/common.sh"
. "$TOP/tests/lib/conduit.sh"
P=$BIN/t_output_exit
[ -x "$P" ] || { echo "FAIL: not built ($P)"; exit 1; }

barrier_runs() { # N RUNS [LAUNCHER OPTIONS...]
  local n=$1 runs=$2 k
  shift 2
  for k in $(seq "$runs"); do
    run 60 "$GASNETRUN" "$@" -n "$n" "$P" barrier "$MARK"
    local got want
    got=$(grep -c ' after the barrier$' "$OUT")
    want=$(seq 0 $((n - 1)) | sed "s/.*/rank & of $n: after the barrier/" | sort)
    echo "barrier, $n ranks${1:+ ($*)}, run $k: expected exit 0, $n of $n lines, empty stderr; got exit $RC, $got lines, $(wc -l <"$ERR") stderr lines ($(ms_to_s "$MS") s)"
    if [ "$RC" != 0 ] || [ "$(sort "$OUT")" != "$want" ] || [ -s "$ERR" ]; then
      fail "barrier, $n ranks, run $k"; show
    fi
  done
}
if [ "$BYPASS" = on ]; then barrier_runs 128 3; barrier_runs 64 5
else barrier_runs 128 1; barrier_runs 64 2; fi
# the same through the ssh spawn tree (fake-ssh: 8 relays on this host,
# fan-out 2), where each line crosses one to three relays (udp only: the
# relays' part is the same for tcp)
if [ "$CONDUIT" = udp ]; then
  export GASNET_SSH_CMD=$TOP/tests/spawner/fake-ssh GASNET_SSH_OPTIONS="-o Fake=yes" \
         GASNET_SSH_OUT_DEGREE=2
  unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SPAWNFN
  barrier_runs 64 3 -H h1,h2,h3,h4,h5,h6,h7,h8
  unset GASNET_SSH_CMD GASNET_SSH_OPTIONS GASNET_SSH_OUT_DEGREE
fi

for k in 1 2; do
  run 30 "$GASNETRUN" -n 4 "$P" reply "$MARK"
  check_eq "reply run $k: exit" "$RC" 0
  check_eq "reply run $k: stdout" "$(cat "$OUT")" "rank 1: got the reply"
  check_eq "reply run $k: stderr" "$(cat "$ERR")" ""
done

for how in poll nopoll; do
  d=$T/counts-$how; mkdir -p "$d"
  GASNET_EXIT_GRACE=0.5 run 30 "$GASNETRUN" -n 8 "$P" print "$d" "$how" "$MARK"
  check_eq "print/$how: exit" "$RC" 0
  check_eq "print/$how: stderr" "$(cat "$ERR")" ""
  for r in 0 1 2 3 4 5 6; do
    rec=$(tr -d ' \n' <"$d/$r" 2>/dev/null); rec=${rec:-0}
    # rank r's lines: "rank r line 0 ..." up to the last one it recorded,
    # none missing, none torn; a printer ended inside printf (nopoll: by
    # SIGQUIT) may have up to two more, cut or torn (see below); one that
    # polls is ended by the exit notice at a poll, or, on a host too busy
    # to run it within GASNET_EXIT_GRACE, by SIGQUIT, perhaps between a
    # line and its record: one line more than recorded. A SIGQUIT that
    # interrupts stdio's write of its buffer leaves the buffer as it was,
    # and the flush at exit writes it again: up to a buffer's worth of lines
    # (8 KiB, ~100 lines) may come twice after the last recorded one, from a
    # printer of either kind (seen for a polling one in a CI-equivalent run:
    # its lines 3428 on again after its 3480th, the last it recorded)
    verdict=$(awk -v r="$r" -v rec="$rec" '
      $1 == "rank" && $2 == r {
        # what a printer wrote after its last record (killed by SIGQUIT,
        # possibly inside printf, which no signal handler can finish
        # cleanly) may be cut, torn or repeated: only the recorded lines count
        if (n >= rec) { n++; next }
        if (bad == "" && ($3 != "line" || $4 != n)) { bad = n; badtext = substr($0, 1, 40) }
        else if (length($0) != length("rank " r " line " n " ") + 60 && cut == "") cut = n
        n++
      }
      END { if (bad != "") print "line " bad " is \"" badtext "\""
            else if (cut != "") print "line " cut " is cut short"
            else if (n < rec || n > rec + 2 + 100)
              print n " lines arrived, " rec " printed"
            else print "ok" }' "$OUT")
    check_eq "print/$how: rank $r's $rec lines" "$verdict" ok
  done
done
finish
