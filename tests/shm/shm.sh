# tests/shm/shm.sh - sourced by the shm area's scripts: run a program of
# another area on the conduit under test and read the transports' counters
# (GASNET_STATSFILE, one file per rank).
#   shm_bin AREA NAME      the conduit's build of tests/AREA/NAME
#   shm_run LABEL N PASS BIN [ENV=VALUE...]
#       run BIN on N ranks with the env given and a stats file; pass when it
#       exits 0 and prints PASS (a grep -E pattern) at least once; sets
#       $out, $rc and $stats (the files' prefix); counts failures in $fails
#   shm_sum COUNTER        COUNTER summed over the ranks' stats files
#   shm_each COUNTER       COUNTER of every rank, space-separated
stats_dir="$TOP/tests/out/shm-stats-${CONDUIT:-udp}-$$"
mkdir -p "$stats_dir"
trap 'rm -rf "$stats_dir"' EXIT
fails=0
shm_bin() {
  case ${CONDUIT:-udp} in
    udp) echo "$TOP/tests/$1/$2" ;;
    *) echo "$TOP/tests/$1/$CONDUIT/$2" ;;
  esac
}
shm_run() {
  local label=$1 n=$2 pass=$3 bin=$4; shift 4
  stats="$stats_dir/$(echo "$label" | tr -c 'A-Za-z0-9\n' _)"
  rm -f "$stats".*
  out=$(cd "$(dirname "$bin")" && env GASNET_STATSFILE="$stats" "$@" "$GASNETRUN" -n "$n" "$bin" 2>&1); rc=$?
  echo "== $label: -n $n $(basename "$bin") $*"
  if [ "$rc" = 0 ] && echo "$out" | grep -qE "$pass"; then
    echo "   exit 0 and '$pass': ok"
    return 0
  fi
  echo "FAIL: $label: expected exit 0 and '$pass'; got exit $rc"; echo "$out" | tail -8
  fails=$((fails + 1))
  return 1
}
shm_sum() { cat "$stats".* 2>/dev/null | awk -v c="$1" '$1 == c { s += $2 } END { print s + 0 }'; }
shm_each() { for f in "$stats".*; do awk -v c="$1" '$1 == c { print $2 }' "$f"; done | tr '\n' ' '; }
# the network transport's frame counter under this conduit
case ${CONDUIT:-udp} in tcp) net_frames=tcp_frames_sent ;; *) net_frames=udp_data_sent ;; esac
# shm_expect WHAT CONDITION: print and count
shm_expect() {
  if eval "$2"; then echo "   $1: ok"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
