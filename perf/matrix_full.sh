#!/usr/bin/env bash
# perf/matrix_full.sh: the whole test matrix (docs/reliability.md, "The test
# matrix"): every launch of test/matrix/matrix.py — every family x algorithm
# (from the registries) x ports x 2..8 ranks x lincoll-run and mpirun, each
# over host and lincoll memory, in place and out of place, every size — and
# then the IPC-namespace launches.  ctest runs a slice of it (matrix_slice);
# this is the full pass, about 30 minutes on a 2-core VM.
#   perf/matrix_full.sh [-b BUILD_DIR] [-o LOG] [--launcher lincoll-run|mpirun]
# Prints a line per launch and the totals ("matrix: N cells in L launches
# ..."), keeps the whole output in LOG (default matrix_full.log) and exits
# non-zero when a cell failed or a rank crashed or hung.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
log=matrix_full.log
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$(cd "$2" && pwd); shift 2 ;;
    -o) log=$2; shift 2 ;;
    --launcher) extra+=(--launcher "$2"); shift 2 ;;
    -h | --help) sed -n 2,11p "$0"; exit 0 ;;
    *) echo "matrix_full.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$build/bin/matrix_ucx" ] || { echo "matrix_full.sh: $build/bin/matrix_ucx is missing (deploy/build.sh)" >&2; exit 2; }
{
  python3 "$top/test/matrix/matrix.py" --bin "$build/bin" --full "${extra[@]}"
  rc=$?
  python3 "$top/test/matrix/matrix.py" --bin "$build/bin" --ipcns
  rc2=$?
  [ $rc = 0 ] && [ $rc2 = 0 ]
} 2>&1 | tee "$log"
