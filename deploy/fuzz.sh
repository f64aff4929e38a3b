#!/usr/bin/env bash
# Build the libFuzzer targets of test/fuzz with clang into build-fuzz/ and run
# each for N executions (default 20000; the release check uses 1000000).
#   deploy/fuzz.sh [RUNS] [target...]
# A finding (crash, sanitizer report, leak, timeout, OOM) fails the script;
# libFuzzer writes the input to test/fuzz/crashes/<target>/ — commit it there
# and fuzz_replay_<target> replays it in every ctest run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-20000}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_store_server fuzz_store_client fuzz_config fuzz_ecd_auth)
# clang and libFuzzer's runtime (libclang-rt-14-dev): the "test" group
"$top/deploy/install-deps.sh" build test
# CUDA off: the targets parse bytes on the host, and a library with CUDA
# objects is linked by nvcc's host compiler (g++), which has no libFuzzer.
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S "$top" -B "$top/build-fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLINCOLL_FUZZ=ON -DLINCOLL_BUILD_PERF=OFF -DLINCOLL_WITH_CUDA=OFF -DCMAKE_C_FLAGS="$san" >/dev/null
cmake --build "$top/build-fuzz" -j"$(nproc)" --target "${targets[@]}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
  corpus=$(mktemp -d "${TMPDIR:-/tmp}/lc_fuzz_$t.XXXXXX")
  cp "$top/test/fuzz/corpus/$t/"* "$corpus/"
  mkdir -p "$top/test/fuzz/crashes/$t"
  echo "== $t: $runs runs"
  t0=$SECONDS
  # LINCOLL_FUZZ_SEED fixes the input sequence (CI); unset, libFuzzer picks one
  if "$top/build-fuzz/bin/$t" -runs="$runs" -seed="${LINCOLL_FUZZ_SEED:-0}" -max_len=4096 -timeout=20 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$top/test/fuzz/crashes/$t/" "$corpus" \
      >"$corpus.log" 2>&1; then
    echo "   ok: $(grep -E 'stat::number_of_executed_units' "$corpus.log" | awk '{print $2}') executions," \
         "$(grep -E 'stat::new_units_added' "$corpus.log" | awk '{print $2}') new units, $((SECONDS - t0)) s," \
         "coverage $(grep -oE 'cov: [0-9]+' "$corpus.log" | tail -1)"
  else
    status=1
    echo "   FINDING in $t:"
    grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$corpus.log" | sed -n '1,20s/^/   | /p'
  fi
  rm -rf "$corpus" "$corpus.log"
done
exit $status
