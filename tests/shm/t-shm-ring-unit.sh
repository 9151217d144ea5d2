#!/bin/bash
# timeout: 60
# The shared-memory ring alone (t_amshm_ring.c, amshm/amshm_ring.h), in one
# process, on a memfd slot mapped twice: a record of every size at every
# offset (counters also across 2^32 and 2^64), PADs at the ring's end,
# malformed PADs returned by amshm_ring_peek rather than followed,
# pushes refused exactly when a model of head and tail says the record does
# not fit and taken once the consumer freed room, then a producer and a
# consumer thread pushing a million records with sequence numbers and
# checksums through both rings of the slot. Prints its counts and seconds.
# (By hand under ThreadSanitizer: gcc -fsanitize=thread -Iamshm
# tests/shm/t_amshm_ring.c -lpthread; the "one view" run is the one it sees.)
set -eu
bin="${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/shm/t_amshm_ring"
"$bin" 1000000 1
