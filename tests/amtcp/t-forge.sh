#!/bin/bash
# timeout: 60
# parallel: yes  (it waits out connect and liveness timeouts of 1 s; its ranks are forked by its own program, on ports of their own)
# t-forge.sh - amtcp alone (t_amtcp_forge: 2 forked ranks on amtcp_ops)
# facing foreign bytes: a HELLO with a wrong MAC during the mesh is refused
# and logged while the real rank still connects; a frame with a bad length
# on an established connection is logged, that connection closed and the
# peer reported dead ("sent a malformed frame"), without a crash; a rank
# that never answers the handshake makes connect fail after
# GASNET_TCP_CONNECT_TIMEOUT with a message naming it (GASNET_TCP_CONNECT=
# eager), or (lazy, the default) the first frame sent to it ends in
# peer_dead once the liveness probes (GASNET_TCP_TIMEOUT) go unanswered; a
# rank whose listener is closed ends in a line naming it after
# GASNET_TCP_CONNECT_TIMEOUT.
set -u
# The ranks share a host: the shared-memory bypass off, so that TCP carries
# what this area tests.
export GASNET_SUPERNODE_MAXSIZE=1
cd "$TOP/tests/amtcp" || exit 1
fails=0
for spec in stranger badframe noshow:eager noshow:lazy unreach; do
  mode=${spec%%:*}; how=lazy; [ "$spec" = "$mode" ] || how=${spec#*:}
  live=30; [ "$spec" = noshow:lazy ] && live=1
  out=$(GASNET_TCP_CONNECT=$how GASNET_TCP_CONNECT_TIMEOUT=1 GASNET_TCP_TIMEOUT=$live ./t_amtcp_forge $mode 2>&1); rc=$?
  echo "$out" | grep -vE '^tcp_'
  echo "$out" | grep -E '^tcp_(bad_frames|bad_hellos|peers_dead) [1-9]'
  case $spec in
    stranger) want='refused a connection from .*: bad MAC \(not this job\)' ;;
    badframe) want='closing the connection with rank 0: malformed frame \(bad length: type 1, hdrlen 8, paylen 4294967295\)' ;;
    noshow:eager) want='amtcp: rank 0: no connection with rank 1 after 1 s' ;;
    noshow:lazy) want='rank 0: expected .*; got 0, peer_dead\(1, "no answer for 1 s: dead or stopped"\)' ;;
    unreach) want='amtcp: rank 0: cannot connect to rank 1 at 127.0.0.1:[0-9]+ for 1 s \(GASNET_TCP_CONNECT_TIMEOUT\): Connection refused' ;;
  esac
  echo "$spec (GASNET_TCP_CONNECT=$how): expected exit 0 and a line matching '$want'; got exit $rc"
  [ $rc = 0 ] && echo "$out" | grep -qE "$want" || { echo "FAIL: $spec"; fails=$((fails + 1)); }
done
[ $fails = 0 ] && echo "t-forge: all passed"
exit $fails
