#!/bin/bash
# t-badopts.sh - bad options give one line "gasnetrun: ..." on stderr and
# exit status 2, and start nothing.
# timeout: 30
. "$(dirname "$0")/common.sh"
prog="$T/prog"
printf '#!/bin/sh\ntouch %s/started\n' "$T" >"$prog"; chmod +x "$prog"

bad() { # WHAT ARGS...
  local what=$1; shift
  run 10 "$@"
  check_eq "$what: status" "$RC" 2
  check_eq "$what: stderr lines" "$(grep -c '^gasnetrun: ' "$ERR")/$(wc -l <"$ERR")" "1/1"
  echo "     $(cat "$ERR")"
  [ ! -e "$T/started" ] || { fail "$what: a rank was started"; rm -f "$T/started"; }
}
bad "-n 0" "$GASNETRUN" -n 0 "$prog"
bad "no -n" "$GASNETRUN" "$prog"
bad "-n abc" "$GASNETRUN" -n abc "$prog"
bad "unknown option" "$GASNETRUN" -n 2 --bogus "$prog"
bad "no program" "$GASNETRUN" -n 2
bad "program does not exist" "$GASNETRUN" -n 2 "$T/no-such-prog"
bad "program not in PATH" "$GASNETRUN" -n 2 no-such-program-$$
bad "unreadable host file" "$GASNETRUN" -n 2 --hostfile "$T/no-such-file" "$prog"
bad "empty host list" "$GASNETRUN" -n 2 -H "" "$prog"
bad "-N 3 without hosts" "$GASNETRUN" -n 4 -N 3 "$prog"
bad "-N more than hosts" "$GASNETRUN" -n 4 -N 3 -H 127.0.0.1,127.0.0.2 "$prog"
GASNET_MAX_PPN=2 bad "-n 5 > 2 hosts x GASNET_MAX_PPN=2" "$GASNETRUN" -n 5 -H 127.0.0.1,127.0.0.2 "$prog"
GASNET_MAX_PPN=4 bad "-n 5 > GASNET_MAX_PPN=4 locally" "$GASNETRUN" -n 5 "$prog"
GASNET_SSH_OUT_DEGREE=abc bad "GASNET_SSH_OUT_DEGREE=abc" "$GASNETRUN" -n 2 "$prog"
GASNET_SPAWNFN=X bad "GASNET_SPAWNFN=X" "$GASNETRUN" -n 2 "$prog"
run 10 "$GASNETRUN" -n 2 "$prog"
check_eq "the same program with good options: status" "$RC" 0
[ -e "$T/started" ] && echo "ok: it ran" || fail "good options did not run the program"
finish
