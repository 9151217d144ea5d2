#!/bin/bash
# tests/bench/portals.sh [ROUNDS] - Portals beside GASNet on each path:
# ptl_bench (8-byte put + ack round trip, 4 MiB put + ack bandwidth) and
# tcp_bench (the GASNet Short AM round trip, gasnet_put_bulk of 4 MiB, and
# the raw TCP ping-pong and stream of the same run), interleaved ROUNDS
# times (default 5) on udp and tcp, shared memory on and off; per figure
# the median over the rounds and Portals / GASNet. Figures only (the goal,
# within 1.2x, is reported, not enforced).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-5}
med() { sort -g | awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : "nan"}'; }
for conduit in udp tcp; do
  ptl="$top/tests/bench/ptl_bench"; gas="$top/tests/bench/tcp_bench_udp"
  [ $conduit = tcp ] && ptl="$top/tests/bench/ptl_bench_tcp" gas="$top/tests/bench/tcp_bench"
  for shm in on off; do
    maxsize=; [ $shm = off ] && maxsize=1
    pl=; pb=; gl=; gb=; rl=; rs=
    for r in $(seq "$rounds"); do
      p=$(GASNET_SUPERNODE_MAXSIZE=$maxsize timeout 120 "$top/spawner/gasnetrun_$conduit" -n 2 "$ptl" 1000 2>&1)
      g=$(GASNET_SUPERNODE_MAXSIZE=$maxsize timeout 300 "$top/spawner/gasnetrun_$conduit" -n 2 "$gas" 1000 2>&1)
      pl="$pl $(echo "$p" | awk '/^ptl_bench: put8ack/ {print $6}')"
      pb="$pb $(echo "$p" | awk '/^ptl_bench: put4m/ {print $4}')"
      gl="$gl $(echo "$g" | awk '/^AM Short 0 args/ {print $NF}')"
      gb="$gb $(echo "$g" | awk '/^put_bulk 4 MiB/ {print $NF}')"
      rl="$rl $(echo "$g" | awk '/^raw TCP ping-pong/ {print $NF}')"
      rs="$rs $(echo "$g" | awk '/^raw TCP stream, blocking/ {print $NF}')"
    done
    PL=$(echo $pl | tr ' ' '\n' | med); PB=$(echo $pb | tr ' ' '\n' | med)
    GL=$(echo $gl | tr ' ' '\n' | med); GB=$(echo $gb | tr ' ' '\n' | med)
    RL=$(echo $rl | tr ' ' '\n' | med); RS=$(echo $rs | tr ' ' '\n' | med)
    echo "$conduit shm $shm ($rounds rounds, medians): latency: Portals put 8 B + ack $PL us, GASNet Short AM round trip $GL us, raw TCP $RL us; Portals/GASNet $(awk "BEGIN{printf \"%.2f\", $PL/$GL}")x (goal <= 1.2x)"
    echo "$conduit shm $shm ($rounds rounds, medians): 4 MiB put: Portals $PB MB/s, GASNet put_bulk $GB MB/s, raw TCP stream $RS MB/s; GASNet/Portals $(awk "BEGIN{printf \"%.2f\", $GB/$PB}")x (goal <= 1.2x)"
  done
done
