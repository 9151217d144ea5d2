#!/bin/sh
# Generate configure and the Makefile.in files (they are not kept in git).
set -e
cd "$(dirname "$0")"
autoreconf --install --force >/dev/null
echo "autogen.sh: now run ./configure"
