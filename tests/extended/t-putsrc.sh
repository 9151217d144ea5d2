#!/bin/bash
# timeout: 240
# conduits: udp tcp
# bypass: off (puts to a peer whose segment is mapped are a memmove: nothing to borrow)
# t-putsrc.sh - when a put's source may change again (t_putsrc): the copied
# shapes (non-bulk NB/NBI, an lc event) with their source overwritten as
# soon as the call returns, the deferred ones (blocking, bulk, DEFER), which
# may be sent from the source, with it freed as soon as the sync returns;
# every target read back. On 2 ranks, then over udp with 10% loss, 5%
# duplicates and 5% reordered, then the same under valgrind memcheck (a
# read of a freed source is an error there; skipped without valgrind).
# Over udp the borrowed sends are counted: only the deferred shapes, and
# each of them from 64 KiB on.
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
borrows=0; [ "$CONDUIT" = udp ] && borrows=1
vg= # valgrind's command line, for the last run
run() { # label max env...
  local label=$1 max=$2; shift 2
  echo "== $label: $* gasnetrun -n 2 $vg t_putsrc $max $borrows"
  out=$(env "$@" "$GASNETRUN" -n 2 $vg ./t_putsrc "$max" "$borrows" 2>&1); rc=$?
  echo "$out" | tail -n 12
  got=$(echo "$out" | grep -c '^t_putsrc: node .* puts verified')
  echo "$label: expected exit 0, 2 'puts verified' lines and no valgrind report; got exit $rc and $got"
  [ "$rc" = 0 ] && [ "$got" = 2 ] && ! echo "$out" | grep -q '^==[0-9]*== [A-Z]' \
    || { echo "FAIL: $label"; fails=$((fails + 1)); }
}
run "2 ranks" $((5 * 1024 * 1024 + 3))
if [ "$CONDUIT" = udp ]; then
  faults="GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05"
  run "2 ranks, faults" $((3 * 1024 * 1024 + 5)) $faults
  if command -v valgrind >/dev/null; then
    vg="valgrind -q --error-exitcode=9"
    run "memcheck, faults" $((1024 * 1024 + 17)) $faults
  else
    echo "SKIPPED PART: valgrind not installed (Debian package: valgrind)"
  fi
fi
[ $fails = 0 ] && echo "t-putsrc: all passed"
exit $fails
