#!/bin/bash
# t-fatal.sh - one fatal path for every layer (tools/gasnett_crash.c,
# gasnett__fatal_end): a fatal error from the core (gasnetc_fatal), the
# extended layer (gasnete_fatal) and the tools (gasnett_fatalerror), made by
# node 1 of 2 through gasnetrun with GASNET_BACKTRACE=1, must each
#  - print the layer's message naming node 1 (core and extended: the same
#    line "GASNet error: CALL: ... (on node 1 of 2)", printed by the launcher
#    as "rank 1 (on host H) aborted the job: ..."; tools: the spec's
#    "[rank 1] *** FATAL ERROR: ..." and the call site),
#  - print a backtrace that passes through gasnett__fatal_end (the one path;
#    extended through the core's gasnetc_vfatal),
#  - end the job through the launcher: a line naming rank 1, exit code 1
#    for core and extended, 134 (SIGABRT: the tools spec's abort()) for
#    tools, and node 0 does not outlive it ("still alive" is never printed).
# timeout: 90
# bypass: on
set -u
ulimit -c 0  # the tools case ends by abort(): no core file may stay behind
. "$TOP/tests/lib/conduit.sh"
cd "$BIN" || exit 1
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
expect() { # what, condition-result (0 = ok)
  if [ "$2" = 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
# run LAYER: output in $tmp/LAYER.out, exit code in $rc
run() {
  GASNET_BACKTRACE=1 GASNET_BACKTRACE_TYPE=EXECINFO timeout 60 "$GASNETRUN" -n 2 ./t_fatal "$1" \
    >"$tmp/$1.out" 2>&1; rc=$?
  grep -v '^\s*\(\[rank [0-9]\] \)\?[^ ]*(.*+0x' "$tmp/$1.out" | sed "s/^/    [$1] /" | head -20
}
has() { grep -q -- "$2" "$tmp/$1.out"; }  # LAYER REGEX
common() { # LAYER: the shape every layer shares
  ! has "$1" 'still alive' && has "$1" '(gasnett__fatal_end+' && has "$1" '^GASNet backtrace' &&
    [ "$(grep -c '^gasnetrun[_a-z]*: rank 1 (on host [^)]*) ' "$tmp/$1.out")" = 1 ]
}
launcher_line='^gasnetrun[_a-z]*: rank 1 (on host [^)]*) aborted the job: GASNet error: '

run core
expect "core: exit $rc (want 1); launcher: 'rank 1 (on host H) aborted the job: GASNet error: gasnet_AMRequestShort0: node 2 does not exist (the job has 2 nodes) (on node 1 of 2)'; a backtrace through gasnett__fatal_end" \
  "$([ $rc = 1 ] && common core && has core "${launcher_line}gasnet_AMRequestShort0: node 2 does not exist (the job has 2 nodes) (on node 1 of 2)\$"; echo $?)"

run extended
expect "extended: exit $rc (want 1); launcher: 'rank 1 (on host H) aborted the job: GASNet error: gasnet_put: node 2 does not exist ... (on node 1 of 2)'; a backtrace through gasnetc_vfatal and gasnett__fatal_end" \
  "$([ $rc = 1 ] && common extended && has extended "${launcher_line}gasnet_put: node 2 does not exist.* (on node 1 of 2)\$" &&
     has extended '(gasnetc_vfatal+'; echo $?)"

run tools
expect "tools: exit $rc (want 134 = SIGABRT); '[rank 1] *** FATAL ERROR: t_fatal tools 7', '    at ...t_fatal.c:N in main()'; launcher: rank 1 ... SIGABRT; a backtrace through gasnett__fatal_end" \
  "$([ $rc = 134 ] && common tools && has tools '^\[rank 1\] \*\*\* FATAL ERROR: t_fatal tools 7$' &&
     has tools '^    at .*t_fatal.c:[0-9]* in main()$' && has tools '^gasnetrun[_a-z]*: rank 1 (on host [^)]*) .*SIGABRT'; echo $?)"

[ $fails = 0 ] && echo "t-fatal: all passed"
exit $fails
