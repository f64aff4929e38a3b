#!/usr/bin/env bash
# The GPU checks and measurements of lincoll in one command
# (docs/accelerators.md, "Checks on a GPU machine").
#   test/gpu/run.sh [--check-only] [BUILD_DIR]
# BUILD_DIR: a CUDA build (default: the carried .gpu-carry/build that
# deploy/gpu-carry.sh prepares, else build/).  Debian runtime libraries
# carried in .gpu-carry/root (UCX, hwloc, PMIx, ibverbs, cmocka, ...) are put
# on the library path; cuBLAS is looked for in the CUDA install and in the
# Python nvidia-cublas wheel.  Several processes share the one GPU.
# Writes $OUT/gpu.csv (name,variant,metric,value,anchor,ratio,goal) and
# $OUT/gpu-log.txt ($OUT defaults to ./gpu-out).
# Exit: 0 all checks passed; 1 a check failed; 3 no usable GPU (or a build
# without CUDA): nothing can be checked here, the message says why.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
check_only=0
if [ "${1:-}" = --check-only ]; then
  check_only=1
  shift
fi
build=${1:-}
if [ -z "$build" ]; then
  if [ -x "$top/.gpu-carry/build/bin/test_cuda_kernels" ]; then build=$top/.gpu-carry/build; else build=$top/build; fi
fi
B=$build/bin
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
log=$out/gpu-log.txt
: >"$log"
say() { echo "$*" | tee -a "$log"; }

if [ ! -x "$B/test_cuda_kernels" ]; then
  say "test/gpu/run.sh: $build has no GPU programs (a build without CUDA: configure with LINCOLL_WITH_CUDA=ON where nvcc is): nothing to check"
  exit 3
fi
# carried Debian runtime libraries
carry=$top/.gpu-carry/root
if [ -d "$carry" ]; then
  for d in "$carry/usr/lib/x86_64-linux-gnu" "$carry/lib/x86_64-linux-gnu" \
           "$carry/usr/lib/x86_64-linux-gnu/pmix2/lib"; do
    [ -d "$d" ] && LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  done
  [ -d "$carry/usr/lib/x86_64-linux-gnu/ucx" ] && export UCX_MODULE_DIR=$carry/usr/lib/x86_64-linux-gnu/ucx
fi
# cuBLAS (opened by lincoll at the first device GEMM)
for d in /usr/local/cuda/lib64 /usr/local/cuda-*/lib64 \
         $(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null) \
         $(ls -d /usr/local/lib/python3*/dist-packages/nvidia/cublas/lib /opt/*/.venv/lib/python3*/site-packages/nvidia/cublas/lib 2>/dev/null); do
  [ -e "$d/libcublas.so.13" ] && { LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d; break; }
done
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
export LINCOLL_BOOTSTRAP_KIND=tcp LINCOLL_TIMEOUT=120

# a GPU?
probe=$("$B/gpu_bench" --probe 2>&1 | head -1)
if ! "$B/gpu_bench" --probe >/dev/null 2>&1; then
  say "test/gpu/run.sh: $probe: the GPU checks need a GPU machine"
  exit 3
fi
say "== lincoll GPU checks: $build"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | tee -a "$log"
say "$probe"
fail=0
step() { # name timeout cmd...
  local name=$1 t=$2 t0=$SECONDS
  shift 2
  say "== $name"
  timeout -k 10 "$t" "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  say "== $name: rc=$rc in $((SECONDS - t0)) s"
  [ "$rc" = 0 ] || fail=1
}
step "device kernels against the CPU _base kernels" 240 "$B/test_cuda_kernels"
[ -x "$B/test_dev_sim" ] && step "memory types over sim (fake device)" 120 "$B/test_dev_sim"
for n in 2 4; do
  step "operations on device buffers, $n processes on one GPU" 240 \
    "$B/lincoll-run" -n "$n" --timeout 230 "$B/gpu_coll" check
done
if [ "$check_only" = 0 ]; then
  csv=$out/gpu.csv
  echo "name,variant,metric,value,anchor,ratio,goal" >"$csv"
  step "kernel throughput and matmul at P=1" 200 env LINCOLL_BOOTSTRAP_KIND=single "$B/gpu_bench" "$csv" 1024
  for n in 2 4; do
    step "allreduce of 256 MiB device buffers, $n processes" 200 \
      "$B/lincoll-run" -n "$n" --timeout 190 "$B/gpu_coll" bench 256 5 "$csv"
  done
  say "== $csv"
  tee -a "$log" <"$csv"
fi
say "== run.sh: $([ $fail = 0 ] && echo all checks passed || echo A CHECK FAILED)"
exit $fail
