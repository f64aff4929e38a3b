#!/usr/bin/env bash
# Distributed matmul beside ScaLAPACK, one command, same run:
#   perf/matmul_compare.sh [BUILD_DIR] [ANCHOR_DIR]
#     BUILD_DIR   lincoll build with bin/lincoll-run and bin/lincoll_perf (default: build)
#     ANCHOR_DIR  the anchors' build directory (default: anchors-build/ in the
#                 repository); perf/anchors/build.sh ANCHOR_DIR builds
#                 scalapack_pdgemm there first when it is missing or stale
# Environment: SIZES (default "1024 2048"), RANKS (default "1 2 4"), ITERS (lincoll
# timed iterations per run, default 7), NB (ScaLAPACK block size, default 64).
#
# For every P in RANKS and n in SIZES: scalapack_pdgemm on P ranks (mpirun, Open
# MPI + ScaLAPACK + OpenBLAS with the kernel OpenBLAS picks for the CPU, AVX-512
# where there is one: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for that
# one command only -- the anchor also drops them itself --, one BLAS thread per
# rank), then lincoll_perf -t matmul -d double for ring, SUMMA, Cannon and 2.5D
# wherever the algorithm's grid fits P (ring P x 1, SUMMA the most square
# grid, Cannon sqrt P x sqrt P, 2.5D q x q x c) on P ranks under lincoll-run.
# Prints one table row per (algo, P, n):
#   GFLOP/s of lincoll (median of ITERS starts of a persistent plan) and of
#   ScaLAPACK (its anchor reports the best of 3 pdgemm calls) and their ratio;
#   words rank 0 moves per multiply (sent + received, counted from the plan)
#   beside the algorithm's closed form; communication measured (the same plan
#   without GEMMs, LINCOLL_MATMUL_COMM_ONLY) over the alpha-beta prediction of
#   the one-host model (a round costs the bytes a rank sends plus receives) and
#   of the network model (a round costs its largest message); memory per rank
#   (local A + B + C + plan scratch).
# P = 4 on a 2-core machine is oversubscribed (both sides run unbound): read
# those rows as a functional check, not as performance.  Runs in about 2-4
# minutes on a quiet 2-core VM.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
anchors=${2:-$top/anchors-build}
sizes=${SIZES:-"1024 2048"}
ranks=${RANKS:-"1 2 4"}
iters=${ITERS:-7}
nb=${NB:-64}
bin="$build/bin"
for f in "$bin/lincoll-run" "$bin/lincoll_perf"; do
  [ -x "$f" ] || { echo "matmul_compare: $f not found (build lincoll first: deploy/build.sh)" >&2; exit 1; }
done
"$top/perf/anchors/build.sh" "$anchors" >/dev/null ||
  { echo "matmul_compare: building the anchors in $anchors failed" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "matmul_compare: mpirun not found" >&2; exit 1; }

algos_for() { # P -> algorithms whose grid fits
  case $1 in
    1 | 4 | 9 | 16) echo "ring summa cannon 25d" ;;
    *) echo "ring summa" ;;
  esac
}

scalapack() { # P n -> GFLOP/s (or "-")
  local P=$1 n=$2 bind=()
  [ "$P" -gt "$(nproc)" ] && bind=(--bind-to none)
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 \
    timeout 300 mpirun --allow-run-as-root --oversubscribe "${bind[@]}" -np "$P" \
    "$anchors/scalapack_pdgemm" "$n" "$nb" 2>/dev/null |
    awk -v n="$n" '$1 == n {g = $3} END {print (g == "") ? "-" : g}'
}

lincoll() { # algo P n -> the "# matmul-row" fields, or empty
  local a=$1 P=$2 n=$3
  "$bin/lincoll-run" -n "$P" --timeout 300 "$bin/lincoll_perf" -t matmul -A "$a" -d double \
    -s "$n" -n "$iters" -w 1 2>/dev/null | sed -n 's/^\[0\] # matmul-row //p' | tail -1
}

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

start=$(date +%s)
echo "# matmul_compare: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# lincoll: $bin (median of $iters starts); ScaLAPACK: $anchors/scalapack_pdgemm NB=$nb (best of 3)"
printf "%-7s %2s %5s %-7s %9s %9s %6s %11s %11s %7s %9s %9s %9s\n" algo P n grid \
  "GF/s_lc" "GF/s_sca" ratio "words/rank" formula comm_us "meas/host" "meas/net" "MiB/rank"
for P in $ranks; do
  for n in $sizes; do
    sca=$(scalapack "$P" "$n")
    for a in $(algos_for "$P"); do
      row=$(lincoll "$a" "$P" "$n")
      if [ -z "$row" ]; then
        printf "%-7s %2s %5s %-7s %9s %9s\n" "$a" "$P" "$n" "?" "failed" "$sca"
        continue
      fi
      gf=$(field "$row" gflops)
      wp=$(field "$row" words_plan)
      wf=$(field "$row" words_formula)
      cu=$(field "$row" comm_us)
      ph=$(field "$row" pred_host_us)
      pn=$(field "$row" pred_net_us)
      mem=$(field "$row" mem_bytes)
      grid=$(field "$row" grid)
      awk -v a="$a" -v P="$P" -v n="$n" -v grid="$grid" -v gf="$gf" -v sca="$sca" -v wp="$wp" \
        -v wf="$wf" -v cu="$cu" -v ph="$ph" -v pn="$pn" -v mem="$mem" 'BEGIN {
          ratio = (sca == "-" || sca == 0) ? "-" : sprintf("%.2f", gf / sca);
          rh = ph > 0 ? sprintf("%.2f", cu / ph) : "-";
          rn = pn > 0 ? sprintf("%.2f", cu / pn) : "-";
          printf "%-7s %2s %5s %-7s %9.1f %9s %6s %11.0f %11.0f %7.0f %9s %9s %9.1f\n",
                 a, P, n, grid, gf, sca, ratio, wp, wf, cu, rh, rn, mem / 1048576
        }'
    done
  done
done
echo "# $(($(date +%s) - start)) s; load now $(cut -d' ' -f1-3 /proc/loadavg)"
