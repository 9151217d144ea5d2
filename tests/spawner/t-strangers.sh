#!/bin/bash
# timeout: 60
# parallel: yes (0.2 of 7 s on the CPU: it waits for the launcher to drop its idle connections)
# t-strangers.sh - strangers on the launcher's bootstrap port neither stall
# a job nor flood its stderr (docs/launcher.md, "Strangers on the bootstrap
# port"). A job of 8 ranks whose ranks connect 2 s after they start
# (sh -c 'sleep 2; exec t_boot ...'): meanwhile a script opens 50
# connections to the launcher's port that never send a byte (held until
# the launcher drops them), and 200 more that send junk (an HTTP request,
# random bytes, a forged frame header) and close. Then:
#  - the job ends 0, every rank's exchange (4096 bytes x 8), broadcast and
#    barriers verified, the same checksums on all 8;
#  - it did not wait on the strangers (bounded: a hang check only);
#  - stderr holds at most 3 lines about rejected connections (one at the
#    first, then one per 5 s with a count), none per connection, and the
#    counts add up to at least the 200 junk connections.
. "$(dirname "$0")/common.sh"
command -v python3 >/dev/null || { echo "SKIPPED: no python3"; exit 77; }

cat >"$T/strangers.py" <<'EOF'
import os, socket, sys, time
port, silent, junk, pid = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
held = []
for i in range(silent):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    held.append(s)
payloads = [b"GET / HTTP/1.0\r\n\r\n", os.urandom(64),
            b"\x00\x00\x00\x10\x00\x02\x00\x00" + b"\x00" * 8 + os.urandom(16)]
sent = 0
for i in range(junk):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(payloads[i % 3])
        s.close()
        sent += 1
    except OSError:
        pass
    time.sleep(0.01)
print("junk sent on %d connections, %d silent held" % (sent, len(held)), flush=True)
# hold the silent ones while the launcher lives (it drops them itself)
end = time.time() + 20
while time.time() < end and os.path.exists("/proc/%d" % pid):
    time.sleep(0.1)
EOF

hang_t0
"$GASNETRUN" -n 8 sh -c 'sleep 2; exec "$0" "$@"' "$TB" -x 4096 -b 1000 3 -B 3 -s 4 "$MARK" >"$T/out" 2>"$T/err" </dev/null &
job=$!
port=""
wait_for 10 sh -c "ss -Hltnp | grep -q 'pid=$job,'" && port=$(ss -Hltnp | awk -v p="pid=$job," 'index($0, p) { n = split($4, a, ":"); print a[n]; exit }')
echo "     launcher pid $job listens on port ${port:-?}"
if [ -n "$port" ]; then
  timeout 30 python3 "$T/strangers.py" "$port" 50 200 "$job" >"$T/py" 2>&1 &
  py=$!
fi
timeout 40 tail --pid=$job -f /dev/null
wait "$job"; rc=$?
secs=$(hang_secs)
[ -n "${py:-}" ] && wait "$py"
echo "     strangers: $(cat "$T/py" 2>/dev/null)"
check_eq "job status" "$rc" 0
check_eq "ranks with every check ok" "$(grep -c '^rank [0-7]/8: exchange(4096 x 8) ok .* bcast(1000 from 3) ok .* barriers(3) ok' "$T/out")" 8
check_eq "distinct checksums" "$(sed -n 's/.*exchange(4096 x 8) ok sum=\([0-9a-f]*\) bcast(1000 from 3) ok sum=\([0-9a-f]*\).*/\1 \2/p' "$T/out" | sort -u | wc -l)" 1
hang_check "the job among strangers" "$secs" 30 "6 s: ranks start after 2 s, sleep 4 s" || fail "the job stalled"
rej=$(grep -c 'rejected' "$T/err")
total=$(sed -n 's/.*rejected \([0-9]*\) connections* in .*/\1/p' "$T/err" | awk '{ s += $1 } END { print s + 0 }')
echo "     stderr: $rej lines about rejections, counting $total connections:"
grep 'rejected' "$T/err" | head -n 5 | sed 's/^/       /'
[ "$rej" -ge 1 ] && [ "$rej" -le 3 ] || fail "want 1 to 3 lines about rejected connections, got $rej"
[ "$total" -ge 200 ] || fail "the rejection counts add up to $total, want at least the 200 junk connections"
check_eq "other stderr lines" "$(grep -vc 'rejected' "$T/err")" 0
check_eq "survivors" "$(survivors)" 0
finish
