#!/bin/bash
# timeout: 20
# Malformed, truncated, foreign-job, forged and wrong-sender datagrams sent
# from a raw socket are dropped, each counted under its reason; nothing is
# delivered, and the endpoint keeps working.
set -eu
# A datagram of another wire version is also reported, once, naming it.
{ err=$("${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amudp/t_amudp_forge" 2>&1 1>&3); } 3>&1
printf '%s\n' "$err" >&2
n=$(printf '%s\n' "$err" | grep -c 'of amudp wire version 1 (this library speaks version [0-9]*)')
echo "stderr lines naming wire version 1: $n (want 1)"
[ "$n" = 1 ]
