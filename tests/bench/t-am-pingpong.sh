#!/bin/bash
# t-am-pingpong.sh - the core AM benchmark (am_pingpong, 2 ranks) without and
# with 10% injected loss. Passes when both runs complete; prints the goals
# (Short AM round trip <= 1.15x the raw UDP one, issue 15; with GASNET_UDP_DROP=0.1 the
# mean Short round trip within 5x the loss-free one) with the measured values,
# which on a shared machine are noisy: goals are reported, not enforced.
# Both over UDP (the shared-memory bypass off: the ranks share a host); then
# once more with the bypass on, for its figures.
# timeout: 120
set -u
cd "$TOP/tests/bench" || exit 1
clean=$(GASNET_SUPERNODE_MAXSIZE=1 "$GASNETRUN" -n 2 ./am_pingpong 1000 2>&1); rc1=$?
echo "$clean"
echo "== with the shared-memory bypass (GASNET_SUPERNODE_MAXSIZE=0)"
GASNET_SUPERNODE_MAXSIZE=0 "$GASNETRUN" -n 2 ./am_pingpong 1000 2>&1 | grep -E '^(AM|raw)'
lossy=$(GASNET_SUPERNODE_MAXSIZE=1 GASNET_UDP_DROP=0.1 "$GASNETRUN" -n 2 ./am_pingpong 1000 2>&1); rc2=$?
echo "$lossy"
# The round-trip table's rows (the floods' rows below it have the same labels).
c=$(echo "$clean" | awk '/^AM Short 0 args/ {print $5; exit}')
cm=$(echo "$clean" | awk '/^AM Short 0 args/ {print $6; exit}')
r=$(echo "$clean" | awk '/^raw UDP busy-poll/ {print $6; exit}')
rm_=$(echo "$clean" | awk '/^raw UDP busy-poll/ {print $7; exit}')
l=$(echo "$lossy" | awk '/^AM Short 0 args/ {print $5; exit}')
rr=$(echo "$clean" | sed -n 's/^summary: Short AM round trip.*ratio of means \([0-9.]*\)x, of medians \([0-9.]*\)x.*/\1 \2/p')
awk -v c="$c" -v cm="$cm" -v r="$r" -v rm="$rm_" -v l="$l" -v rr="$rr" 'BEGIN {
  if (c == "" || l == "" || rr == "") exit;
  split(rr, q, " ");
  printf "goal 1: Short AM mean %.2f us / raw mean %.2f us; median over the interleaved rounds of their ratio %.2fx (of medians %.2fx), goal <= 1.15x: %s\n",
         c, r, q[1], q[2], (q[2] <= 1.15) ? "met" : "not met";
  printf "goal 2: Short AM mean with 10%% loss %.2f us / loss-free %.2f us = %.2fx, goal <= 5x: %s\n",
         l, c, l / c, (l / c <= 5) ? "met" : "not met" }'
echo "exit codes: clean $rc1, with loss $rc2 (expected 0 and 0)"
[ $rc1 = 0 ] && [ $rc2 = 0 ]
