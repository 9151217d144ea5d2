#!/bin/bash
# t-shm-memcheck.sh - the shared-memory transport under valgrind memcheck on
# 2 ranks of one host (SEQ): t_amstress (a storm of 100) with the default rings and with
# 4 KiB ones (fragments, refused requests, reply overflow: payloads capped
# at 16 KiB, each counted > 0), and t_ex_am: no
# invalid access, no use of uninitialised memory, no definite leak (a rank
# with errors exits 9), and shm carried the frames. Skipped with a message
# when valgrind is not installed.
# timeout: 180
set -u
cd "$TOP/tests/core" || exit 1
if ! command -v valgrind >/dev/null; then echo "SKIPPED: valgrind not installed (Debian package: valgrind)"; exit 77; fi
CONDUIT=udp
. "$TOP/tests/shm/shm.sh"
vg="valgrind -q --error-exitcode=9 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
run() { # label pass program ring [args...]
  local label=$1 pass=$2 prog=$3 ring=$4; shift 4
  stats="$stats_dir/$(echo "$label" | tr -c 'A-Za-z0-9\n' _)"
  out=$(cd "$(dirname "$prog")" && GASNET_STATSFILE="$stats" GASNET_SHM_RING=$ring "$GASNETRUN" -n 2 $vg "$prog" "$@" 2>&1); rc=$?
  got=$(echo "$out" | grep -cE -- "$pass"); f=$(shm_sum shm_frames_sent)
  echo "$label: expected exit 0, '$pass', no valgrind report, shm frames > 0; got exit $rc, $got lines, $f shm frames"
  [ $rc = 0 ] && [ "$got" -ge 1 ] && [ "$f" -gt 0 ] && ! echo "$out" | grep -q '^==[0-9]*== [A-Z]' \
    || { echo "FAIL: $label"; echo "$out" | tail -20; fails=$((fails + 1)); }
}
# t_amstress's sweep (every category, M = 0..16, to each peer) and a storm
# of 100 random messages (its default 300: the same kinds, 3x the time
# under valgrind)
run "memcheck t_amstress 100" 'handled: equal' "$TOP/tests/core/t_amstress" 131072 100
# With 4 KiB rings, payloads up to the maxima made 30,000 fragments and
# 25 MB through the ring, 10 times the run above under valgrind; capped at
# 16 KiB (t_amstress's CAP: one sweep request per category and peer, the
# storm's sizes capped) it still fragments, refuses and overflows, each
# counted, with 1/100 of the bytes (the full sweep's every M is the run
# above's).
run "memcheck t_amstress 100, 4 KiB rings, 16 KiB payloads" 'handled: equal' "$TOP/tests/core/t_amstress" 4096 100 0 16384
for c in shm_fragments_sent shm_eagain shm_reply_overflow; do
  v=$(shm_sum $c); echo "  4 KiB rings: $c $v (expected > 0)"
  [ "$v" -gt 0 ] || { echo "FAIL: 4 KiB rings: no $c"; fails=$((fails + 1)); }
done
run "memcheck t_ex_am" 'all GASNet-EX checks passed' "$TOP/tests/ex/t_ex_am" 131072
[ $fails = 0 ] && echo "t-shm-memcheck: all passed"
exit $fails
