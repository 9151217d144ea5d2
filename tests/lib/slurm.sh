# tests/lib/slurm.sh - a one-node Slurm cluster for one test (sourced).
#
#   slurm_start      start munged, slurmctld and slurmd in a fresh temporary
#                    directory (SLURM_DIR), export SLURM_CONF, wait until the
#                    node is idle. Returns 77-style 1 with SLURM_WHY set when
#                    it cannot (not root, packages missing, daemons fail).
#   slurm_stop       stop the daemons by their pid files, remove the
#                    directory. Safe to call twice; tests trap it on EXIT.
#
# The facts behind this file (Debian 12, Slurm 22.05, as root, no systemd)
# are in ../shared/notes/slurm-one-node.md. Ports are probed free on
# 127.0.0.1; nothing binds another address. More tasks than the node's CPUs
# need srun -O (--overcommit).

slurm_free_port() {
    python3 - <<'EOF' 2>/dev/null || echo $((20000 + RANDOM % 20000))
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])
EOF
}

slurm_start() {
    SLURM_WHY=""
    [ "$(id -u)" = 0 ] || { SLURM_WHY="not root: slurmd and munged need root"; return 1; }
    for b in munged slurmctld slurmd srun sinfo; do
        command -v $b >/dev/null || { SLURM_WHY="$b not installed (contrib/install-deps.sh installs slurmd slurmctld munge)"; return 1; }
    done
    SLURM_DIR=$(mktemp -d /tmp/gasnet-slurm.XXXXXX)
    local d=$SLURM_DIR host cpus
    host=$(hostname -s)
    cpus=$(nproc)
    mkdir -p "$d/state" "$d/spool" "$d/tmp" /run/munge
    head -c 1024 /dev/urandom >"$d/munge.key"
    chmod 600 "$d/munge.key"
    munged --key-file="$d/munge.key" --socket="$d/munge.sock" --pid-file="$d/munged.pid" \
        --log-file="$d/munged.log" --seed-file="$d/munge.seed" --force 2>"$d/munged.err" ||
        { SLURM_WHY="munged did not start: $(tail -n 1 "$d/munged.err")"; return 1; }
    cat >"$d/slurm.conf" <<EOF
ClusterName=gasnettest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmctldPort=$(slurm_free_port)
SlurmdPort=$(slurm_free_port)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge.sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
TmpFS=$d/tmp
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=p Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF
    # the PMIx plugin's per-step directories (spmix_appdir_*) go here too,
    # not to /tmp, where a step that ended badly would leave them
    echo "PMIxCliTmpDirBase=$d/tmp" >"$d/mpi.conf"
    export SLURM_CONF="$d/slurm.conf"
    slurmctld -f "$SLURM_CONF" || { SLURM_WHY="slurmctld did not start"; return 1; }
    slurmd -f "$SLURM_CONF" || { SLURM_WHY="slurmd did not start"; return 1; }
    local i
    for i in $(seq 1 100); do
        [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && return 0
        sleep 0.2
    done
    SLURM_WHY="the Slurm node never became idle (sinfo: $(sinfo -h -o %t 2>&1 | head -n 1))"
    return 1
}

# The daemons by their pid files (read once: a daemon removes its own as it
# stops), given 5 s; then every process still working in the directory
# (slurmd and slurmstepd run there; a step stuck on a hung task keeps
# slurmd from stopping) is killed.
slurm_stop() {
    [ -n "${SLURM_DIR:-}" ] && [ -d "$SLURM_DIR" ] || return 0
    local f pid pids="" p
    for f in slurmd slurmctld munged; do
        pid=$(cat "$SLURM_DIR/$f.pid" 2>/dev/null) && kill "$pid" 2>/dev/null && pids="$pids $pid"
    done
    for pid in $pids; do
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    for p in /proc/[0-9]*; do
        case "$(readlink "$p/cwd" 2>/dev/null)" in
            "$SLURM_DIR"|"$SLURM_DIR"/*) kill -9 "${p#/proc/}" 2>/dev/null ;;
        esac
    done
    rm -rf "$SLURM_DIR"
    SLURM_DIR=""
}
