#!/bin/bash
# timeout: 60
# parallel: yes (no CPU: it waits out a 2 s liveness timeout; only a hang fails on time)
# A SIGSTOPped rank is declared dead (peer_dead callback naming it) by the
# others after GASNET_UDP_TIMEOUT=2 s: both by a rank owing it data and by
# one merely waiting. Only a hang fails on time (see t_amudp_dead.c); the
# delay is measured by tests/bench/death.sh. Then the same with SIGKILL: the
# rank's sockets close, and its peer's sends to it meet ICMP errors.
set -eu
bin="${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amudp/t_amudp_dead"
GASNET_UDP_TIMEOUT=2 "$bin"
T_DEAD_KILL=1 GASNET_UDP_TIMEOUT=2 "$bin"
