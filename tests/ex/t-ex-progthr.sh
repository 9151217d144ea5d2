#!/bin/bash
# timeout: 150
# conduits: udp tcp
# omit: tcp  (with the bypass on, every job here is one host's: tcp would carry nothing, and [udp] runs the same through shared memory)
# t-ex-progthr.sh - progress threads (t_ex_progthr: the checks are listed
# at the top of t_ex_progthr.c): without GEX_FLAG_DEFER_THREADS the query
# returns GASNET_ERR_RESOURCE; with it one thread on 2 ranks (none on 1),
# role SND, which the client starts with pthread_create; then, the timeout
# lowered to 2 s (GASNET_UDP_TIMEOUT, GASNET_TCP_TIMEOUT), the last node
# computes 4 s without a GASNet call while node 0 waits on it: no node is
# declared dead, the reply and the get arrive intact; then a job whose node
# 0 calls gasnet_exit(7) with the thread running ends 7. No process of the
# jobs is left (their argv carries a marker), nothing new in /dev/shm.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/lib/hang.sh"
cd "$BIN" || exit 1
marker="t-ex-progthr-$$"
before=$(ls -A /dev/shm 2>/dev/null | sort)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

out=$(timeout -k 5 60 "$GASNETRUN" -n 2 ./t_ex_progthr nodefer 0 "$marker" 2>&1); rc=$?
echo "== nodefer -n 2"; echo "$out" | grep '^node'
ok=$(echo "$out" | grep -c 'without GEX_FLAG_DEFER_THREADS: GASNET_ERR_RESOURCE (expected')
echo "nodefer: expected exit 0 and 2 'GASNET_ERR_RESOURCE' lines; got exit $rc and $ok"
[ "$rc" = 0 ] && [ "$ok" = 2 ] && [ "$(echo "$out" | grep -c ': ok$')" = 2 ] || { fail "nodefer"; echo "$out" | tail -6; }

out=$(timeout -k 5 60 "$GASNETRUN" -n 1 ./t_ex_progthr defer 0 "$marker" 2>&1); rc=$?
echo "== defer -n 1"; echo "$out" | grep '^node'
echo "defer -n 1: expected exit 0, count 0; got exit $rc"
[ "$rc" = 0 ] && echo "$out" | grep -q 'count 0, expected 0' && echo "$out" | grep -q ': ok$' || { fail "defer -n 1"; echo "$out" | tail -6; }

hang_t0
out=$(GASNET_UDP_TIMEOUT=2 GASNET_TCP_TIMEOUT=2 timeout -k 5 70 "$GASNETRUN" -n 2 ./t_ex_progthr defer 4 "$marker" 2>&1); rc=$?
secs=$(hang_secs)
echo "== defer -n 2, the last node computing 4 s, timeout 2 s"; echo "$out" | grep '^node'
roles=$(echo "$out" | grep -c "thread 0: roles 0x2 (SND 0x2), device list '[^']*', fn set, arg set")
echo "defer: expected exit 0, 2 'ok' lines, 2 thread lines, the reply and the get intact, no 'lost node'; got exit $rc after ${secs}s, $(echo "$out" | grep -c ': ok$') 'ok', $roles"
[ "$rc" = 0 ] && [ "$(echo "$out" | grep -c ': ok$')" = 2 ] && [ "$roles" = 2 ] || { fail "defer -n 2"; echo "$out" | tail -6; }
echo "$out" | grep -q "reply 0x5eedc034 (expected 0x5eedc034); get: 0xabcdef0000000001" || fail "defer: the reply or the get"
echo "$out" | grep -q "lost node" && fail "defer: a node was declared dead"
hang_check "defer" "$secs" 40 "4.5 s" || fails=$((fails + 1))

out=$(timeout -k 5 60 "$GASNETRUN" -n 3 ./t_ex_progthr exit7 0 "$marker" 2>&1); rc=$?
echo "== exit7 -n 3"; echo "$out" | grep '^t_ex_progthr'
echo "exit7: expected exit 7 and no FAILED line; got exit $rc"
[ "$rc" = 7 ] && ! echo "$out" | grep -q FAILED || { fail "exit7"; echo "$out" | tail -6; }

# The deferred thread's start and its join at exit under ThreadSanitizer
# (the library built for it once, tests/lib/tsan.sh); udp only, the
# liveness thread is the same for both conduits.
. "$TOP/tests/lib/tsan.sh"
tsan="$TMPDIR/tsan/t_ex_progthr"
built=2
[ "$CONDUIT" = udp ] && { tsan_build "$tsan" "$TOP/tests/ex/t_ex_progthr.c" -I"$TOP/tests/ex"; built=$?; }
if [ $built = 0 ]; then
  out=$(timeout -k 5 90 "$GASNETRUN" -n 2 "$tsan" defer 0 "$marker" 2>&1); rc=$?
  tsan_check "-n 2 defer" 2 "$out" $rc "t_ex_progthr: node [0-9]*: ok" || { fail "TSan"; echo "$out" | tail -5; }
elif [ $built = 1 ]; then
  fail "the TSan build"
fi

# nothing left behind
if ! hang_wait_gone 10 "0 s" "$marker"; then
  fails=$((fails + 1))
  for pid in $(pgrep -f -- "$marker"); do [ "$pid" != $$ ] && kill -KILL "$pid" 2>/dev/null; done
fi
after=$(ls -A /dev/shm 2>/dev/null | sort)
new=$(comm -13 <(echo "$before") <(echo "$after") | grep -v '^$')
[ -z "$new" ] || echo "(new in /dev/shm, maybe not ours: $new)"
[ $fails = 0 ] && echo "t-ex-progthr: all passed"
exit $fails
