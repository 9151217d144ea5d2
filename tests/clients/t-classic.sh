#!/bin/bash
# timeout: 240
# conduits: udp tcp
# t-classic.sh - a client written the way the classic GASNet-1 tests are
# (tests/clients/classic.h: the compile-time decisions of
# ../shared/spec/gasnet-client-extras.md section 3) builds with -Wall
# -Wextra -Werror in SEQ, PARSYNC and PAR, with gasnet.h or gasnet_tools.h
# first, as gnu99 and gnu17, and runs on 2 and 4 ranks: AM round trips
# with checksums, puts/gets, the harness's extra handlers, a broadcast; its
# "local procs" (the nodes of its supernode) are all n with the bypass on,
# 1 with it off (BYPASS, tests/run).
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$TOP" || exit 1
CC=${CC:-gcc}
UC=$(echo "$CONDUIT" | tr a-z A-Z)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
build() { # mode std order-flag out
  local lm=$(echo "$1" | tr A-Z a-z)
  $CC -std="$2" -Wall -Wextra -Werror -DGASNET_$1 -DGASNET_CONDUIT_$UC $3 -Iinclude \
    tests/clients/classic_core.c -o "$4" .libs/libgasnet-$CONDUIT-$lm.a \
    $(pkg-config --libs libuv) -lz -pthread 2>"$tmp/cc.log"
}
# The builds do not depend on the bypass: every combination in the variant
# with it on; with it off only the two programs it runs (the last build of
# each mode below). The runs with the bypass on would repeat [udp]'s under
# tcp (shared memory carries them: tests/lib/conduit.sh, shm_repeats);
# [tcp,noshm] runs tcp's.
modes="SEQ PARSYNC PAR" stds="gnu99 gnu17" orders=("" -DCLASSIC_TOOLS_FIRST)
[ "$BYPASS" = off ] && modes="SEQ PAR" stds=gnu17 orders=(-DCLASSIC_TOOLS_FIRST)
for mode in $modes; do
  for std in $stds; do
    for order in "${orders[@]}"; do
      if build $mode $std "$order" "$tmp/c"; then
        echo "ok   build $mode $std ${order:-gasnet.h-first}"
      else
        echo "FAIL build $mode $std ${order:-gasnet.h-first}"; head -20 "$tmp/cc.log"; fails=$((fails + 1))
      fi
    done
  done
  cp "$tmp/c" "$tmp/classic-$mode"
done
shm_repeats || for mode in SEQ PAR; do
  for n in 2 4; do
    out=$(timeout 120 "$GASNETRUN" -n $n "$tmp/classic-$mode" 50 2>&1); rc=$?
    ok=$(echo "$out" | grep -c "classic client PASSED")
    local_=$n; [ "$BYPASS" = off ] && local_=1
    nlocal=$(echo "$out" | grep "classic client PASSED" | grep -c ", $local_ local procs,")
    echo "$out" | grep -m1 "core $UC" | sed 's/^/     /'
    if [ $rc = 0 ] && [ "$ok" = $n ] && [ "$nlocal" = $n ] && echo "$out" | grep -q "$UC/$mode, core $UC"; then
      echo "ok   run $mode -n $n: $ok of $n passed, conduit named $UC, $local_ local procs (bypass $BYPASS)"
    else
      echo "FAIL run $mode -n $n: exit $rc, $ok of $n passed, $nlocal of $n with $local_ local procs (bypass $BYPASS)"
      echo "$out" | tail -5; fails=$((fails + 1))
    fi
  done
done
[ $fails = 0 ] && echo "t-classic: all passed"
exit $fails
