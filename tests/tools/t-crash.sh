#!/bin/bash
# t-crash.sh - crash diagnostics of a tools-only program (t_crash.c):
# timeout: 90
#  1. no GASNET_BACKTRACE: a segfault ends it by SIGSEGV, nothing printed;
#  2. GASNET_BACKTRACE=1: one line naming the signal and the process, then
#     EXECINFO frames naming t_crash_deref; still ends by SIGSEGV;
#  3. GASNET_BACKTRACE_TYPE=USER: the client's gasnett_backtrace_user runs;
#  4. after the core's gasnett__set_rank(3): the line starts "[rank 3] ";
#  5. gasnett_fatalerror with GASNET_BACKTRACE=1: message, frames, SIGABRT;
#  6. GASNET_FREEZE_ON_ERROR=1: the freeze message, the process stays; SIGKILL ends it;
#  7. frozen again, then what the message says, through gdb: the process goes
#     on and ends by SIGSEGV (skipped without gdb);
#  8. linked -static with its own gasnett_backtrace_user: no duplicate symbol,
#     and the client's hook is the one that runs.
set -u
cd "$TOP" || exit 1
fails=0
tmp=$(mktemp -d); trap 'kill -KILL $frozen 2>/dev/null; rm -rf "$tmp"' EXIT
frozen=
T=tests/tools/t_crash
expect() { # what, condition-result (0 = ok)
  if [ "$2" = 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
# run NAME ENV... -- ARGS: output in $tmp/NAME.out, status in $rc
run() {
  local name=$1; shift; local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" "$T" "$@" >"$tmp/$name.out" 2>&1; rc=$?
  sed "s/^/    [$name] /" "$tmp/$name.out" | head -30
}

run plain GASNET_BACKTRACE=0 -- segv
expect "1. no backtrace: exit $rc (want 139 = SIGSEGV), no report" \
  "$([ $rc = 139 ] && ! grep -q 'Caught\|backtrace' "$tmp/plain.out"; echo $?)"

run bt GASNET_BACKTRACE=1 GASNET_BACKTRACE_TYPE=EXECINFO -- segv
expect "2. GASNET_BACKTRACE=1: exit $rc (want 139), 'Caught SIGSEGV in process PID on host', frames with t_crash_deref" \
  "$([ $rc = 139 ] && grep -q '^\*\*\* Caught SIGSEGV in process [0-9]* on host ' "$tmp/bt.out" &&
     grep -q 't_crash_deref+' "$tmp/bt.out"; echo $?)"

run user GASNET_BACKTRACE=1 GASNET_BACKTRACE_TYPE=USER -- segv
expect "3. GASNET_BACKTRACE_TYPE=USER: the client's hook ran, exit $rc" \
  "$([ $rc = 139 ] && grep -q 'T_CRASH_USER_BACKTRACE' "$tmp/user.out" && ! grep -q 't_crash_deref+' "$tmp/user.out"; echo $?)"

run rank GASNET_BACKTRACE=1 -- rank
expect "4. rank prefix: '[rank 3] *** Caught SIGSEGV'" \
  "$(grep -q '^\[rank 3\] \*\*\* Caught SIGSEGV in process' "$tmp/rank.out"; echo $?)"

run fatal GASNET_BACKTRACE=1 GASNET_BACKTRACE_TYPE=EXECINFO -- fatal
expect "5. fatalerror: exit $rc (want 134 = SIGABRT), '*** FATAL ERROR: t_crash fatal 1', '    at FILE:LINE in main()', frames from the fatal path (gasnett__fatal_diag), one report" \
  "$([ $rc = 134 ] && grep -q '^\*\*\* FATAL ERROR: t_crash fatal 1$' "$tmp/fatal.out" &&
     grep -q '^    at .*t_crash.c:[0-9]* in main()$' "$tmp/fatal.out" &&
     grep -q '(gasnett__fatal_diag+' "$tmp/fatal.out" && ! grep -q 'Caught' "$tmp/fatal.out"; echo $?)"

# start_frozen NAME: runs t_crash segv frozen in the background; waits (at
# most 10 s) for the freeze message; sets $frozen to its pid.
start_frozen() {
  GASNET_FREEZE_ON_ERROR=1 "$T" segv >"$tmp/$1.out" 2>&1 &
  frozen=$!
  for i in $(seq 100); do grep -q 'is frozen for a debugger' "$tmp/$1.out" && break; sleep 0.1; done
  sed "s/^/    [$1] /" "$tmp/$1.out"
}
start_frozen freeze
sleep 0.5
alive=$(kill -0 $frozen 2>/dev/null && echo yes || echo no)
expect "6. GASNET_FREEZE_ON_ERROR=1: the message says what to type, still alive 0.5 s later: $alive" \
  "$(grep -q "^GASNet: process $frozen on host .* is frozen for a debugger: attach with gdb -p $frozen, then 'set var gasnett_frozen=0' and 'continue'\$" "$tmp/freeze.out" && [ $alive = yes ]; echo $?)"
kill -KILL $frozen; wait $frozen; rc=$?
expect "6. SIGKILL ends the frozen process: exit $rc (want 137)" "$([ $rc = 137 ]; echo $?)"
frozen=

if command -v gdb >/dev/null; then
  start_frozen thaw
  timeout 30 gdb -nx -batch -q -p $frozen -ex 'set var gasnett_frozen=0' >"$tmp/gdb.out" 2>&1
  for i in $(seq 100); do kill -0 $frozen 2>/dev/null || break; sleep 0.1; done
  kill -KILL $frozen 2>/dev/null; wait $frozen; rc=$?
  expect "7. gdb 'set var gasnett_frozen=0' (then detach = continue): the process went on and ended by SIGSEGV: exit $rc (want 139)" \
    "$([ $rc = 139 ]; echo $?)"
  frozen=
else
  echo "skip 7: no gdb"
fi

CC=${CC:-cc}
static=-static
if ! $CC -static -x c - -o "$tmp/probe" <<<'int main(void){return 0;}' 2>/dev/null; then
  static=; echo "    (no static libc here: linking the tools library statically, libc dynamically)"
fi
if $CC $static -g -rdynamic -Iinclude -Itools -DGASNETT_THREAD_SINGLE tests/tools/t_crash.c \
     tools/.libs/libgasnet_tools-seq.a -o "$tmp/t_crash_static" 2>"$tmp/link.out"; then
  GASNET_BACKTRACE=1 GASNET_BACKTRACE_TYPE=USER "$tmp/t_crash_static" segv >"$tmp/static.out" 2>&1; rc=$?
  sed "s/^/    [static] /" "$tmp/static.out"
  expect "8. cc $static t_crash.c libgasnet_tools-seq.a links; the client's hook ran, exit $rc" \
    "$([ $rc = 139 ] && grep -q T_CRASH_USER_BACKTRACE "$tmp/static.out"; echo $?)"
else
  cat "$tmp/link.out"; expect "8. static link with the client's gasnett_backtrace_user" 1
fi
[ $fails = 0 ] && echo "t-crash: all passed"
exit $fails
