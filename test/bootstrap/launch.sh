#!/bin/sh
# test/bootstrap/launch.sh: run boot_allgather under a PMIx launcher for ctest.
#   launch.sh mpirun|srun PROGRAM [N]
# Exits 77 (the tests' SKIP_RETURN_CODE) and says why when the launcher is not
# available, so a missing launcher never passes silently.
set -u
kind=$1
prog=$2
n=${3:-3}
skip() {
    echo "SKIP: $*"
    exit 77
}
case $kind in
mpirun)
    command -v mpirun >/dev/null 2>&1 || skip "mpirun not found (Debian package openmpi-bin)"
    exec timeout -k 10 150 mpirun --allow-run-as-root --oversubscribe -np "$n" \
        "$prog" --expect pmix --size "$n"
    ;;
srun)
    hint="start a local Slurm first: eval \"\$(deploy/slurm-local.sh start)\" (from the repository root; deploy/test.sh does it)"
    command -v srun >/dev/null 2>&1 || skip "srun not found; $hint"
    [ -n "${SLURM_CONF:-}" ] || skip "SLURM_CONF is not set; $hint"
    [ -f "$SLURM_CONF" ] || skip "SLURM_CONF=$SLURM_CONF does not exist; $hint"
    timeout 20 sinfo -h -o %t 2>/dev/null | grep -Eq 'idle|mix|alloc' ||
        skip "no Slurm node is up (sinfo -h -o %t); $hint"
    srun --mpi=list 2>&1 | grep -q pmix || skip "this Slurm has no PMIx plugin (srun --mpi=list)"
    exec timeout -k 10 150 srun --mpi=pmix -n "$n" -t 3 -J lincoll-boot-test \
        "$prog" --expect pmix --size "$n"
    ;;
*)
    echo "usage: $0 mpirun|srun PROGRAM [N]" >&2
    exit 2
    ;;
esac
