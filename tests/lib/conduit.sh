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
