# tests/lib/hang.sh - durations in tests catch hangs only (sourced).
#
# Tests assert outcomes, not speed: on a shared 2-core machine a step can
# take ten times its usual time. A duration is compared only with a bound
# several times (at least 5x) what the step is expected to take, so only a
# hang fails it; the measured value is printed all the same. How fast things
# are is measured by the benchmarks in tests/bench, which never assert.
#
#   hang_t0                       start a measurement (sets HANG_T0)
#   hang_secs                     seconds since hang_t0, two decimals
#   hang_check WHAT SECS BOUND EXPECTED
#       print "WHAT: took SECS s; did not hang: ended within BOUND s
#       (expected about EXPECTED)", or that it hung, and return 1 then
#   hang_wait_gone BOUND EXPECTED PATTERN
#       wait (at most BOUND s) until no process's argv matches PATTERN
#       (pgrep -f, this shell excepted); print how long it took; return 1
#       and list the survivors when they outlive BOUND

hang_t0() { HANG_T0=$EPOCHREALTIME; }

hang_secs() { awk -v a="$HANG_T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }

hang_check() {
    local what=$1 secs=$2 bound=$3 expected=$4
    if awk -v s="$secs" -v b="$bound" 'BEGIN { exit !(s <= b) }'; then
        echo "$what: took $secs s; did not hang: ended within $bound s (expected about $expected)"
        return 0
    fi
    echo "$what: HUNG: took $secs s, more than the $bound s bound (expected about $expected)"
    return 1
}

hang_wait_gone() {
    local bound=$1 expected=$2 pat=$3 t0=$EPOCHREALTIME left secs
    while left=$(pgrep -f -- "$pat" | grep -vx -e "$$" -e "$BASHPID"); [ -n "$left" ]; do
        secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
        if awk -v s="$secs" -v b="$bound" 'BEGIN { exit !(s > b) }'; then
            echo "processes matching '$pat' still there after $bound s (expected gone in about $expected):"
            ps -o pid=,args= -p "$(echo $left | tr ' ' ,)" | cut -c1-150 | sed 's/^/    /'
            return 1
        fi
        sleep 0.1
    done
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    echo "no process matching '$pat' left after $secs s (did not hang: bound $bound s, expected about $expected)"
}
