# bench/timing.sh - the start-up benchmarks' helpers (sourced).
#   ms_of CMD...   run CMD (output discarded; a failure is reported on
#                  stderr), print how long it took in milliseconds
#   stats          read numbers, one a line; print "min X  median Y"

ms_of() {
  local t0=$EPOCHREALTIME
  "$@" >/dev/null || echo "FAILED: $*" >&2
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }'
}

stats() { sort -n | awk '{ v[NR] = $1 } END { printf "min %7.1f  median %7.1f", v[1], v[int((NR + 1) / 2)] }'; }
