#!/bin/bash
# t-jobs.sh - local jobs of 1, 2, 4, 16 and 64 ranks through the real
# launcher: every rank checks exchange (small, and 6000 B/rank which travels
# compressed), broadcast (5000 B from the last rank, compressed) and
# barriers byte by byte against f(rank), and prints a checksum that must be
# the same on every rank. Also: a plain program (hostname) as ranks, and a
# GASNet program started without the launcher is a one-rank job.
# timeout: 60
. "$(dirname "$0")/common.sh"

for n in 1 2 4 16 64; do
  run 30 "$GASNETRUN" -n $n "$TB" -x 24 -b 5000 $((n - 1)) -B 3 -x 6000 -A "$MARK"
  check_eq "n=$n exit status" "$RC" 0
  check_eq "n=$n rank lines" "$(grep -c '^rank [0-9]*/'$n': exchange(24' "$OUT")" $n
  check_eq "n=$n distinct ranks" "$(sed -n 's/^rank \([0-9]*\)\/.*/\1/p' "$OUT" | sort -un | wc -l)" $n
  # everything after "rank R/N:" must be identical on every rank (sums, key)
  check_eq "n=$n distinct results" "$(sed 's/^rank [0-9]*//' "$OUT" | sort -u | wc -l)" 1
  echo "     n=$n result: $(sed -n '1s/^rank [0-9]*\/[0-9]*://p' "$OUT") (${MS} ms)"
  check_eq "n=$n stderr" "$(cat "$ERR")" ""
  [ $RC = 0 ] || show
done

# a plain program: never connects, exits 0 -> fine
run 10 "$GASNETRUN" -n 4 hostname
check_eq "gasnetrun -n 4 hostname: status" "$RC" 0
check_eq "gasnetrun -n 4 hostname: lines" "$(grep -cx "$(hostname)" "$OUT")" 4

# no launcher: a job of one rank, collectives are local copies
run 10 env -u GASNET_BOOT_FD "$TB" -x 16 -b 100 0 -B 2 -g HOME -A
check_eq "no launcher: status" "$RC" 0
check_eq "no launcher: line" "$(sed 's/ self_addr.*//' "$OUT")" \
  "rank 0/1: exchange(16 x 1) ok sum=$(sed -n 's/.*exchange(16 x 1) ok sum=\([0-9a-f]*\).*/\1/p' "$OUT") bcast(100 from 0) ok sum=$(sed -n 's/.*bcast(100 from 0) ok sum=\([0-9a-f]*\).*/\1/p' "$OUT") barriers(2) ok boot_getenv(HOME)=$HOME getenv(HOME)=$HOME"
check_eq "no launcher: boot_self_addr" "$(sed -n 's/.*self_addr=\([^ ]*\).*/\1/p' "$OUT")" none
finish
