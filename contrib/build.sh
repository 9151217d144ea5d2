#!/bin/sh
# Build the whole tree in place: packages, autogen, configure, make.
# Reconfigures only when needed, so it is cheap to call again.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh contrib/install-deps.sh
[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure --quiet
make -j"$(nproc)" >/dev/null || make   # on failure, rerun loud to show the error
