#!/bin/bash
# t-common.sh - common/'s helpers (libgasneti.la) checked on their own by
# t_common: SHA-256 and HMAC-SHA256 test vectors, byte order, the clock, and
# the number and size grammar, and the direct system calls of gasneti_sys.h
# (and their libc fallback). Must exit 0 with "t_common: N checks, 0 failures".
# timeout: 30
set -u
cd "$TOP/tests/common" || exit 1
out=$(./t_common 2>&1); rc=$?
echo "$out"
if [ $rc = 0 ] && echo "$out" | grep -q '^t_common: [0-9]* checks, 0 failures$'; then
  echo "t-common: expected exit 0 and 0 failures; got exit $rc: ok"
  exit 0
fi
echo "FAIL t-common: expected exit 0 and 0 failures; got exit $rc"
exit 1
