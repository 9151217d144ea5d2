#!/bin/bash
# tests/bench/portals.sh [ROUNDS [BEFORE]] - Portals beside GASNet on each
# path: ptl_bench (8-byte put + ack round trip, 4 MiB put + ack bandwidth)
# and tcp_bench (the GASNet Short AM round trip, gasnet_put_bulk of 4 MiB,
# and the raw TCP ping-pong and stream of the same run), interleaved ROUNDS
# times (default 5) on udp and tcp, shared memory on and off; per figure
# the median over the rounds and Portals / GASNet. BEFORE: the top of
# another build tree (an earlier commit, built): its ptl_bench runs in the
# same rounds, and its figures and ratios are printed beside ("before").
# Figures only (the goal, within 1.2x, is reported, not enforced).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-5}
before=${2:-}
if [ -n "$before" ] && [ ! -x "$before/tests/bench/ptl_bench" ]; then
  echo "portals.sh: $before/tests/bench/ptl_bench: no such program (BEFORE is a built tree)" >&2
  exit 2
fi
med() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : "nan"}'; }
ratio() { awk "BEGIN{printf \"%.2f\", $1/$2}"; }
# ptl_bench's two figures from one run: "latency bandwidth"
ptl_run() {
  local o
  o=$(GASNET_SUPERNODE_MAXSIZE=$maxsize timeout 120 "$top/spawner/gasnetrun_$conduit" -n 2 "$1" 1000 2>&1)
  echo "$(echo "$o" | awk '/^ptl_bench: put8ack/ {print $6}') $(echo "$o" | awk '/^ptl_bench: put4m/ {print $4}')"
}
for conduit in udp tcp; do
  prog=ptl_bench gas="$top/tests/bench/tcp_bench_udp"
  [ $conduit = tcp ] && prog=ptl_bench_tcp gas="$top/tests/bench/tcp_bench"
  for shm in on off; do
    maxsize=; [ $shm = off ] && maxsize=1
    pl=; pb=; bl=; bb=; gl=; gb=; rl=; rs=
    for r in $(seq "$rounds"); do
      set -- $(ptl_run "$top/tests/bench/$prog"); pl="$pl ${1:-}"; pb="$pb ${2:-}"
      if [ -n "$before" ]; then
        set -- $(ptl_run "$before/tests/bench/$prog"); bl="$bl ${1:-}"; bb="$bb ${2:-}"
      fi
      g=$(GASNET_SUPERNODE_MAXSIZE=$maxsize timeout 300 "$top/spawner/gasnetrun_$conduit" -n 2 "$gas" 1000 2>&1)
      gl="$gl $(echo "$g" | awk '/^AM Short 0 args/ {print $NF}')"
      gb="$gb $(echo "$g" | awk '/^put_bulk 4 MiB/ {print $NF}')"
      rl="$rl $(echo "$g" | awk '/^raw TCP ping-pong/ {print $NF}')"
      rs="$rs $(echo "$g" | awk '/^raw TCP stream, blocking/ {print $NF}')"
    done
    PL=$(echo $pl | med); PB=$(echo $pb | med); GL=$(echo $gl | med); GB=$(echo $gb | med)
    RL=$(echo $rl | med); RS=$(echo $rs | med)
    was=; wasb=
    if [ -n "$before" ]; then
      BL=$(echo $bl | med); BB=$(echo $bb | med)
      was="; before: $BL us, $(ratio $BL $GL)x"; wasb="; before: $BB MB/s, $(ratio $GB $BB)x"
    fi
    echo "$conduit shm $shm ($rounds rounds, medians): latency: Portals put 8 B + ack $PL us, GASNet Short AM round trip $GL us, raw TCP $RL us; Portals/GASNet $(ratio $PL $GL)x (goal <= 1.2x)$was"
    echo "$conduit shm $shm ($rounds rounds, medians): 4 MiB put: Portals $PB MB/s, GASNet put_bulk $GB MB/s, raw TCP stream $RS MB/s; GASNet/Portals $(ratio $GB $PB)x (goal <= 1.2x)$wasb"
  done
done
