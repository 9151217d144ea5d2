#!/bin/bash
# timeout: 90
# Notices over UDP (t_amudp_notice.c): all arrive, whole and once, without
# faults; with loss, duplication and reordering injected, some are lost and
# none is resent or corrupted, while the frames beside them are all
# delivered exactly once.
set -eu
bin="${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amudp/t_amudp_notice"
"$bin"
GASNET_UDP_DROP=0.1 GASNET_UDP_DUP=0.05 GASNET_UDP_REORDER=0.05 GASNET_UDP_SEED=7 "$bin"
