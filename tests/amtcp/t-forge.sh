#!/bin/bash
# t-forge.sh - amtcp alone (t_amtcp_forge: 2 forked ranks on amtcp_ops)
# facing foreign bytes: a HELLO with a wrong MAC during the mesh is refused
# and logged while the real rank still connects; a frame with a bad length
# on an established connection is logged, that connection closed and the
# peer reported dead ("sent a malformed frame"), without a crash; a rank
# that never answers the handshake makes connect fail after
# GASNET_TCP_CONNECT_TIMEOUT with a message naming it.
# timeout: 60
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
cd "$TOP/tests/amtcp" || exit 1
fails=0
for mode in stranger badframe noshow; do
  out=$(GASNET_TCP_CONNECT_TIMEOUT=1 ./t_amtcp_forge $mode 2>&1); rc=$?
  echo "$out" | grep -vE '^tcp_'
  echo "$out" | grep -E '^tcp_(bad_frames|bad_hellos|peers_dead) [1-9]'
  case $mode in
    stranger) want='refused a connection from .*: bad MAC \(not this job\)' ;;
    badframe) want='closing the connection with rank 0: malformed frame \(bad length: type 1, hdrlen 8, paylen 4294967295\)' ;;
    noshow) want='amtcp: rank 0: no connection with rank 1 after 1 s' ;;
  esac
  echo "$mode: expected exit 0 and a line matching '$want'; got exit $rc"
  [ $rc = 0 ] && echo "$out" | grep -qE "$want" || { echo "FAIL: $mode"; fails=$((fails + 1)); }
done
[ $fails = 0 ] && echo "t-forge: all passed"
exit $fails
