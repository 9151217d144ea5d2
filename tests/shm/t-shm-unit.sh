#!/bin/bash
# timeout: 90
# The shared-memory transport (t_amshm_unit.c, amshm/amshm.c) in one
# process: two transports, ranks 0 and 1, connected through their own
# memfds; streams of frames both ways (requests and replies, headers of 0
# to 192 bytes, payloads of 0 to 4 MiB, some lent, some placed) arrive once,
# in order, byte for byte, every send in flight completed exactly once,
# with direct reads on, off, and with 4 KiB rings; hand-written malformed
# records (past the ring's end; a direct read nobody welcomed) make poll
# fail with -EPROTO, nothing delivered. Prints its counts.
set -eu
bin="${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/shm/t_amshm_unit"
"$bin" 3000 1
