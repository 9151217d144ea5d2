# common.sh - sourced by tests/install/t-*.sh (after tests/lib/conduit.sh).
#
# install_tree   `make install DESTDIR=$TMP/root` of the whole built tree;
#                sets PREFIX (the installed prefix inside it), PCDIR (its
#                pkgconfig directory) and INSTRUN (the installed
#                gasnetrun_$CONDUIT). $TMP is removed when the script ends.
#                The install is kept in tests/out/install-root with a stamp
#                of the tree outside tests/ (every file's path, size and
#                mtime: sources, Makefiles, built libraries, launchers, the
#                .mak and .pc files; nothing under tests/ is installed),
#                taken after the install; the next install test finding the
#                tree as it was copies that instead of installing again
#                (the same files: DESTDIR is in none of them). Any change to
#                the tree, a rebuild or another install's remade fragments
#                (t-mak's prefix= install) makes it install anew.
# run_client BIN N [LABEL]
#                runs BIN on N ranks with the installed launcher and checks
#                that every rank printed t_client's line, with the sum of
#                its left neighbour's pattern recomputed here; counts
#                failures in $fails.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/t-install.XXXXXX") || exit 1
# make install's SUBDIRS: the tree's but tests/. Nothing under tests/ is
# installed, and the "all" an install makes first would relink every test
# program after a change of prefix (the launcher's bindir is compiled into
# the libraries: t-mak's prefix= install, and the install after it that
# puts the configured one back): two relinks of the whole tree's tests,
# most of t-mak's 50 CPU seconds.
INSTALL_SUBDIRS=$(sed -n 's/^SUBDIRS = //p' "$TOP/Makefile" | sed 's/ tests / /')
trap 'rm -rf "$TMP"' EXIT
fails=0
CLIENT_SRC="$TOP/tests/install"

tree_stamp() {
  (cd "$TOP" && find . -path ./tests -prune -o -name .git -prune -o -name .deps -prune -o \
     -name '*.o' -o -name '*.lo' -o -type f -printf '%p %s %T@\n') | sort | sha256sum | cut -c1-64
}

install_tree() {
  local dest="$TMP/root" prefix cache="$TOP/tests/out/install-root"
  if [ -f "$cache/stamp" ] && [ "$(cat "$cache/stamp")" = "$(tree_stamp)" ] && cp -a "$cache/root" "$dest"; then
    echo "# the tree is as an earlier install test of this run installed it: its install copied from tests/out/install-root"
  else
    if ! make -s -C "$TOP" install SUBDIRS="$INSTALL_SUBDIRS" DESTDIR="$dest" >"$TMP/install.log" 2>&1; then
      echo "FAIL: make install DESTDIR=$dest"; tail -20 "$TMP/install.log"; exit 1
    fi
    rm -rf "$cache"; mkdir -p "$cache"
    cp -a "$dest" "$cache/root" && tree_stamp >"$cache/stamp"
  fi
  prefix=$(sed -n 's/^prefix=//p' "$TOP/contrib/gasnet-$CONDUIT-seq.pc")
  PREFIX="$dest$prefix"
  PCDIR=$(dirname "$(find "$dest" -name "gasnet-$CONDUIT-seq.pc" | head -1)")
  INSTRUN="$PREFIX/bin/gasnetrun_$CONDUIT"
  echo "# installed into DESTDIR=${dest#$TMP/} (prefix $prefix), launcher ${INSTRUN#$dest}"
}

# The sum t_client prints for node r's pattern: W words (r+1)*0x100000001 + i.
pattern_sum() {
  local r=$1 w=4096
  printf '0x%x' $(( w * (r + 1) * 0x100000001 + w * (w - 1) / 2 ))
}

run_client() {
  local bin=$1 n=$2 label=${3:-$(basename "$1")} out rc r left want line
  out=$(timeout -k 2 30 "$INSTRUN" -n "$n" "$bin" 2>&1); rc=$?
  echo "$out" | sed "s/^/  [$label -n $n] /"
  if [ $rc != 0 ]; then echo "FAIL: $label on $n ranks exited $rc"; fails=$((fails + 1)); return; fi
  for ((r = 0; r < n; r++)); do
    left=$(( (r + n - 1) % n )); want=$(pattern_sum $left)
    line=$(echo "$out" | grep "^node $r/$n: ")
    if echo "$line" | grep -q "put from node $left verified (4096 words, sum $want), get ok, AM round trip ok"; then
      echo "ok: $label -n $n node $r: sum $want of node $left's pattern, as computed here"
    else
      echo "FAIL: $label -n $n node $r: expected 'put from node $left verified (4096 words, sum $want), get ok, AM round trip ok'"
      fails=$((fails + 1))
    fi
  done
}
