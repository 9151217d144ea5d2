#!/bin/bash
# timeout: 150
# t-route.sh - the contracts of the middle of the library (issue 11), on
# real jobs with their counters (GASNET_STATSFILE):
#  1. the route table with mixed entries: under the test-only mix conduit
#     (conduit/mix.c: pair (a,b) over TCP when a+b is odd, else UDP) every
#     rank of a 4-rank AM stress run sends frames through both transports,
#     and the run's totals are right;
#  2. two transports' descriptors in the one wait: those ranks also slept
#     in the core's wait (core.waits > 0) while both served them;
#  3. a send that finds the queue full makes progress and completes: with
#     one request credit (UDP) or a zero-byte queue bound (TCP), sends are
#     refused ("not now"), the core retries after progress
#     (core.send_retries > 0), and the stress run still verifies;
#  4. Medium payloads arrive 16-byte aligned: core.medium_realigned is 0;
#  5. t_internal on each conduit, 1 to 4 ranks: handlers registered after
#     attach, and Mediums written into a buffer the transport lends
#     (prepare/commit: amudp lends its own, amtcp the core's copy).
set -u
cd "$TOP/tests/core" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-route.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
stat() { # file name -> value (0 when absent)
  local v; v=$(sed -n "s/^$2 //p" "$1" | head -1); echo "${v:-0}"
}
run() { # label, env..., command...
  local label=$1; shift
  rm -f "$tmp"/st.*
  out=$(env GASNET_STATSFILE="$tmp/st" "$@" 2>&1); rc=$?
  total=$(echo "$out" | sed -n 's/^node 0: all nodes: \(.*\)$/\1/p')
  echo "== $label: exit $rc; totals: ${total:-none}"
  [ "$rc" = 0 ] && [ -n "$total" ] || { echo "FAIL: $label"; echo "$out" | tail -5; fails=$((fails + 1)); }
}
want() { # label, value, op, bound
  if [ "$2" "$3" "$4" ]; then echo "ok   $1 = $2 ($3 $4)"; else echo "FAIL $1 = $2, want $3 $4"; fails=$((fails + 1)); fi
}

run "mix conduit, 4 ranks" "$TOP/spawner/gasnetrun" -n 4 ./mix/t_amstress 200
for r in 0 1 2 3; do
  f="$tmp/st.$r"
  want "rank $r udp_frames_sent" "$(stat "$f" udp_frames_sent)" -gt 0
  want "rank $r tcp_frames_sent" "$(stat "$f" tcp_frames_sent)" -gt 0
  want "rank $r core.waits" "$(stat "$f" core.waits)" -gt 0
  want "rank $r core.medium_realigned" "$(stat "$f" core.medium_realigned)" -eq 0
done

run "udp, one request credit" GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_CREDITS=1 "$TOP/spawner/gasnetrun_udp" -n 2 ./t_amstress 200
want "udp rank 0 core.send_retries" "$(stat "$tmp/st.0" core.send_retries)" -gt 0
want "udp rank 0 core.medium_realigned" "$(stat "$tmp/st.0" core.medium_realigned)" -eq 0
run "tcp, GASNET_TCP_QUEUE_MAX=0" GASNET_SUPERNODE_MAXSIZE=1 GASNET_TCP_QUEUE_MAX=0 GASNET_TCP_SOCKBUF=4096 \
  "$TOP/spawner/gasnetrun_tcp" -n 2 ./tcp/t_amstress 200
want "tcp rank 0 core.send_retries" "$(stat "$tmp/st.0" core.send_retries)" -gt 0
for c in udp tcp mix; do
  bin=./t_internal; [ $c = udp ] || bin=./$c/t_internal
  for n in 1 2 4; do
    out=$("$TOP/spawner/gasnetrun" -n $n $bin 2>&1); rc=$?
    echo "$out" | grep '^node 0' | sed "s/^/$c -n $n: /"
    lines=$(echo "$out" | grep -c 'lent Mediums')
    if [ $rc = 0 ] && [ "$lines" = $n ]; then echo "ok   t_internal $c -n $n"
    else echo "FAIL t_internal $c -n $n: exit $rc, $lines of $n nodes verified"; echo "$out" | tail -4; fails=$((fails + 1)); fi
  done
done
[ $fails = 0 ] && echo "t-route: all passed"
exit $fails
