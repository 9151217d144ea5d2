#!/bin/bash
# timeout: 300
# t-fuzz.sh - every parser of bytes from outside the process, fuzzed briefly
# with libFuzzer + ASan + UBSan from the corpus in tests/fuzz/corpus/ (its
# regression inputs first): the amudp datagram path, the amtcp stream and
# handshake, the launcher protocol and ticket, the key-value blobs, the PMI-1
# replies, the Portals wire header. Any crash, leak or sanitizer report fails. FUZZ_SECONDS per
# harness (default 2: the in-tree corpus, seeds and what long runs kept,
# 10-250 inputs each, runs first, then libFuzzer's own inputs for the rest;
# each log's line gives the count); tests/fuzz/run.sh NAME SECONDS fuzzes
# one for longer, and run.sh --keep keeps what it reached.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
out="$top/tests/out/fuzz"
mkdir -p "$out"
probe="$out/probe.c"
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe"
if ! command -v clang >/dev/null 2>&1; then
  echo "SKIPPED: no clang (contrib/install-deps.sh --tests installs it)"; exit 77
fi
if ! TMPDIR="$out" clang -fsanitize=fuzzer,address,undefined -o "$out/probe" "$probe" 2>"$out/probe.err"; then
  cat "$out/probe.err"
  echo "SKIPPED: clang cannot build a libFuzzer program (libclang-rt-dev missing?)"; exit 77
fi
rm -f "$out/probe" "$out/probe.c" "$out/probe.err"
rm -rf "$out/work" "$out/artifacts"   # each run starts from the tree's corpus
corpus_sum() { (cd "$top/tests/fuzz/corpus" && find . -type f -exec md5sum {} + | sort); }
before=$(corpus_sum)
# The tree's generated seeds are what today's encoders write: seeds left
# behind by a wire change are each rejected at the first check (the amudp
# ones were of wire version 2 while the transport spoke 4), and the harness
# starts from nothing. boot_kvs's begin with a random job key: not compared.
rm -rf "$out/gen"
stale=0
if "$top/tests/fuzz/run.sh" --gen-corpus "$out/gen" >"$out/gen.log" 2>&1; then
  for f in $(cd "$out/gen" && find . -type f -name 'seed-*' ! -path './boot_kvs/*' | sort); do
    if ! cmp -s "$out/gen/$f" "$top/tests/fuzz/corpus/$f"; then
      echo "FAIL: tests/fuzz/corpus/${f#./} is not what gen_corpus writes now (tests/fuzz/run.sh --gen-corpus)"
      stale=1
    fi
  done
else
  cat "$out/gen.log"; echo "FAIL: gen_corpus did not build or run"; stale=1
fi
rm -rf "$out/gen"
start=$(date +%s)
FUZZ_JOBS=2 "$top/tests/fuzz/run.sh" "" "${FUZZ_SECONDS:-2}"; rc=$?
echo "t-fuzz: $(( $(date +%s) - start )) s, status $rc"
# The tree's corpus is read, never written.
[ "$(corpus_sum)" = "$before" ] || { echo "FAIL: the run changed tests/fuzz/corpus"; rc=1; }
[ $stale = 0 ] || rc=1
exit $rc
