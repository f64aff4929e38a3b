#!/usr/bin/env bash
# perf/scale/crosscheck_16core.sh: the K = 16 runs of perf/scale/scale.sh
# again on a machine with at least 16 cores, one core per rank, as a
# cross-check of the 2-core figures (there sixteen ranks share two cores).
#
#   perf/scale/crosscheck_16core.sh [OUT_ROOT] [RATE]
#
# Builds lincoll into build-16core/ when build/ is missing (deploy/build.sh
# needs deploy/install-deps.sh's packages; run that first on a bare machine),
# then runs scale.sh --point4 (K = 16, 8 MiB packets: prepare_shoot and
# direct at p = 1 and 2, dft and prepare_shoot at p = 3, alpha and beta
# calibrated on the same links) with the ranks spinning in their waits
# (-y 0: a core each; LINCOLL_BIND=auto binds every rank to its own core
# when the machine's ranks fit).  OUT_ROOT (default docs/perf) gets
# DATE-scale-16core.md and DATE-scale-16core/.  About 5 minutes at 100mbit.
# Exits 77 when the machine has fewer than 16 cores or network namespaces
# are not permitted.  With exactly 16 the kernel's network work (veth,
# bridge, tbf, TCP) shares the ranks' cores: the #cpu lines show how much.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
outroot=${1:-$top/docs/perf}
rate=${2:-100mbit}
cores=$(nproc)
if [ "$cores" -lt 16 ]; then
  echo "crosscheck_16core: $cores cores: one per rank for 16 ranks needs 16" >&2
  exit 77
fi
build=$top/build
if [ ! -x "$build/bin/lincoll_perf" ] || [ ! -x "$build/bin/lincoll_sim" ]; then
  build=$top/build-16core
  cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
    cmake --build "$build" -j"$cores" --target lincoll_perf lincoll_sim >/dev/null ||
    { echo "crosscheck_16core: build failed (deploy/install-deps.sh first?)" >&2; exit 1; }
fi
exec "$top/perf/scale/scale.sh" --point4 -b "$build" -o "$outroot" -d "$(date +%F)-16core" -r "$rate" -y 0
