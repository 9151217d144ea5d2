# tests/lib/slurm.sh - a Slurm cluster for one test (sourced).
#
#   slurm_start      one node, this host: munged, slurmctld and slurmd in a
#                    fresh temporary directory (SLURM_DIR) on 127.0.0.1;
#                    export SLURM_CONF, wait until the node is idle.
#   slurm_start_two NSA ADDRA NSB ADDRB
#                    two nodes, na and nb, in network namespaces NSA and NSB
#                    (tests/lib/netns.sh) at ADDRA and ADDRB, slurmctld in
#                    NSA. Run srun inside NSA with slurm_srun.
#   slurm_srun ARGS...   srun in NSA (two nodes) or here (one node)
#   slurm_stop       stop the daemons by their pid files (SIGKILL after 1 s),
#                    kill what still runs in the directory, remove it. Safe to call twice;
#                    tests trap it on EXIT. A test killed at its time limit
#                    cannot (its daemons left its process group): the next
#                    start stops the clusters of tests that are gone (the
#                    directory's name holds its test's pid).
# A start returns 1 with SLURM_WHY set when it cannot (not root, packages
# missing, daemons fail): the caller skips that part and says why.
#
# The facts behind this file (Debian 12, Slurm 22.05, as root, no systemd)
# are in ../shared/notes/slurm-one-node.md. More tasks than a node's CPUs
# need srun -O (--overcommit). For two nodes on one machine:
#   - the daemons enter the namespaces with nsenter --net only: `ip netns
#     exec` mounts a fresh /sys, without the cgroup hierarchies slurmd needs;
#   - srun runs under `ip netns exec`, which puts /etc/netns/NSA/hosts over
#     /etc/hosts: srun names this host's address to the nodes, and the host
#     name must resolve to ADDRA there (here it is 127.0.0.1);
#   - nb's slurmd has a private mount namespace in which its own directory
#     covers $SLURM_DIR/tmp: the PMIx plugin puts per-step sockets under
#     TmpFS, named by job and step only, and two nodes must not share them.

slurm_free_port() {
    python3 - <<'EOF' 2>/dev/null || echo $((20000 + RANDOM % 20000))
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])
EOF
}

# The directory, munged and slurm.conf up to the node lines.
# slurm__prepare CTLD-ADDR
slurm__prepare() {
    SLURM_WHY=""
    [ "$(id -u)" = 0 ] || { SLURM_WHY="not root: slurmd and munged need root"; return 1; }
    local b
    for b in munged slurmctld slurmd srun sinfo; do
        command -v $b >/dev/null || { SLURM_WHY="$b not installed (contrib/install-deps.sh --tests installs slurmd slurmctld munge)"; return 1; }
    done
    slurm__reap
    SLURM_DIR=$(mktemp -d "/tmp/gasnet-slurm.$$.XXXXXX")
    SLURM_NS=""
    local d=$SLURM_DIR
    mkdir -p "$d/state" "$d/tmp" /run/munge
    head -c 1024 /dev/urandom >"$d/munge.key"
    chmod 600 "$d/munge.key"
    munged --key-file="$d/munge.key" --socket="$d/munge.sock" --pid-file="$d/munged.pid" \
        --log-file="$d/munged.log" --seed-file="$d/munge.seed" --force 2>"$d/munged.err" ||
        { SLURM_WHY="munged did not start: $(tail -n 1 "$d/munged.err")"; return 1; }
    cat >"$d/slurm.conf" <<EOF
ClusterName=gasnettest
SlurmctldHost=$(hostname -s)($1)
SlurmUser=root
SlurmctldPort=$(slurm_free_port)
SlurmdPort=$(slurm_free_port)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge.sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool-%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd-%n.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd-%n.log
TmpFS=$d/tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
EOF
    # the PMIx plugin's per-step directories (spmix_appdir_*) go here too,
    # not to /tmp, where a step that ended badly would leave them
    echo "PMIxCliTmpDirBase=$d/tmp" >"$d/mpi.conf"
    export SLURM_CONF="$d/slurm.conf"
}

# slurm__wait_idle NODES: until every node is idle (at most 20 s)
slurm__wait_idle() {
    local i state
    for i in $(seq 1 100); do
        state=$(slurm_srun_env sinfo -h -o %t 2>/dev/null | sort -u | tr '\n' ' ')
        [ "$state" = "idle " ] && return 0
        sleep 0.2
    done
    SLURM_WHY="the Slurm nodes never became idle (sinfo: $(slurm_srun_env sinfo -h -o '%N %t' 2>&1 | tr '\n' ' '))"
    return 1
}

slurm_start() {
    slurm__prepare 127.0.0.1 || return 1
    local host; host=$(hostname -s)
    cat >>"$SLURM_CONF" <<EOF
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=p Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF
    slurmctld -f "$SLURM_CONF" || { SLURM_WHY="slurmctld did not start"; return 1; }
    slurmd -f "$SLURM_CONF" || { SLURM_WHY="slurmd did not start"; return 1; }
    slurm__wait_idle
}

slurm_start_two() {
    local nsa=$1 a=$2 nsb=$3 b=$4
    command -v nsenter >/dev/null && command -v unshare >/dev/null ||
        { SLURM_WHY="nsenter or unshare missing (util-linux)"; return 1; }
    slurm__prepare "$a" || return 1
    local d=$SLURM_DIR
    SLURM_NS=$nsa
    cat >>"$SLURM_CONF" <<EOF
NodeName=na NodeAddr=$a NodeHostname=$(hostname -s) CPUs=$(nproc) State=UNKNOWN
NodeName=nb NodeAddr=$b NodeHostname=$(hostname -s) CPUs=$(nproc) State=UNKNOWN
PartitionName=p Nodes=na,nb Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF
    mkdir -p "/etc/netns/$nsa" "$d/tmp-nb"
    printf '127.0.0.1 localhost\n%s %s\n' "$a" "$(hostname)" >"/etc/netns/$nsa/hosts"
    SLURM_ETC_NETNS=/etc/netns/$nsa
    nsenter --net="/run/netns/$nsa" slurmctld -f "$SLURM_CONF" || { SLURM_WHY="slurmctld did not start"; return 1; }
    nsenter --net="/run/netns/$nsa" slurmd -f "$SLURM_CONF" -N na || { SLURM_WHY="slurmd na did not start"; return 1; }
    unshare -m --propagation private sh -c 'mount --bind "$1/tmp-nb" "$1/tmp" &&
        exec nsenter --net="/run/netns/$2" slurmd -f "$3" -N nb' sh "$d" "$nsb" "$SLURM_CONF" ||
        { SLURM_WHY="slurmd nb did not start"; return 1; }
    slurm__wait_idle
}

# A Slurm command where the cluster's controller is (NSA for two nodes).
slurm_srun_env() {
    if [ -n "${SLURM_NS:-}" ]; then ip netns exec "$SLURM_NS" "$@"; else "$@"; fi
}
slurm_srun() { slurm_srun_env srun "$@"; }

# The daemons by their pid files (read once: a daemon removes its own as it
# stops), given 5 s; then every process still working in the directory
# (slurmd and slurmstepd run there; a step stuck on a hung task keeps
# slurmd from stopping) is killed.
# slurm__stop_dir DIR: the cluster of DIR stopped, DIR removed
slurm__stop_dir() {
    local dir=$1 f pid pids="" p left
    # The cluster is thrown away with its directory: nothing of its state
    # is worth a clean shutdown, which took slurmd and slurmctld 2 to 5 s
    # each (10 s a test). TERM, 1 s for all of them at once, then KILL.
    for f in "$dir"/*.pid; do
        pid=$(cat "$f" 2>/dev/null) && kill "$pid" 2>/dev/null && pids="$pids $pid"
    done
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        left=""; for pid in $pids; do kill -0 "$pid" 2>/dev/null && left="$left $pid"; done
        [ -z "$left" ] && break
        sleep 0.1
    done
    [ -n "$left" ] && kill -9 $left 2>/dev/null
    # whatever still runs in the directory (one find, not a readlink per process)
    for p in $(find /proc -mindepth 2 -maxdepth 2 -name cwd \( -lname "$dir" -o -lname "$dir/*" \) 2>/dev/null); do
        p=${p#/proc/}; kill -9 "${p%/cwd}" 2>/dev/null
    done
    rm -rf "$dir"
}
slurm_stop() {
    [ -n "${SLURM_DIR:-}" ] && [ -d "$SLURM_DIR" ] || return 0
    slurm__stop_dir "$SLURM_DIR"
    [ -n "${SLURM_ETC_NETNS:-}" ] && rm -rf "$SLURM_ETC_NETNS"
    SLURM_DIR="" SLURM_NS="" SLURM_ETC_NETNS=""
}
# The clusters of tests that are gone (those before the pid was in the
# name count as gone).
slurm__reap() {
    local d owner
    for d in /tmp/gasnet-slurm.*; do
        [ -d "$d" ] || continue
        owner=${d#/tmp/gasnet-slurm.}; owner=${owner%%.*}
        [[ "$owner" =~ ^[0-9]+$ ]] && kill -0 "$owner" 2>/dev/null && continue
        slurm__stop_dir "$d"
    done
}
