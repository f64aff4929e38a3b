#!/usr/bin/env bash
# The main job in one command on a fresh Debian 12 machine: install what is
# missing, build, then start 4 local ranks with lincoll-run and run each of
# lincoll's three families over UCX, then the point-to-point benchmarks:
#   1. erasure coding: RS(3,1) all-to-all encode of a real file (README.md)
#      across 4 ranks, a lost rank rebuilt by a repair plan, the reassembled
#      file checked by SHA-256 (deploy/examples/lincoll_ec_file.c);
#   2. allreduce from 8 B to 8 MiB (lincoll_perf -t allreduce);
#   3. distributed matrix multiply at n = 1024 (lincoll_perf -t matmul);
#   4. tag_lat, tag_bw, put_bw on pairs 0-1 and 2-3 at once, with the
#      aggregate (lincoll_perf).
# Every table puts the cost model's prediction beside the measurement (the
# plans' lincoll_plan_stats().predicted_us, lincoll_matmul_info(), and for
# point to point the profile's alpha and beta).  The model's figures are this
# machine's: when no machine profile exists yet ($XDG_CACHE_HOME/lincoll/profile,
# else ~/.cache/lincoll/profile) the quickstart first measures the machine
# (lincoll_info --calibrate, about a minute) and says so; LINCOLL_PROFILE=FILE
# uses another profile, LINCOLL_PROFILE=none the built-in figures.  Ends with a one-line
# summary; exit status 0 when every step ran and the file came back intact.
# After the first build a run takes well under 2 minutes on 2 cores.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
t_start=$(date +%s)
section() { printf '\n== %s ==\n' "$*"; }
section "0/4 install missing packages, build (deploy/install-deps.sh, deploy/build.sh)"
"$top/deploy/install-deps.sh"
mkdir -p "$top/build"
blog="$top/build/quickstart-build.log"
echo "building into $top/build (log: $blog)"
if ! "$top/deploy/build.sh" >"$blog" 2>&1; then
  tail -40 "$blog"
  echo "quickstart: FAILED: the build failed (whole log: $blog)" >&2
  exit 1
fi
t_built=$(date +%s)
echo "built in $((t_built - t_start)) s"
bin="$top/build/bin"
run=("$bin/lincoll-run" -n 4 --timeout 300)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

section "calibration: the cost model's figures for this machine (lincoll_info --calibrate)"
prof=${LINCOLL_PROFILE:-}
if [ "$prof" = none ]; then
  echo "LINCOLL_PROFILE=none: the model's built-in figures (predictions may be far off)"
else
  if [ -z "$prof" ]; then
    if [ -n "${XDG_CACHE_HOME:-}" ]; then prof=$XDG_CACHE_HOME/lincoll/profile; else prof=$HOME/.cache/lincoll/profile; fi
  fi
  if [ -f "$prof" ]; then
    echo "machine profile $prof ($(sed -n '1s/^# //p' "$prof"))"
    echo "(delete it, or run lincoll_info --calibrate, to measure again)"
  else
    echo "no machine profile at $prof: measuring this machine first (about a minute)"
    "$bin/lincoll_info" --calibrate -o "$prof"
  fi
  export LINCOLL_PROFILE="$prof"
  grep -v '^#' "$prof"
fi

section "1/4 erasure coding: RS(3,1) encode of README.md across 4 ranks, then rank 1 is lost and rebuilt"
"${run[@]}" "$bin/lincoll_ec_file" --file "$top/README.md" --parity 1 --lose 1 \
  --out "$tmp/README.reassembled" | tee "$tmp/ec.log"
orig=$(sha256sum <"$top/README.md" | cut -d' ' -f1)
back=$(sha256sum <"$tmp/README.reassembled" | cut -d' ' -f1)
if [ "$orig" = "$back" ]; then ec="identical"; else ec="DIFFERENT"; fi
echo "sha256sum: README.md $orig, reassembled $back: $ec"
[ "$ec" = identical ] || { echo "quickstart: FAILED: the reassembled file differs" >&2; exit 1; }

section "2/4 allreduce, float sum, 8 B .. 8 MiB on 4 ranks (last column: algorithm, model prediction)"
"${run[@]}" "$bin/lincoll_perf" -t allreduce -s 8:8m | tee "$tmp/allreduce.log"
nsizes=$(grep -c '| allreduce ' "$tmp/allreduce.log" || true)

section "3/4 matmul C = A B, n = 1024, double, on 4 ranks (the library picks the algorithm)"
"${run[@]}" "$bin/lincoll_perf" -t matmul -s 1024 -n 20 -w 2 | tee "$tmp/matmul.log"
gflops=$(sed -n 's/.*# matmul-row .*gflops=\([0-9.]*\).*/\1/p' "$tmp/matmul.log" | head -1)
mm_algo=$(sed -n 's/.*# matmul-row algo=\([a-z0-9]*\).*/\1/p' "$tmp/matmul.log" | head -1)

section "4/4 point to point on 4 ranks: pairs 0-1 and 2-3 at once, then the aggregate (all)"
# the model's prediction for one message at a time: alpha + size / BW (the
# profile's alpha and beta; without one, LINCOLL_MODEL_ALPHA and _BW)
if [ -n "${LINCOLL_PROFILE:-}" ] && [ "$LINCOLL_PROFILE" != none ]; then
  read -r alpha bw src < <(awk '$1 == "alpha" {a = $2} $1 == "beta" {b = 1 / $2}
    END {print a, b, "profile"}' "$LINCOLL_PROFILE")
else
  read -r alpha bw src < <("$bin/lincoll_info" -c |
    awk -F'[= ]' '/^LINCOLL_MODEL_ALPHA=/ {a = $2} /^LINCOLL_MODEL_BW=/ {b = $2} END {print a, b, "LINCOLL_MODEL_ALPHA, _BW"}')
fi
awk -v a="$alpha" -v b="$bw" -v src="$src" 'BEGIN {
  printf "model (%s: alpha %.2f us, %.0f MB/s per pair), one message at a time:\n", src, a * 1e6, b / 1048576
  printf "  tag_lat       8 B: %8.2f us    4096 B: %8.2f us\n", (a + 8 / b) * 1e6, (a + 4096 / b) * 1e6
  printf "  tag_bw/put_bw 64 KiB: %8.0f MB/s  4 MiB: %8.0f MB/s  (a window of 32 hides alpha)\n",
         65536 / (a + 65536 / b) / 1048576, 4194304 / (a + 4194304 / b) / 1048576 }'
"${run[@]}" "$bin/lincoll_perf" -t tag_lat -s 8,4k | tee "$tmp/p2p.log"
"${run[@]}" "$bin/lincoll_perf" -t tag_bw -s 64k,4m | tee -a "$tmp/p2p.log"
"${run[@]}" "$bin/lincoll_perf" -t put_bw -s 64k,4m | tee -a "$tmp/p2p.log"
agg=$(awk -F'|' '$2 ~ /tag_bw/ && $5 + 0 == 4194304 && $10 ~ /all/ {gsub(/ /, "", $8); print $8}' "$tmp/p2p.log")

t_end=$(date +%s)
echo
echo "quickstart: OK in $((t_end - t_built)) s after $((t_built - t_start)) s of install and build:" \
  "README.md encoded RS(3,1), rank 1 rebuilt, sha256 $ec; allreduce $nsizes sizes;" \
  "matmul n=1024 ${mm_algo:-?} ${gflops:-?} GFLOP/s; tag_bw 4 MiB ${agg:-?} MB/s over 2 pairs"
