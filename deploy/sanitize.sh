#!/usr/bin/env bash
# The whole ctest suite under AddressSanitizer + UndefinedBehaviorSanitizer.
# Builds into build-asan/ with -DLINCOLL_SANITIZE=ON (gcc), then runs ctest.
#   deploy/sanitize.sh [ctest args]      e.g. deploy/sanitize.sh -L unit
# Leaks inside UCX, PMIx, hwloc and verbs are suppressed (deploy/lsan.supp);
# any report in lincoll code fails the test that produced it.  Full unwinding
# on malloc lets a leak from a dlopen()ed plugin match its caller library.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$top" -B "$top/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLINCOLL_WERROR=ON \
  -DLINCOLL_SANITIZE=ON >/dev/null
cmake --build "$top/build-asan" -j"$(nproc)"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0:detect_stack_use_after_return=0:strict_string_checks=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$top/deploy/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
# UCX's malloc/mmap hooks fight ASan's interceptors: let UCX use its
# registration cache without them.
export UCX_MEM_MALLOC_HOOKS=no UCX_MEM_EVENTS=no
cd "$top/build-asan"
ctest --output-on-failure --timeout 900 "$@"
