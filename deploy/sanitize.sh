#!/usr/bin/env bash
# The whole ctest suite under AddressSanitizer + UndefinedBehaviorSanitizer.
# Builds into build-asan/ with -DLINCOLL_SANITIZE=ON (gcc), then runs ctest.
#   deploy/sanitize.sh [ctest args]      e.g. deploy/sanitize.sh -L unit
# Every test runs, multi-process ones too (lincoll-run, mpirun, srun start
# instrumented ranks; the environment below reaches them).  The two big sim
# suites (test_coll_sim, test_encode_sim) run at LC_TEST_SCALE=reduced:
# every algorithm and code path, fewer rank counts (the main suite runs the
# full scale).
# Leaks kept by UCX, PMIx, libevent, hwloc and verbs are suppressed
# (deploy/lsan.supp, by library); any report in lincoll code fails the test
# that produced it.  Full unwinding on malloc lets a leak from a dlopen()ed
# plugin match its caller library.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bdir=${LINCOLL_ASAN_BUILD:-$top/build-asan}
cmake -S "$top" -B "$bdir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLINCOLL_WERROR=ON \
  -DLINCOLL_SANITIZE=ON >/dev/null
cmake --build "$bdir" -j"$(nproc)"
# abort_on_error: a finding kills the process (a multi-process test then
# fails through lincoll-run/mpirun); detect_stack_use_after_return off: UCX
# switches stacks in its progress callbacks.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0:detect_stack_use_after_return=0:strict_string_checks=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$top/deploy/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
# UCX's malloc/mmap hooks fight ASan's interceptors: let UCX use its
# registration cache without them.
export UCX_MEM_MALLOC_HOOKS=no UCX_MEM_EVENTS=no
export LC_TEST_SCALE=reduced
# install_consumer builds programs against the installed (sanitized) library
export LC_CONSUMER_CFLAGS="-fsanitize=address,undefined"
# the srun test needs a local Slurm (as in deploy/test.sh); without one it
# reports SKIPPED
slurm_started=0
slurm_tool=$(cd "$top/.." && pwd)/shared/tools/slurm-local.sh
if [ "${LINCOLL_TEST_SLURM:-1}" = 1 ] && [ -f "$slurm_tool" ]; then
  if out=$(bash "$slurm_tool" start 2>&1); then
    eval "$(echo "$out" | grep '^export SLURM_CONF=')"
    slurm_started=1
  else
    echo "local Slurm did not start; the srun test will report SKIPPED"
  fi
fi
cleanup() { [ "$slurm_started" = 1 ] && bash "$slurm_tool" stop || true; }
trap cleanup EXIT
cd "$bdir"
ctest --output-on-failure --timeout 900 "$@"
