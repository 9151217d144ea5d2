#!/bin/bash
# timeout: 30
# t-envdoc.sh - every GASNET_* environment variable the library or the
# launcher reads is documented, and defined exactly once: it appears in
# README.md or docs/*.md, and it has exactly one definition there (a row of a
# table whose first column is headed "variable", the row's first cell naming
# it). The others link to that place. The launcher's variables (those read in
# spawner/) must also be in the manual page docs/gasnetrun.1, which must
# render without warnings when groff or man is installed.
#
# "Read" means: a string literal "GASNET_..." passed to a function whose name
# holds getenv, env_ or opt_ (getenv, boot_getenv, gasnet_getenv, cfg.getenv,
# amudp_env_num, opt_str, ...), or #defined as a name ending in _ENV, in the
# C sources outside tests/.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# "file name" for every variable read, one per line
reads=$(find . -path ./tests -prune -o -path ./.git -prune -o -name '*.[ch]' -print |
  xargs grep -HoE '[A-Za-z0-9_.>-]*(getenv|env_|opt_)[A-Za-z0-9_]*\([^()"]*"GASNET_[A-Z0-9_]+"|#define +[A-Z0-9_]*_ENV +"GASNET_[A-Z0-9_]+"' |
  sed -E 's#^\./([^:]*):.*"(GASNET_[A-Z0-9_]+)"$#\1 \2#' | sort -u)
names=$(echo "$reads" | awk '{print $2}' | sort -u)
echo "variables read by the sources: $(echo "$names" | wc -l) ($(echo $names | tr ' ' ','))"
[ "$(echo "$names" | wc -l)" -ge 30 ] || fail "found only $(echo "$names" | wc -l) variables: is the pattern still right?"

docs=(README.md docs/*.md)
# "file name" for every definition: a row of a table headed "| variable |"
defs=$(awk '
  FNR == 1 { intable = 0 }
  /^\|/ { if (!intable) { intable = 1; head = tolower($0) ~ /^\| *variable *\|/; next }
          if (head && $0 !~ /^\| *-/) {
            split($0, cell, "|"); c = cell[2]
            while (match(c, /GASNET_[A-Z0-9_]+/)) { print FILENAME, substr(c, RSTART, RLENGTH); c = substr(c, RSTART + RLENGTH) }
          }
          next }
  { intable = 0 }' "${docs[@]}")

# one pass over reads ("R file name"), definitions ("D file name") and
# mentions ("M name"): a verdict line per variable read, notes for the rest
mentions=$(grep -ohE 'GASNET_[A-Z0-9_]+' "${docs[@]}" | sort -u)
verdicts=$({ echo "$reads" | sed 's/^/R /'; echo "$defs" | sed 's/^/D /'; echo "$mentions" | sed 's/^/M x /'; } | awk '
  $1 == "R" { read[$3] = read[$3] $2 " " }
  $1 == "D" { ndef[$3]++; where[$3] = where[$3] $2 " " }
  $1 == "M" { seen[$3] = 1 }
  END {
    for (n in read) {
      if (!seen[n]) print "FAIL: " n " (read in " read[n] ") is documented nowhere in README.md or docs/*.md"
      else if (ndef[n] > 1) print "FAIL: " n " is defined " ndef[n] " times: " where[n] "(define it once, link to it elsewhere)"
      else if (!ndef[n]) print "note: " n " is mentioned but has no table row of its own"
    }
    for (n in ndef) if (!(n in read)) print "note: " n " is documented but not read by the library or the launcher"
  }' | sort)
[ -n "$verdicts" ] && echo "$verdicts"
fails=$((fails + $(echo "$verdicts" | grep -c '^FAIL:')))
echo "definitions (table rows) found: $(echo "$defs" | grep -c .) in $(echo "$defs" | awk '{print $1}' | sort -u | tr '\n' ' ')"

# the manual page names every launcher variable
launcher=$(echo "$reads" | awk '$1 ~ /^spawner\// {print $2}' | sort -u)
missing=""
for n in $launcher; do grep -q -- "^\.B $n\$" docs/gasnetrun.1 || missing="$missing $n"; done
echo "launcher variables: $(echo $launcher | wc -w); missing from docs/gasnetrun.1 ENVIRONMENT:${missing:- none}"
[ -z "$missing" ] || fail "docs/gasnetrun.1 does not describe:$missing"
if command -v groff >/dev/null; then
  warn=$(groff -man -Tutf8 -ww -z docs/gasnetrun.1 2>&1)
  echo "groff -man -ww: ${warn:-no warnings}"
  [ -z "$warn" ] || fail "docs/gasnetrun.1 does not render cleanly"
elif command -v man >/dev/null; then
  man -l docs/gasnetrun.1 >/dev/null 2>&1 || fail "man -l docs/gasnetrun.1 failed"
else
  echo "SKIPPED PART: the manual page's rendering (neither groff nor man installed)"
fi
[ $fails = 0 ] && echo "t-envdoc: all passed"
exit $fails
