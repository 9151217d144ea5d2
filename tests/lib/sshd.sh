# tests/lib/sshd.sh - throw-away sshd for the ssh launcher tests (sourced).
#
#   sshd_start [-n NETNS] [-p PORT] NAME ADDR...
#       Start an sshd named NAME listening only on ADDR... (loopback
#       addresses, or addresses inside NETNS), on one port for all of them:
#       PORT, or a free one found by probing. Fresh host key and user key in
#       MH_DIR; root may log in with the user key only. Sets SSHD_PORT and
#       exports ssh_opts and GASNET_SSH_OPTIONS (the same string). Several
#       daemons (one per namespace) share the user key; give them the same
#       port (-p "$SSHD_PORT") so one ssh_opts reaches them all.
#   sshd_stop [NAME...]
#       Stop the named daemons (all when none) and every session they run.
#   sshd_require
#       SKIP the test (exit 77) when sshd cannot run here (not root, not installed).
#   sshd_check HOST [NETNS]
#       ssh HOST true (from NETNS when given); prints the error on failure.
#
# Sessions get PATH (and LD_LIBRARY_PATH, LANG when set) of the test (so a
# relay or rank finds what the test finds), GNT_MH_TAG (so cleanup finds them) and GNT_SSHD_NAME (so a rank can
# tell which daemon started it) through SetEnv; the command runs through the
# user's shell like on any cluster. SetEnv SHLVL=1 keeps bash from sourcing
# ~/.bashrc for ssh commands: the tests must not depend on the machine's rc
# files (root's may run `pyenv rehash`, which takes a lock file that a
# session killed in the middle leaves behind, blocking every later session
# for a minute). The daemon logs to MH_DIR/sshd-NAME/log.

. "$(dirname "${BASH_SOURCE[0]}")/mh.sh"

SSHD_BIN=${SSHD_BIN:-/usr/sbin/sshd}
SSHD_PORT=
sshd__names=()

# sshd_require: SKIP the test (exit 77, "SKIPPED: why") where a throw-away
# sshd cannot run: not root (Debian's sshd wants /run/sshd and privilege
# separation), or no sshd/ssh installed. GNT_REQUIRE_SSH=1 makes it a failure.
sshd_require() {
    local why=""
    if [ "$(id -u)" != 0 ]; then why="not root (the test sshd runs as root)"
    elif [ ! -x "$SSHD_BIN" ]; then why="$SSHD_BIN missing (openssh-server)"
    elif ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then why="ssh or ssh-keygen missing (openssh-client)"
    fi
    [ -z "$why" ] && return 0
    [ "${GNT_REQUIRE_SSH:-0}" = 1 ] && mh_fail "ssh tests required but: $why"
    mh_skip "ssh launcher tests: $why"
}

# Keys shared by the daemons of this run.
sshd__keys() {
    local k=$MH_DIR/ssh
    [ -f "$k/id_ed25519" ] && return 0
    mkdir -p "$k" && chmod 700 "$k"
    ssh-keygen -q -t ed25519 -N '' -C "gnt-test-host" -f "$k/host_ed25519" &&
    ssh-keygen -q -t ed25519 -N '' -C "gnt-test-user" -f "$k/id_ed25519" &&
    cp "$k/id_ed25519.pub" "$k/authorized_keys" || return 1
}

# Is ADDR:PORT listened on (in NETNS when given)? With WANT_PID: by that pid.
sshd__listening() {
    local ns=$1 addr=$2 port=$3 pid=${4:-} out
    if [ -n "$ns" ]; then out=$(ip netns exec "$ns" ss -Hltnp "sport = :$port" 2>/dev/null)
    else out=$(ss -Hltnp "sport = :$port" 2>/dev/null); fi
    echo "$out" | grep -qF " $addr:$port " || return 1
    [ -z "$pid" ] && return 0
    echo "$out" | grep -F " $addr:$port " | grep -q "pid=$pid,"
}

# sshd__listening_all NETNS PORT PID ADDR...: does PID listen on every
# ADDR:PORT? One ss for them all (a daemon on 16 addresses polled with an
# ss and two greps per address took 4 s of t-ssh-tree).
sshd__listening_all() {
    local ns=$1 port=$2 pid=$3 out line a; shift 3
    if [ -n "$ns" ]; then out=$(ip netns exec "$ns" ss -Hltnp "sport = :$port" 2>/dev/null)
    else out=$(ss -Hltnp "sport = :$port" 2>/dev/null); fi
    for a in "$@"; do
        line=${out#*" $a:$port "}
        [ "$line" != "$out" ] || return 1          # nobody listens there
        line=${line%%$'\n'*}
        [[ "$line" == *"pid=$pid,"* ]] || return 1
    done
}

# sshd keeps at most 16 listening sockets (MAX_LISTEN_SOCKS): more addresses
# get more daemons, NAME, NAME+2, NAME+3..., on the same port, all of them
# presenting themselves to sessions as NAME.
SSHD_MAX_LISTEN=16

sshd_start() {
    local ns="" port="" OPTIND opt
    while getopts "n:p:" opt; do
        case $opt in n) ns=$OPTARG;; p) port=$OPTARG;; *) return 2;; esac
    done
    shift $((OPTIND - 1))
    local name=$1; shift
    [ $# -gt 0 ] || { echo "sshd_start: no address" >&2; return 2; }
    local all=("$@") i=0 part=1 inst
    while [ $i -lt ${#all[@]} ]; do
        inst=$name; [ $part = 1 ] || inst=$name+$part
        sshd__start1 "$ns" "$port" "$inst" "$name" "${all[@]:i:SSHD_MAX_LISTEN}" || return 1
        port=$SSHD_PORT
        i=$((i + SSHD_MAX_LISTEN)); part=$((part + 1))
    done
}

# sshd__start1 NETNS PORT INSTANCE NAME ADDR...: one daemon (PORT may be empty)
sshd__start1() {
    local ns=$1 port=$2 name=$3 shown=$4; shift 4
    [ -x "$SSHD_BIN" ] || { echo "sshd_start: $SSHD_BIN missing (apt-get install openssh-server)" >&2; return 1; }
    sshd__keys || { echo "sshd_start: ssh-keygen failed" >&2; return 1; }
    mkdir -p /run/sshd 2>/dev/null && chmod 755 /run/sshd   # privsep dir Debian's sshd insists on
    local addrs=("$@") cmd=("$SSHD_BIN")
    [ -n "$ns" ] && cmd=(ip netns exec "$ns" "$SSHD_BIN")
    local d=$MH_DIR/sshd-$name k=$MH_DIR/ssh try a pid ok fixed=0
    mkdir -p "$d"
    [ -n "$port" ] && fixed=1
    for try in 1 2 3 4 5 6 7 8 9 10; do
        # below the ephemeral range so clients' ports don't collide with it
        [ $fixed = 1 ] || port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 12000 ))
        ok=1
        for a in "${addrs[@]}"; do sshd__listening "$ns" "$a" "$port" && ok=0; done
        [ $ok = 1 ] || { [ $fixed = 1 ] && break; continue; }
        {
            for a in "${addrs[@]}"; do echo "ListenAddress $a:$port"; done
            cat <<EOF
HostKey $k/host_ed25519
PidFile $d/sshd.pid
AuthorizedKeysFile $k/authorized_keys
UsePAM no
PermitRootLogin prohibit-password
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
HostbasedAuthentication no
X11Forwarding no
AllowAgentForwarding no
AllowTcpForwarding no
PermitTunnel no
PrintMotd no
PrintLastLog no
UseDNS no
MaxStartups 200
MaxSessions 200
LoginGraceTime 30
LogLevel VERBOSE
AcceptEnv GASNET_* GNT_*
SetEnv "PATH=$PATH" "GNT_MH_TAG=$MH_TAG" "GNT_SSHD_NAME=$shown" "SHLVL=1"${LD_LIBRARY_PATH:+ "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"}${LANG:+ "LANG=$LANG"}
EOF
        } >"$d/sshd_config"
        # -D: stay in the foreground, so $! is the daemon (ip netns exec execs)
        GNT_MH_TAG=$MH_TAG "${cmd[@]}" -D -e -f "$d/sshd_config" 2>>"$d/log" </dev/null &
        pid=$!
        mh_state sshd "$pid" "$d/sshd_config"
        # wait until it listens on every address, or died (port taken)
        local i all
        for i in $(seq 50); do
            [ -e "/proc/$pid" ] || break
            all=0; sshd__listening_all "$ns" "$port" "$pid" "${addrs[@]}" && all=1
            [ $all = 1 ] && break
            sleep 0.1
        done
        if [ -e "/proc/$pid" ] && [ $all = 1 ]; then
            echo "$pid" >"$d/pid"; echo "$port" >"$d/port"; echo "$ns" >"$d/netns"
            sshd__names+=("$name")
            SSHD_PORT=$port
            ssh_opts="-p $port -i $k/id_ed25519 -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR -o ConnectTimeout=5"
            export ssh_opts GASNET_SSH_OPTIONS="$ssh_opts"
            mh_at_exit "sshd_stop $name"
            [ "$MH_VERBOSE" = 1 ] && mh_log "sshd $name: pid $pid port $port ${ns:+netns $ns }on $(sed -n 's/^ListenAddress //p' "$d/sshd_config" | tr '\n' ' ')"
            return 0
        fi
        kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
        [ $fixed = 1 ] && break
        grep -q "Too many listen sockets" "$d/log" && break    # no other port helps
    done
    echo "sshd_start $name: could not start sshd on ${addrs[*]} port $port; log:" >&2
    sed 's/^/    /' "$d/log" >&2
    return 1
}

sshd_stop() {
    local names=() n d pid
    for n in "$@"; do
        for d in "$MH_DIR/sshd-$n" "$MH_DIR/sshd-$n+"*; do [ -d "$d" ] && names+=("${d##*/sshd-}"); done
    done
    [ $# -gt 0 ] || names=("${sshd__names[@]}")
    for n in "${names[@]}"; do
        d=$MH_DIR/sshd-$n
        [ -f "$d/pid" ] || continue
        pid=$(cat "$d/pid")
        # the daemon and its per-connection children (sessions' processes
        # carry the tag and are killed by the caller's cleanup / below)
        if [ -e "/proc/$pid" ]; then
            mh_kill_pids "$pid" $(mh_descendants "$pid")
            wait "$pid" 2>/dev/null
        fi
        rm -f "$d/pid"
    done
    return 0
}

sshd_check() {
    local host=$1 ns=${2:-} out
    if [ -n "$ns" ]; then
        out=$(ip netns exec "$ns" timeout 20 ssh $ssh_opts "$host" echo ok 2>&1 </dev/null)
    else
        out=$(timeout 20 ssh $ssh_opts "$host" echo ok 2>&1 </dev/null)
    fi
    [ "$out" = ok ] && return 0
    echo "ssh $host${ns:+ (from netns $ns)} failed: $out"
    return 1
}
