#!/bin/bash
# t-misuse.sh - each misuse of the core API ends the job with a message
# naming the call and the problem and a non-zero exit (spec 2.3): run
# t_misuse CASE on 2 ranks (node 0 misbehaves towards node 1) and once on
# 1 rank (loopback), grep the message, check the exit code.
# timeout: 150
# conduits: udp tcp
# omit: udp,noshm tcp  (the checks are the API layer's, the same code whatever carries the AM: [udp] has them delivered through shared memory, [tcp,noshm] over the network)
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/misuse.sh"
cd "$BIN" || exit 1
fails=0
check() { t_misuse ./t_misuse "$@"; } # ranks case expected-text
check 2 unregistered "gasnet_AMRequestShort0: handler 222 is not registered on node 1"
check 2 long-outside "gasnet_AMRequestLong3: destination ["
check 2 long-outside "outside node 1's segment ["
check 2 medium-too-big "gasnet_AMRequestMedium0: payload of 65537 bytes is above gasnet_AMMaxMedium() = 65536"
check 2 long-too-big "gasnet_AMRequestLong0: payload of 1048577 bytes is above gasnet_AMMaxLongRequest() = 1048576"
check 2 second-reply "gasnet_AMReplyShort0: second reply from one request handler"
check 2 reply-from-reply "gasnet_AMReplyShort0: called from a reply handler"
check 2 before-attach "gasnet_AMRequestShort0: called before gasnet_attach"
check 2 request-in-handler "gasnet_AMRequestShort0: called inside an AM handler"
check 2 request-in-nis "gasnet_AMRequestShort0: called inside a No-Interrupt Section"
check 2 hsl-held "AM handler 128 returned holding an HSL"
check 2 reply-outside-handler "gasnet_AMReplyShort0: called outside a request handler"
check 2 reserved-index "1..127 are reserved"
check 1 unregistered "gasnet_AMRequestShort0: handler 222 is not registered on node 0"
check 1 long-outside "outside node 0's segment"
# A call after a failed gasnet_attach names the failure, not "before attach".
why="called after gasnet_attach failed (segsize 1048577 is not a multiple of GASNET_PAGESIZE (4096)"
check 2 attach-fails-seginfo "gasnet_getSegmentInfo: $why"
check 2 attach-fails-am "gasnet_AMRequestShort0: $why"
check 2 attach-fails-put "gasnet_put: $why"
check 1 attach-fails-barrier "gasnet_barrier_notify: $why"
# An absurd minheapoffset (2^62) is refused, naming it and the bound.
check 2 attach-fails-heapoffset "gasnet_attach failed (minheapoffset 4611686018427387904 is above 140737488355328 (2^47, the user address space)"
[ $fails = 0 ] && echo "t-misuse: all passed"
exit $fails
