#!/usr/bin/env bash
# Configures and builds lincoll into build/ (programs land in build/bin/).
#   deploy/build.sh [extra cmake args]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLINCOLL_WERROR=ON "$@" >/dev/null
cmake --build "$top/build" -j"$(nproc)"
