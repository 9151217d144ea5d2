#!/bin/bash
# bench/scale.sh [RANKS [NSTORM [CAP]]] - a large local job: core/t_amstress
# on RANKS ranks (default 256) with its CAP mode (one request per category
# per pair, payloads 1..CAP bytes, default 8192; NSTORM storm requests per
# rank, default 100), for udp and tcp, the shared-memory bypass on (the
# default: one neighbourhood of RANKS) and off (GASNET_SUPERNODE_MAXSIZE=1:
# every peer over the network). Per run: milliseconds from launch to the
# first barrier and to the end, AM round trips per second over the whole
# job, and per rank the peak RSS (VmHWM), the anonymous and shared resident
# memory and the open descriptors (max over ranks; mean in parentheses).
# Raw probes in the same run, since the machine is shared and noisy: fork/
# exec+wait of RANKS /bin/true (bench/startup_ref) beside the start-up, and
# the same test on 8 ranks with RANKS/8 times the storm beside the round-trip
# rate (about as many round trips per rank: the ratio says what a rank pays
# for having RANKS - 1 peers instead of 7). "exit": from the storm's end (the
# last barrier) to the launcher's exit, every rank's gasnet_exit included.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
n=${1:-256} nstorm=${2:-100} cap=${3:-8192}
ref=$top/tests/bench/startup_ref
[ -x "$ref" ] && [ -x "$top/tests/core/t_amstress" ] && [ -x "$top/tests/core/tcp/t_amstress" ] ||
  { echo "scale.sh: build first (make)"; exit 1; }
mkdir -p "${SCALE_TMP:-$top/tests/out}" && out=$(mktemp -d "${SCALE_TMP:-$top/tests/out}/scale.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
fails=0

# job CONDUIT BYPASS RANKS [NSTORM]: run it, leave its output in $out/job.
job() {
  local bin=$top/tests/core/t_amstress env=()
  [ "$1" = tcp ] && bin=$top/tests/core/tcp/t_amstress
  [ "$2" = off ] && env=(GASNET_SUPERNODE_MAXSIZE=1)
  local t0=$EPOCHREALTIME
  env "${env[@]}" T_LAUNCH_NS="$(date +%s%N)" timeout 300 "$top/spawner/gasnetrun_$1" -n "$3" \
    "$bin" "${4:-$nstorm}" 0 "$cap" >"$out/job" 2>&1
  local rc=$?
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "total %.0f\n", (b - a) * 1000 }' >>"$out/job"
  grep -q '^node 0: all nodes: .* equal$' "$out/job" && [ $rc = 0 ] ||
    { echo "FAILED: $1 bypass $2, $3 ranks (exit $rc):"; grep -v '^node' "$out/job" | head -5; fails=$((fails + 1)); }
}
# rate: AM round trips per second between the first barrier and the storm's end.
rate() {
  awk '/^node 0: first barrier/ { a = $5 } /^node 0: storm done/ { b = $5 }
       /^node 0: all nodes:/ { r = $5 } END { if (b > a) printf "%.0f", r / ((b - a) / 1000) }' "$out/job"
}
ms() { sed -n "s/^node 0: $1 \([0-9]*\) ms.*/\1/p" "$out/job"; }
res() { # FIELD (2 VmHWM, 5 RssAnon, 8 RssShmem, 10 descriptors): "max (mean)"
  sed -n 's/^node [0-9]*: resources: //p' "$out/job" | tr -d ',' |
    awk -v f="$1" '{ v = $f; s += v; if (v > m) m = v } END { if (NR) printf "%d (%d)", m, s / NR }'
}

printf "t_amstress %s 0 %s on %s ranks; memory in kB per rank, max (mean)\n" "$nstorm" "$cap" "$n"
printf "%-7s %-6s %8s %8s %8s %7s %7s %7s %14s %14s %14s %9s\n" conduit bypass "1st-bar" exit total \
  "rt/s" "rt/s@8" ratio VmHWM RssAnon RssShmem fds
for c in udp tcp; do
  for b in on off; do
    job $c $b 8 $((nstorm * (n > 8 ? n / 8 : 1)))
    r8=$(rate)
    job $c $b "$n"
    r=$(rate)
    first=$(ms "first barrier") storm=$(ms "storm done")
    total=$(sed -n 's/^total //p' "$out/job")
    exit_ms=$( [ -n "$storm" ] && [ -n "$total" ] && echo $((total - storm)))
    ratio=$( [ -n "$r" ] && [ -n "$r8" ] && echo "scale=2; $r / $r8" | bc)
    printf "%-7s %-6s %5s ms %5s ms %5s ms %7s %7s %6sx %14s %14s %14s %9s\n" $c $b "${first:-?}" \
      "${exit_ms:-?}" "${total:-?}" "${r:-?}" "${r8:-?}" "${ratio:-?}" "$(res 2)" "$(res 5)" "$(res 8)" "$(res 10)"
  done
done
raw=$(for i in 1 2 3; do "$ref" "$n" /bin/true; done | sort -n | sed -n 2p)
echo "raw probe: fork/exec+wait of $n /bin/true: $raw ms (median of 3)"
exit $fails
