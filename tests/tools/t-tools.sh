#!/bin/bash
# t-tools.sh - gasnet_tools.h and its libraries, every name checked by
# t_tools (see t_tools.c), built four ways:
# timeout: 90
#   t_tools_seq         tools-only, GASNETT_THREAD_SINGLE, libgasnet_tools-seq
#   t_tools_par         tools-only, GASNETT_THREAD_SAFE (2 threads), libgasnet_tools-par
#   t_tools_gasnet      gasnet.h then gasnet_tools.h, GASNET_PAR, libgasnet-udp-par
#   t_tools_toolsfirst  gasnet_tools.h then gasnet.h, GASNET_SEQ, libgasnet-udp-seq
# The gasnet.h builds run as 1-rank jobs. Each must exit 0 with
# "t_tools: 0 failures".
set -u
cd "$TOP/tests/tools" || exit 1
fails=0
run() { # name, command...
  local name=$1; shift
  out=$("$@" 2>&1); rc=$?
  echo "$out" | sed "s/^/[$name] /"
  if [ $rc = 0 ] && echo "$out" | grep -q '^t_tools: 0 failures$'; then
    echo "$name: expected exit 0 and 0 failures; got exit $rc: ok"
  else
    echo "FAIL $name: expected exit 0 and 0 failures; got exit $rc"; fails=$((fails + 1))
  fi
}
run seq ./t_tools_seq
run par ./t_tools_par
run gasnet-first "$GASNETRUN" -n 1 ./t_tools_gasnet
run tools-first "$GASNETRUN" -n 1 ./t_tools_toolsfirst
[ $fails = 0 ] && echo "t-tools: all passed"
exit $fails
