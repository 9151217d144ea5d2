#!/bin/bash
# timeout: 120
# t-segsize.sh - GASNET_MAX_SEGSIZE in Berkeley's forms (docs/api.md, its
# row in the core table), read by a job of 4 ranks on this host, each limit
# compared to the exact byte count (P = physical memory, pages of 4096):
#   128MB/P, 128MB, 64M, 2GiB/p   per process: 134217728, 134217728,
#                                 67108864, 2147483648
#   1G/H                          the host's, shared by its 4 ranks: 268435456
#   0.5/H                         page_down(floor(P/2) / 4)
#   0.25, .5/P                    page_down(floor(P/4)), page_down(floor(P/2))
#   1048576, 100000               bytes: 1048576, 98304 (a page down)
#   abc, 1.5, 5/X, /H, -1, 0x100, 12QB   one line "GASNET_MAX_SEGSIZE='V': why",
#                                 a non-zero exit
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
page_down() { echo $(( $1 / 4096 * 4096 )); }
# limits VALUE: a 4-rank job's limits in l, g (empty when none), its
# physical memory in p, its output in out and exit code in rc
limits() {
  out=$(GASNET_MAX_SEGSIZE="$1" timeout -k 2 30 "$GASNETRUN" -n 4 "$BIN/t_launch" segsize 2>&1); rc=$?
  read -r l g p <<<"$(echo "$out" | awk '/^max local/ { l = $3; g = $5 } /^phys/ { p = $2 } END { print l, g, p }')"
}
limits ""; phys=$p
if [ "${l:-}" = 18446744073709551615 ]; then echo "SKIP: GASNET_SEGMENT_EVERYTHING: no segment limit"; exit 77; fi
echo "unset: local $l, global $g, physical memory $phys"
half=$(( phys / 2 ))
for spec in "128MB/P 134217728" "128MB 134217728" "64M 67108864" "2GiB/p 2147483648" \
            "1G/H 268435456" "0.5/H $(page_down $(( half / 4 )))" "0.25 $(page_down $(( phys / 4 )))" \
            ".5/P $(page_down $half)" "1048576 1048576" "100000 98304"; do
  v=${spec% *}; want=${spec#* }
  limits "$v"
  echo "GASNET_MAX_SEGSIZE=$v: expected local = global = $want; got local ${l:-none}, global ${g:-none} (exit $rc)"
  if [ "${l:-}" != "$want" ] || [ "${g:-}" != "$want" ] || [ $rc != 0 ]; then
    echo "FAIL: $v"; echo "$out" | sed 's/^/     | /' | tail -4; fails=$((fails + 1))
  fi
done
for v in abc 1.5 5/X /H -1 0x100 12QB; do
  limits "$v"
  line=$(echo "$out" | grep -m1 -F "GASNET_MAX_SEGSIZE='$v': ")
  echo "GASNET_MAX_SEGSIZE=$v: expected a non-zero exit and a line naming it; got exit $rc: ${line:-no such line}"
  if [ $rc = 0 ] || [ -z "$line" ]; then
    echo "FAIL: $v"; echo "$out" | sed 's/^/     | /' | tail -4; fails=$((fails + 1))
  fi
done
[ $fails = 0 ] && echo "t-segsize: all passed"
exit $fails
