#!/usr/bin/env bash
# perf/report.sh: run every side-by-side benchmark of lincoll against its
# anchors, keep the raw outputs, and render one dated report with markdown
# tables and gnuplot PNGs.
#
#   perf/report.sh [-b BUILD_DIR] [-a ANCHOR_DIR] [-o OUT_ROOT] [-d DATE]
#                  [-s "env p2p coll encode gf gemm reduce matmul"] [--quick]
#                  [--render-only]
#
# Writes OUT_ROOT/DATE/ (raw outputs: env.txt, p2p_compare.txt, rhd/ (the
# rhd_sweep.sh directory), encode_sweep.txt, gf.csv, gemm.csv, reduce.csv,
# matmul_compare.txt, *.err, and png/) and OUT_ROOT/DATE-report.md.
# Defaults: BUILD_DIR build, OUT_ROOT docs/perf, DATE today (UTC), every step.
# ANCHOR_DIR (Open MPI mpi_coll, Gloo, ScaLAPACK pdgemm) defaults to
# $LINCOLL_ANCHORS or anchors-build (as every perf script); when it lacks the programs and
# perf/anchors/build.sh exists, that script builds them there.  ISA-L and
# OpenBLAS are loaded by lincoll_perf itself (dlopen), ucx_perftest comes from
# ucx-utils.  UCC is optional: where ANCHOR_DIR holds ucc_coll (built by
# perf/anchors/build.sh when LINCOLL_UCC_SRC names a UCC source tarball), the
# collectives' tables and plots get a UCC column.  gnuplot renders the PNGs (installed by deploy/install-deps.sh);
# without it the report has tables only.
#   --quick        shorter sweeps (a few minutes): functional check of the chain
#   --render-only  run nothing: render the report from OUT_ROOT/DATE/ as it is
#                  (after a partial run, or to re-render)
# Steps that fail leave their stderr in OUT_ROOT/DATE/<step>.err and a line
# in the report; the others still run.  Run on a quiet machine: the report
# records the load before and after.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=build
anchors=${LINCOLL_ANCHORS:-anchors-build}
outroot=docs/perf
date_=$(date -u +%Y-%m-%d)
steps="env p2p coll encode gf gemm reduce matmul"
quick=0
render_only=0
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2; shift 2 ;;
    -a) anchors=$2; shift 2 ;;
    -o) outroot=$2; shift 2 ;;
    -d) date_=$2; shift 2 ;;
    -s) steps=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --render-only) render_only=1; shift ;;
    -h | --help) sed -n 2,29p "$0"; exit 0 ;;
    *) echo "report.sh: unknown argument $1" >&2; sed -n 2,29p "$0" >&2; exit 2 ;;
  esac
done
case $build in /*) ;; *) build=$top/$build ;; esac
case $anchors in /*) ;; *) anchors=$top/$anchors ;; esac
case $outroot in /*) ;; *) outroot=$top/$outroot ;; esac
raw=$outroot/$date_
report=$outroot/$date_-report.md
png=$raw/png
tables=$top/perf/plot/tables.sh
plotdir=$top/perf/plot
mkdir -p "$raw" "$png"
has_step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
t0=$(date +%s)

# ---- 1. the runs ---------------------------------------------------------------
run_step() { # name command... : stdout to $raw/<file>, stderr to $raw/<name>.err
  local name=$1 file=$2
  shift 2
  echo "== report: $name" >&2
  local s
  s=$(date +%s)
  if "$@" >"$raw/$file" 2>"$raw/$name.err"; then
    echo "$name: ok, $(($(date +%s) - s)) s" >>"$raw/steps.txt"
  else
    echo "$name: FAILED (exit $?), $(($(date +%s) - s)) s, see $name.err" >>"$raw/steps.txt"
  fi
}

if [ "$render_only" = 0 ]; then
  perf=$build/bin/lincoll_perf
  [ -x "$perf" ] && [ -x "$build/bin/lincoll-run" ] ||
    { echo "report.sh: build $build first (deploy/build.sh)" >&2; exit 1; }
  : >"$raw/steps.txt"
  # anchors: build them when the directory lacks them (perf/anchors/build.sh DIR)
  # (and UCC's ucc_coll when LINCOLL_UCC_SRC names a UCC source tarball)
  if { has_step coll || has_step matmul || has_step ucc; } && [ -x "$top/perf/anchors/build.sh" ] &&
    { [ ! -x "$anchors/mpi_coll" ] || { [ -n "${LINCOLL_UCC_SRC:-}" ] && [ ! -x "$anchors/ucc_coll" ]; }; }; then
    run_step anchors anchors.txt "$top/perf/anchors/build.sh" "$anchors"
  fi
  if has_step env; then
    {
      echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
      echo "lincoll: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$top" diff --quiet 2>/dev/null || echo ' (modified)')"
      echo "host: $(uname -srm), $(nproc) cores"
      echo "cpu: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
      echo "memory: $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
      echo "ucx: $(ucx_info -v 2>/dev/null | awk '/Version/ {print $3; exit}')"
      echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
      echo "anchors: $anchors"
      echo
      "$build/bin/lincoll_info" 2>&1
    } >"$raw/env.txt"
  fi
  if [ "$quick" = 1 ]; then reps=3; else reps=11; fi
  has_step p2p && run_step p2p p2p_compare.txt env ANCHORS="$anchors" "$top/perf/p2p_compare.sh" "$build" "$reps"
  # TODO: a step for lincoll_perf's multi-pair p2p rows (lincoll-run -n 4: pairs 0-1, 2-3, "all")
  if has_step coll; then
    if [ "$quick" = 1 ]; then
      run_step coll rhd_sweep.txt "$top/perf/rhd_sweep.sh" --quick -b "$build" -a "$anchors" -o "$raw/rhd"
    else
      run_step coll rhd_sweep.txt "$top/perf/rhd_sweep.sh" -b "$build" -a "$anchors" -o "$raw/rhd" -r 7
    fi
  fi
  if has_step encode; then
    if [ "$quick" = 1 ]; then
      run_step encode encode_sweep.txt "$top/perf/encode_sweep.sh" -b "$build" -a "$anchors" -K 2 -s 4k,1m -r 1 -t 120
    else
      run_step encode encode_sweep.txt "$top/perf/encode_sweep.sh" -b "$build" -a "$anchors" -K "2 4" -s 4k:16m -r 5 -c 0-1 -t 900
    fi
  fi
  if has_step gf; then
    if [ "$quick" = 1 ]; then
      run_step gf gf.csv "$perf" -t gf -K 10 -M 4 -s 65536 -q 256 -r 3 -f csv
    else
      run_step gf gf.csv taskset -c 1 "$perf" -t gf -r 9 -f csv
    fi
  fi
  if has_step gemm; then
    if [ "$quick" = 1 ]; then
      run_step gemm gemm.csv "$perf" -t gemm -s 512 -d d -n 3 -f csv
    else
      run_step gemm gemm.csv taskset -c 1 "$perf" -t gemm -f csv
    fi
  fi
  if has_step reduce; then
    if [ "$quick" = 1 ]; then
      run_step reduce reduce.csv "$perf" -t reduce -s 1M -n 10 -f csv
    else
      run_step reduce reduce.csv sh -c "for d in float double bfloat16; do taskset -c 1 '$perf' -t reduce -d \$d -f csv; done |
        awk 'NR == 1 || \$1 != \"dtype\"'"
    fi
  fi
  if has_step matmul; then
    if [ "$quick" = 1 ]; then
      run_step matmul matmul_compare.txt env SIZES=512 RANKS="1 2" ITERS=3 "$top/perf/matmul_compare.sh" "$build" "$anchors"
    else
      run_step matmul matmul_compare.txt "$top/perf/matmul_compare.sh" "$build" "$anchors"
    fi
  fi
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg), $(($(date +%s) - t0)) s" >>"$raw/env.txt"
fi

# ---- 2. the PNGs ---------------------------------------------------------------
have_gnuplot=0
command -v gnuplot >/dev/null && have_gnuplot=1
ranks=2
[ -s "$raw/rhd/summary.md" ] && ranks=$(awk '/ranks, median/ {for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^ranks/) {print $i; exit}}' "$raw/rhd/summary.md")
[ -n "$ranks" ] || ranks=2
plot() { # script out-png gnuplot-assignments...
  local script=$1 out=$2
  shift 2
  [ "$have_gnuplot" = 1 ] || return 1
  gnuplot -e "$*; out='$out'; when='$date_'" "$plotdir/$script" 2>>"$raw/plot.err" && [ -s "$out" ]
}
pngs=()
for op in allreduce reduce_scatter allgather bcast reduce; do
  f=$raw/rhd/$op.tsv
  [ -s "$f" ] || continue
  plot coll_time.gp "$png/${op}_time.png" "in='$f'; op='$op'; ranks=$ranks" && pngs+=("${op}_time")
  plot coll_busbw.gp "$png/${op}_busbw.png" "in='$f'; op='$op'; ranks=$ranks" && pngs+=("${op}_busbw")
done
if [ -s "$raw/encode_sweep.txt" ]; then
  for kp in $(awk '$1 ~ /^[0-9]+$/ && NF >= 11 {print $1 "_" $2}' "$raw/encode_sweep.txt" | sort -u -t_ -k1,1n -k2,2n); do
    K=${kp%_*} p=${kp#*_}
    plot encode.gp "$png/encode_K${K}_p${p}.png" "in='$raw/encode_sweep.txt'; K=$K; p=$p" && pngs+=("encode_K${K}_p${p}")
  done
fi
if [ -s "$raw/gf.csv" ] && "$tables" gf-tsv "$raw/gf.csv" >"$raw/gf.tsv" 2>>"$raw/plot.err" &&
  [ "$(wc -l <"$raw/gf.tsv")" -gt 1 ]; then
  plot gf.gp "$png/gf.png" "in='$raw/gf.tsv'" && pngs+=(gf)
fi
if [ -s "$raw/matmul_compare.txt" ] && "$tables" matmul-tsv "$raw/matmul_compare.txt" >"$raw/matmul.tsv" 2>>"$raw/plot.err" &&
  [ "$(wc -l <"$raw/matmul.tsv")" -gt 1 ]; then
  plot matmul.gp "$png/matmul.png" "in='$raw/matmul.tsv'" && pngs+=(matmul)
fi

# ---- 3. the report -------------------------------------------------------------
img() { # name caption: the image line when the PNG was made
  local n=$1
  for x in "${pngs[@]:-}"; do
    if [ "$x" = "$n" ]; then
      echo
      echo "![$2]($date_/png/$n.png)"
      return
    fi
  done
}
{
  echo "# lincoll performance report, $date_"
  echo
  echo "Produced by \`perf/report.sh\`; raw outputs in [\`$date_/\`]($date_/).  Every ratio compares"
  echo "lincoll with its anchor measured in the same run on the same machine; figures from"
  echo "other runs are not comparable.  How each benchmark measures:"
  echo "[README.md](README.md); earlier measurements: [history.md](history.md)."
  echo
  echo "## Machine and run"
  echo
  echo '```'
  [ -s "$raw/env.txt" ] && sed -n '/^$/q;p' "$raw/env.txt"
  [ -s "$raw/env.txt" ] && grep '^load after' "$raw/env.txt"
  [ -s "$raw/steps.txt" ] && cat "$raw/steps.txt"
  echo '```'
  echo
  echo "## Headline ratios"
  echo
  "$tables" headline "$raw"
  echo
  echo "## Point to point against ucx_perftest"
  echo
  "$tables" md-p2p "$raw/p2p_compare.txt"
  echo
  echo "## Collectives against Open MPI, Gloo and (where built) UCC"
  for op in allreduce reduce_scatter allgather bcast reduce; do
    [ -s "$raw/rhd/$op.tsv" ] || continue
    echo
    echo "### $op"
    echo
    "$tables" md-coll "$raw/rhd/$op.tsv"
    img "${op}_time" "$op time against size"
    img "${op}_busbw" "$op bus bandwidth"
  done
  [ -s "$raw/rhd/summary.md" ] && { echo; grep -m1 '^Ratios are' "$raw/rhd/summary.md"; }
  [ -d "$raw/rhd" ] || { echo; echo "_No rhd_sweep output._"; }
  echo
  echo "## All-to-all encode against the alpha-beta-tau model"
  echo
  "$tables" md-encode "$raw/encode_sweep.txt"
  for x in "${pngs[@]:-}"; do case $x in encode_*) img "$x" "encode measured against predicted, $x" ;; esac; done
  echo
  echo "## GF(q) kernels against ISA-L and the stream ceiling"
  echo
  "$tables" md-gf "$raw/gf.csv"
  img gf "GF(2^8) throughput against ISA-L and the stream ceiling"
  echo
  echo "## GEMM against OpenBLAS"
  echo
  "$tables" md-gemm "$raw/gemm.csv"
  echo
  echo "## Reductions against memcpy"
  echo
  "$tables" md-reduce "$raw/reduce.csv"
  echo
  echo "## Distributed matmul against ScaLAPACK"
  echo
  "$tables" md-matmul "$raw/matmul_compare.txt"
  img matmul "matmul GFLOP/s against ScaLAPACK"
  if [ -s "$raw/plot.err" ]; then
    echo
    echo "Plot messages: \`$date_/plot.err\`."
  fi
  [ "$have_gnuplot" = 1 ] || { echo; echo "_gnuplot is not installed: no figures (deploy/install-deps.sh installs it)._"; }
} >"$report"
echo "report.sh: wrote $report (${#pngs[@]} figures) in $(($(date +%s) - t0)) s" >&2
