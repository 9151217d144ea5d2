#!/bin/bash
# timeout: 20
# Malformed, truncated, foreign-job, forged and wrong-sender datagrams sent
# from a raw socket are dropped, each counted under its reason; nothing is
# delivered, and the endpoint keeps working.
set -eu
# A datagram of another wire version is also reported, once, naming it;
# a rank of another build is refused at connect.
{ err=$("${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amudp/t_amudp_forge" 2>&1 1>&3); } 3>&1
printf '%s\n' "$err" >&2
n=$(printf '%s\n' "$err" | grep -c 'of amudp wire version 1 (this library speaks version [0-9]*)')
echo "stderr lines naming wire version 1: $n (want 1)"
# ... and a peer of another build is named at connect, with both versions.
c=$(printf '%s\n' "$err" | grep -c 'rank 1 speaks amudp wire version 2, this rank [0-9]*: it runs another build')
echo "stderr lines refusing rank 1 (wire version 2) at connect: $c (want 1)"
[ "$n" = 1 ] && [ "$c" = 1 ]
