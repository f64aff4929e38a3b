#!/usr/bin/env bash
# Side-by-side point-to-point benchmark: lincoll_perf (2 ranks under
# lincoll-run) against ucx_perftest (server + client on loopback), alternating
# in one run, REPS times each; prints the medians and lincoll/ucx ratios.
#   perf/p2p_compare.sh [BUILD_DIR] [REPS]
# Rows: tag_lat 8 B (p50 latency, lower is better), tag_bw 4 MiB and put_bw
# 4 MiB (MB/s, higher is better), each over shared memory (UCX default) and
# over tcp (UCX_TLS=tcp,self).
set -euo pipefail
build=${1:-build}
reps=${2:-5}
bin="$build/bin"
port=$((20000 + RANDOM % 20000))

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

ucx_run() { # env test size iters -> "p50_us bw_MBps"
  local envs=$1 test=$2 size=$3 iters=$4
  port=$((port + 1))
  env $envs timeout 120 ucx_perftest -p $port >/dev/null 2>&1 &
  local srv=$!
  sleep 0.5
  local line
  line=$(env $envs timeout 120 ucx_perftest 127.0.0.1 -p $port -t $test -s $size -n $iters -f 2>/dev/null |
         awk '/^ *[0-9]+ +[0-9.]+/ {l=$0} END {print l}')
  wait $srv 2>/dev/null || true
  echo "$line" | awk '{print $2, $6}'
}

lc_run() { # env test size iters -> "p50_us bw_MBps"
  local envs=$1 test=$2 size=$3 iters=$4
  env $envs "$bin/lincoll-run" -n 2 --timeout 120 "$bin/lincoll_perf" -t $test -s $size -n $iters -f csv |
    grep -v '^\[0\] test,' | sed 's/^\[0\] //' | awk -F, '{print $6, $8}'
}

printf "%-8s %-8s %-9s %14s %14s %8s\n" transport test size lincoll ucx_perftest ratio
for tr in shm tcp; do
  envs="A=1"; [ $tr = tcp ] && envs="UCX_TLS=tcp,self"
  for spec in "tag_lat 8 20000 lat" "tag_bw 4194304 300 bw" "put_bw 4194304 300 bw"; do
    set -- $spec
    test=$1 size=$2 iters=$3 kind=$4
    ucx_test=$test; [ $test = put_bw ] && ucx_test=ucp_put_bw
    [ $tr = tcp ] && [ $test = put_bw ] && continue # put over tcp needs target progress in ucx_perftest
    lv=(); uv=()
    for _ in $(seq 1 $reps); do
      l=$(lc_run "$envs" $test $size $iters); u=$(ucx_run "$envs" $ucx_test $size $iters)
      if [ $kind = lat ]; then lv+=("$(echo $l | cut -d' ' -f1)"); uv+=("$(echo $u | cut -d' ' -f1)")
      else lv+=("$(echo $l | cut -d' ' -f2)"); uv+=("$(echo $u | cut -d' ' -f2)"); fi
    done
    lm=$(printf '%s\n' "${lv[@]}" | median); um=$(printf '%s\n' "${uv[@]}" | median)
    unit="us"; [ $kind = bw ] && unit="MB/s"
    printf "%-8s %-8s %-9s %10.3f %-4s %10.3f %-4s %7.2fx\n" $tr $test $size $lm $unit $um $unit \
      "$(echo "$lm $um" | awk '{print $1/$2}')"
  done
done
