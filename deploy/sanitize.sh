#!/usr/bin/env bash
# The ctest suite under AddressSanitizer + UndefinedBehaviorSanitizer.
# Builds into build-asan/ with -DLINCOLL_SANITIZE=ON (gcc), then runs ctest.
#   deploy/sanitize.sh [ctest args]      e.g. deploy/sanitize.sh -L unit
# Every test of lincoll's code runs, multi-process ones too (lincoll-run,
# mpirun, srun start instrumented ranks; the environment below reaches them);
# the anchor checks (label anchors: other projects' programs) are left to
# the main suite.  The two big sim
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
# the srun and sbatch tests run under a private local Slurm, as in
# deploy/test.sh (stopped again when this script exits)
# shellcheck source=deploy/slurm-env.sh
. "$top/deploy/slurm-env.sh"
lincoll_slurm_start
cd "$bdir"
# Left to the main suite: the anchor programs (other projects' code, label
# anchors); the emulated-cluster runs (label emucluster: the same programs
# as their local shm/tcp twins, which run here, but over shaped links whose
# time is waiting, not code); coll_ucx at 4, 6, 7, 8, 9, 13 and 16 ranks (2,
# 3 and 5 run here: a power of two, an odd count and a remainder, the same
# code paths); the shm twins of shrink_ucx_stop and embed_cut_stop (their
# tcp twins run here).  The single-process unit tests run two at a time
# (they share nothing; valgrind.sh runs them in parallel too), the
# multi-process ones one at a time.
# Arguments replace this selection (deploy/sanitize.sh -R NAME runs NAME).
if [ $# -eq 0 ]; then
  ctest --output-on-failure --timeout 900 -j2 -L unit
  set -- -LE 'unit|anchors|emucluster' \
    -E '^(coll_ucx_n(4|6|7|8|9|13|16)|shrink_ucx_stop_shm_n4|embed_cut_stop_shm)$'
fi
ctest --output-on-failure --timeout 900 "$@"
