# common.sh - helpers sourced by tests/spawner/t-*.sh (not a test itself).
set -u
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
GASNETRUN=${GASNETRUN:-$TOP/spawner/gasnetrun}
TB=$TOP/tests/spawner/t_boot
TA=$TOP/tests/spawner/t_auth
. "$TOP/tests/lib/hang.sh"
[ -x "$GASNETRUN" ] && [ -x "$TB" ] || { echo "FAIL: not built ($GASNETRUN, $TB)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/gnt-spawner.XXXXXX")
MARK="gntmark-$$-$RANDOM"          # unique argv token: finds our processes
cleanup() { pkill -9 -f "$MARK" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check_eq() { # WHAT GOT WANT
  if [ "$2" = "$3" ]; then echo "ok: $1 = '$3'"; else fail "$1: got '$2', want '$3'"; fi
}
# run SECS CMD...: CMD bounded; sets RC, OUT and ERR (files), MS (elapsed)
run() {
  local s=$(date +%s%N)
  timeout -k 2 "$1" "${@:2}" >"$T/out" 2>"$T/err" </dev/null
  RC=$?; OUT=$T/out; ERR=$T/err; MS=$(( ($(date +%s%N) - s) / 1000000 ))
}
ms_to_s() { awk -v m="$1" 'BEGIN { printf "%.1f", m / 1000 }'; }
show() { echo "--- stdout:"; head -c 2000 "$OUT"; echo "--- stderr:"; head -c 2000 "$ERR"; echo "---"; }
survivors() { pgrep -f "$MARK" | grep -v "^$$\$" | wc -l; }
no_survivors() { [ "$(survivors)" = 0 ]; }
# wait_for SECS CMD...: poll until CMD succeeds (SECS only bounds a hang)
wait_for() {
  local end=$(( $(date +%s) + $1 )); shift
  while ! "$@"; do [ "$(date +%s)" -ge $end ] && return 1; sleep 0.05; done
}
finish() {
  if [ $fails = 0 ]; then echo "PASS: all checks passed"; exit 0; fi
  echo "FAIL: $fails check(s) failed"; exit 1
}
