#!/usr/bin/env bash
# Configures and builds lincoll into build/ (programs land in build/bin/),
# with CUDA where a toolkit is installed (docs/accelerators.md).
#   deploy/build.sh [extra cmake args]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# Where a CUDA toolkit is installed, the build must have CUDA (ON fails
# loudly if CMake cannot use it; AUTO would quietly build without).
cuda=()
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda=(-DLINCOLL_WITH_CUDA=ON)
fi
cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLINCOLL_WERROR=ON "${cuda[@]}" "$@" >/dev/null
cmake --build "$top/build" -j"$(nproc)"
