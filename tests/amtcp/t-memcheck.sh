#!/bin/bash
# t-memcheck.sh - 2-rank tcp jobs under valgrind memcheck: no invalid access,
# no use of uninitialised memory (incl. in bytes written to sockets): all-to-all
# Mediums and Longs, then 1 MiB Longs both ways with 16 KiB socket buffers
# (queued and partial writes, in-place reads); then the transport alone
# (t_amtcp_forge: a malformed frame; a rank that never answers the
# handshake of a connection made on first use) also with
# no definite or indirect leak after close.
# Skipped with a message when valgrind is not installed.
# timeout: 240
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
cd "$TOP/tests/amtcp" || exit 1
if ! command -v valgrind >/dev/null; then echo "SKIPPED: valgrind not installed (Debian package: valgrind)"; exit 77; fi
vg="valgrind -q --error-exitcode=9 --leak-check=no"
fails=0
run() { # label, command...
  local label=$1; shift
  out=$("$@" 2>&1); rc=$?
  echo "$out" | grep -E '==[0-9]+==|all nodes|passed|FAIL' | head -30
  echo "$label: expected exit 0 and no valgrind report; got exit $rc"
  [ $rc = 0 ] && ! echo "$out" | grep -q '^==[0-9]*== ' || { echo "FAIL: $label"; fails=$((fails + 1)); }
}
run "a2a" "$TOP/spawner/gasnetrun_tcp" -n 2 $vg ./t_amtcp_traffic a2a 2
run "both, 16 KiB buffers" env GASNET_TCP_SOCKBUF=16384 "$TOP/spawner/gasnetrun_tcp" -n 2 $vg ./t_amtcp_traffic both 6
vgl="$vg --leak-check=full --errors-for-leak-kinds=definite,indirect --trace-children=yes"
run "forge badframe" $vgl ./t_amtcp_forge badframe
run "forge noshow" env GASNET_TCP_TIMEOUT=1 $vgl ./t_amtcp_forge noshow
[ $fails = 0 ] && echo "t-memcheck: all passed"
exit $fails
