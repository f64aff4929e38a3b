#!/usr/bin/env bash
# The layers of core/ include in one direction only (docs/architecture.md,
# "Layers"): plan <- exec <- api.  Fails, naming the file and the include,
# when:
#   - core/plan includes anything but core/base, core/plan and kernels/;
#   - core/dev (memory types, device backends) includes anything but core/base,
#     core/dev and kernels/;
#   - core/context or core/topo includes the plan, the executor or above;
#   - core/exec includes an algorithm family or the api;
#   - an algorithm file (a plan compiler) includes the executor, the context
#     or an api header (*_api*.h);
#   - transports/ or kernels/ include core/;
#   - mpi/ includes any project header but its own (only <lincoll/...>).
#   layers_test.sh [SOURCE_ROOT]
set -euo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
bad=0
# check FILE-GLOB ALLOWED-REGEX: every "core/..." include must match
check() {
  local glob=$1 allow=$2 f inc
  for f in $glob; do
    [ -f "$f" ] || continue
    while IFS= read -r inc; do
      if ! [[ $inc =~ $allow ]]; then
        echo "layers: $f includes \"$inc\" (allowed: $allow)"
        bad=1
      fi
    done < <(sed -n 's/^#include "\(core\/[^"]*\)".*/\1/p' "$f")
  done
}
check 'core/plan/*.[ch]' '^core/(base|plan)/'
check 'core/dev/*.[ch]' '^core/(base|dev)/'
check 'core/context/*.[ch] core/context/bootstrap/*.[ch] core/topo/*.[ch]' '^core/(base|dev|context|topo)/'
check 'core/exec/*.[ch]' '^core/(base|dev|context|plan|exec)/'
compilers=$(ls core/coll/*.[ch] core/encode/*.[ch] core/matmul/*.[ch] | grep -v -E \
  '_api')
check "$compilers" '^core/(base|plan|coll|encode|matmul)/'
# nor an api header (encode_api.h holds the communicator and the bind)
for f in $compilers; do
  if grep -q '^#include "core/[a-z]*/[a-z_]*_api[a-z_]*\.h"' "$f"; then
    echo "layers: $f (a compiler) includes an api header: $(grep -m1 '_api' "$f")"
    bad=1
  fi
done
for f in $(ls transports/*.[ch] transports/*/*.[ch] kernels/*.[ch] kernels/*/*.[ch] 2>/dev/null); do
  if grep -q '^#include "core/' "$f"; then
    echo "layers: $f includes core/"
    bad=1
  fi
done
# mpi/ (liblincoll_mpi.so) sits above the public API: no project header but
# its own and <lincoll/...>
nmpi=0
for f in mpi/*.[ch]; do
  [ -f "$f" ] || continue
  nmpi=$((nmpi + 1))
  while IFS= read -r inc; do
    if ! [[ $inc =~ ^mpi/|^lcm[a-z_]*\.h$ ]]; then
      echo "layers: $f includes \"$inc\" (mpi/ includes only <lincoll/...>, mpi.h and its own headers)"
      bad=1
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
if [ "$nmpi" -lt 5 ]; then
  echo "layers: only $nmpi files found under $top/mpi"
  bad=1
fi
# the checks must see files: an empty glob would pass vacuously
n=$(echo "$compilers" | wc -w)
if [ "$n" -lt 20 ]; then
  echo "layers: only $n compiler files found under $top"
  bad=1
fi
[ "$bad" = 0 ] && echo "layers: core/plan <- core/exec <- api; $n compilers include no executor"
exit "$bad"
