#!/bin/bash
# timeout: 30
# A SIGSTOPped rank is declared dead (peer_dead callback naming it) by the
# others after GASNET_UDP_TIMEOUT=2 s: both by a rank owing it data and by
# one merely waiting.
set -eu
GASNET_UDP_TIMEOUT=2 "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amudp/t_amudp_dead"
