#!/bin/bash
# timeout: 30
# t-links.sh - every relative link of README.md and docs/*.md resolves: a
# markdown link or image [text](target) whose target is not a URL or a bare
# #anchor names a file or directory that exists, relative to the page (the
# part after '#' is not checked: section names are quoted in the text, not
# linked). Also: no page points outside the repository (a link or a
# backquoted path starting ../shared/ or leaving the tree), since the
# documentation must read on its own.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pages=(README.md docs/*.md)
links=0
for page in "${pages[@]}"; do
  dir=$(dirname "$page")
  # one "target" per line: [..](target) and ![..](target), titles dropped
  while IFS= read -r target; do
    [ -n "$target" ] || continue
    case "$target" in
      http://*|https://*|mailto:*|'#'*) continue ;;
    esac
    links=$((links + 1))
    path=${target%%#*}
    resolved=$(realpath -m "$dir/$path")
    case "$resolved" in
      "$top"|"$top"/*) ;;
      *) fail "$page: link '$target' leaves the repository"; continue ;;
    esac
    [ -e "$resolved" ] || fail "$page: link '$target' does not resolve (no ${resolved#"$top"/})"
  done < <(grep -oE '\]\([^) ]+( "[^"]*")?\)' "$page" | sed -E 's/^\]\(//; s/( "[^"]*")?\)$//')
done
echo "relative links checked: $links in ${#pages[@]} pages"
outside=$(grep -nE '\.\./shared/' "${pages[@]}")
[ -z "$outside" ] || { echo "$outside" | sed 's/^/  /'; fail "pages point at ../shared/, outside the repository"; }
[ $fails = 0 ] && echo "t-links: all passed"
exit $fails
