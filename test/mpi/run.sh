#!/bin/sh
# test/mpi/run.sh: run an MPI program with liblincoll_mpi.so preloaded and
# check the statistics it prints at MPI_Finalize (LINCOLL_MPI_STATS=1).
#   run.sh mpirun|srun|mpich LIB N EXPECT PROGRAM [ARGS...]
# EXPECT: operations that must have been taken by lincoll, comma-separated
# (each needs a "taken" count > 0), or none: nothing may be taken or printed
# (LINCOLL_MPI=off).  Exits 77 (the tests' SKIP_RETURN_CODE)
# and says why when the launcher is not available; a missing launcher never
# passes silently.
set -u
kind=$1 lib=$2 n=$3 expect=$4
shift 4
skip() {
    echo "SKIP: $*"
    exit 77
}
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
out=$(mktemp "${TMPDIR:-/tmp}/lincoll-mpi-test.XXXXXX")
trap 'rm -f "$out"' EXIT
export LINCOLL_MPI_STATS=1 LINCOLL_TIMEOUT=${LINCOLL_TIMEOUT:-30}
# ASan builds (deploy/sanitize.sh): the sanitizer's runtime loads first
pre=$lib
asan=$(ldd "$lib" 2>/dev/null | awk '/libasan/ {print $3}')
[ -n "$asan" ] && pre="$asan:$lib"
case $kind in
mpirun)
    command -v mpirun >/dev/null 2>&1 || skip "mpirun not found (Debian package openmpi-bin)"
    timeout -k 10 280 mpirun --allow-run-as-root --oversubscribe -np "$n" \
        -x LD_PRELOAD="$pre" -x LINCOLL_MPI_STATS -x LINCOLL_TIMEOUT ${LINCOLL_MPI:+-x LINCOLL_MPI} \
        ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "$@" >"$out" 2>&1
    ;;
mpich)
    command -v mpirun.mpich >/dev/null 2>&1 || skip "mpirun.mpich not found (Debian package mpich)"
    timeout -k 10 280 mpirun.mpich -n "$n" -genv LD_PRELOAD "$pre" "$@" >"$out" 2>&1
    ;;
srun)
    hint="start a local Slurm first: eval \"\$(deploy/slurm-local.sh start)\" (from the repository root; deploy/test.sh does it)"
    command -v srun >/dev/null 2>&1 || skip "srun not found; $hint"
    [ -n "${SLURM_CONF:-}" ] || skip "SLURM_CONF is not set; $hint"
    [ -f "$SLURM_CONF" ] || skip "SLURM_CONF=$SLURM_CONF does not exist; $hint"
    timeout 20 sinfo -h -o %t 2>/dev/null | grep -Eq 'idle|mix|alloc' ||
        skip "no Slurm node is up (sinfo -h -o %t); $hint"
    srun --mpi=list 2>&1 | grep -q pmix || skip "this Slurm has no PMIx plugin (srun --mpi=list)"
    timeout -k 10 280 srun --mpi=pmix -n "$n" -t 5 -J lincoll-mpi-test \
        --export=ALL,LD_PRELOAD="$pre" "$@" >"$out" 2>&1
    ;;
*)
    echo "usage: $0 mpirun|srun|mpich LIB N EXPECT PROGRAM [ARGS...]" >&2
    exit 2
    ;;
esac
rc=$?
cat "$out"
[ "$rc" = 0 ] || { echo "FAIL: the program exited with $rc"; exit 1; }
if [ "$expect" = none ]; then # LINCOLL_MPI=off: as if the library were not loaded
    grep -q '^lincoll_mpi:' "$out" && { echo "FAIL: the library spoke with LINCOLL_MPI=off"; exit 1; }
    echo "PASS: nothing taken, nothing printed"
    exit 0
fi
grep -q '^lincoll_mpi: statistics' "$out" || { echo "FAIL: no statistics printed"; exit 1; }
for op in $(echo "$expect" | tr , ' '); do
    taken=$(awk -v op="$op" '$1 == "lincoll_mpi:" && $2 == op {print $3}' "$out")
    case $taken in
    '' | 0) echo "FAIL: lincoll took no $op call (taken=${taken:-none})"; exit 1 ;;
    esac
done
echo "PASS: lincoll took $expect"
