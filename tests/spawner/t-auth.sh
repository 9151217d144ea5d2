#!/bin/bash
# t-auth.sh - connections to the launcher's port that do not know the job
# secret (a full handshake with a wrong secret, garbage bytes, an AUTH frame
# claiming 64 MiB, silence for 20 s) are closed and logged, as a count per
# 5 s (the first at once: 2 or 3 lines for the four); the job goes on and
# succeeds. The
# secret is in no rank's argv or environment, and a rank keeps no descriptor
# but 0, 1, 2 and its connection.
# timeout: 90
# parallel: yes  (it waits 20 s for the launcher to close a silent intruder; its processes carry its own marker, its port is found by the launcher's pid)
. "$(dirname "$0")/common.sh"

"$GASNETRUN" -n 2 "$TB" -P -B 1 -s 23 -x 64 "$MARK" >"$T/out" 2>"$T/err" </dev/null &
lp=$!
wait_for 30 sh -c "[ \$(grep -c '^pid:' '$T/out') = 2 ]" || fail "ranks did not start"
port=$(ss -ltnpH 2>/dev/null | grep "pid=$lp," | awk '{print $4}' | sed 's/.*://' | head -1)
echo "     launcher pid $lp listens on 127.0.0.1:$port"
"$TA" "$port" idle >"$T/idle" &
ip=$!
for how in wrong garbage bigauth; do
  "$TA" "$port" $how; check_eq "intruder '$how' refused" "$?" 0
done
r0=$(sed -n 's/^pid: rank 0 pid \([0-9]*\)$/\1/p' "$T/out")
check_eq "ticket in rank 0's environ/cmdline" "$(cat /proc/$r0/environ /proc/$r0/cmdline | tr '\0' '\n' | grep -c GASNETRUN1)" 0
check_eq "ticket in launcher's environ/cmdline" "$(cat /proc/$lp/environ /proc/$lp/cmdline | tr '\0' '\n' | grep -c GASNETRUN1)" 0
fds=$(for f in /proc/$r0/fd/*; do printf '%s=%s ' "${f##*/}" "$(readlink "$f" | sed 's/:.*//')"; done)
check_eq "rank 0 descriptors" "$(echo $fds | sed 's/pipe/P/g; s#/dev/null#N#')" "0=N 1=P 2=P 3=socket"
wait $ip; check_eq "idle intruder closed after 20 s" "$?" 0
cat "$T/idle"
wait $lp; rc=$?
check_eq "job status after intruders" "$rc" 0
check_eq "job ranks finished" "$(grep -c 'exchange(64 x 2) ok' "$T/out")" 2
check_eq "rejections counted" "$(sed -n 's/^gasnetrun: rejected \([0-9]*\) connections* in [0-9.]* s (the last from 127.0.0.1:[0-9]*: .*)$/\1/p' "$T/err" | awk '{ s += $1 } END { print s + 0 }')" 4
n=$(grep -c 'rejected' "$T/err")
echo "     lines about them: $n (want 1 to 3: the first at once, the idle one at 20 s of a 23 s job)"
[ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "want 1 to 3 lines about rejected connections, got $n"
cat "$T/err"
finish
