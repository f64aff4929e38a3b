#!/bin/sh
# test/mpi/mpi4py_check.sh: Debian's python3-mpi4py with numpy arrays under
# mpirun, once plain and once with liblincoll_mpi.so preloaded: the results
# must agree (integers bit for bit, floats within the reduction order's
# rounding) and the statistics must show that lincoll took the calls.
#   mpi4py_check.sh LIB N
# Exits 77 (SKIP_RETURN_CODE) naming what is missing.
set -u
lib=$1 n=$2
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3 # Debian's python, whose mpi4py is the python3-mpi4py package
[ -x "$py" ] || { echo "SKIP: $py not found"; exit 77; }
"$py" -c 'import mpi4py, numpy' 2>/dev/null ||
    { echo "SKIP: python3-mpi4py or python3-numpy not installed (deploy/install-deps.sh)"; exit 77; }
# An ASan build (deploy/sanitize.sh) loads the sanitizer into python: its
# leak report would list the interpreter's own allocations, not lincoll's
# (mpi_check, an instrumented program, keeps leak checking for lincoll).
if ldd "$lib" 2>/dev/null | grep -q libasan; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/lincoll-mpi4py.XXXXXX")
trap 'rm -rf "$dir"' EXIT
timeout -k 10 200 mpirun --allow-run-as-root --oversubscribe -np "$n" \
    "$py" "$here/mpi4py_check.py" "$dir" plain || { echo "FAIL: the plain run failed"; exit 1; }
sh "$here/run.sh" mpirun "$lib" "$n" \
    allreduce,reduce,bcast,allgather,reduce_scatter_block,reduce_scatter,barrier \
    "$py" "$here/mpi4py_check.py" "$dir" lincoll || exit 1
"$py" - "$dir" "$n" <<'PY'
import sys
import numpy as np
d, n = sys.argv[1], int(sys.argv[2])
bad = 0
for r in range(n):
    a, b = np.load(f"{d}/plain.{r}.npz"), np.load(f"{d}/lincoll.{r}.npz")
    assert sorted(a.files) == sorted(b.files), "different result sets"
    for k in a.files:
        x, y = a[k], b[k]
        same = np.array_equal(x, y) if x.dtype.kind in "iu" else np.allclose(x, y, rtol=1e-5)
        if x.shape != y.shape or not same:
            print(f"FAIL: rank {r}: {k} differs")
            bad += 1
print(f"mpi4py: {len(a.files)} results per rank on {n} ranks compared, {bad} differ")
sys.exit(1 if bad else 0)
PY
