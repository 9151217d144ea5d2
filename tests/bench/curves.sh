#!/bin/bash
# tests/bench/curves.sh [OUTDIR] - the benchmark curves of docs/performance.md:
# am_pingpong (udp) and tcp_bench (tcp), 2 ranks, the shared-memory bypass
# off (GASNET_SUPERNODE_MAXSIZE=1: the network), their tables kept in OUTDIR
# (default tests/out/curves) beside rtt.png and bw.png drawn by
# plot_curves.py: the AM round trip and bandwidth against size, each with
# its raw probe. ITERS (default 5000) round trips per size. Needs
# /usr/bin/python3 with matplotlib (contrib/install-deps.sh --tests).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/tests/out/curves}
iters=${ITERS:-5000}
mkdir -p "$out" || exit 1
cd "$top/tests/bench" || exit 1
export GASNET_SUPERNODE_MAXSIZE=1
timeout 600 "$top/spawner/gasnetrun" -n 2 ./am_pingpong "$iters" >"$out/am_pingpong-udp.txt" 2>&1 ||
  { echo "curves.sh: am_pingpong failed:"; tail -3 "$out/am_pingpong-udp.txt"; exit 1; }
timeout 600 "$top/spawner/gasnetrun_tcp" -n 2 ./tcp_bench "$iters" >"$out/tcp_bench-tcp.txt" 2>&1 ||
  { echo "curves.sh: tcp_bench failed:"; tail -3 "$out/tcp_bench-tcp.txt"; exit 1; }
exec /usr/bin/python3 "$top/tests/bench/plot_curves.py" "$out" \
  udp="$out/am_pingpong-udp.txt" tcp="$out/tcp_bench-tcp.txt"
