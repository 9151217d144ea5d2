# tests/lib/mh.sh - common ground of the multi-host launcher tests (sourced).
#
# Sourcing this file:
#  - removes what earlier runs left behind when they were killed (kill -9,
#    runner timeout): their sshd, tagged processes and network namespaces;
#  - creates this run's state directory MH_DIR (/tmp/gnt-mh.<uid>/<pid>) and the
#    run's tag MH_TAG. The jobs and daemons a test starts get it in their
#    environment as GNT_MH_TAG (mh_run_bounded, probe_bg, sshd_start; through
#    sshd SetEnv every process started over ssh carries it too). It is not
#    exported to everything: the test's own short helpers (grep, sort) must
#    not look like leftovers;
#  - installs one idempotent cleanup path on EXIT/INT/TERM/HUP that runs the
#    registered cleanups (last first), then kills every process still carrying
#    the tag, then removes MH_DIR.
#
# Why a tag in the environment: ranks started by sshd are in sessions of their
# own, outside the test's process group, and a launcher bug may orphan them;
# the tag finds them by pid whatever their argv or parent.
#
# Bash traps wait for the foreground command to end, so a test must not run a
# command that may hang in the foreground: use mh_run_bounded.

[ -n "${MH_LIB_LOADED:-}" ] && return 0
MH_LIB_LOADED=1

MH_ROOT=${MH_ROOT:-${TMPDIR:-/tmp}/gnt-mh.$(id -u)}
MH_VERBOSE=${MH_VERBOSE:-0}
mh__cleanups=()
mh__cleaned=0

mh_log()  { printf '[%(%H:%M:%S)T] %s\n' -1 "$*"; }
mh_fail() { echo "FAIL: $*"; exit 1; }

# fail MSG: a check failed; the test goes on. mh_finish ends the test: PASS,
# or every failed check again (the runner shows only the log's tail, and
# concurrent runs of the suite share the log file).
fails=0
mh__failed=()
fail() { echo "FAIL: $*"; fails=$((fails + 1)); mh__failed+=("$*"); }
mh_finish() {
    if [ "$fails" = 0 ]; then echo "PASS"; exit 0; fi
    echo "FAILED CHECKS ($fails):"
    printf '  - %s\n' "${mh__failed[@]}"
    exit 1
}
# mh_skip REASON: the test cannot run here; tests/run counts it as skipped
# (exit 77, automake's convention) and shows REASON.
mh_skip() { echo "SKIPPED: $*"; exit 77; }

# mh_at_exit CMD...: run CMD (one string, eval'ed) at cleanup, last registered first.
mh_at_exit() { mh__cleanups+=("$*"); }

# Start time of a process in clock ticks since boot (field 22 of stat), or
# empty when it does not exist or is a zombie (a test killed with -9 whose
# parent has not reaped it yet): with the pid it names a live process.
mh__starttime() {
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    s=${s##*) }                  # comm may hold spaces: skip past ") "
    set -- $s
    case $1 in Z|X) return 1;; esac
    echo "${20}"
}

# mh_tagged_pids TAG: pids of the processes whose environment holds
# GNT_MH_TAG=TAG, except this shell. grep runs without the tag itself.
mh_tagged_pids() {
    local f p
    for f in $(env -u GNT_MH_TAG grep -lzsxF "GNT_MH_TAG=$1" /proc/[0-9]*/environ); do
        p=${f#/proc/}; p=${p%/environ}
        [ "$p" = $$ ] || [ "$p" = "$BASHPID" ] || echo "$p"
    done
}

# mh_kill_pids PID...: SIGTERM, up to 2 s grace, then SIGKILL. Pids only.
mh_kill_pids() {
    [ $# -gt 0 ] || return 0
    local p i alive
    kill -TERM "$@" 2>/dev/null
    for i in 1 2 3 4 5 6 7 8 9 10; do
        alive=""
        for p in "$@"; do [ -e "/proc/$p" ] && alive="$alive $p"; done
        [ -z "$alive" ] && return 0
        sleep 0.2
    done
    kill -KILL $alive 2>/dev/null
    return 0
}

# mh_kill_tagged TAG: kill every process carrying TAG (twice: a dying relay
# may have forked just before).
mh_kill_tagged() {
    local pids
    pids=$(mh_tagged_pids "$1"); [ -n "$pids" ] && mh_kill_pids $pids
    pids=$(mh_tagged_pids "$1"); [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
    return 0
}

# mh_descendants PID: all descendants of PID (one ps snapshot).
mh_descendants() {
    ps -eo pid=,ppid= | awk -v root="$1" '
        { kids[$2] = kids[$2] " " $1 }
        END { n = split(kids[root], q, " ");
              for (i = 1; i <= n; i++) { print q[i]; m = split(kids[q[i]], c, " ");
                                          for (j = 1; j <= m; j++) q[++n] = c[j] } }'
}

# mh_state LINE: record something to undo (read by a later run if this one is
# killed): "sshd PID CONFIG", "netns NAME".
mh_state() { echo "$*" >>"$MH_DIR/state"; }

# mh__undo_state DIR TAG: undo what DIR/state records, kill TAG's processes.
mh__undo_state() {
    local dir=$1 tag=$2 kind a b pids
    mh_kill_tagged "$tag"
    if [ -f "$dir/state" ]; then
        # namespaces first (their processes), then daemons
        while read -r kind a b; do
            [ "$kind" = netns ] || continue
            if [ -e "/run/netns/$a" ]; then
                pids=$(ip netns pids "$a" 2>/dev/null)
                [ -n "$pids" ] && mh_kill_pids $pids
                ip netns del "$a" 2>/dev/null
            fi
        done <"$dir/state"
        while read -r kind a b; do
            [ "$kind" = sshd ] || continue
            # the pid is ours only if it still runs our config file
            if [ -e "/proc/$a" ] && tr '\0' ' ' <"/proc/$a/cmdline" 2>/dev/null | grep -qF -- "$b"; then
                pids=$(mh_descendants "$a")
                mh_kill_pids "$a" $pids
            fi
        done <"$dir/state"
    fi
    mh_kill_tagged "$tag"
}

# Remove what runs that no longer exist left behind.
mh_reap_stale() {
    local d owner start tag n p
    for d in "$MH_ROOT"/*/; do
        [ -f "$d/owner" ] || continue
        read -r owner start tag <"$d/owner" || continue
        [ "$owner" = $$ ] && continue
        [ "$(mh__starttime "$owner")" = "$start" ] && continue   # still running
        echo "mh: removing leftovers of killed run $owner ($d)"
        mh__undo_state "${d%/}" "$tag"
        rm -rf "$d"
    done
    # namespaces named gnt<pid>- whose run has no state dir any more
    if command -v ip >/dev/null 2>&1; then
        for n in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^gnt[0-9]+-'); do
            p=${n#gnt}; p=${p%%-*}
            [ -d "$MH_ROOT/$p" ] && continue
            echo "mh: removing leftover namespace $n"
            p=$(ip netns pids "$n" 2>/dev/null); [ -n "$p" ] && mh_kill_pids $p
            ip netns del "$n" 2>/dev/null
        done
    fi
}

mh__cleanup() {
    [ "$mh__cleaned" = 1 ] && return 0
    mh__cleaned=1
    trap '' INT TERM HUP          # finish cleaning even if signalled again
    [ "$BASHPID" = $$ ] || { echo "mh: cleanup called in subshell $BASHPID of $$: ignored"; return 0; }
    local i
    for ((i = ${#mh__cleanups[@]} - 1; i >= 0; i--)); do
        eval "${mh__cleanups[$i]}" || true
    done
    mh__undo_state "$MH_DIR" "$MH_TAG"
    if [ "${MH_KEEP:-0}" = 1 ]; then echo "mh: keeping $MH_DIR"; else rm -rf "$MH_DIR"; fi
    rmdir "$MH_ROOT" 2>/dev/null    # the last run out leaves nothing in /tmp
    return 0
}

# mh_wait_bounded PID SECS: wait for the background child PID at most SECS
# seconds; returns its status, or 124 after killing it and its descendants.
# The sleeper that bounds the wait is killed with SIGKILL: a TERM could reach
# it before it execs sleep, while it is still a copy of this shell with its
# traps (it would then run this test's cleanup).
mh_wait_bounded() {
    local pid=$1 secs=$2 sp done_pid="" rc
    if [ -e "/proc/$pid" ]; then
        sleep "$secs" &
        sp=$!
        wait -n -p done_pid "$pid" "$sp" 2>/dev/null
        rc=$?
        if [ "$done_pid" = "$sp" ]; then
            echo "mh: timed out after ${secs}s: pid $pid" >&2
            mh_kill_pids "$pid" $(mh_descendants "$pid")
            wait "$pid" 2>/dev/null
            return 124
        fi
        kill -KILL "$sp" 2>/dev/null; wait "$sp" 2>/dev/null
        [ "$done_pid" = "$pid" ] && return $rc
    fi
    wait "$pid"          # already gone (or wait -n lost it): its saved status
}

# mh_run_bounded SECS PREFIX CMD...: run CMD in the background, stdout to
# PREFIX.out and stderr to PREFIX.err, and wait at most SECS seconds.
# Returns CMD's status, or 124 after killing it (and its descendants) on
# timeout. Sets MH_ELAPSED (seconds, decimal) and MH_PID.
mh_run_bounded() {
    local secs=$1 prefix=$2; shift 2
    local t0=$EPOCHREALTIME rc
    GNT_MH_TAG=$MH_TAG "$@" >"$prefix.out" 2>"$prefix.err" </dev/null &
    MH_PID=$!
    mh_wait_bounded "$MH_PID" "$secs" 2>>"$prefix.err"
    rc=$?
    MH_ELAPSED=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b - a}')
    return $rc
}

# mh_wait_gone SECS PATTERN: wait until no process's argv matches PATTERN
# (pgrep -f); returns 1 and lists the survivors if they are still there.
mh_wait_gone() {
    local secs=$1 pat=$2 end
    end=$(( ${EPOCHSECONDS} + secs ))
    while pgrep -f -- "$pat" >/dev/null; do
        if [ "$EPOCHSECONDS" -ge "$end" ]; then
            echo "survivors matching '$pat':"; pgrep -af -- "$pat" | sed 's/^/    /'
            return 1
        fi
        sleep 0.2
    done
    return 0
}

# mh_show FILE...: print files with a header (for the log on failure).
mh_show() {
    local f
    for f in "$@"; do echo "---- $f"; [ -f "$f" ] && sed 's/^/    /' "$f"; done
}

mkdir -p "$MH_ROOT"
mh_reap_stale
MH_DIR="$MH_ROOT/$$"
rm -rf "$MH_DIR"; mkdir -p "$MH_DIR"
MH_TAG="gnt-$$-$(mh__starttime $$)"
echo "$$ $(mh__starttime $$) $MH_TAG" >"$MH_DIR/owner"
trap 'mh__cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
