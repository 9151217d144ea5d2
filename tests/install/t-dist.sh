#!/bin/bash
# t-dist.sh - the `make dist` tarball, used as UPC++'s `configure
# --with-gasnet=<tarball>` uses Berkeley GASNet's: unpacked, configured in
# a build directory of its own with the options such scripts pass, built:
# timeout: 900  (configure and a whole build on a crowded host)
#  1. `make dist` makes gasnet-ethernet-<version>.tar.gz (moved to $TMP),
#     tar reporting no file it could not store; it unpacks to
#     gasnet-ethernet-<version>/ with a configure script, and every file of
#     `git ls-files` (but .gitignore, .keep and .ci/) is in it;
#  2. configure options a build script names wrongly are refused before
#     anything is checked: two segment options ("conflicting segment
#     options: --enable-segment-fast --enable-segment-large");
#  3. in build/ (out of the source tree), configure with Berkeley GASNet's
#     options as UPC++ and Legion pass them (--enable-udp --enable-par
#     --disable-seq --disable-parsync --enable-segment-large
#     --disable-auto-conduit-detect --enable-pshm --enable-mpi-compat
#     --enable-ibv --disable-mpi --with-cc=... --with-cflags=...
#     --with-mpi-cc=mpicc --with-segment-mmap-max=... --enable-kind-cuda-uva)
#     exits 0 and prints a note naming each option with no effect here
#     (--enable-ibv, --disable-seq, --disable-parsync,
#     --with-segment-mmap-max) and autoconf's one line for the unknown
#     --enable-kind-cuda-uva; --with-cflags reached the libraries' flags
#     (GASNET_CFLAGS of the fragment) and --enable-segment-large
#     gasnet_config.h;
#  4. `make` there builds every library, launcher and fragment (all but
#     tests/: its programs are the main build's, compiled from the same
#     files, which step 1 found in the tarball; leaving them out halves
#     the test); its udp-conduit/udp-par.mak builds t_client.c
#     (client.mk) and it runs on 2 ranks with that tree's gasnetrun_udp.
set -u -o pipefail
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/install/common.sh"
VERSION=$(sed -n 's/^PACKAGE_VERSION = //p' "$TOP/Makefile")
name=gasnet-ethernet-$VERSION
NPROC=2

echo "== 1. make dist"
# automake pipes tar into gzip: a file tar could not store shows only in
# tar's messages, not in make's exit status.
if ! make -s -C "$TOP" dist >"$TMP/dist.log" 2>&1 || [ ! -f "$TOP/$name.tar.gz" ] ||
   grep -q '^tar: ' "$TMP/dist.log"; then
  echo "FAIL: make dist"; grep -m5 '^tar: ' "$TMP/dist.log"; tail -5 "$TMP/dist.log"; rm -f "$TOP/$name.tar.gz"; exit 1
fi
mv "$TOP/$name.tar.gz" "$TMP/"
echo "ok: make dist made $name.tar.gz ($(du -k "$TMP/$name.tar.gz" | cut -f1) kB)"
tar -C "$TMP" -xzf "$TMP/$name.tar.gz" || { echo "FAIL: unpacking $name.tar.gz"; exit 1; }
src="$TMP/$name"
[ -x "$src/configure" ] && echo "ok: it unpacks to $name/ with a configure script" \
  || { echo "FAIL: no $name/configure in the tarball"; exit 1; }
# Every tracked file but git's and CI's own is in it (a header only
# included, a test script found by name, are easy to leave out).
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
  missing=$(git -C "$TOP" ls-files | grep -v -e '\.gitignore$' -e '^\.ci/' -e '/\.keep$' |
            while read -r f; do [ -e "$src/$f" ] || echo "$f"; done)
  [ -z "$missing" ] && echo "ok: every file of git ls-files is in it (but .gitignore, .keep, .ci/)" \
    || { echo "FAIL: tracked files missing from the tarball (list them in a Makefile.am):"; echo "$missing" | sed 's/^/    /'; fails=$((fails + 1)); }
fi

echo "== 2. conflicting options refused"
mkdir -p "$TMP/conflict"
out=$(cd "$TMP/conflict" && "$src/configure" --enable-segment-fast --enable-segment-large 2>&1); rc=$?
msg=$(echo "$out" | grep -o 'error: conflicting segment options.*')
echo "configure --enable-segment-fast --enable-segment-large: exit $rc, '${msg:-no error line}'"
[ $rc != 0 ] && [ "$msg" = "error: conflicting segment options: --enable-segment-fast --enable-segment-large (give one)" ] \
  && echo "ok: refused, naming both" || { echo "FAIL: expected a non-zero exit and that error"; fails=$((fails + 1)); }

echo "== 3. configure with Berkeley GASNet's options, in a build directory"
b="$TMP/build"; mkdir -p "$b"
opts=(--enable-udp --enable-par --disable-seq --disable-parsync --enable-segment-large
      --disable-auto-conduit-detect --enable-pshm --enable-mpi-compat --enable-ibv --disable-mpi
      --with-cc="${CC:-cc}" "--with-cflags=-O1 -g -DT_DIST_CFLAGS" --with-mpi-cc=mpicc
      --with-segment-mmap-max=4GB --enable-kind-cuda-uva)
echo "configure ${opts[*]}"
(cd "$b" && "$src/configure" "${opts[@]}") >"$TMP/configure.log" 2>&1; rc=$?
grep -e 'note:' -e 'WARNING' "$TMP/configure.log" | sort -u | sed 's/^/  | /'
if [ $rc != 0 ]; then echo "FAIL: configure exited $rc"; tail -20 "$TMP/configure.log"; exit 1; fi
echo "ok: configure exit 0"
for o in --enable-ibv --disable-seq --disable-parsync --with-segment-mmap-max=4GB; do
  grep -q "note: $o: " "$TMP/configure.log" && echo "ok: a note for $o" \
    || { echo "FAIL: no note for $o"; fails=$((fails + 1)); }
done
n=$(grep -c 'WARNING: unrecognized options: --enable-kind-cuda-uva$' "$TMP/configure.log")
[ "$n" -ge 1 ] && echo "ok: --enable-kind-cuda-uva: autoconf's 'unrecognized options' warning" \
  || { echo "FAIL: no unrecognized-option warning for --enable-kind-cuda-uva"; fails=$((fails + 1)); }

echo "== 4. make (but tests/), and a client of that build tree"
subdirs=$(sed -n 's/^SUBDIRS = //p' "$b/Makefile" | sed 's/ tests / /')
echo "make SUBDIRS=\"$subdirs\""
if ! make -C "$b" -j$NPROC SUBDIRS="$subdirs" >"$TMP/make.log" 2>&1; then
  echo "FAIL: make in the build directory"; tail -30 "$TMP/make.log"; exit 1
fi
echo "ok: make"
[ ! -e "$b/tests/core/t_launch" ] && echo "ok: tests/ left out (no tests/core/t_launch)" \
  || { echo "FAIL: tests/ was built"; fails=$((fails + 1)); }
mak="$b/udp-conduit/udp-par.mak"
grep -q '^GASNET_CFLAGS = -O1 -g -DT_DIST_CFLAGS' "$mak" && echo "ok: --with-cflags: $(grep '^GASNET_CFLAGS' "$mak")" \
  || { echo "FAIL: --with-cflags not in $mak: $(grep '^GASNET_CFLAGS' "$mak")"; fails=$((fails + 1)); }
grep -qx '#define GASNET_SEGMENT_LARGE 1' "$b/gasnet_config.h" && echo "ok: --enable-segment-large: GASNET_SEGMENT_LARGE in gasnet_config.h" \
  || { echo "FAIL: GASNET_SEGMENT_LARGE not in $b/gasnet_config.h"; fails=$((fails + 1)); }
mkdir -p "$TMP/client"
INSTRUN="$b/spawner/gasnetrun_udp"
if make -s -f "$CLIENT_SRC/client.mk" MAK="$mak" CONDUIT=udp MODE=par SRC="$CLIENT_SRC" OUT="$TMP/client" c 2>&1 &&
   [ -x "$TMP/client/t_client" ]; then
  run_client "$TMP/client/t_client" 2 "t_client(par, tarball build)"
else
  echo "FAIL: building t_client with $mak"; fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-dist: all passed"
exit $fails
