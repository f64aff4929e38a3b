#!/usr/bin/env bash
# Side-by-side point-to-point benchmark: lincoll_perf (2 ranks under
# lincoll-run) against ucx_perftest (server + client on loopback, started by
# the anchor wrapper perf/anchors/ucx_perftest.sh on a port the kernel picks;
# ANCHORS env: its build directory, default anchors-build/ in the
# repository, built by perf/anchors/build.sh when missing), same
# iteration and warm-up counts, each rank pinned to its own core, the two
# programs alternating REPS times (odd repetitions lincoll first, even ones
# ucx_perftest first, so a drift in the machine's load hits both alike).
#   perf/p2p_compare.sh [BUILD_DIR] [REPS] [TESTS] (defaults: build, 5, tag_lat,tag_bw,put_bw)
# Prints one row per test: the median over the repetitions of lincoll and of
# ucx_perftest, lincoll/ucx_perftest, the goal, then every repetition's pair;
# for tag_lat also the median of the per-pair ratios over the pairs where
# both launches ran in the VM's fast mode (both under 0.3 us).
#   tag_lat 8 B   p50 latency in us (half round trip; ucx_perftest's "typical":
#                 median of the last 2048 iterations), goal ratio <= 1.05
#   tag_bw 4 MiB  MB/s over the whole run (window of 32 messages), goal >= 0.95
#   put_bw 4 MiB  MB/s, puts into lincoll_mem_alloc memory vs ucp_put_bw
#                 (shared memory only: over tcp ucx_perftest's put needs target
#                 progress), goal >= 0.95
# shm = UCX's default transports (lincoll keeps them with error handling via
# UCX_MM_ERROR_HANDLING=y), tcp = UCX_TLS=tcp,self for both programs.
# About a minute (69 s with REPS=5 on the loaded 2-core VM); figures are only
# comparable within one run (absolute numbers drift with the machine's load).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
reps=${2:-5}
tests=${3:-tag_lat,tag_bw,put_bw}
bin="$build/bin"
for p in "$bin/lincoll-run" "$bin/lincoll_perf"; do
  [ -x "$p" ] || { echo "p2p_compare: $p not found (build first)" >&2; exit 2; }
done
anchors=${ANCHORS:-$top/anchors-build}
"$top/perf/anchors/build.sh" "$anchors" >/dev/null ||
  { echo "p2p_compare: building the anchors in $anchors failed" >&2; exit 2; }
command -v ucx_perftest >/dev/null || { echo "p2p_compare: ucx_perftest not found (ucx-utils)" >&2; exit 2; }
# two CPUs this script may use: rank 0 / ucx_perftest server on the first
read -r cpu0 cpu1 < <(python3 -c 'import os; c=sorted(os.sched_getaffinity(0)); print(c[0], c[1 % len(c)])')
t_start=$(date +%s)

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

ucx_run() { # envs test size iters warmup kind -> value (p50 us or MB/s), empty on failure
  local envs=$1 test=$2 size=$3 iters=$4 warmup=$5 kind=$6
  # one line: TEST SIZE ITERS P50_US AVG_US MBPS MSGPS (whole-run figures)
  env $envs "$anchors/ucx_perftest.sh" -c "$cpu0,$cpu1" -T 60 "$test" "$size" "$iters" "$warmup" 2>/dev/null |
    awk -v k="$kind" '{print (k == "lat") ? $4 : $6}'
}

lc_run() { # envs test size iters warmup kind -> value (p50 us or MB/s), empty on failure
  local envs=$1 test=$2 size=$3 iters=$4 warmup=$5 kind=$6
  env $envs "$bin/lincoll-run" -n 2 --timeout 60 sh -c \
    "exec taskset -c \$([ \"\$LINCOLL_RANK\" = 0 ] && echo $cpu0 || echo $cpu1) $bin/lincoll_perf -t $test -s $size -n $iters -w $warmup -f csv" \
    2>/dev/null | grep -v 'test,ranks' | sed -n 's/^\[0\] //p' |
    awk -F, -v k="$kind" '{print (k == "lat") ? $6 : $8}'
}

printf "p2p_compare: %s repetitions, CPUs %s/%s, %s, load %s\n" "$reps" "$cpu0" "$cpu1" \
  "$(ucx_info -v 2>/dev/null | awk '/Version/ {print "UCX " $3}')" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-4s %-8s %8s %12s %14s %8s %8s  %s\n" tl test size lincoll ucx_perftest ratio goal "each repetition (lincoll/ucx)"
for tr in shm tcp; do
  envs="LC_P2P=1"; [ $tr = tcp ] && envs="UCX_TLS=tcp,self"
  for spec in "tag_lat 8 20000 10000 lat" "tag_bw 4194304 1000 100 bw" "put_bw 4194304 3000 300 bw"; do
    set -- $spec
    test=$1 size=$2 iters=$3 warmup=$4 kind=$5
    case ",$tests," in *",$test,"*) ;; *) continue ;; esac
    ucx_test=$test; [ $test = put_bw ] && ucx_test=ucp_put_bw
    [ $tr = tcp ] && [ $test = put_bw ] && continue
    [ $tr = tcp ] && [ $test = tag_bw ] && iters=100 warmup=10 # loopback tcp is ~10x slower than shm
    lv=(); uv=(); pairs=""
    for r in $(seq 1 "$reps"); do
      if [ $((r % 2)) = 1 ]; then
        l=$(lc_run "$envs" $test $size $iters $warmup $kind); u=$(ucx_run "$envs" $ucx_test $size $iters $warmup $kind)
      else
        u=$(ucx_run "$envs" $ucx_test $size $iters $warmup $kind); l=$(lc_run "$envs" $test $size $iters $warmup $kind)
      fi
      [ -n "$l" ] && lv+=("$l"); [ -n "$u" ] && uv+=("$u")
      pairs+=" ${l:-fail}/${u:-fail}"
    done
    lm=$(printf '%s\n' "${lv[@]}" | grep . | median); um=$(printf '%s\n' "${uv[@]}" | grep . | median)
    unit="us"; goal="<=1.05"; [ $kind = bw ] && unit="MB/s" goal=">=0.95"
    ratio=$(awk -v a="$lm" -v b="$um" 'BEGIN {if (a == "nan" || b == "nan" || b == 0) print "nan"; else printf "%.2f", a / b}')
    printf "%-4s %-8s %8s %7s %-4s %9s %-4s %7sx %8s %s\n" $tr $test $size "$lm" $unit "$um" $unit "$ratio" "$goal" "$pairs"
    if [ $tr = shm ] && [ $test = tag_lat ]; then
      echo "$pairs" | tr ' ' '\n' | awk -F/ '$1 + 0 > 0 && $1 < 0.3 && $2 + 0 > 0 && $2 < 0.3 {print $1 / $2}' |
        median | awk -v n="$(echo "$pairs" | tr ' ' '\n' | awk -F/ '$1 + 0 > 0 && $1 < 0.3 && $2 + 0 > 0 && $2 < 0.3' | wc -l)" \
          '{printf "shm  tag_lat  fast-mode pairs: %d, median per-pair ratio %.2fx\n", n, $1}'
    fi
  done
done
printf "p2p_compare: %d s, load %s\n" $(($(date +%s) - t_start)) "$(cut -d' ' -f1-3 /proc/loadavg)"
