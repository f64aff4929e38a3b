#!/bin/sh
# perf/encode_sweep.sh: all-to-all encode sweep in one command — every
# algorithm's measured time beside the alpha-beta-tau prediction, the direct
# baseline and the cost model's choice.
#
# Usage: perf/encode_sweep.sh [-b BUILD_DIR] [-K "2 4 8"] [-p "1"] [-s SIZES]
#            [-A "prepare_shoot best_window direct dft"] [-n ITERS] [-c CPUS]
#            [-t BUDGET_S] [-o RAW_FILE]
# SIZES as lincoll_perf -s (default 4k,64k,1m,16m; the full issue range is
# -s 4k:16m).  1. Calibration: alpha = tag_lat p50 of 8 bytes (2 ranks),
# 1/tau = tag_bw of 4 MiB one message at a time (-W 1: an encode round
# sends tag messages and waits for them, it does not stream); exported as LINCOLL_MODEL_ALPHA / LINCOLL_MODEL_BW
# (unless both are set already) so the prediction and the library's model
# choice use the same figures.  2. For each K, p, algorithm: lincoll-run -n K
# lincoll_perf -t encode -K K -p p -A algo -s SIZES -n ITERS (under
# taskset -c CPUS when -c is given), which times the plan and the direct
# baseline and compiles what -A auto would choose.  3. A table, one row per
# (K, p, size, algo):
#   K p size algo chunks | measured us (median of ITERS) | predicted us
#   (C1 alpha + C2 tau, C1/C2 the schedule's) | ratio measured/predicted |
#   model-choice (what auto compiles) | fastest-measured (over the
#   algorithms and the direct baseline at that K, p, size)
# Runs that would start after BUDGET_S seconds (default 270) are skipped and a
# run still going at BUDGET_S + 20 s is stopped (lincoll-run --timeout; its
# finished sizes are kept), so the sweep ends within 5 minutes even on a
# loaded machine.  -o keeps
# the raw "#encode" lines.  Figures on a loaded or oversubscribed machine
# (K ranks on fewer cores) are not the library's speed: compare within a run.
set -eu
BUILD=build; KS="2 4 8"; PS="1"; SIZES="4k,64k,1m,16m"; ALGOS="prepare_shoot best_window direct dft"
ITERS=20; CPUS=""; BUDGET=270; RAW=""
while getopts b:K:p:s:A:n:c:t:o: f; do
  case $f in
    b) BUILD=$OPTARG;; K) KS=$OPTARG;; p) PS=$OPTARG;; s) SIZES=$OPTARG;; A) ALGOS=$OPTARG;;
    n) ITERS=$OPTARG;; c) CPUS=$OPTARG;; t) BUDGET=$OPTARG;; o) RAW=$OPTARG;;
    *) sed -n 2,27p "$0"; exit 2;;
  esac
done
RUN=$BUILD/bin/lincoll-run; PERF=$BUILD/bin/lincoll_perf
[ -x "$RUN" ] && [ -x "$PERF" ] || { echo "encode_sweep: build $BUILD first (lincoll-run, lincoll_perf)" >&2; exit 1; }
TS=""
if [ -n "$CPUS" ]; then
  if command -v taskset >/dev/null; then TS="taskset -c $CPUS"; else echo "encode_sweep: no taskset; -c ignored" >&2; fi
fi
T0=$(date +%s)
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
[ -n "$RAW" ] || RAW=$TMP/raw.txt
: >"$RAW"

# 1. calibration (a CSV row: test,ranks,ports,size,iters,p50,avg,MB/s,msg/s)
csv() { sed 's/^\[[0-9]*\] //' | awk -F, -v t="$1" -v c="$2" '$1 == t { print $c; exit }'; }
if [ -z "${LINCOLL_MODEL_ALPHA:-}" ] || [ -z "${LINCOLL_MODEL_BW:-}" ]; then
  # shellcheck disable=SC2086
  lat=$($TS "$RUN" -n 2 --timeout 120 "$PERF" -t tag_lat -s 8 -n 2000 -f csv 2>/dev/null | csv tag_lat 6)
  # shellcheck disable=SC2086
  bw=$($TS "$RUN" -n 2 --timeout 120 "$PERF" -t tag_bw -W 1 -s 4m -n 50 -f csv 2>/dev/null | csv tag_bw 8)
  [ -n "$lat" ] && [ -n "$bw" ] || { echo "encode_sweep: calibration failed (tag_lat, tag_bw)" >&2; exit 1; }
  LINCOLL_MODEL_ALPHA=$(awk -v l="$lat" 'BEGIN { printf "%.4g", l * 1e-6 }')
  LINCOLL_MODEL_BW=$(awk -v b="$bw" 'BEGIN { printf "%.4g", b * 1048576 }')
  export LINCOLL_MODEL_ALPHA LINCOLL_MODEL_BW
  echo "# calibration: tag_lat(8 B) p50 = $lat us -> alpha; tag_bw(4 MiB, -W 1) = $bw MB/s -> 1/tau"
fi
echo "# LINCOLL_MODEL_ALPHA=$LINCOLL_MODEL_ALPHA s, LINCOLL_MODEL_BW=$LINCOLL_MODEL_BW B/s;" \
  "LINCOLL_ENCODE_CHUNK=${LINCOLL_ENCODE_CHUNK:-0 (model)}; $(nproc 2>/dev/null || echo '?') cores"

# 2. the runs
skipped=0
for K in $KS; do
  for p in $PS; do
    for A in $ALGOS; do
      left=$((BUDGET - ($(date +%s) - T0)))
      if [ "$left" -le 0 ]; then skipped=$((skipped + 1)); continue; fi
      # shellcheck disable=SC2086
      $TS "$RUN" -n "$K" --timeout $((left + 20)) "$PERF" -t encode -K "$K" -p "$p" -A "$A" -s "$SIZES" \
        -n "$ITERS" -w 2 >"$TMP/out" 2>"$TMP/err" ||
        echo "encode_sweep: K=$K p=$p -A $A failed: $(tail -n 2 "$TMP/err" | tr '\n' ' ')" >&2
      sed -n 's/^\[0\] #encode /'"A=$A"' /p' "$TMP/out" >>"$RAW"
    done
  done
done

# 3. the table
awk '
function v(k,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] } return "" }
{
  key = v("K") " " v("p") " " v("size"); n++
  K[n] = v("K"); P[n] = v("p"); S[n] = v("size"); AL[n] = v("algo"); CH[n] = v("chunks")
  M[n] = v("p50_us"); PR[n] = v("pred_us"); C[n] = v("choice"); KEY[n] = key
  if (!(key in best) || M[n] + 0 < bt[key]) { best[key] = AL[n]; bt[key] = M[n] + 0 }
  d = v("direct_us") + 0
  if (d < bt[key]) { best[key] = "direct"; bt[key] = d }
}
END {
  printf "%3s %2s %10s %-16s %6s %13s %13s %7s %-16s %-16s\n", "K", "p", "size", "algo", "chunks",
         "measured_us", "predicted_us", "ratio", "model-choice", "fastest-measured"
  for (i = 1; i <= n; i++)
    printf "%3s %2s %10s %-16s %6s %13.1f %13.1f %7.2f %-16s %-16s\n", K[i], P[i], S[i], AL[i], CH[i],
           M[i], PR[i], (PR[i] > 0 ? M[i] / PR[i] : 0), C[i], best[KEY[i]]
}' "$RAW"
[ "$skipped" -eq 0 ] || echo "# $skipped run(s) skipped: budget of $BUDGET s reached (-t to raise it)"
echo "# $(($(date +%s) - T0)) s"
