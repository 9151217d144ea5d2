# misuse.sh - sourced by the misuse tests: t_misuse PROG RANKS CASE TEXT runs
# PROG CASE on RANKS ranks through $GASNETRUN; it must exit non-zero with a
# message containing TEXT. Prints "ok ..." with the message, or "FAIL ..."
# with the last lines, and counts failures in $fails.
t_misuse() {
  local prog=$1 n=$2 c=$3 want=$4 out rc
  out=$("$GASNETRUN" -n "$n" "$prog" "$c" 2>&1); rc=$?
  if [ "$rc" != 0 ] && echo "$out" | grep -qF -- "$want"; then
    echo "ok   -n $n $c: exit $rc, message: $(echo "$out" | grep -F -- "$want" | head -1)"
  else
    echo "FAIL -n $n $c: exit $rc (want non-zero), want message containing: $want"
    echo "$out" | sed 's/^/     | /' | tail -8
    fails=$((fails + 1))
  fi
}
