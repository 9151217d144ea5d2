#!/bin/bash
# t-misuse.sh - errors in the extended API are fatal with a message naming
# the call (spec 3): remote addresses outside the target's segment, bad node
# numbers, bad value sizes, barrier misuse (3.5), handle and access-region
# misuse (3.3). t_misuse CASE on 2 ranks (1 for loopback); node 0 errs, the
# job must end with a non-zero code and the message.
# timeout: 120
# parallel: yes  (its jobs end by a fatal error and the launcher's grace: 0.6 CPU seconds of 4.9)
# conduits: udp tcp
# omit: udp,noshm tcp  (the checks are the API layer's, the same code whatever carries the AM: [udp] has them delivered through shared memory, [tcp,noshm] over the network)
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/misuse.sh"
cd "$BIN" || exit 1
fails=0
check() { t_misuse ./t_misuse "$@"; } # ranks case expected-text
check 2 put-outside "gasnet_put: destination ["
check 2 put-outside "outside node 1's segment ["
check 1 put-outside "outside node 0's segment ["
check 2 get-outside "gasnet_get: source ["
check 2 memset-nb-outside "gasnet_memset_nb: destination ["
check 2 put-nbi-bad-node "gasnet_put_nbi: node 2 does not exist (the job has 2 nodes)"
check 2 get-bad-node "gasnet_get: node 7 does not exist"
check 2 get-val-size "gasnet_get_val: nbytes = 9; value operations need 0 < nbytes <= SIZEOF_GASNET_REGISTER_VALUE_T"
check 2 put-val-zero "gasnet_put_val: nbytes = 0"
check 2 get-nb-val-size "gasnet_get_nb_val: nbytes = 0"
check 2 notify-twice "gasnet_barrier_notify: called twice"
check 2 wait-no-notify "gasnet_barrier_wait: no gasnet_barrier_notify"
check 2 try-no-notify "gasnet_barrier_try: no gasnet_barrier_notify"
check 2 barrier-bad-flags "gasnet_barrier_notify: flags 0x40"
# a handle still pending needs a peer reached by messages, not a mapped one
GASNET_SUPERNODE_MAXSIZE=1 check 2 sync-twice "gasnet_wait_syncnb: handle"
check 2 nbi-sync-in-region "gasnet_wait_syncnbi_all: called inside an access region"
check 2 nested-region "gasnet_begin_nbi_accessregion: an access region is already open"
check 2 end-no-region "gasnet_end_nbi_accessregion: no access region is open"
[ $fails = 0 ] && echo "t-misuse: all passed"
exit $fails
