#!/bin/bash
# timeout: 120
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-host.sh - the nodes sharing a host and the wait policy (core/gasnetc_host.c):
# a blocked node yields the CPU as it polls ("polite") exactly when the host
# has more nodes than CPUs they may run on (the union of their affinity
# masks). Read back from GASNET_STATSFILE's config.* lines of every node:
#   -n 2                2 nodes, nproc CPUs; polite iff 2 > nproc
#   -n 8                8 nodes, nproc CPUs; polite iff 8 > nproc
#   taskset -c 0, -n 4  4 nodes pinned to one CPU: 1 CPU, polite
# each running t_exit's barrier-then-exit, whose data and lines are checked.
# And a node that spins still yields the CPU now and then (core/gasnetc_poll.c):
#   t_spin, -n 2        2 nodes pin themselves to one CPU after gasnet_init
#                       (not polite), and node 0's 2000 round trips to node 1
#                       cost fewer than 500 sleeps in the one wait (core.waits)
#                       per node; spinning without yields, about one each
set -u
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ncpu=$(nproc)

# check N CPUS POLITE: every node's statistics file says so
check() {
  local n=$1 cpus=$2 polite=$3 bad=0
  for ((i = 0; i < n; i++)); do
    f="$tmp/st.$i"
    got="$(sed -n 's/^config.host_nodes //p' "$f" 2>/dev/null)/$(sed -n 's/^config.host_cpus //p' "$f" 2>/dev/null)/$(sed -n 's/^config.polite //p' "$f" 2>/dev/null)"
    [ "$got" = "$n/$cpus/$polite" ] || { echo "  node $i: expected nodes/cpus/polite $n/$cpus/$polite, got $got"; bad=1; }
  done
  return $bad
}

# run WHAT N CPUS POLITE [launcher prefix...]: t_exit barrier on N nodes
# (every node's neighbour data and line after the barrier), then check
run() {
  local what=$1 n=$2 cpus=$3 polite=$4; shift 4
  rm -f "$tmp"/st.*
  out=$(GASNET_STATSFILE="$tmp/st" "$@" "$GASNETRUN" -n "$n" ./t_exit barrier 2>&1); rc=$?
  lines=$(echo "$out" | grep -c 'after the barrier, got 0x5eed000')
  echo "$what: expected exit 0, $n lines after the barrier, nodes/cpus/polite $n/$cpus/$polite; got exit $rc, $lines lines"
  if [ "$rc" != 0 ] || [ "$lines" != "$n" ] || ! check "$n" "$cpus" "$polite"; then
    echo "FAIL: $what"; echo "$out" | tail -5 | sed 's/^/     | /'; fails=$((fails + 1))
  fi
}
run "-n 2 on $ncpu CPUs" 2 "$ncpu" $(( 2 > ncpu ? 1 : 0 )) env
run "-n 8 on $ncpu CPUs" 8 "$ncpu" $(( 8 > ncpu ? 1 : 0 )) env
run "taskset -c 0, -n 4" 4 1 1 taskset -c 0

rm -f "$tmp"/st.*
out=$(GASNET_STATSFILE="$tmp/st" "$GASNETRUN" -n 2 ./t_spin 2000 2>&1); rc=$?
trips=$(echo "$out" | sed -n 's/^node 0: on CPU [0-9]*, \([0-9]*\) round trips$/\1/p')
waits="$(sed -n 's/^core.waits //p' "$tmp/st.0" 2>/dev/null)/$(sed -n 's/^core.waits //p' "$tmp/st.1" 2>/dev/null)"
echo "t_spin, -n 2 on one CPU: expected exit 0, 2000 round trips, fewer than 500 waits per node; got exit $rc, ${trips:-no} round trips, waits $waits"
if [ "$rc" != 0 ] || [ "$trips" != 2000 ] || ! check 2 "$ncpu" $(( 2 > ncpu ? 1 : 0 )) ||
   ! awk -v w="$waits" 'BEGIN { n = split(w, a, "/"); exit !(n == 2 && a[1] != "" && a[2] != "" && a[1] < 500 && a[2] < 500) }'; then
  echo "FAIL: t_spin"; echo "$out" | tail -5 | sed 's/^/     | /'; fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "t-host: all passed"
exit $fails
