#!/bin/sh
# perf/rhd_sweep.sh: side-by-side sweep of lincoll's five collectives against
# Open MPI 4.1 (perf/anchors/mpi_coll.c: MPI_Allreduce, MPI_Reduce_scatter_block,
# MPI_Allgather, MPI_Bcast, MPI_Reduce) and Gloo halving-doubling allreduce
# (perf/anchors/gloo_run.sh), in one run, with gnuplot PNGs of time and bus
# bandwidth vs size.  The anchors live in ANCHORS_DIR (default anchors-build/
# in the repository); perf/anchors/build.sh builds them there first when they
# are missing or older than their sources.  Where ANCHORS_DIR holds ucc_coll
# (UCC, built when LINCOLL_UCC_SRC is set: perf/anchors/build.sh), UCC runs
# too, in the same run, and the tables get its columns.
#
# Usage: perf/rhd_sweep.sh [--quick] [-b BUILD_DIR] [-a ANCHORS_DIR] [-o OUT_DIR]
#                          [-n RANKS] [-r REPS] [-m MAXBYTES] [-t "allreduce bcast ..."]
# Sizes are 8 B x4 up to MAXBYTES (default 64 MiB).  Each tool runs REPS times
# (default 2), interleaved; the table keeps the median of the per-run averages
# and, beside the median ratio, best run against best run
# (lincoll: also its median iteration and the plan's alpha-beta-gamma
# prediction).  lincoll runs on lincoll_mem_alloc buffers (its zero-copy path
# for allreduce; see LINCOLL_COLL_ZCOPY_THRESHOLD), 100 iterations up to 1 MiB
# x10 per default, 20 above.  --quick: REPS=1, sizes up to 2 MiB (about a
# minute).  A full sweep takes about 5-7 minutes on the 2-core VM.
# Calibration, once per run before the sweep (unless LINCOLL_MODEL_ALPHA,
# _BW and _COMPUTE_BW are all set already), from lincoll_perf point
# measurements, never from the collectives themselves (medians of 3 launches):
#   alpha   = tag_lat p50 of 8 bytes, 2 ranks (one message round);
#   1/beta  = put_bw of 4 MiB into a peer's lincoll_mem_alloc window, 2 ranks
#             (over shared memory a put is a CPU copy into the peer's mapped
#             memory: what the zero-copy plans' copies do);
#   1/gamma = 2/3 x the reduce3 rate of -t reduce at 1 MiB, float sum (it
#             counts 3 x bytes per reduction, the model 2 x bytes);
# exported as LINCOLL_MODEL_ALPHA / _BW / _COMPUTE_BW to every lincoll run, so
# "predicted" = the plan's C1 alpha + (C2 + moved) beta + compute gamma.
# Writes OUT_DIR/{raw/*, OP.tsv, summary.md, OP_time.png, OP_busbw.png}.
# Bus bandwidth: size/time times 2(P-1)/P for allreduce, (P-1)/P for
# reduce-scatter and allgather, 1 for bcast and reduce.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=build; ANCH=$TOP/anchors-build; OUT=rhd_sweep_out; N=2; REPS=2; MAX=67108864
OPS="allreduce reduce_scatter allgather bcast reduce"
if [ "${1:-}" = "--quick" ]; then shift; REPS=1; MAX=2097152; fi
while getopts b:a:o:n:r:m:t: f; do
  case $f in
    b) BUILD=$OPTARG;; a) ANCH=$OPTARG;; o) OUT=$OPTARG;; n) N=$OPTARG;; r) REPS=$OPTARG;;
    m) MAX=$OPTARG;; t) OPS=$OPTARG;; *) sed -n 2,34p "$0"; exit 2;;
  esac
done
T0=$(date +%s)
RUN=$BUILD/bin/lincoll-run; PERF=$BUILD/bin/lincoll_perf
[ -x "$RUN" ] && [ -x "$PERF" ] || { echo "rhd_sweep: build $BUILD first (lincoll-run, lincoll_perf)" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "rhd_sweep: mpirun not found (deploy/install-deps.sh anchors)" >&2; exit 1; }
"$TOP/perf/anchors/build.sh" "$ANCH" >/dev/null || { echo "rhd_sweep: building the anchors in $ANCH failed" >&2; exit 1; }
mkdir -p "$OUT/raw"
SIZES=""; s=8; while [ "$s" -le "$MAX" ]; do SIZES="$SIZES${SIZES:+,}$s"; s=$((s * 4)); done

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
least() { sort -g | awk 'NR==1 {v=$1} END {if (NR==0) print "nan"; else print v}'; }

csv() { sed 's/^\[[0-9]*\] //' | awk -F, -v t="$1" -v c="$2" '$1 == t { print $c; exit }'; }
CAL=""
if [ -z "${LINCOLL_MODEL_ALPHA:-}" ] || [ -z "${LINCOLL_MODEL_BW:-}" ] || [ -z "${LINCOLL_MODEL_COMPUTE_BW:-}" ]; then
  lats=""; bws=""
  for i in 1 2 3; do # the VM's speed changes from one launch to the next
    lats="$lats $("$RUN" -n 2 --timeout 120 "$PERF" -t tag_lat -s 8 -n 5000 -f csv 2>/dev/null | csv tag_lat 6)"
    bws="$bws $("$RUN" -n 2 --timeout 120 "$PERF" -t put_bw -s 4m -n 50 -f csv 2>/dev/null | csv put_bw 8)"
  done
  lat=$(echo "$lats" | tr ' ' '\n' | grep . | median)
  bw=$(echo "$bws" | tr ' ' '\n' | grep . | median)
  r3=$("$PERF" -t reduce -s 1m -d float -o sum -f csv 2>/dev/null | awk -F, '$1 == "float" { print $6; exit }')
  if [ "$lat" = nan ] || [ "$bw" = nan ] || [ -z "$r3" ]; then
    echo "rhd_sweep: calibration failed (tag_lat '$lat', put_bw '$bw', reduce '$r3'); LINCOLL_MODEL_* defaults" >&2
  else
    LINCOLL_MODEL_ALPHA=$(awk -v l="$lat" 'BEGIN { printf "%.4g", l * 1e-6 }')
    LINCOLL_MODEL_BW=$(awk -v b="$bw" 'BEGIN { printf "%.4g", b * 1048576 }')
    LINCOLL_MODEL_COMPUTE_BW=$(awk -v r="$r3" 'BEGIN { printf "%.4g", r * 1e9 * 2 / 3 }')
    export LINCOLL_MODEL_ALPHA LINCOLL_MODEL_BW LINCOLL_MODEL_COMPUTE_BW
    CAL="calibrated: tag_lat(8 B) p50 $lat us -> alpha; put_bw(4 MiB) $bw MB/s -> 1/beta; reduce3(1 MiB float sum) $r3 GB/s x 2/3 -> 1/gamma"
  fi
fi
CAL="LINCOLL_MODEL_ALPHA=${LINCOLL_MODEL_ALPHA:-default} s, _BW=${LINCOLL_MODEL_BW:-default} B/s, _COMPUTE_BW=${LINCOLL_MODEL_COMPUTE_BW:-default} B/s${CAL:+; $CAL}"
echo "rhd_sweep: $CAL" >&2

SMALL=""; LARGE=""
for s in $(echo "$SIZES" | tr , ' '); do
  if [ "$s" -le 1048576 ]; then SMALL="$SMALL${SMALL:+,}$s"; else LARGE="$LARGE${LARGE:+,}$s"; fi
done
for rep in $(seq 1 "$REPS"); do
  for op in $OPS; do
    # lincoll: CSV test,ranks,ports,size,iters,p50,avg,bw,rate,algo,predicted
    : >"$OUT/raw/lincoll_$op.$rep.csv"
    for part in small large; do
      if [ $part = small ]; then sz=$SMALL; it=""; else sz=$LARGE; it="-n 20 -w 3"; fi
      [ -n "$sz" ] || continue
      # shellcheck disable=SC2086
      "$RUN" -n "$N" --timeout 600 "$PERF" -t "$op" -s "$sz" $it -f csv 2>>"$OUT/raw/lincoll_$op.$rep.err" |
        sed 's/^\[0\] //' | grep "^$op," >>"$OUT/raw/lincoll_$op.$rep.csv" ||
        echo "rhd_sweep: lincoll $op ($part sizes) failed (see $OUT/raw/lincoll_$op.$rep.err)" >&2
    done
    mpirun --allow-run-as-root --oversubscribe -np "$N" "$ANCH/mpi_coll" "$op" "$MAX" \
      >"$OUT/raw/ompi_$op.$rep.txt" 2>"$OUT/raw/ompi_$op.$rep.err" ||
      echo "rhd_sweep: mpi_coll $op failed (see $OUT/raw/ompi_$op.$rep.err)" >&2
    if [ -x "$ANCH/ucc_coll" ]; then
      mpirun --allow-run-as-root --oversubscribe -np "$N" "$ANCH/ucc_coll" "$op" "$MAX" \
        >"$OUT/raw/ucc_$op.$rep.txt" 2>"$OUT/raw/ucc_$op.$rep.err" ||
        echo "rhd_sweep: ucc_coll $op failed (see $OUT/raw/ucc_$op.$rep.err)" >&2
    fi
  done
  if echo "$OPS" | grep -qw allreduce; then
    "$ANCH/gloo_run.sh" "$N" hd "$MAX" >"$OUT/raw/gloo_allreduce.$rep.txt" 2>"$OUT/raw/gloo_allreduce.$rep.err" ||
      echo "rhd_sweep: gloo failed (see $OUT/raw/gloo_allreduce.$rep.err)" >&2
  fi
done

factor() { case $1 in allreduce) echo "2*($N-1)/$N";; reduce_scatter|allgather) echo "($N-1)/$N";; *) echo 1;; esac; }
{
  echo "# lincoll vs Open MPI vs Gloo, $N ranks, median of $REPS runs ($(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo "Ratios are lincoll avg / other avg, medians over the runs (below 1: lincoll faster); best/best = lincoll's fastest run / Open MPI's fastest run (each launch lands in one of the VM's speed modes).  predicted = the plan's alpha-beta-gamma figure at rank 0 (the root of bcast and reduce): $CAL."
  echo
} >"$OUT/summary.md"
for op in $OPS; do
  tsv=$OUT/$op.tsv
  echo "size	algo	lincoll_avg_us	lincoll_p50_us	predicted_us	ompi_us	gloo_us	ratio_ompi	ratio_gloo	ratio_ompi_best	ucc_us	ratio_ucc" >"$tsv"
  for s in $(echo "$SIZES" | tr , ' '); do
    la=$(cat "$OUT"/raw/lincoll_$op.*.csv 2>/dev/null | awk -F, -v s="$s" '$4==s {print $7}' | median)
    lp=$(cat "$OUT"/raw/lincoll_$op.*.csv 2>/dev/null | awk -F, -v s="$s" '$4==s {print $6}' | median)
    pr=$(cat "$OUT"/raw/lincoll_$op.*.csv 2>/dev/null | awk -F, -v s="$s" '$4==s {print $11}' | median)
    al=$(cat "$OUT"/raw/lincoll_$op.*.csv 2>/dev/null | awk -F, -v s="$s" '$4==s {print $10; exit}')
    om=$(cat "$OUT"/raw/ompi_$op.*.txt 2>/dev/null | awk -v s="$s" '$1==s {print $2}' | median)
    gl=$(cat "$OUT"/raw/gloo_$op.*.txt 2>/dev/null | awk -v s="$s" '$1==s {print $2}' | median)
    # best launch against best launch: each launch lands in one of the VM's
    # speed modes (vCPU placement), so medians of a few launches carry luck
    lb=$(cat "$OUT"/raw/lincoll_$op.*.csv 2>/dev/null | awk -F, -v s="$s" '$4==s {print $7}' | least)
    ob=$(cat "$OUT"/raw/ompi_$op.*.txt 2>/dev/null | awk -v s="$s" '$1==s {print $2}' | least)
    ro=$(awk -v a="$la" -v b="$om" 'BEGIN {if (a=="nan"||b=="nan"||b==0) print "nan"; else printf "%.2f", a/b}')
    rb=$(awk -v a="$lb" -v b="$ob" 'BEGIN {if (a=="nan"||b=="nan"||b==0) print "nan"; else printf "%.2f", a/b}')
    rg=$(awk -v a="$la" -v b="$gl" 'BEGIN {if (a=="nan"||b=="nan"||b==0) print "nan"; else printf "%.2f", a/b}')
    uc=$(cat "$OUT"/raw/ucc_$op.*.txt 2>/dev/null | awk -v s="$s" '$1==s {print $2}' | median)
    ru=$(awk -v a="$la" -v b="$uc" 'BEGIN {if (a=="nan"||b=="nan"||b==0) print "nan"; else printf "%.2f", a/b}')
    echo "$s	${al:-none}	$la	$lp	$pr	$om	$gl	$ro	$rg	$rb	$uc	$ru" >>"$tsv"
  done
  {
    echo "## $op"
    echo
    echo "| bytes | algo | lincoll avg us | lincoll p50 us | predicted us | Open MPI us | Gloo us | lincoll/OMPI | lincoll/Gloo | best/best OMPI | UCC us | lincoll/UCC |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    tail -n +2 "$tsv" | awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12}'
    echo
  } >>"$OUT/summary.md"
  if ! command -v gnuplot >/dev/null; then
    echo "rhd_sweep: gnuplot not found (deploy/install-deps.sh bench): no PNGs for $op" >&2
  else
    f=$(factor "$op")
    GLOO_T=""; GLOO_B=""; UCC_T=""; UCC_B=""
    if [ -s "$OUT/raw/ucc_$op.1.txt" ]; then
      UCC_T=", \"$tsv\" skip 1 using 1:11 with linespoints lw 2 title \"UCC (tl/ucp)\""
      UCC_B=", \"$tsv\" skip 1 using 1:(\$1/\$11/1000*($f)) with linespoints lw 2 title \"UCC (tl/ucp)\""
    fi
    if [ "$op" = allreduce ] && [ -s "$OUT/raw/gloo_allreduce.1.txt" ]; then
      GLOO_T=", \"$tsv\" skip 1 using 1:7 with linespoints lw 2 title \"Gloo halving-doubling\""
      GLOO_B=", \"$tsv\" skip 1 using 1:(\$1/\$7/1000*($f)) with linespoints lw 2 title \"Gloo halving-doubling\""
    fi
    gnuplot <<GP
set terminal pngcairo size 900,560 noenhanced
set datafile separator "\t"
set datafile missing "nan"
set key top left
set logscale x 2
set grid
set xlabel "message size (bytes)"
set output "$OUT/${op}_time.png"
set logscale y 10
set ylabel "time (us), lower is better"
set title "$op, $N ranks: lincoll vs Open MPI vs Gloo (median of $REPS runs)"
plot "$tsv" skip 1 using 1:3 with linespoints lw 2 title "lincoll (avg)", \
     "$tsv" skip 1 using 1:5 with lines dt 2 title "lincoll alpha-beta-gamma prediction", \
     "$tsv" skip 1 using 1:6 with linespoints lw 2 title "Open MPI 4.1"$GLOO_T$UCC_T
set output "$OUT/${op}_busbw.png"
unset logscale y
set ylabel "bus bandwidth (GB/s), higher is better"
set title "$op, $N ranks: bus bandwidth = size/time * $f"
plot "$tsv" skip 1 using 1:(\$1/\$3/1000*($f)) with linespoints lw 2 title "lincoll", \
     "$tsv" skip 1 using 1:(\$1/\$6/1000*($f)) with linespoints lw 2 title "Open MPI 4.1"$GLOO_B$UCC_B
GP
  fi
done
cat "$OUT/summary.md"
echo "rhd_sweep: wrote $OUT/summary.md and PNGs in $(( $(date +%s) - T0 )) s" >&2
