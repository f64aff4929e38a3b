#!/usr/bin/env bash
# test/gpu/run.sh where no GPU is: it must refuse at once with exit 3 and a
# line saying why (this machine, CI), never crash or hang.
#   no_gpu_test.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
msg=$(timeout 60 "$here/run.sh" --check-only "$1" 2>&1)
rc=$?
echo "$msg"
if [ -x "$1/bin/gpu_bench" ] && "$1/bin/gpu_bench" --probe >/dev/null 2>&1; then
  echo "no_gpu_test: a GPU is usable here; run.sh ran the checks (rc=$rc)"
  exit "$rc"
fi
[ "$rc" = 3 ] || { echo "no_gpu_test: run.sh exited $rc, expected 3"; exit 1; }
echo "$msg" | grep -q -E "no usable CUDA device|has no GPU programs" ||
  { echo "no_gpu_test: no reason given"; exit 1; }
echo "no_gpu_test: run.sh refused with a reason, as it must without a GPU"
