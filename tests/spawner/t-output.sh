#!/bin/bash
# t-output.sh - every rank's stdout/stderr reaches the launcher's, whole
# lines never mixed (16 ranks printing 4000-byte lines at once), -v prefixes
# "[rank] ", nothing lost at exit, a final partial line is flushed.
# timeout: 60
. "$(dirname "$0")/common.sh"

run 30 "$GASNETRUN" -v -n 16 "$TB" -B 1 -p 100 4000 -q "$MARK"
check_eq "-v 16x100 lines: status" "$RC" 0
check_eq "-v: lines" "$(wc -l <"$OUT")" 1600
# each line: "[r] " then 4000 times the rank's letter, nothing else
bad=$(awk '{ if (!match($0, /^\[[0-9]+\] /)) { print "noprefix"; next }
             r = substr($0, 2, index($0, "]") - 2); body = substr($0, RLENGTH + 1)
             L = sprintf("%c", 65 + r % 26); s = body; gsub(L, "", s)
             if (length(body) != 4000 || s != "") print "bad line of rank " r; n[r]++ }
           END { for (r = 0; r < 16; r++) if (n[r] != 100) print "rank " r " has " n[r] " lines" }' "$OUT" | head -5)
check_eq "-v: malformed or missing lines" "$bad" ""

run 30 "$GASNETRUN" -n 8 "$TB" -p 200 5000 -q "$MARK"
check_eq "8x200 lines of 5000: status" "$RC" 0
check_eq "no -v: lines" "$(wc -l <"$OUT")" 1600
bad=$(awk '{ L = substr($0, 1, 1); s = $0; gsub(L, "", s); if (length($0) != 5000 || s != "") print "mixed line"; n[L]++ }
           END { for (L in n) if (n[L] != 200) print L " has " n[L] " lines" }' "$OUT" | head -5)
check_eq "no -v: mixed lines" "$bad" ""

run 10 "$GASNETRUN" -n 1 printf abc
check_eq "one rank, partial line: stdout" "$(od -An -c "$OUT" | tr -s ' ')" " a b c"
run 10 "$GASNETRUN" -n 2 -v sh -c 'printf x; printf "e1\ne2" >&2'
check_eq "two ranks, partial lines ended: stdout" "$(sort "$OUT" | tr '\n' '|')" "[0] x|[1] x|"
check_eq "stderr lines" "$(sort "$ERR" | tr '\n' '|')" "[0] e1|[0] e2|[1] e1|[1] e2|"
finish
