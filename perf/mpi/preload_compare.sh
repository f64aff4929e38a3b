#!/usr/bin/env bash
# perf/mpi/preload_compare.sh: the unchanged anchor program perf/anchors/mpi_coll
# (Open MPI's collectives, OSU-style), run plain and with liblincoll_mpi.so
# preloaded in the same run, interleaved (plain, preloaded, plain, ...), and a
# report of the time ratios preloaded / plain (medians over the runs).
#
#   perf/mpi/preload_compare.sh [-b BUILD_DIR] [-a ANCHOR_DIR] [-o OUT_ROOT]
#       [-d DATE] [-r RUNS] [-n "2 4"] [-m MAXBYTES] [-i ITERS] [-p "allreduce ..."]
#       [--render-only]
#
# Writes OUT_ROOT/DATE-mpi-preload/ (raw outputs np<N>.<op>.<plain|lincoll>.<run>,
# ratio.tsv, png/) and OUT_ROOT/DATE-mpi-preload.md.  Defaults: BUILD_DIR
# build, ANCHOR_DIR $LINCOLL_ANCHORS or anchors-build (built by
# perf/anchors/build.sh when mpi_coll is missing), OUT_ROOT docs/perf, DATE
# today (UTC), RUNS 3, ranks 2 and 4 on this host, MAXBYTES 32m, ITERS the
# anchor's default, the five collectives.  Ranks are bound to cores where
# there are enough (--bind-to core), else not bound (--bind-to none,
# oversubscribed), the same for both runs.  The statistics of every
# preloaded run (LINCOLL_MPI_STATS=1) are kept beside its output, so the
# report can say which sizes lincoll took, and the machine's load average
# before and after (load.txt): a loaded machine makes the ratios noise.
# --render-only: run nothing, render the report from the raw outputs there
# (a partial run included: the medians are over the runs that exist).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=build anchors=${LINCOLL_ANCHORS:-anchors-build} outroot=docs/perf
date_=$(date -u +%Y-%m-%d) runs=3 nps="2 4" maxb=32m iters=""
ops="allreduce reduce_scatter allgather bcast reduce"
render_only=0
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2; shift 2 ;;
    -a) anchors=$2; shift 2 ;;
    -o) outroot=$2; shift 2 ;;
    -d) date_=$2; shift 2 ;;
    -r) runs=$2; shift 2 ;;
    -n) nps=$2; shift 2 ;;
    -m) maxb=$2; shift 2 ;;
    -i) iters=$2; shift 2 ;;
    -p) ops=$2; shift 2 ;;
    --render-only) render_only=1; shift ;;
    *) sed -n 2,20p "$0" >&2; exit 2 ;;
  esac
done
raw=$outroot/$date_-mpi-preload
md=$outroot/$date_-mpi-preload.md
mkdir -p "$raw/png"
[ "$render_only" = 1 ] && runs=0
lib=$(cd "$build" && pwd)/lib/liblincoll_mpi.so
[ "$render_only" = 1 ] || [ -f "$lib" ] || { echo "preload_compare: $lib not found (build the project first)" >&2; exit 1; }
if [ "$render_only" = 0 ] && [ ! -x "$anchors/mpi_coll" ]; then
  "$top/perf/anchors/build.sh" "$anchors" >&2 || { echo "preload_compare: anchors did not build" >&2; exit 1; }
fi
prog=$(cd "$anchors" 2>/dev/null && pwd)/mpi_coll
cores=$(nproc)
[ "$runs" -gt 0 ] && echo "before: $(uptime)" >>"$raw/load.txt"
for r in $(seq 1 "$runs"); do
  for np in $nps; do
    bind=core
    [ "$np" -gt "$cores" ] && bind=none
    for op in $ops; do
      for mode in plain lincoll; do
        f=$raw/np$np.$op.$mode.$r
        pre=()
        [ $mode = lincoll ] && pre=(-x LD_PRELOAD="$lib" -x LINCOLL_MPI_STATS=1)
        echo "run $r/$runs: $np ranks, $op, $mode" >&2
        # shellcheck disable=SC2086
        nice timeout -k 10 900 mpirun --allow-run-as-root --oversubscribe --bind-to $bind \
          -np "$np" "${pre[@]}" "$prog" "$op" "$maxb" $iters >"$f" 2>"$f.err" ||
          echo "preload_compare: $f failed (see $f.err)" >&2
      done
    done
  done
done
[ "$runs" -gt 0 ] && echo "after: $(uptime)" >>"$raw/load.txt"
python3 "$top/perf/mpi/preload_report.py" "$raw" "$nps" "$ops" >"$md"
if command -v gnuplot >/dev/null 2>&1; then
  for np in $nps; do
    gnuplot -e "in='$raw/ratio.tsv'; np=$np; out='$raw/png/ratio_np$np.png'" \
      "$top/perf/plot/mpi_preload.gp" && echo >>"$md" &&
      echo "![preloaded / plain at $np ranks]($date_-mpi-preload/png/ratio_np$np.png)" >>"$md"
  done
else
  echo "(gnuplot not installed: no plots)" >>"$md"
fi
echo "preload_compare: $md" >&2
