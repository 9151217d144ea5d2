# conduit.sh - sourced by test scripts that run once per conduit
# (`# conduits: udp tcp` in their header, see tests/run). From $CONDUIT (udp
# when unset) it sets
#   BIN        where this conduit's build of the script's test programs is:
#              the script's own directory for udp, its tcp/ subdirectory for
#              tcp (the same objects linked with libgasnet-tcp-<mode>; see the
#              area's Makefile.inc)
#   GASNETRUN  the launcher under the conduit's name (gasnetrun_udp / _tcp;
#              plain gasnetrun for mix)
# and from $BYPASS (set by tests/run: on, or off for the t-name.sh[udp,noshm]
# variant) the environment to match:
#   BYPASS     on: GASNET_SUPERNODE_MAXSIZE unset (the library's default,
#              the ranks of a host share memory); off: it is 1 (every peer
#              over the network). When unset (a script run by hand), off
#              exactly when GASNET_SUPERNODE_MAXSIZE=1.
CONDUIT=${CONDUIT:-udp}
case ${BYPASS:-} in
  on) unset GASNET_SUPERNODE_MAXSIZE ;;
  off) export GASNET_SUPERNODE_MAXSIZE=1 ;;
  "") BYPASS=on; [ "${GASNET_SUPERNODE_MAXSIZE:-}" = 1 ] && BYPASS=off ;;
  *) echo "conduit.sh: unknown BYPASS=$BYPASS (want on or off)"; exit 1 ;;
esac
export BYPASS
area_dir=$(cd "$(dirname "$0")" && pwd)
case $CONDUIT in
  udp) BIN="$area_dir" ;;
  tcp) BIN="$area_dir/tcp" ;;
  mix) BIN="$area_dir/mix" ;; # the test-only conduit of both (conduit/mix.c)
  *) echo "conduit.sh: unknown CONDUIT=$CONDUIT (want udp, tcp or mix)"; exit 1 ;;
esac
GASNETRUN="$TOP/spawner/gasnetrun_$CONDUIT"
[ "$CONDUIT" = mix ] && GASNETRUN="$TOP/spawner/gasnetrun"
echo "# conduit $CONDUIT, bypass $BYPASS${GASNET_SUPERNODE_MAXSIZE:+ (GASNET_SUPERNODE_MAXSIZE=$GASNET_SUPERNODE_MAXSIZE)}: programs from ${BIN#$TOP/}, launcher $(basename "$GASNETRUN")"

# What a variant leaves to another (tests/run runs a script once per
# conduit, bypass and aggregation setting; a whole variant that would only
# repeat another is left out by the script's "# omit:" line):
#   shm_repeats    true when a job whose ranks all share memory repeats
#                  [udp]'s here: under tcp with the bypass on, such a job
#                  sends nothing over tcp (every frame goes through shared
#                  memory, as under udp), and aggregation off changes only
#                  the network path. (mix has no shared-memory transport
#                  for its AMs: never true there.) Jobs that use the
#                  network (the bypass off, neighbourhoods of 2) still run.
#   misuse_here    true where a script's misuse cases run: [udp] (the AM
#                  that carries a misuse delivered through shared memory)
#                  and [tcp,noshm] (over the network). They check the API
#                  layer, a call's arguments and state on the calling rank
#                  or in the handler a request ran, which is the same code
#                  whatever the transport.
#   first_variant  true only in [udp] (bypass and aggregation on): for
#                  checks that depend on none of the three (1-rank jobs,
#                  compile-time errors).
agg_off() { [ "${GASNET_UDP_AGG:-1}${GASNET_TCP_AGG:-1}" = 00 ]; }
shm_repeats() {
  [ "$BYPASS" = on ] && [ "$CONDUIT" != mix ] && { [ "$CONDUIT" = tcp ] || agg_off; }
}
misuse_here() {
  ! agg_off && { { [ "$CONDUIT" = udp ] && [ "$BYPASS" = on ]; } || { [ "$CONDUIT" = tcp ] && [ "$BYPASS" = off ]; }; }
}
first_variant() { [ "$CONDUIT" = udp ] && [ "$BYPASS" = on ] && ! agg_off; }
