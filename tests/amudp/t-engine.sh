#!/bin/bash
# timeout: 120
# amudp's protocol engine alone (t_amudp_engine.c): thousands of seeded
# scenarios on a simulated network (loss, duplication, reordering, delay,
# partitions, stalls, a stopped peer) under a fake clock. Exactly-once
# delivery, no spurious loss detection, RTT, backoff, congestion window,
# RACK, liveness. Prints the number of scenarios and the seconds they took.
set -eu
bin="${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amudp/t_amudp_engine"
"$bin" 3000 1
