#!/usr/bin/env bash
# test/topo/launch_recipe_test.sh: the launcher recipes of deploy/launch run
# for real.
#   launch_recipe_test.sh slurm  <deploy/launch> <bin dir>
#       sbatch --wait the sbatch recipe (srun --mpi=pmix) with engine_ucx and
#       with lincoll_info -t on 3 tasks; SKIP (77) when no Slurm is up
#   launch_recipe_test.sh mpirun <deploy/launch> <bin dir>
#       the mpirun recipe (--map-by core --bind-to core) with 2 ranks:
#       engine_ucx passes, and lincoll keeps mpirun's binding
set -uo pipefail
kind=$1 dir=$2 bin=$3
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; [ -n "${out:-}" ] && tail -40 "$out"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $kind in
slurm)
  hint="start a local Slurm first: eval \"\$(deploy/slurm-local.sh start)\" (from the repository root; deploy/test.sh does it)"
  command -v sbatch >/dev/null 2>&1 || skip "sbatch not found; $hint"
  [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] || skip "SLURM_CONF is not set or missing; $hint"
  grep -Eq 'idle|mix|alloc' <<<"$(timeout 20 sinfo -h -o %t 2>/dev/null)" || skip "no Slurm node is up; $hint"
  grep -q pmix <<<"$(srun --mpi=list 2>&1)" || skip "this Slurm has no PMIx plugin (srun --mpi=list)"
  out=$tmp/engine.out
  timeout -k 10 400 sbatch --wait -n 3 -t 5 -J lincoll-recipe-engine -o "$out" \
      "$dir/lincoll.sbatch" "$bin/engine_ucx" || fail "sbatch --wait (engine_ucx) failed"
  n=$(grep -c 'checks passed, 0 failed' "$out")
  [ "$n" = 3 ] || fail "$n of 3 tasks passed"
  out=$tmp/info.out
  timeout -k 10 400 sbatch --wait -n 3 -t 5 -J lincoll-recipe-info -o "$out" \
      "$dir/lincoll.sbatch" "$bin/lincoll_info" -t || fail "sbatch --wait (lincoll_info -t) failed"
  grep -q '^ranks:    3$' "$out" || fail "lincoll_info -t under srun: no 'ranks: 3'"
  [ "$(grep -c '^rank:     [0-2]/3 host 0/1 ' "$out")" = 3 ] || fail "expected 3 ranks on 1 host"
  echo "PASS: sbatch recipe: engine_ucx on 3 tasks, lincoll_info -t:"; grep -E '^(# job|rank:)' "$out"
  ;;
mpirun)
  command -v mpirun >/dev/null 2>&1 || skip "mpirun not found (Debian package openmpi-bin)"
  out=$tmp/engine.out
  timeout -k 10 300 "$dir/mpirun.sh" -np 2 "$bin/engine_ucx" >"$out" 2>&1 || fail "mpirun recipe failed"
  [ "$(grep -c 'checks passed, 0 failed' "$out")" = 2 ] || fail "not both ranks passed"
  out=$tmp/info.out
  timeout -k 10 300 "$dir/mpirun.sh" -np 2 "$bin/lincoll_info" -t >"$out" 2>&1 || fail "lincoll_info -t failed"
  [ "$(grep -c "^rank: .*(kept the launcher's binding)" "$out")" = 2 ] ||
      fail "lincoll did not keep mpirun's binding"
  echo "PASS: mpirun recipe:"; grep -E 'bound to|^rank:' "$out"
  ;;
*) echo "usage: $0 slurm|mpirun <deploy/launch> <bin dir>" >&2; exit 2 ;;
esac
