#!/usr/bin/env bash
# perf/shared_cores.sh: ranks that share cores, and the two-host exchange,
# before and after a change, beside Open MPI, interleaved in one run.
#
#   perf/shared_cores.sh -b BUILD [-B BASE_BUILD] [-a ANCHOR_DIR] [-o OUT] [-r ROUNDS]
#                        [-s SIZES] [-n ITERS] [--no-emu]
#
# Oversubscribed: 4 ranks on this machine's PUs (pinned with taskset to
# at most 2 of them), the five collectives at SIZES (default
# 8,512,32k,2m,32m), host (-m host) and lincoll memory, each ROUNDS times
# (default 3), in the order round -> collective -> {BASE host, BUILD host,
# BASE lincoll, BUILD lincoll, Open MPI mpi_coll under mpirun
# --oversubscribe}, so that the load the machine carries falls on all of
# them alike.  ANCHOR_DIR (default anchors-build) gets the anchors built
# (perf/anchors/build.sh) when it lacks mpi_coll.  Raw lines go to OUT/raw/,
# `uptime` before every round to
# OUT/uptime.txt.  BASE_BUILD is optional (the figures of one build alone).
#
# Two hosts (unless --no-emu; needs root): deploy/emucluster with 2
# hosts at 100 Mbit/s, a 4 MiB exchange (lincoll_perf -t shift) and a
# one-way transfer (-t tag_bw, pair 0-1), BASE and BUILD alternately,
# ROUNDS times.
#
# perf/shared_cores_report.py OUT turns OUT/raw into the tables (medians
# over rounds, ratios against Open MPI of the same round) and the plots.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
B="" BASE="" A="$top/anchors-build" OUT="shared-cores-out" R=3 SIZES=8,512,32k,2m,32m N=100 EMU=1
while [ $# -gt 0 ]; do
  case "$1" in
    -b) B=$2; shift 2 ;;
    -B) BASE=$2; shift 2 ;;
    -a) A=$2; shift 2 ;;
    -o) OUT=$2; shift 2 ;;
    -r) R=$2; shift 2 ;;
    -s) SIZES=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    --no-emu) EMU=0; shift ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[ -n "$B" ] && [ -x "$B/bin/lincoll_perf" ] || { echo "shared_cores: -b BUILD with bin/lincoll_perf" >&2; exit 2; }
# the anchors: built there when the directory lacks mpi_coll, as perf/report.sh does
if [ ! -x "$A/mpi_coll" ]; then
  "$(dirname "$0")/anchors/build.sh" "$A" >&2 || { echo "shared_cores: the anchors did not build in $A (perf/anchors/build.sh)" >&2; exit 2; }
fi
[ -x "$A/mpi_coll" ] || { echo "shared_cores: $A/mpi_coll missing (perf/anchors/build.sh)" >&2; exit 2; }
mkdir -p "$OUT/raw"
cpus=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | head -2 | paste -sd,)
max=$(python3 -c "
m={'k':1<<10,'m':1<<20,'g':1<<30}
print(max(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s) for s in '$SIZES'.lower().split(',')))")
builds=(after:$B)
[ -n "$BASE" ] && builds=(before:$BASE after:$B)
: >"$OUT/uptime.txt"
for r in $(seq 1 "$R"); do
  echo "round $r $(uptime)" | tee -a "$OUT/uptime.txt" >&2
  for op in allreduce reduce_scatter allgather bcast reduce; do
    for mem in host lincoll; do
      for b in "${builds[@]}"; do
        name=${b%%:*} dir=${b#*:}
        taskset -c "$cpus" "$dir/bin/lincoll-run" -n 4 --timeout 600 "$dir/bin/lincoll_perf" \
          -t "$op" -s "$SIZES" -n "$N" -m "$mem" -f csv 2>/dev/null |
          sed -n "s/^\[0\] //p" | grep "^$op," >"$OUT/raw/$name.$mem.$op.$r.csv" || true
      done
    done
    taskset -c "$cpus" mpirun --allow-run-as-root --oversubscribe -np 4 "$A/mpi_coll" "$op" "$max" "$N" \
      >"$OUT/raw/ompi.$op.$r.txt" 2>/dev/null || true
  done
done
if [ "$EMU" = 1 ]; then
  emu=$top/deploy/emucluster/emucluster.sh
  for r in $(seq 1 "$R"); do
    echo "emu round $r $(uptime)" | tee -a "$OUT/uptime.txt" >&2
    for b in "${builds[@]}"; do
      name=${b%%:*} dir=${b#*:}
      for t in shift tag_bw; do
        "$emu" -H 2 -r 100mbit --timeout 200 -- "$dir/bin/lincoll_perf" -t "$t" -s 4m -n 7 -w 1 \
          -f csv 2>/dev/null | sed -n "s/^\[0@[^]]*\] //p" | grep "^$t," \
          >"$OUT/raw/emu.$name.$t.$r.csv" || true
      done
    done
  done
fi
echo "$OUT"
