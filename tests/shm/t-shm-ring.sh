#!/bin/bash
# timeout: 120
# conduits: udp tcp
# bypass: on
# t-shm-ring.sh - the shared-memory rings full all the time
# (GASNET_SHM_RING=4096, the least: a quarter ring per fragment): every
# frame larger than 800 bytes goes in fragments, requests are refused
# (-EAGAIN) and replies wait in the overflow queue, and every message of
# t_amstress (4 ranks, every reply verified) and t_ex_am must still arrive
# exactly once (the programs verify it; the counters may miss the exit's).
# The bypass's own test (with it off there are no rings): only with it on.
# (The counters are written at gasnet_exit, before the last frames of the
# exit itself arrive: frames received may fall short of frames sent by a
# few.)
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/shm/shm.sh"
shm_run "amstress, 4 KiB rings" 4 'requests sent, .* handled: equal' "$(shm_bin core t_amstress)" GASNET_SHM_RING=4096
echo "$out" | grep 'storm done' | head -4 | sed 's/^/   /'
fr=$(shm_sum shm_frames_sent); fg=$(shm_sum shm_fragments_sent); rx=$(shm_sum shm_frames_received)
ea=$(shm_sum shm_eagain); ov=$(shm_sum shm_reply_overflow); rb=$(shm_each shm_ring_bytes)
echo "   frames sent $fr, received $rx, fragments $fg, -EAGAIN $ea, replies in overflow $ov, ring bytes per rank: $rb"
shm_expect "frames received = sent (less the exit's, at most 16), in more fragments than frames" \
  "[ $fr -gt 0 ] && [ $rx -le $fr ] && [ $((fr - rx)) -le 16 ] && [ $fg -gt $fr ]"
shm_expect "the rings ran full (-EAGAIN or overflow)" "[ $((ea + ov)) -gt 0 ]"
shm_run "t_ex_am, 4 KiB rings" 2 'all GASNet-EX checks passed' "$(shm_bin ex t_ex_am)" GASNET_SHM_RING=4096
fr=$(shm_sum shm_frames_sent); rx=$(shm_sum shm_frames_received)
shm_expect "t_ex_am over shm: frames received = sent, less the exit's ($rx of $fr)" \
  "[ $fr -gt 0 ] && [ $rx -le $fr ] && [ $((fr - rx)) -le 4 ]"
[ $fails = 0 ] && echo "t-shm-ring: all passed"
exit $fails
