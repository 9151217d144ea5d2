#!/bin/bash
# tests/fuzz/run.sh [NAME [SECONDS]]     build the harnesses, fuzz NAME (default:
#                                        every one) for SECONDS each (default 60)
# tests/fuzz/run.sh --build              build them only
# tests/fuzz/run.sh --gen-corpus [DIR]   rewrite the generated seeds (seed-*) of
#                                        the tree's corpus, or write them in DIR
# tests/fuzz/run.sh --keep [NAME]        add to the tree's corpus (as cov-*)
#                                        what the runs found: the inputs of
#                                        tests/out/fuzz/work/NAME/ that reach
#                                        code the corpus does not yet
#                                        (libFuzzer's -merge=1); nothing in
#                                        the tree is removed or renamed
#
# Builds each tests/fuzz/fuzz_NAME.c with clang -g -O1
# -fsanitize=fuzzer,address,undefined (UB is fatal) against the sources it
# tests, into tests/out/fuzz/bin/. Fuzzes from a copy of the corpus kept in
# the tree (tests/fuzz/corpus/NAME/, never written by a run) in
# tests/out/fuzz/work/NAME/, where new inputs accumulate from run to run;
# a crash, leak or sanitizer report is written to
# tests/out/fuzz/artifacts/NAME/ and makes the exit status 1. To keep what
# it found: tests/out/fuzz/bin/fuzz_NAME -minimize_crash=1 ARTIFACT, then
# fix the parser and add the input to tests/fuzz/corpus/NAME/ as regress-*.
# FUZZ_JOBS (default 1) harnesses are built and run at once; FUZZ_FLAGS adds
# libFuzzer flags.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out="$top/tests/out/fuzz"
NAMES="amudp_datagram amtcp_stream amtcp_shake spawn_frame spawn_ticket boot_kvs boot_pmi1 ptli_wire"
CFLAGS="-g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
INC="-DGASNET_SEQ -I$top/core -I$top/tools -I$top/common -I$top/include -I$top/amudp -I$top/amtcp -I$top/bootstrap -I$top/spawnproto -I$top/spawner -I$top/portals"

# The library sources each harness runs (the production code, unchanged).
srcs() {
  case $1 in
  amudp_datagram) echo amudp/amudp_engine.c amudp/amudp_reliable.c amudp/amudp_cc.c amudp/amudp_frag.c \
                       amudp/amudp_live.c amudp/amudp_wire.c ;; # the engine alone
  amtcp_stream|amtcp_shake) echo amtcp/amtcp.c amtcp/amtcp_conn.c amtcp/amtcp_live.c common/gasneti_env.c \
                       common/gasneti_sha256.c ;;
  spawn_frame)    echo spawnproto/spawn_proto.c spawner/spawn_cfg.c common/gasneti_sha256.c \
                       common/gasneti_env.c -lz ;;
  spawn_ticket)   echo spawnproto/spawn_proto.c common/gasneti_sha256.c -lz ;;
  boot_kvs)       echo bootstrap/boot_kvs.c spawnproto/spawn_proto.c common/gasneti_sha256.c -lz ;;
  boot_pmi1)      echo bootstrap/boot_pmi1.c common/gasneti_env.c ;;
  ptli_wire)      echo portals/ptli_wire.c ;;
  gen_corpus)     echo tests/fuzz/gen_corpus_amtcp.c amudp/amudp_wire.c \
                       amtcp/amtcp.c amtcp/amtcp_conn.c amtcp/amtcp_live.c \
                       spawnproto/spawn_proto.c spawner/spawn_cfg.c bootstrap/boot_kvs.c \
                       portals/ptli_wire.c common/gasneti_sha256.c common/gasneti_env.c -lz ;;
  *) echo "run.sh: no harness '$1' (have: $NAMES)" >&2; return 1 ;;
  esac
}

build() { # NAME: tests/out/fuzz/bin/fuzz_NAME (gen_corpus: a plain program)
  local n=$1 s f=$CFLAGS src=tests/fuzz/fuzz_$1.c bin="$out/bin/fuzz_$1"
  s=$(srcs "$n") || return 1
  if [ "$n" = gen_corpus ]; then
    f=${CFLAGS/fuzzer,/}; src=tests/fuzz/gen_corpus.c; bin="$out/bin/gen_corpus"
  fi
  (cd "$top" && clang $f $INC -o "$bin" $src $s) || { echo "run.sh: building $n failed" >&2; return 1; }
}

fuzz() { # NAME SECONDS
  local n=$1 work="$out/work/$1" art="$out/artifacts/$1" maxlen=4096
  [ "$n" = boot_pmi1 ] && maxlen=20000   # past PMI1_LINE_MAX
  mkdir -p "$work" "$art"
  cp "$top/tests/fuzz/corpus/$n/"* "$work/"
  "$out/bin/fuzz_$n" -max_total_time="$2" -max_len=$maxlen -timeout=20 -rss_limit_mb=2048 \
      -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 -artifact_prefix="$art/" \
      ${FUZZ_FLAGS:-} "$work" >"$out/$n.log" 2>&1
  local rc=$?
  echo "fuzz_$n: $(grep -E '^stat::number_of_executed_units' "$out/$n.log" | awk '{print $2}') runs" \
       "in $2 s, corpus $(ls "$work" | wc -l) inputs: $([ $rc = 0 ] && echo ok || echo FAILED)"
  if [ $rc != 0 ]; then
    grep -E 'ERROR|SUMMARY|Test unit written|^    #[0-9] ' "$out/$n.log" | head -n 30
    echo "(whole log: $out/$n.log)"
  fi
  return $rc
}

keep() { # NAME: the work corpus's inputs that reach new code, added to the tree's as cov-*
  local n=$1 tree="$top/tests/fuzz/corpus/$1" m="$out/keep/$1" f added=0
  [ -d "$out/work/$n" ] || { echo "run.sh: no runs of $n to keep (tests/out/fuzz/work/$n)" >&2; return 1; }
  rm -rf "$m"; mkdir -p "$m"
  cp "$tree"/* "$m/"
  "$out/bin/fuzz_$n" -merge=1 "$m" "$out/work/$n" >"$out/$n.keep.log" 2>&1 ||
    { echo "run.sh: merging $n failed (tests/out/fuzz/$n.keep.log)" >&2; return 1; }
  for f in "$m"/*; do
    [ -e "$tree/${f##*/}" ] || { cp "$f" "$tree/cov-${f##*/}"; added=$((added + 1)); }
  done
  rm -rf "$m"
  echo "fuzz_$n: $added cov-* inputs added, $(ls "$tree" | wc -l) in all"
}

mkdir -p "$out/bin"
export TMPDIR="$out"          # clang's temporary objects stay out of /tmp
case "${1:-}" in
--build) for n in $NAMES; do build "$n" || exit 1; done; exit 0 ;;
--gen-corpus)
  dir=${2:-$top/tests/fuzz/corpus}
  for n in $NAMES; do mkdir -p "$dir/$n"; done
  build gen_corpus && "$out/bin/gen_corpus" "$dir"; exit ;;
--keep)
  for n in ${2:-$NAMES}; do build "$n" && keep "$n" || exit 1; done; exit 0 ;;
esac
names=${1:-$NAMES}
secs=${2:-60}
# FUZZ_JOBS harnesses are built at once too
bpids=""
for n in $names; do
  build "$n" & bpids="$bpids $!"
  if [ "$(echo $bpids | wc -w)" -ge "${FUZZ_JOBS:-1}" ]; then
    for p in $bpids; do wait "$p" || exit 1; done; bpids=""
  fi
done
for p in $bpids; do wait "$p" || exit 1; done
rc=0 jobs=0 pids=""
for n in $names; do
  fuzz "$n" "$secs" & pids="$pids $!"; jobs=$((jobs + 1))
  if [ $jobs -ge "${FUZZ_JOBS:-1}" ]; then
    for p in $pids; do wait "$p" || rc=1; done; pids="" jobs=0
  fi
done
for p in $pids; do wait "$p" || rc=1; done
exit $rc
