#!/usr/bin/env bash
# The whole test suite in one command: install what is missing, check the
# formatting, build with -Werror, start a local Slurm (for the srun test),
# run ctest.  Exit status is ctest's.
#   deploy/test.sh [ctest args]      e.g. deploy/test.sh -L unit
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
deploy/install-deps.sh
echo "== clang-format check"
git ls-files '*.c' '*.h' | xargs clang-format --dry-run -Werror
echo "== build"
deploy/build.sh
slurm_started=0
if [ "${LINCOLL_TEST_SLURM:-1}" = 1 ] && [ -f ../shared/tools/slurm-local.sh ]; then
  echo "== local Slurm"
  if out=$(bash ../shared/tools/slurm-local.sh start 2>&1); then
    eval "$(echo "$out" | grep '^export SLURM_CONF=')"
    slurm_started=1
  else
    echo "$out" | tail -5
    echo "local Slurm did not start; the srun test will report SKIPPED"
  fi
fi
cleanup() { [ "$slurm_started" = 1 ] && bash ../shared/tools/slurm-local.sh stop || true; }
trap cleanup EXIT
echo "== ctest"
cd build
ctest --output-on-failure --timeout 600 "$@"
