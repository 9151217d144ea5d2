#!/bin/bash
# timeout: 60
# amtcp's byte stream alone (t_amtcp_frame.c, no socket): frame headers and
# handshake records encoded, decoded and refused for each malformed field
# with its reason; the handshake's MAC as amtcp_wire.h documents it, any
# changed byte, another job's key or a relabelled record refused; seeded
# random streams of frames (0 B to 4 MiB payloads, placed or not, BYE at
# the end of some, a malformed header after good frames in some) fed to
# amtcp_rx_parse cut at every point near each frame's boundaries, in random
# chunks, byte by byte and truncated: exactly the frames sent come back, in
# order, byte for byte, aligned. Prints its counts and the seconds taken.
set -eu
bin="${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amtcp/t_amtcp_frame"
"$bin" 2000 1
