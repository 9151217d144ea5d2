# tests/lib/probe.sh - run jobs of tests/spawner/ssh_probe through the real
# launcher and check what the ranks report (sourced, after sshd.sh).
#
#   probe_require           fail unless GASNETRUN and the probe program exist
#                           (links the probe into MH_DIR when make did not)
#   probe_job SECS NAME ARGS...
#                           run "$GASNETRUN ARGS..." bounded by SECS, output in
#                           MH_DIR/NAME.out/.err; sets JOB_RC, JOB_OUT, JOB_ERR
#   probe_bg NAME ARGS... / probe_bg_wait SECS
#                           the same in the background (MH_BG its pid), for
#                           tests that act on a running job
#   JOB_PREFIX=(ip netns exec NS)   run the launcher through this (must exec)
#   probe_check_job N HOST...
#                           the job of N ranks reported correct data on every
#                           rank, rank r ran on HOST[r / (N / #HOSTS)] (ranks
#                           blocked by host, in host-list order; when N is not
#                           a multiple: blocks in list order, sizes differing
#                           by at most one), and the rank 0 table agrees with
#                           what each rank said itself
#                           (PROBE_ANYHOST=1: skip the host checks)
#   probe_pids FILE         "rank pid" of every probe-self line
#   probe_wait_ok FILE N SECS / probe_wait_line FILE TEXT SECS
#                           wait for N probe-ok lines / a line with TEXT
#   probe_job_procs MARKER  everything of the test's jobs still running
#   job_procs / no_leftovers SECS WHAT / gone_within SECS EXPECTED PID...
#                           the same for the caller's $marker; fail() unless
#                           it is all gone within SECS; wait for PIDs to go.
#                           SECS only catches a hang (tests/lib/hang.sh): the
#                           time taken is printed, never asserted
#   probe_ssh_edges HOST... / probe_tree_check DEGREE MINDEPTH HOST...
#                           the running ssh tree as "from to" lines; check it
#
# Every check prints what it compared; failures print the job's output.

. "$(dirname "${BASH_SOURCE[0]}")/hang.sh"

PROBE=

probe_require() {
    [ -x "${GASNETRUN:-}" ] || mh_fail "launcher not built: GASNETRUN='${GASNETRUN:-}' is not executable"
    local top=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
    if [ -x "$top/tests/spawner/ssh_probe" ]; then PROBE=$top/tests/spawner/ssh_probe; return 0; fi
    # not in the build yet: link it against the library that holds boot_init
    local a lib=""
    for a in "$top"/bootstrap/*.a "$top"/bootstrap/.libs/*.a "$top"/core/*.a "$top"/*.a "$top"/lib/*.a; do
        [ -f "$a" ] || continue
        nm -g --defined-only "$a" 2>/dev/null | grep -q ' T boot_init$' && { lib=$a; break; }
    done
    [ -n "$lib" ] || mh_fail "no library defining boot_init under $top (is bootstrap/ built?)"
    PROBE=$MH_DIR/bin/ssh_probe
    mkdir -p "$MH_DIR/bin"
    # libboot's hashes are in common/'s library (linked beside it, after it)
    local common=""
    for a in "$top"/common/.libs/libgasneti.a "$top"/common/libgasneti.a; do [ -f "$a" ] && { common=$a; break; }; done
    ${CC:-cc} -std=gnu11 -O1 -I"$top/bootstrap" -I"$top/include" "$top/tests/spawner/ssh_probe.c" "$lib" $common \
        $(pkg-config --libs libuv zlib 2>/dev/null || echo "-luv -lz") -lpthread -o "$PROBE" 2>"$MH_DIR/cc.err" ||
        { cat "$MH_DIR/cc.err"; mh_fail "cannot build ssh_probe against $lib"; }
    echo "built $PROBE against $lib"
}

probe_job() {
    local secs=$1 name=$2; shift 2
    JOB_OUT=$MH_DIR/$name.out JOB_ERR=$MH_DIR/$name.err
    echo "\$ $(env | grep '^GASNET_' | grep -v '^GASNET_SSH_OPTIONS=' | tr '\n' ' ')${JOB_PREFIX[*]+${JOB_PREFIX[*]} }gasnetrun $*"
    mh_run_bounded "$secs" "$MH_DIR/$name" ${JOB_PREFIX[@]+"${JOB_PREFIX[@]}"} "$GASNETRUN" "$@"
    JOB_RC=$?
    local ok; ok=$(grep -c 'probe-ok:' "$JOB_OUT")
    echo "  -> exit $JOB_RC in ${MH_ELAPSED}s$([ "${ok:-0}" = 0 ] || echo " ($ok ranks ok)")"
    return 0
}

probe_show_job() { mh_show "$JOB_OUT" "$JOB_ERR"; }

# probe_check_job N HOST...
probe_check_job() {
    local n=$1; shift
    local nh=$# why
    why=$(awk -v n="$n" -v hosts="$*" -v anyhost="${PROBE_ANYHOST:-0}" '
        BEGIN { nh = split(hosts, H, " "); per = int(n / nh); bad = "" }
        { i = index($0, "probe-"); if (i > 1) $0 = substr($0, i) }   # launcher may prefix lines
        $1 == "probe-self:" { split($3, rs, "/"); r = rs[1]; if (rs[2] != n) bad = bad "rank " r " says size " rs[2] "; "
                              self[r]++; host[r] = $5; sshd[r] = $7; ns[r] = $9; pid[r] = $11 }
        $1 == "probe-table:" { t[$3] = $5 " " $7 " " $9 " " $11; nt++ }
        $1 == "probe-ok:"   { ok[$3]++ }
        $1 == "probe-done:" { done[$3]++ }
        $1 == "probe-error:" { bad = bad $0 "; " }
        END {
            for (r = 0; r < n; r++) {
                if (self[r] != 1) bad = bad "rank " r " said hello " self[r] + 0 " times; "
                if (ok[r] != 1) bad = bad "rank " r " has no probe-ok; "
                if (done[r] != 1) bad = bad "rank " r " has no probe-done; "
                want = H[int(r / per) + 1]
                if (!anyhost && per * nh == n && host[r] != want) bad = bad "rank " r " ran on " host[r] " not " want "; "
                if (t[r] != host[r] " " sshd[r] " " ns[r] " " pid[r]) bad = bad "rank 0 table says rank " r " is [" t[r] "]; "
            }
            if (nt != n) bad = bad "rank 0 table has " nt + 0 " rows; "
            # not divisible: every host gets floor(n/#hosts) or one more
            if (!anyhost && per * nh != n) {
                for (r = 0; r < n; r++) cnt[host[r]]++
                for (i = 1; i <= nh; i++) if (cnt[H[i]] < per || cnt[H[i]] > per + 1) bad = bad H[i] " has " cnt[H[i]] + 0 " ranks; "
            }
            # blocked: host changes only upwards through the list
            for (r = 1; r < n && !anyhost; r++) if (host[r] != host[r - 1]) {
                for (i = 1; i <= nh && H[i] != host[r - 1]; i++); for (j = 1; j <= nh && H[j] != host[r]; j++);
                if (j <= i) bad = bad "rank " r " on " host[r] " after rank " r - 1 " on " host[r - 1] "; " }
            printf "%s", bad
        }' "$JOB_OUT")
    echo "  ranks by host: $(awk '{ i = index($0, "probe-"); if (i > 1) $0 = substr($0, i) } $1 == "probe-self:" { split($3, rs, "/"); print rs[1], $5 }' "$JOB_OUT" |
        sort -n | awk '{ if ($2 != h) { if (h != "") printf "%s:%s-%s ", h, a, b; h = $2; a = $1 } b = $1 }
                      END { if (h != "") printf "%s:%s-%s", h, a, b }')"
    if [ -n "$why" ]; then
        echo "  check failed: $why"
        probe_show_job
        return 1
    fi
    echo "  data ok on all $n ranks (records, ${PROBE_BIG:-8192}-byte exchange, broadcast, barrier)$([ "${PROBE_ANYHOST:-0}" = 1 ] || echo ", ranks blocked by host")"
}

probe_pids() { awk '{ i = index($0, "probe-"); if (i > 1) $0 = substr($0, i) } $1 == "probe-self:" { split($3, rs, "/"); print rs[1], $11 }' "$1"; }

probe_wait_ok() {
    local f=$1 n=$2 secs=$3 end=$(( EPOCHSECONDS + $3 ))
    local c
    while c=$(grep -c 'probe-ok:' "$f" 2>/dev/null); [ "${c:-0}" -lt "$n" ]; do
        [ "$EPOCHSECONDS" -ge "$end" ] && return 1
        [ -n "${MH_BG:-}" ] && ! [ -e "/proc/$MH_BG" ] && return 1
        sleep 0.2
    done
    return 0
}

# probe_wait_line FILE TEXT SECS: wait until FILE holds a line with TEXT
probe_wait_line() {
    local end=$(( EPOCHSECONDS + $3 ))
    until grep -qF -- "$2" "$1" 2>/dev/null; do
        [ "$EPOCHSECONDS" -ge "$end" ] && return 1
        sleep 0.1
    done
}

# probe_bg NAME ARGS...: start "$GASNETRUN ARGS..." in the background (for
# the kill tests); MH_BG is its pid, JOB_OUT/JOB_ERR its output.
probe_bg() {
    local name=$1; shift
    JOB_OUT=$MH_DIR/$name.out JOB_ERR=$MH_DIR/$name.err
    echo "\$ $(env | grep '^GASNET_' | grep -v '^GASNET_SSH_OPTIONS=' | tr '\n' ' ')${JOB_PREFIX[*]+${JOB_PREFIX[*]} }gasnetrun $* &"
    GNT_MH_TAG=$MH_TAG ${JOB_PREFIX[@]+"${JOB_PREFIX[@]}"} "$GASNETRUN" "$@" >"$JOB_OUT" 2>"$JOB_ERR" </dev/null &
    MH_BG=$!
}

# probe_bg_wait SECS: wait for the background job; JOB_RC = its status or
# 124 (then killed).
probe_bg_wait() {
    mh_wait_bounded "$MH_BG" "$1"
    JOB_RC=$?
}

# probe_job_procs MARKER: pids of everything of this test's jobs still
# running: argv holds MARKER (launcher, ranks) or the test's key (ssh
# clients); or it carries the test's tag and is not sshd (relays, shells);
# or it is a session of one of the test's sshd (any descendant).
probe_job_procs() {
    local p d comm
    {
        pgrep -f -- "$1"
        pgrep -f -- "$MH_DIR/ssh/id_ed25519"
        for p in $(mh_tagged_pids "$MH_TAG"); do
            comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
            [ "$comm" = sshd ] || echo "$p"
        done
        for d in "$MH_DIR"/sshd-*/pid; do
            [ -f "$d" ] && mh_descendants "$(cat "$d")"
        done
    } | sort -un | grep -vx -e "$$" -e "$BASHPID"
}

# gone_within SECS EXPECTED PID...: wait until none of PIDs exists; prints
# the time, and fails only past SECS (a hang; EXPECTED is the usual time).
gone_within() {
    local secs=$1 expected=$2 t0=$EPOCHREALTIME p left; shift 2
    while :; do
        left=""; for p in "$@"; do [ -e "/proc/$p" ] && left="$left $p"; done
        [ -z "$left" ] && break
        if awk -v a="$t0" -v b="$EPOCHREALTIME" -v s="$secs" 'BEGIN{exit !(b - a > s)}'; then
            echo "  HUNG: still alive after ${secs} s (expected gone in about $expected):"
            for p in $left; do echo "    $(ps -o pid=,args= -p "$p")"; done
            return 1
        fi
        sleep 0.1
    done
    echo "  all gone after $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b - a}') s" \
         "(did not hang: bound $secs s, expected about $expected)"
}

# job_procs: everything of the test's jobs still running (ranks, relays,
# ssh clients, sshd sessions); the caller's $marker names its job
job_procs() { probe_job_procs "$marker"; }
# no_leftovers SECS WHAT: nothing of the job is left, soon after WHAT (a job
# is normally gone at once; SECS only catches a hang)
no_leftovers() {
    local t0=$EPOCHREALTIME end=$((EPOCHSECONDS + $1)) left
    while left=$(job_procs); [ -n "$left" ]; do
        if [ "$EPOCHSECONDS" -ge "$end" ]; then
            fail "left running $1 s after $2:"; ps -o pid=,args= -p $(echo $left | tr ' ' ,) | cut -c1-150
            return 1
        fi
        sleep 0.2
    done
    echo "  nothing of the job left $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b - a}') s" \
         "after $2 (did not hang: bound $1 s)"
}

# probe_ssh_edges HOST...: the ssh spawn tree as it runs now, one line
# "FROM TO" per ssh client of this test (found by the test's key in argv):
# FROM is "launcher" for a client the launcher started, else the host whose
# test sshd started the relay that runs the client (its SSH_CONNECTION).
probe_ssh_edges() {
    local key=$MH_DIR/ssh/id_ed25519 p w h to from conn name hit argv envp cw
    for p in $(pgrep -x ssh); do
        mapfile -d '' -t argv <"/proc/$p/cmdline" 2>/dev/null || continue
        to=""; hit=0
        for w in "${argv[@]}"; do
            [ "$w" = "$key" ] && hit=1
            for h in "$@"; do { [ "$w" = "$h" ] || [ "$w" = "${USER:-root}@$h" ]; } && to=$h; done
        done
        [ $hit = 1 ] && [ -n "$to" ] || continue
        # its environment, read by the shell (no process per client)
        name="" conn=""
        mapfile -d '' -t envp <"/proc/$p/environ" 2>/dev/null
        for w in "${envp[@]}"; do
            case $w in GNT_SSHD_NAME=*) name=${w#*=} ;; SSH_CONNECTION=*) conn=${w#*=} ;; esac
        done
        from=launcher
        if [ -n "$name" ]; then cw=($conn); from=${cw[2]:-}; fi
        echo "$from $to"
    done
}

# probe_tree_check DEGREE MINDEPTH HOST...: the edges (on stdin) reach every
# HOST exactly once, nobody has more than DEGREE children, and the deepest
# host is at least MINDEPTH ssh hops from the launcher. (The launcher's own
# ssh clients count towards its DEGREE.)
probe_tree_check() {
    local deg=$1 mind=$2; shift 2
    awk -v deg="$deg" -v mind="$mind" -v hosts="$*" '
        BEGIN { nh = split(hosts, H, " ") }
        { kids[$1]++; parent[$2] = $1; seen[$2]++; n++ }
        END {
            bad = ""
            for (i = 1; i <= nh; i++) if (seen[H[i]] != 1) bad = bad H[i] " reached " seen[H[i]] + 0 " times; "
            for (f in kids) if (kids[f] > deg) bad = bad f " has " kids[f] " children; "
            maxd = 0
            for (i = 1; i <= nh; i++) { d = 0; h = H[i]
                while (h != "launcher" && h != "" && d <= nh) { h = parent[h]; d++ }
                if (h != "launcher") bad = bad H[i] " not connected to the launcher; "
                if (d > maxd) maxd = d }
            if (maxd < mind) bad = bad "depth " maxd " < " mind "; "
            m = 0; for (f in kids) if (kids[f] > m) m = kids[f]
            printf "  tree: %d ssh edges, depth %d, max fan-out %d\n", n, maxd, m
            if (bad != "") { print "  tree check failed: " bad; exit 1 }
        }'
}
