#!/bin/bash
# tests/bench/compare.sh OLD [NEW] - every benchmark of tests/bench, before
# and after, in the same run. OLD and NEW are each a git revision (built from
# `git archive` in a temporary directory: ./autogen.sh, ./configure --quiet,
# make -j2) or `--tree DIR`, a tree already built; NEW defaults to HEAD.
#
# Each round runs every benchmark on OLD, then on NEW; the figures each one
# prints are parsed (figure -> number, beside the raw probe measured in the
# same run when it prints one), and the table gives per figure the median
# over the rounds, old and new, new/old, the same for the figure over its
# probe, and WORSE when new is worse than old by more than THRESHOLD percent
# (on the figure over its probe when there is one, the machine being shared
# and noisy; on the figure itself otherwise). Times (ns, us, ms, s) are
# better lower, rates (MB/s, msgs/s, frames/s) higher. The GASNet programs
# also run with GASNET_STATSFILE, and the core counter medium_realigned (a
# Medium copied to realign its payload) is reported for old and new.
# A benchmark missing from one tree, or failing to build or run in one, is
# reported as such ("only in old", "failed in new: <last line>"); the others
# go on. Beside each benchmark: the share of the CPUs that other processes
# took while it ran (a busy machine moves figures more than any threshold).
# Figures only: exits 0 once the table is printed (1 when nothing could be
# compared, 2 on a usage error).
#
# Environment:
#   ROUNDS=3        rounds (1 with QUICK=1)
#   STATS=0         run the GASNet programs without GASNET_STATSFILE (with
#                   every statistic and trace off: docs/performance.md,
#                   "Tracing compiled in, off")
#   QUICK=1         every benchmark at its smallest size: a smoke test
#   BENCHES="..."   a subset of: am_pingpong tcp_bench tcp_bench_udp
#                   ex_npam_bench ex_bench ex_bench_tcp ex_ratomic_bench ext_bench-n2
#                   ext_bench-n8 vis_bench amudp_bench bar.sh startup.sh tree_startup.sh
#                   launchers.sh teardown.sh death.sh
#   THRESHOLD=5     percent
#   JOBS=2          make -j
#   RUN_TIMEOUT=300 seconds per benchmark run
#   LOGDIR=DIR      keep every run's output there (nothing is kept otherwise)
#   GASNET_SUPERNODE_MAXSIZE=1  (the default here) the shared-memory bypass
#                   off, so that a revision with it and one without compare
#                   the same network path; set 0 to measure it
# Everything temporary lives in one mktemp -d directory, removed on exit.
set -u
export GASNET_SUPERNODE_MAXSIZE=${GASNET_SUPERNODE_MAXSIZE:-1}
usage() { echo "usage: tests/bench/compare.sh OLD_REV|--tree DIR [NEW_REV|--tree DIR]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)

# ---- arguments: two sides, each a revision or --tree DIR -------------------
declare -A rev tree label
side_arg() { # SIDE ARGS... -> number of arguments used
  if [ "${2:-}" = --tree ]; then
    if [ -z "${3:-}" ] || [ ! -d "$3" ]; then echo "compare.sh: --tree needs a directory" >&2; usage; fi
    tree[$1]=$(cd "$3" && pwd); label[$1]="tree ${tree[$1]}"; return 2
  fi
  local h
  h=$(git -C "$top" rev-parse --verify --quiet "${2}^{commit}") ||
    { echo "compare.sh: not a revision: $2" >&2; usage; }
  rev[$1]=$h; label[$1]="$2 ($(git -C "$top" rev-parse --short "$h"))"; return 1
}
if [ $# -lt 1 ] || [ $# -gt 4 ]; then usage; fi
side_arg old "$@"; shift $?
[ $# -gt 0 ] || set -- HEAD
side_arg new "$@"; shift $?
[ $# = 0 ] || usage

quick=${QUICK:-0}
rounds=${ROUNDS:-$([ "$quick" = 1 ] && echo 1 || echo 3)}
threshold=${THRESHOLD:-5}
all_benches="am_pingpong tcp_bench tcp_bench_udp ex_npam_bench ex_bench ex_bench_tcp ex_ratomic_bench ext_bench-n2 ext_bench-n8 vis_bench amudp_bench bar.sh startup.sh tree_startup.sh launchers.sh teardown.sh death.sh"
benches=${BENCHES:-$all_benches}
for b in $benches; do
  case " $all_benches " in *" $b "*) ;; *) echo "compare.sh: unknown benchmark $b" >&2; usage;; esac
done
unset GASNET_STATSFILE TOP GASNETRUN

t_start=$EPOCHREALTIME
work=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-compare.XXXXXX") || exit 1
child=""  # the benchmark run in progress (timeout, leading its process group)
# shellcheck disable=SC2317  # run by the trap
cleanup() {
  [ -n "$child" ] && { kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; }
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
mkdir -p "$work/tmp" "$work/out" "$work/stats"
: >"$work/records"; : >"$work/status"; : >"$work/counters"; : >"$work/others"
say() { echo "compare: $*" >&2; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# ---- building --------------------------------------------------------------
declare -A build_err build_secs
first_error() { # LOG: the first line naming an error, else the last line
  local l
  l=$(grep -m1 -E '(error|Error|ERROR)[: ]' "$1")
  [ -n "$l" ] || l=$(grep -v '^[[:space:]]*$' "$1" | tail -n 1)
  echo "$l" | cut -c1-160
}
build_side() { # SIDE
  local s=$1 t0=$EPOCHREALTIME d=$work/$1 log=$work/build-$1.log rc
  [ -z "${rev[$s]:-}" ] && return 0
  if [ "$s" = new ] && [ "${rev[new]}" = "${rev[old]:-}" ]; then tree[new]=${tree[old]}; return 0; fi
  mkdir -p "$d"
  say "building $s, ${label[$s]}, in $d"
  if ! git -C "$top" archive --format=tar "${rev[$s]}" | tar -xf - -C "$d"; then
    build_err[$s]="git archive failed"; return 0
  fi
  # Under timeout, which leads the build's process group: an interrupt
  # stops the whole build (cleanup), not only this shell.
  # shellcheck disable=SC2016  # expanded by the inner bash
  timeout 3600 bash -c 'cd "$1" && ./autogen.sh && ./configure --quiet && make -j"$2"' build "$d" "${JOBS:-2}" \
    >"$log" 2>&1 </dev/null &
  child=$!; wait "$child"; rc=$?; child=""
  build_secs[$s]=$(elapsed "$t0")
  [ -n "${LOGDIR:-}" ] && mkdir -p "$LOGDIR" && cp "$log" "$LOGDIR/"
  if [ $rc != 0 ]; then
    build_err[$s]=$(first_error "$log")
    if [ -f "$d/Makefile" ]; then  # build whatever builds: one program may not
      timeout 3600 make -C "$d" -k -j"${JOBS:-2}" >>"$log" 2>&1 </dev/null &
      child=$!; wait "$child"; child=""
      say "$s: the build failed (${build_err[$s]}); built what could be"
    else
      say "$s: configure failed: ${build_err[$s]}"; return 0
    fi
  fi
  tree[$s]=$d
}

# ---- the benchmarks: how each is run, and at what size ----------------------
# bench_def ID: sets src (what says the benchmark is in a tree), bin (what
# has to be built), stats (1: a GASNet program, run with GASNET_STATSFILE)
# and cmd (run in tests/bench, relative to the tree).
bench_def() {
  local q=$quick
  stats=0; src=; bin=
  case $1 in
    am_pingpong)
      src=tests/bench/am_pingpong.c; bin=tests/bench/am_pingpong; stats=1
      cmd=(../../spawner/gasnetrun -n 2 ./am_pingpong "$([ "$q" = 1 ] && echo 100 || echo 2000)") ;;
    tcp_bench)
      src=tests/bench/tcp_bench.c; bin=tests/bench/tcp_bench; stats=1
      cmd=(../../spawner/gasnetrun_tcp -n 2 ./tcp_bench "$([ "$q" = 1 ] && echo 100 || echo 2000)") ;;
    tcp_bench_udp)
      src=tests/bench/tcp_bench.c; bin=tests/bench/tcp_bench_udp; stats=1
      cmd=(env TCP_BENCH_CONDUIT=udp ../../spawner/gasnetrun_udp -n 2 ./tcp_bench_udp
           "$([ "$q" = 1 ] && echo 100 || echo 2000)") ;;
    ex_npam_bench)
      src=tests/bench/ex_npam_bench.c; bin=tests/bench/ex_npam_bench; stats=1
      cmd=(../../spawner/gasnetrun_udp -n 2 ./ex_npam_bench "$([ "$q" = 1 ] && echo 2000 || echo 20000)"
           "$([ "$q" = 1 ] && echo 1 || echo 5)") ;;
    ex_bench)
      src=tests/bench/ex_bench.c; bin=tests/bench/ex_bench; stats=1
      cmd=(../../spawner/gasnetrun_udp -n 2 ./ex_bench "$([ "$q" = 1 ] && echo 200 || echo 5000)"
           "$([ "$q" = 1 ] && echo 1 || echo 5)") ;;
    ex_bench_tcp)
      src=tests/bench/ex_bench.c; bin=tests/bench/ex_bench_tcp; stats=1
      cmd=(../../spawner/gasnetrun_tcp -n 2 ./ex_bench_tcp "$([ "$q" = 1 ] && echo 200 || echo 5000)"
           "$([ "$q" = 1 ] && echo 1 || echo 5)") ;;
    ex_ratomic_bench)
      src=tests/bench/ex_ratomic_bench.c; bin=tests/bench/ex_ratomic_bench; stats=1
      cmd=(../../spawner/gasnetrun_udp -n 2 ./ex_ratomic_bench "$([ "$q" = 1 ] && echo 200 || echo 5000)"
           "$([ "$q" = 1 ] && echo 1 || echo 5)") ;;
    ext_bench-n2|ext_bench-n8)
      src=tests/bench/ext_bench.c; bin=tests/bench/ext_bench; stats=1
      cmd=(../../spawner/gasnetrun -n "${1#ext_bench-n}" ./ext_bench "$([ "$q" = 1 ] && echo 50 || echo 500)") ;;
    vis_bench)
      src=tests/bench/vis_bench.c; bin=tests/bench/vis_bench; stats=1
      cmd=(../../spawner/gasnetrun_udp -n 2 ./vis_bench "$([ "$q" = 1 ] && echo 20 || echo 200)"
           "$([ "$q" = 1 ] && echo 3 || echo 15)") ;;
    amudp_bench)
      src=tests/bench/amudp_bench.c; bin=tests/bench/amudp_bench
      cmd=(./amudp_bench 1) ;;
    bar.sh) cmd=(env BAR_SKIP_DEAD=1 ./bar.sh "$([ "$q" = 1 ] && echo 300 || echo 3000)") ;;
    startup.sh) cmd=(./startup.sh "$([ "$q" = 1 ] && echo 1 || echo 7)") ;;
    tree_startup.sh) cmd=(./tree_startup.sh "$([ "$q" = 1 ] && echo 1 || echo 5)") ;;
    launchers.sh) cmd=(./launchers.sh "$([ "$q" = 1 ] && echo 1 || echo 5)") ;;
    teardown.sh) cmd=(./teardown.sh "$([ "$q" = 1 ] && echo 1 || echo 3)") ;;
    death.sh) cmd=(./death.sh "$([ "$q" = 1 ] && echo 1 || echo 2)") ;;
  esac
  [ -n "$src" ] || { src=tests/bench/$1; bin=tests/bench/$1; }
}

# The figures of one run's output, one "kind name unit value probe" a line
# (tab-separated): kind P is a raw probe, F a figure, whose probe is named.
# Derived figures (MB/s beside a message rate or a round trip) are left out.
parse() { # ID < output
  awk -v b="$1" '
    function rec(kind, name, unit, v, probe) { printf "%s\t%s\t%s\t%s\t%s\n", kind, name, unit, v, probe }
    function num(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
    function label(from, to,   i, s) { s = $from; for (i = from + 1; i <= to; i++) s = s " " $i; return s }
    # am_pingpong, tcp_bench, ex_npam_bench, ex_bench, ex_ratomic_bench: "label mean median" round trips; floods; puts
    b ~ /^(am_pingpong|tcp_bench|tcp_bench_udp|ex_npam_bench|ex_bench|ex_bench_tcp|ex_ratomic_bench)$/ {
      if (/^round trip/) { sec = "rtt"; next }
      if (/^one-way flood/) { sec = "flood"; next }
      if (/^#|^summary:/) next
      if (/^raw TCP stream/) { rec("P", label(1, NF - 1), "MB/s", $NF, ""); next }
      if (/^put/) { rec("F", label(1, NF - 1), "MB/s", $NF, "raw TCP stream, spinning rd"); next }
      if (NF < 3 || !num($NF) || !num($(NF - 1))) next
      l = label(1, NF - 2)
      # the second probe of am_pingpong (connected sockets) is not the reference of the figures
      if (sec == "rtt" && l ~ /^raw /) { if (l !~ /connected/) raw = l; rec("P", l " mean", "us", $(NF - 1), ""); rec("P", l " median", "us", $NF, ""); next }
      if (sec == "rtt") { rec("F", l " mean", "us", $(NF - 1), raw " mean"); rec("F", l " median", "us", $NF, raw " median"); next }
      if (sec == "flood") rec("F", "flood " l, "msgs/s", $(NF - 1), raw " median")
      next
    }
    # vis_bench: "label mean median" per 32 KiB, no probe
    b == "vis_bench" {
      if (/^#|^summary:|^label/ || NF < 3 || !num($NF) || !num($(NF - 1))) next
      l = label(1, NF - 2); rec("F", l " mean", "us", $(NF - 1), ""); rec("F", l " median", "us", $NF, "")
      next
    }
    # ext_bench: latencies, a bandwidth table, the barrier (only this on 8 ranks)
    b ~ /^ext_bench/ {
      if (/^round trip \/ call/) { sec = "lat"; next }
      if (/^bandwidth MB\/s/) { sec = "bw"; nk = split($0, h, /  +/) - 1; for (i = 1; i <= nk; i++) kind[i] = h[i + 1]; next }
      if (/^barrier, all nodes/) { sec = "bar"; next }
      if (/^#|^summary:/ || $NF == "lost") next
      if (b == "ext_bench-n8" && sec != "bar") next
      if (sec == "bw" && /^raw UDP stream/) { rec("P", "raw UDP stream", "MB/s", $4, ""); next }
      if (sec == "bw" && num($1) && NF == nk + 2) {
        for (i = 1; i <= nk; i++) rec("F", kind[i] " " $1 " " $2, "MB/s", $(i + 2), "raw UDP stream")
        next
      }
      if (NF < 3 || !num($NF) || !num($(NF - 1))) next
      l = label(1, NF - 2)
      if (sec == "lat" && l ~ /^raw /) { rec("P", "raw UDP rtt mean", "us", $(NF - 1), ""); rec("P", "raw UDP rtt median", "us", $NF, ""); next }
      if (sec == "lat") { rec("F", l " mean", "us", $(NF - 1), "raw UDP rtt mean"); rec("F", l " median", "us", $NF, "raw UDP rtt median"); next }
      if (sec == "bar" && l ~ /^raw UDP gather/) { rec("P", "raw UDP gather mean", "us", $(NF - 1), ""); rec("P", "raw UDP gather median", "us", $NF, ""); next }
      if (sec == "bar" && l ~ /^raw /) { rec("P", "raw UDP barrier mean", "us", $(NF - 1), ""); rec("P", "raw UDP barrier median", "us", $NF, ""); next }
      if (sec == "bar") { rec("F", l " mean", "us", $(NF - 1), "raw UDP barrier mean"); rec("F", l " median", "us", $NF, "raw UDP barrier median") }
      next
    }
    # amudp_bench: the same-process raw median, then two sections (no loss, 10% loss)
    b == "amudp_bench" {
      if (/^\[same processes/) {
        n = 0; for (i = 1; i < NF; i++) if ($i == "median") v[++n] = $(i + 1)
        if (n >= 2) { rec("P", "raw UDP 8 B rtt, median of rounds", "us", v[1], "")
                      rec("F", "Short rtt, median of rounds", "us", v[2], "raw UDP 8 B rtt, median of rounds") }
        next
      }
      if (/^\[amudp, no loss\]/) { sec = "no loss: "; next }
      if (/^\[amudp, GASNET_UDP_DROP=/) { match($0, /DROP=[0-9.]+/); sec = "drop " substr($0, RSTART + 5, RLENGTH - 5) ": "; next }
      if (sec == "" || /^ *counters:/ || !/^  /) next
      p = "raw UDP 8 B rtt, median of rounds"
      if (/put burst/) {
        if (match($0, /x1 [0-9.]+/)) rec("F", sec "put burst 1 MiB x1", "us", substr($0, RSTART + 3, RLENGTH - 3), p)
        if (match($0, /back to back [0-9.]+/)) rec("F", sec "put burst 1 MiB x2", "us", substr($0, RSTART + 13, RLENGTH - 13), p)
        next
      }
      if (/flood/) { for (i = 2; i <= NF; i++) if ($i == "frames/s") rec("F", sec "flood 8 B", "frames/s", $(i - 1), p); next }
      for (i = 2; i <= NF; i++) if ($i == "us" && num($(i - 1))) { rec("F", sec label(1, i - 2) " rtt", "us", $(i - 1), p); break }
      next
    }
    b == "bar.sh" {
      if (/raw UDP busy-poll ping-pong:/) { rec("P", "raw UDP rtt mean", "us", $(NF - 1), ""); rec("P", "raw UDP rtt median", "us", $NF, "") }
      else if (/AM Short round trip: /) { rec("F", "AM Short rtt mean", "us", $(NF - 1), "raw UDP rtt mean"); rec("F", "AM Short rtt median", "us", $NF, "raw UDP rtt median") }
      else if (/^2\. AM Short round trip with/) { rec("F", "AM Short rtt at 10% loss, mean", "us", $(NF - 1), "raw UDP rtt mean"); rec("F", "AM Short rtt at 10% loss, median", "us", $NF, "raw UDP rtt median") }
      next
    }
    b == "startup.sh" && num($1) && $2 == "min" && NF >= 9 {
      p = "fork/exec " $1 " /bin/true, median"
      rec("P", p, "ms", $9, ""); rec("F", $1 " ranks start+barrier+exit, median", "ms", $5, p); next
    }
    b == "tree_startup.sh" {
      if (/local \(reference/) rec("P", "64 ranks local, median", "ms", $NF, "")
      else if (/relays/ && /median/) rec("F", "64 ranks via 8 relays, median", "ms", $NF, "64 ranks local, median")
      next
    }
    b == "launchers.sh" && NF >= 17 && $(NF - 1) == "/" && num($(NF - 15)) {
      l = label(1, NF - 16) " " $(NF - 15); p = l " floor, median"
      rec("P", p, "ms", $(NF - 3), "")
      rec("F", l " bootstrap, median", "ms", $(NF - 11), p); rec("F", l " GASNet program, median", "ms", $(NF - 7), p); next
    }
    b == "teardown.sh" && !/^event|^reference/ && NF >= 3 && num($NF) && num($(NF - 1)) {
      l = label(1, NF - 2); rec("F", l ", local 8 ranks", "ms", $(NF - 1), ""); rec("F", l ", tree 16 ranks", "ms", $NF, ""); next
    }
    b == "death.sh" {
      if (/transport: rank/) { for (i = 1; i < NF; i++) if ($i == "after") v[0] = $(i + 1)
                               rec("F", "transport: " (/owing it data/ ? "rank owing data" : "rank only waiting") " gave up after", "s", v[0], "") }
      else if (/^ *job: ended/) rec("F", "job ended after the stop", "s", $3, "")
      next
    }'
}

# The core counter from a run's stats files (one per rank), summed.
realigned() { # DIR
  local f=("$1"/st.*)
  [ -e "${f[0]}" ] || { echo "no-stats-file"; return; }
  awk '$1 == "core.medium_realigned" { s += $2; got = 1 } END { print got ? s : "absent" }' "${f[@]}"
}

# ---- running ----------------------------------------------------------------
status() { # ID SIDE ROUND STATE DETAIL (ok, failed, noparse, absent, unbuilt)
  [ "$4" = absent ] || [ "$4" = unbuilt ] && printf '%s %s' "$2" "$4" >&2
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$(printf '%s' "$5" | tr '\t' ' ')" >>"$work/status"
}
run_one() { # ID SIDE ROUND
  local id=$1 s=$2 r=$3 t=${tree[$2]:-} t0=$EPOCHREALTIME out=$work/out/$1.$2.$3 rc st det
  local -a cmd
  bench_def "$id"
  if [ -z "$t" ]; then status "$id" "$s" "$r" unbuilt "${build_err[$s]:-no tree}"; return; fi
  if [ ! -e "$t/$src" ] && [ ! -e "$t/$bin" ]; then status "$id" "$s" "$r" absent ""; return; fi
  if [ ! -x "$t/$bin" ]; then
    # the program's own error, from a tree this script built (never from a --tree)
    [ -n "${rev[$s]:-}" ] && det=$(make -C "$t/tests" "${bin#tests/}" 2>&1 | grep -m1 -E 'error|Error' | cut -c1-160)
    status "$id" "$s" "$r" unbuilt "${det:-${build_err[$s]:-$bin not built}}"; return
  fi
  local sd=$work/stats/$id.$s.$r
  mkdir -p "$sd"
  # In the background, so that an interrupt need not wait for the run.
  (cd "$t/tests/bench" &&
   if [ "$stats" = 1 ] && [ "${STATS:-1}" != 0 ]; then export GASNET_STATSFILE=$sd/st; fi &&
   exec env TOP="$t" GASNETRUN="$t/spawner/gasnetrun" PATH="$t/spawner:$PATH" TMPDIR="$work/tmp" \
     timeout -k 5 "${RUN_TIMEOUT:-300}" "${cmd[@]}") >"$out" 2>&1 </dev/null &
  child=$!
  wait "$child"; rc=$?
  child=""
  det=$(grep -v '^[[:space:]]*$' "$out" | tail -n 1 | cut -c1-160)
  [ $rc = 124 ] && det="timed out after ${RUN_TIMEOUT:-300} s; $det"
  if [ $rc != 0 ]; then st=failed; det="exit $rc: $det"
  elif parse "$id" <"$out" | grep -q .; then st=ok
  else st=noparse; fi
  if [ $st = ok ]; then
    parse "$id" <"$out" | sed "s/^/$id\t$s\t$r\t/" >>"$work/records"
    [ "$stats" = 1 ] && printf '%s\t%s\t%s\t%s\n' "$id" "$s" "$r" "$(realigned "$sd")" >>"$work/counters"
  fi
  status "$id" "$s" "$r" "$st" "$det"
  [ -n "${LOGDIR:-}" ] && mkdir -p "$LOGDIR" && cp "$out" "$LOGDIR/"
  rm -rf "$sd"
  printf '%s %s %ss' "$s" "$st" "$(elapsed "$t0")" >&2
}

# How much of the machine other processes took while a benchmark ran: the
# CPU time /proc/stat counts as busy (steal included), less what our own
# children used (bash's `times`; ranks that srun starts are not our
# children and count as others), over the wall time of all CPUs.
cpu_mark() { # sets mark="BUSY-SECONDS CHILDREN-SECONDS WALL-SECONDS"
  times >"$work/times"
  mark="$(awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.2f", ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat) \
$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.2f", t }' "$work/times") \
$EPOCHREALTIME"
}
others_pct() { # MARK-BEFORE MARK-AFTER
  awk -v a="$1" -v b="$2" -v n="$(nproc)" 'BEGIN { split(a, x, " "); split(b, y, " ")
    p = ((y[1] - x[1]) - (y[2] - x[2])) / ((y[3] - x[3]) * n) * 100
    printf "%.0f", (p < 0) ? 0 : (p > 100) ? 100 : p }'
}

# Benchmarks in a tree that this script does not know (helpers excepted).
unknown_benches() { # TREE
  local f n
  for f in "$1"/tests/bench/*.c "$1"/tests/bench/*.sh; do
    [ -e "$f" ] || continue
    n=$(basename "$f")
    case $n in t-*|timing.sh|compare.sh|startup_rank.c|startup_ref.c|startup_gasnet.c) continue;; esac
    case " $all_benches " in *" ${n%.c} "*|*" ${n%.c}-n2 "*) continue;; esac
    echo "$n"
  done
}

build_side old
build_side new
for s in old new; do
  [ -n "${tree[$s]:-}" ] || continue
  for n in $(unknown_benches "${tree[$s]}"); do say "$s has tests/bench/$n, which this script does not compare"; done
done
[ -n "${tree[old]:-}" ] || [ -n "${tree[new]:-}" ] || { say "no tree to run"; exit 1; }
t_runs=$EPOCHREALTIME
for r in $(seq "$rounds"); do
  for id in $benches; do
    printf 'compare: round %s/%s %-16s ' "$r" "$rounds" "$id" >&2
    cpu_mark; m0=$mark
    run_one "$id" old "$r"; printf ', ' >&2
    run_one "$id" new "$r"
    cpu_mark; others=$(others_pct "$m0" "$mark")
    printf '%s\t%s\t%s\n' "$id" "$r" "$others" >>"$work/others"
    echo ", others ${others}%" >&2
  done
done
t_runs=$(elapsed "$t_runs")

# ---- the report ---------------------------------------------------------------
echo "== compare: old = ${label[old]}, new = ${label[new]}"
echo "   $rounds round(s), each running every benchmark on old then new$([ "$quick" = 1 ] && echo ", QUICK=1 (smallest sizes)")"
awk -F '\t' -v benches="$benches" -v R="$rounds" -v thr="$threshold" \
    -v records="$work/records" -v status="$work/status" -v counters="$work/counters" -v others="$work/others" '
  function med(list,   a, n, i, j, x) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { x = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function f(v) { v += 0; return v >= 10000 ? sprintf("%.0f", v) : v >= 100 ? sprintf("%.1f", v) : v >= 1 ? sprintf("%.2f", v) : sprintf("%.3f", v) }
  function rate(u) { return u ~ /\/s$/ }
  function time_(u) { return u ~ /^(ns|us|ms|s)$/ }
  BEGIN {
    nb = split(benches, B, /[ \n\t]+/)
    while ((getline l < status) > 0) {
      split(l, x, "\t"); k = x[1] SUBSEP x[2]
      runs[k, x[4]]++; detail[k, x[4]] = x[5]
    }
    while ((getline l < others) > 0) {
      split(l, x, "\t"); if (x[3] == "") continue
      oth[x[1]] = oth[x[1]] " " x[3]; osum += x[3]; on++; if (x[3] + 0 > omax) omax = x[3] + 0
    }
    while ((getline l < counters) > 0) { split(l, x, "\t"); cnt[x[1], x[2]] = cnt[x[1], x[2]] " " x[4]; hascnt[x[1]] = 1 }
    while ((getline l < records) > 0) {
      split(l, x, "\t"); b = x[1]; s = x[2]; r = x[3]; k = b SUBSEP x[5]
      if (!(k in unit)) { order[++n] = k; unit[k] = x[6]; kind[k] = x[4]; probe[k] = x[8]; nfig[b]++ }
      vals[k, s] = vals[k, s] " " x[7]
      if (x[4] == "P") { pv[b, s, r, x[5]] = x[7]; punit[b, x[5]] = x[6] }
      else if (x[8] != "") { pend[++np] = k SUBSEP s SUBSEP r SUBSEP x[7] }
    }
    for (i = 1; i <= np; i++) {
      split(pend[i], x, SUBSEP); k = x[1] SUBSEP x[2]; p = probe[k]
      if (!((x[1], x[3], x[4], p) in pv) || pv[x[1], x[3], x[4], p] <= 0) continue
      q = pv[x[1], x[3], x[4], p]
      # a rate over a time probe: messages per raw round trip; else figure / probe
      v = (rate(unit[k]) && time_(punit[x[1], p])) ? x[5] * q / 1e6 : x[5] / q
      nvals[k, x[3]] = nvals[k, x[3]] " " v
    }

    print "== benchmarks (runs that completed, of " R "; others: the share of the CPUs that other processes"
    print "   took while the benchmark ran on old and new, per round)"
    for (i = 1; i <= nb; i++) {
      b = B[i]; if (b == "") continue
      line = sprintf("   %-16s", b)
      for (si = 1; si <= 2; si++) {
        s = si == 1 ? "old" : "new"; k = b SUBSEP s; ok[s] = runs[k, "ok"] + 0
        if (runs[k, "absent"]) why[s] = "absent"
        else if (runs[k, "unbuilt"]) why[s] = "failed to build: " detail[k, "unbuilt"]
        else {
          why[s] = ok[s] "/" R " ok"
          if (runs[k, "failed"]) why[s] = why[s] "; failed " runs[k, "failed"] "x, last: " detail[k, "failed"]
          if (runs[k, "noparse"]) why[s] = why[s] "; no figure parsed " runs[k, "noparse"] "x, last: " detail[k, "noparse"]
        }
        line = line sprintf("  %s: %s", s, why[s])
      }
      if (b in oth) line = line "  (others: " substr(oth[b], 2) " %)"
      print line
      for (si = 1; si <= 2; si++) {
        s = si == 1 ? "old" : "new"; o = si == 1 ? "new" : "old"
        if (ok[s] || !ok[o]) continue
        k = b SUBSEP s
        gone[b] = runs[k, "absent"] ? "only in " o : runs[k, "unbuilt"] ? "failed to build in " s ": " detail[k, "unbuilt"] : \
                  runs[k, "failed"] ? "failed in " s ": " detail[k, "failed"] : "no figure parsed in " s ": " detail[k, "noparse"]
      }
      if (!ok["old"] && !ok["new"]) gone[b] = "ran in neither (old: " why["old"] "; new: " why["new"] ")"
      if (b in gone) missing = missing "\n   " b ": " gone[b]
    }

    print ""
    printf "== figures: medians over the runs; \"/probe\" = the figure over its raw probe from the same run\n"
    printf "   (a rate over a round-trip probe: messages per raw round trip); WORSE = new worse than old\n"
    printf "   by more than %s%%, judged on /probe when there is one. Lower is better for ns/us/ms/s,\n", thr
    printf "   higher for /s. Probe rows (probe) show how the machine itself moved between old and new.\n"
    hdr = sprintf("%-15s %-46s %-8s %10s %10s %8s %9s %9s %8s  %s", "benchmark", "figure", "unit", "old", "new", "new/old", "old/probe", "new/probe", "new/old", "mark")
    print hdr; gsub(/./, "-", hdr); print hdr
    for (i = 1; i <= nb; i++) {
      b = B[i]
      if (b in gone) printf "%-15s %-46s %-8s %10s %10s %8s %9s %9s %8s  %s\n", b, "-", "", "", "", "", "", "", "", gone[b]
      for (j = 1; j <= n; j++) {
        k = order[j]; split(k, x, SUBSEP); if (x[1] != b || b in gone) continue
        hasold = (k, "old") in vals; hasnew = (k, "new") in vals
        o = hasold ? med(vals[k, "old"]) : ""; w = hasnew ? med(vals[k, "new"]) : ""
        ratio = (hasold && hasnew && o > 0) ? sprintf("%.3f", w / o) : ""
        no = ((k, "old") in nvals) ? med(nvals[k, "old"]) : ""; nw = ((k, "new") in nvals) ? med(nvals[k, "new"]) : ""
        nratio = (no != "" && nw != "" && no > 0) ? sprintf("%.3f", nw / no) : ""
        mark = ""
        if (!hasold) mark = "only in new"
        else if (!hasnew) mark = "only in old"
        else if (kind[k] == "P") mark = "(probe)"
        else {
          c = nratio != "" ? nratio : ratio; figs++
          if (nratio != "") withprobe++
          if (c != "") {
            chg = (c - 1) * 100
            if ((rate(unit[k]) && chg < -thr) || (!rate(unit[k]) && chg > thr)) {
              mark = sprintf("WORSE %+.1f%%%s", chg, nratio != "" ? " /probe" : "")
              worse = worse sprintf("\n   %-15s %-46s %+.1f%%%s", b, x[2], chg, nratio != "" ? " (over its probe)" : "")
              nworse++
            }
          }
        }
        printf "%-15s %-46s %-8s %10s %10s %8s %9s %9s %8s  %s\n", b, x[2], unit[k], hasold ? f(o) : "", hasnew ? f(w) : "", ratio,
               no != "" ? f(no) : "", nw != "" ? f(nw) : "", nratio, mark
      }
    }

    print ""
    print "== core.medium_realigned (Mediums copied to realign their payload), summed over ranks, one value per run"
    for (i = 1; i <= nb; i++) {
      b = B[i]; if (!(b in hascnt)) continue
      v = cnt[b, "new"]; verdict = ""
      if (v != "") {
        nz = na = 0; m = split(v, a, " ")
        for (j = 1; j <= m; j++) if (a[j] !~ /^[0-9]+$/) na++; else if (a[j] != "0") nz++
        oz = 0; m = split(cnt[b, "old"], a, " "); for (j = 1; j <= m; j++) if (a[j] != "0") oz++
        verdict = na ? "not reported by new" : nz ? "still realigning in new" : oz ? "gone: 0 in new" : "0 in new (and in old)"
        if (nz || na) realign = realign " " b
      }
      printf "   %-16s old:%-24s new:%-24s %s\n", b, cnt[b, "old"] == "" ? " -" : cnt[b, "old"], v == "" ? " -" : v, verdict
    }

    print ""
    print "== verdict"
    printf "   %d figures compared (%d over their probe); %d worse by more than %s%%%s\n", figs, withprobe, nworse, thr, nworse ? ":" : ""
    if (worse != "") print substr(worse, 2)
    if (missing != "") print "   not compared:" missing
    if (on) printf "   other processes took %.0f%% of the CPUs on average while the benchmarks ran (at most %d%%)%s\n", osum / on, omax, \
      (omax > 10) ? ": a busy machine, whose figures move by more than 5%" : ""
    print "   medium_realigned in new: " (realign == "" ? "0 in every run" : "non-zero or not reported in" realign)
    exit figs == 0
  }' </dev/null
rc=$?
echo "   wall time: $(elapsed "$t_start") s (builds: old ${build_secs[old]:-0} s, new ${build_secs[new]:-0} s; runs $t_runs s)"
exit $rc
