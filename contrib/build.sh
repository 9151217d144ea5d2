#!/bin/sh
# Build the whole tree in place: packages, autogen, configure, make.
# Reconfigures only when needed, so it is cheap to call again.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh contrib/install-deps.sh
[ -x configure ] || ./autogen.sh
if [ ! -f Makefile ]; then
  # autoconf's tests run "rm -f core", which complains about our core/
  # directory once per test: keep every other line configure prints.
  ./configure --quiet 2>configure.err || { cat configure.err >&2; rm -f configure.err; exit 1; }
  grep -v "^rm: cannot remove 'core': Is a directory$" configure.err >&2 || true
  rm -f configure.err
fi
make -j"$(nproc)" >/dev/null || make   # on failure, rerun loud to show the error
