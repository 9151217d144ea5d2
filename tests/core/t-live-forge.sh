#!/bin/bash
# timeout: 60
# conduits: tcp
# bypass: off (the liveness thread is the same in every variant; over tcp its socket is the ranks' only UDP one)
# t-live-forge.sh - the liveness socket (live/live_udp.c, its datagram in
# live/live_wire.h) takes datagrams from anyone: what is not a probe or an
# echo of this job is dropped, counted, and never answered, and the real
# probes go on being answered. While node 0 of a 2-node job does round trips
# with node 1 for 6 s, every UDP socket of both ranks (over tcp: the liveness
# socket alone) gets, from a stranger's port:
#   7 bytes and 41 bytes                      -> live_bad_length 2
#   40 bytes with a wrong magic               -> live_bad_magic  1
#   a probe from rank 7 of a 2-rank job       -> live_bad_rank   1
#   probes 0 -> 1 and 1 -> 0 without the MAC  -> one bad_mac and one
#                                                bad_rank (from itself) each
# so each rank counts exactly bad_length 2, bad_magic 1, bad_rank 2,
# bad_mac 1 (GASNET_STATSFILE), the job ends 0, nobody is declared dead.
# The forgeries are written with bash's /dev/udp; nothing leaves 127.0.0.1.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/hang.sh"
cd "$BIN" || exit 1
marker="t-live-forge-$$"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-live-forge.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# forge TYPE SRC DST: a 40-byte liveness datagram with a zero MAC, as printf
# escapes (magic "GL" = 0x4c47 little-endian, version 1, le32 ranks)
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
zeros() { local i s=; for ((i = 0; i < $1; i++)); do s+='\x00'; done; printf '%s' "$s"; }
forge() { printf '%s' "\\x47\\x4c\\x01\\x$(printf %02x "$1")$(le32 "$2")$(le32 "$3")$(zeros 4)\\x01$(zeros 7)$(zeros 16)"; }
datagrams=(
  "$(zeros 7)"
  "$(forge 1 0 1)\\x00"
  "\\x47\\x4d\\x01\\x01$(le32 0)$(le32 1)$(zeros 28)"
  "$(forge 1 7 0)"
  "$(forge 1 0 1)"
  "$(forge 1 1 0)"
)

hang_t0
GASNET_STATSFILE="$tmp/stats" GASNET_TCP_TIMEOUT=30 \
  timeout -k 5 50 "$GASNETRUN" -n 2 ./t_live pause 6 "$marker" >"$tmp/out" 2>&1 &
job=$!
# both ranks and their sockets, once node 1 is in its round trips (<= 20 s)
udp_ports() { ss -uanpH 2>/dev/null | awk -v p="pid=$1," 'index($0, p) {n = split($4, a, ":"); print a[n]}'; }
pids= ports=
for _ in $(seq 100); do
  if grep -q '^t_live: node 1: pid' "$tmp/out"; then
    pids= ports=
    for p in $(pgrep -f -- "$marker"); do
      [ "$(cat /proc/$p/comm 2>/dev/null)" = t_live ] && pids="$pids $p" && ports="$ports $(udp_ports $p)"
    done
    [ "$(echo $ports | wc -w)" -ge 2 ] && break
  fi
  sleep 0.2
done
echo "ranks:$pids; their UDP ports:$ports"
[ "$(echo $pids | wc -w)" = 2 ] || fail "did not find the job's 2 ranks"
[ "$(echo $ports | wc -w)" = 2 ] || fail "expected one UDP (liveness) socket per rank, found ports:$ports"
for port in $ports; do
  for d in "${datagrams[@]}"; do
    printf "$d" >"/dev/udp/127.0.0.1/$port" || fail "could not send to port $port"
  done
done
echo "sent ${#datagrams[@]} forgeries to each port at $(hang_secs) s"
wait $job; rc=$?
cat "$tmp/out"
echo "expected exit 0, 2 'ok' lines; got exit $rc after $(hang_secs) s"
[ "$rc" = 0 ] || fail "exit $rc"
[ "$(grep -c ': ok$' "$tmp/out")" = 2 ] || fail "not every node said ok"
grep -q "lost node" "$tmp/out" && fail "a node was declared dead"
for r in 0 1; do
  f="$tmp/stats.$r"
  got=$(awk '/^live_bad_(length|magic|rank|mac|addr|stamp) / {printf "%s=%s ", $1, $2}' "$f" 2>/dev/null)
  echo "node $r: $got"
  want="live_bad_length=2 live_bad_magic=1 live_bad_rank=2 live_bad_mac=1 live_bad_addr=0 live_bad_stamp=0"
  for w in $want; do
    case " $got " in *" $w "*) ;; *) fail "node $r: want $w, counters: ${got:-none (no $f)}" ;; esac
  done
done

hang_wait_gone 10 "0 s" "$marker" || { pkill -KILL -f -- "$marker"; fails=$((fails + 1)); }
[ $fails = 0 ] && echo "t-live-forge: passed"
exit $fails
