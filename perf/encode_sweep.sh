#!/bin/sh
# perf/encode_sweep.sh: all-to-all encode sweep in one command — every
# algorithm's measured time beside the alpha-beta-tau prediction, the direct
# baseline and the cost model's choice.
#
# Usage: perf/encode_sweep.sh [-b BUILD_DIR] [-K "2 4 8"] [-p "1"] [-s SIZES]
#            [-A "zcopy prepare_shoot best_window direct dft"] [-n ITERS] [-c CPUS]
#            [-m lincoll|host] [-r REPS] [-t BUDGET_S] [-o RAW_FILE] [-a ANCHORS_DIR]
# SIZES as lincoll_perf -s (default 4k,64k,1m,16m; the full issue range is
# -s 4k:16m).  1. Calibration, in the same run: alpha = tag_lat p50 of 8
# bytes (2 ranks); for every packet size S, 1/tau(S) = tag_bw of S bytes one
# message at a time (median of three runs) (-W 1: an encode round sends its messages and waits for
# them, it does not stream), so tau is read where the data sits (4 MiB
# messages stay in cache, 16 MiB ones stream from DRAM).  Each size's runs get
# LINCOLL_MODEL_ALPHA = alpha and LINCOLL_MODEL_BW = 1/tau(S), so the
# prediction and the library's model choice use the figures of that size
# (both variables set beforehand: used as they are, for every size).  The
# model is never fitted to encode measurements.  2. For each K, p, algorithm
# and size: lincoll-run -n K lincoll_perf -t encode -K K -p p -A algo -s S -n
# ITERS -m MEM (under taskset -c CPUS when -c is given), which times the plan
# and the direct baseline and compiles what -A auto would choose.  Packets are
# lincoll_mem_alloc memory (-m lincoll, default: zcopy can run) or malloc
# memory (-m host).  -r REPS repeats the runs (round-robin over the
# algorithms, so they alternate under the same load).  3. A table, one row
# per (K, p, size, algo), medians over the repetitions:
#   K p size algo chunks | measured us (median of ITERS) | predicted us
#   (C1 alpha + C2 tau(S), C1/C2 the schedule's) | ratio measured/predicted |
#   model-choice (what auto compiles) | fastest-measured (over the
#   algorithms and the direct baseline at that K, p, size) | isal_us;
#   algo is the plan that ran (a forced zcopy that cannot run falls back and
#   shows it).  isal_us, the anchor: ISA-L's ec_encode_data computing what
#   the direct baseline computes on each rank, K packets of S bytes into one
#   GF(2^8) combination (perf/anchors/isal_encode K 1 S, same CPUs, same
#   run): the direct encode's arithmetic on one core without communication
#   (not a bound: plans that split the products between ranks, as
#   zcopy_split does, can be faster); "-" for K > 254.  The anchors are built in ANCHORS_DIR (default
#   anchors-build/ in the repository) by perf/anchors/build.sh when missing.
# Runs that would start after BUDGET_S seconds (default 270) are skipped and a
# run still going at BUDGET_S + 20 s is stopped (lincoll-run --timeout; its
# finished sizes are kept), so the sweep ends within 5 minutes even on a
# loaded machine.  -o keeps
# the raw "#encode" lines.  Figures on a loaded or oversubscribed machine
# (K ranks on fewer cores) are not the library's speed: compare within a run.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
ANCH=$TOP/anchors-build
BUILD=build; KS="2 4 8"; PS="1"; SIZES="4k,64k,1m,16m"; ALGOS="zcopy prepare_shoot best_window direct dft"
ITERS=20; CPUS=""; BUDGET=270; RAW=""; MEM=lincoll; REPS=1
while getopts b:K:p:s:A:n:c:t:o:m:r:a: f; do
  case $f in
    b) BUILD=$OPTARG;; K) KS=$OPTARG;; p) PS=$OPTARG;; s) SIZES=$OPTARG;; A) ALGOS=$OPTARG;;
    n) ITERS=$OPTARG;; c) CPUS=$OPTARG;; t) BUDGET=$OPTARG;; o) RAW=$OPTARG;; m) MEM=$OPTARG;; r) REPS=$OPTARG;;
    a) ANCH=$OPTARG;;
    *) sed -n 2,42p "$0"; exit 2;;
  esac
done
RUN=$BUILD/bin/lincoll-run; PERF=$BUILD/bin/lincoll_perf
[ -x "$RUN" ] && [ -x "$PERF" ] || { echo "encode_sweep: build $BUILD first (lincoll-run, lincoll_perf)" >&2; exit 1; }
"$TOP/perf/anchors/build.sh" "$ANCH" >/dev/null || { echo "encode_sweep: building the anchors in $ANCH failed" >&2; exit 1; }
TS=""
if [ -n "$CPUS" ]; then
  if command -v taskset >/dev/null; then TS="taskset -c $CPUS"; else echo "encode_sweep: no taskset; -c ignored" >&2; fi
fi
T0=$(date +%s)
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
[ -n "$RAW" ] || RAW=$TMP/raw.txt
: >"$RAW"

# sizes: "4k,1m" or "4k:16m" (x2 steps), suffixes k, m, g (powers of 2)
bytes() { awk -v v="$1" 'BEGIN { n = v + 0; u = tolower(substr(v, length(v)));
  if (u == "k") n *= 1024; else if (u == "m") n *= 1048576; else if (u == "g") n *= 1073741824;
  printf "%d\n", n }'; }
LIST=""
for tok in $(echo "$SIZES" | tr ',' ' '); do
  case $tok in
    *:*) lo=$(bytes "${tok%%:*}"); hi=$(bytes "${tok##*:}")
         while [ "$lo" -le "$hi" ]; do LIST="$LIST $lo"; lo=$((lo * 2)); done;;
    *) LIST="$LIST $(bytes "$tok")";;
  esac
done

# 1. calibration (a CSV row: test,ranks,ports,size,iters,p50,avg,MB/s,msg/s)
csv() { sed 's/^\[[0-9]*\] //' | awk -F, -v t="$1" -v c="$2" '$1 == t { print $c; exit }'; }
FIXED=""
if [ -n "${LINCOLL_MODEL_ALPHA:-}" ] && [ -n "${LINCOLL_MODEL_BW:-}" ]; then
  FIXED=1
  echo "# LINCOLL_MODEL_ALPHA=$LINCOLL_MODEL_ALPHA s, LINCOLL_MODEL_BW=$LINCOLL_MODEL_BW B/s set: used for every size"
else
  # shellcheck disable=SC2086
  lat=$($TS "$RUN" -n 2 --timeout 120 "$PERF" -t tag_lat -s 8 -n 2000 -f csv 2>/dev/null | csv tag_lat 6)
  [ -n "$lat" ] || { echo "encode_sweep: calibration failed (tag_lat)" >&2; exit 1; }
  LINCOLL_MODEL_ALPHA=$(awk -v l="$lat" 'BEGIN { printf "%.4g", l * 1e-6 }')
  export LINCOLL_MODEL_ALPHA
  echo "# calibration: alpha = tag_lat(8 B) p50 = $lat us; tau(S) = 1 / tag_bw(S, -W 1), per size:"
  for S in $LIST; do
    it=200; [ "$S" -gt 65536 ] && it=50; [ "$S" -gt 1048576 ] && it=20
    bws=""
    for c in 1 2 3; do # the median of three runs: one run on a loaded machine may be far off
      # shellcheck disable=SC2086
      bws="$bws $($TS "$RUN" -n 2 --timeout 120 "$PERF" -t tag_bw -W 1 -s "$S" -n "$it" -f csv 2>/dev/null | csv tag_bw 8)"
    done
    bw=$(echo $bws | tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 3) print v[2] }')
    [ -n "$bw" ] || { echo "encode_sweep: calibration failed (tag_bw $S)" >&2; exit 1; }
    echo "$S $(awk -v b="$bw" 'BEGIN { printf "%.4g", b * 1048576 }')" >>"$TMP/bw"
    echo "#   tag_bw(-W 1) at $S bytes = $bw MB/s (median of$bws)"
  done
fi
# the anchor: ISA-L computing the direct encode's share of one rank (K packets -> one output)
: >"$TMP/isal"
for K in $KS; do
  [ "$K" -le 254 ] || continue
  for S in $LIST; do
    it=200; [ "$S" -gt 65536 ] && it=50; [ "$S" -gt 1048576 ] && it=10
    # "isal_encode k=K m=1 len=S iters=I: X GB/s (data in)"
    # shellcheck disable=SC2086
    gbs=$($TS "$ANCH/isal_encode" "$K" 1 "$S" "$it" | awk '/GB\/s/ { print $(NF - 3) }')
    case $gbs in [0-9]*) ;; *) echo "encode_sweep: isal_encode $K 1 $S failed" >&2; exit 1;; esac
    us=$(awk -v k="$K" -v s="$S" -v g="$gbs" 'BEGIN { printf "%.1f", k * s / (g * 1e9) * 1e6 }')
    echo "$K $S $us" >>"$TMP/isal"
    echo "# ISA-L: K=$K size=$S: $us us (ec_encode_data $K -> 1, $gbs GB/s data in)"
  done
done
echo "# LINCOLL_ENCODE_CHUNK=${LINCOLL_ENCODE_CHUNK:-0 (model)}; packets: $MEM memory;" \
  "$(nproc 2>/dev/null || echo '?') cores"

# 2. the runs (one per size: each size has its own tau)
skipped=0
rep=0
while [ "$rep" -lt "$REPS" ]; do rep=$((rep + 1))
for K in $KS; do
  for p in $PS; do
    for S in $LIST; do
      for A in $ALGOS; do
        left=$((BUDGET - ($(date +%s) - T0)))
        if [ "$left" -le 0 ]; then skipped=$((skipped + 1)); continue; fi
        [ -n "$FIXED" ] || LINCOLL_MODEL_BW=$(awk -v s="$S" '$1 == s { print $2; exit }' "$TMP/bw")
        export LINCOLL_MODEL_BW
        # shellcheck disable=SC2086
        $TS "$RUN" -n "$K" --timeout $((left + 20)) "$PERF" -t encode -K "$K" -p "$p" -A "$A" -s "$S" \
          -n "$ITERS" -w 2 -m "$MEM" >"$TMP/out" 2>"$TMP/err" ||
          echo "encode_sweep: K=$K p=$p -A $A -s $S failed: $(tail -n 2 "$TMP/err" | tr '\n' ' ')" >&2
        sed -n 's/^\[0\] #encode /'"A=$A"' /p' "$TMP/out" >>"$RAW"
      done
    done
  done
done
done

# 3. the table: per (K, p, size, algorithm) the median over the -r repetitions;
# fastest-measured compares those medians and the median of every direct
# baseline timed at that K, p, size (each run times one beside its algorithm)
awk -v isalf="$TMP/isal" '
FILENAME == isalf { ISAL[$1 " " $2] = $3; next }
function v(k,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] } return "" }
function med(str,   a, n, i, j, t) {
  n = split(str, a, " ")
  for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
  key = v("K") " " v("p") " " v("size"); row = key " " v("A")
  if (!(row in seen)) { seen[row] = 1; n++; ROW[n] = row; KEY[n] = key; K[n] = v("K"); P[n] = v("p"); S[n] = v("size") }
  AL[row] = v("algo"); CH[row] = v("chunks"); PR[row] = v("pred_us"); C[row] = v("choice")
  M[row] = M[row] " " v("p50_us"); D[key] = D[key] " " v("direct_us"); R[row]++
}
END {
  for (i = 1; i <= n; i++) {
    r = ROW[i]; key = KEY[i]; m = med(M[r]); MM[r] = m
    if (!(key in bt) || m < bt[key]) { bt[key] = m; best[key] = AL[r] }
  }
  for (key in D) { d = med(D[key]); if (d < bt[key]) { bt[key] = d; best[key] = "direct" } }
  printf "%3s %2s %10s %-16s %6s %4s %13s %13s %7s %-16s %-16s %9s\n", "K", "p", "size", "algo", "chunks",
         "runs", "measured_us", "predicted_us", "ratio", "model-choice", "fastest-measured", "isal_us"
  for (i = 1; i <= n; i++) {
    r = ROW[i]
    fl = (K[i] " " S[i]) in ISAL ? ISAL[K[i] " " S[i]] : "-"
    printf "%3s %2s %10s %-16s %6s %4d %13.1f %13.1f %7.2f %-16s %-16s %9s\n", K[i], P[i], S[i], AL[r], CH[r],
           R[r], MM[r], PR[r], (PR[r] > 0 ? MM[r] / PR[r] : 0), C[r], best[KEY[i]], fl
  }
}' "$TMP/isal" "$RAW"
[ "$skipped" -eq 0 ] || echo "# $skipped run(s) skipped: budget of $BUDGET s reached (-t to raise it)"
echo "# $(($(date +%s) - T0)) s"
