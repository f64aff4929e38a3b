#!/usr/bin/env bash
# perf/daemon/small_compare.sh: the latency of a 4 KiB put, lincoll-ecd of
# this tree against the daemon of revision -R, interleaved in one run,
# each put timed by a C client on a kept connection.
#
#   perf/daemon/small_compare.sh -R REV [-b BUILD_DIR] [-o OUT_DIR] [-n NODES]
#                                [-N PUTS] [-W WARMUP] [-B BLOCK] [-S BYTES]
#                                [-L "BASE NEW"] [-K]
#
# Two local clusters of NODES daemons each (default 12), RS(4,2),
# --insecure, on 127.0.0.1, port 0: one of REV's daemon (build_base.sh:
# REV's daemon/, this build's flags and library), one of this build's.
# One `lincoll-ec batch` client per cluster, connected to node 0 (which
# coordinates the puts of objects placed on it and relays the others, as
# a daemon does for any client), both connections open at once.  PUTS puts
# (default 400) of BYTES (default 4096) per cluster, in blocks of BLOCK
# (default 20): a block on one cluster, each put sent as soon as the one
# before is answered, then a block on the other, the first side swapped
# every block, so that a noisy moment hits both alike.  Before them,
# WARMUP puts per cluster (default 100), not timed: every node coordinates
# some and keeps its connections to the others (a short run on a cold
# cluster would time mostly first connections).  Each put's time is
# the client's, from its request to the checked answer.  The daemons'
# directories are made under $TMPDIR (default /tmp): TMPDIR=/dev/shm
# takes the disk's fsyncs out.
#
# Output in OUT_DIR (default docs/perf/$(date +%F)-storage-small):
#   ops.tsv      daemon put block ms, one row per put
#   summary.tsv  daemon puts p50_ms p90_ms p99_ms, and the ratios base/new
#   small.png    each daemon's put times, sorted (gnuplot, when installed)
#   env.txt      uptime before and after, nproc, the two revisions, $TMPDIR
#   logs/        with -K: every daemon's log (its "put NAME timing" lines
#                give the coordinator's phases)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/perf/daemon/batch_blocks.sh"
. "$top/perf/daemon/two_clusters.sh"
build=$top/build
rev=
out=
nodes=12
puts=400
block=20
warm=100
bytes=4096
labels="before now"
keep_logs=
while [ $# -gt 0 ]; do
  case $1 in
    -R) rev=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -n) nodes=$2; shift 2 ;;
    -N) puts=$2; shift 2 ;;
    -B) block=$2; shift 2 ;;
    -W) warm=$2; shift 2 ;;
    -S) bytes=$2; shift 2 ;;
    -L) labels=$2; shift 2 ;;
    -K) keep_logs=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "small_compare: unknown argument '$1' (-h for usage)" >&2; exit 2 ;;
  esac
done
[ -n "$rev" ] || { echo "small_compare: -R REV is required (the daemon to compare with)" >&2; exit 2; }
[[ $warm =~ ^[0-9]+$ ]] || { echo "small_compare: -W '$warm' is not a count" >&2; exit 2; }
for v in nodes puts block bytes; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "small_compare: ${v}: '${!v}' is not a positive count" >&2; exit 2; }
done
[ "$nodes" -ge 6 ] || { echo "small_compare: -n $nodes: RS(4,2) needs at least 6 nodes" >&2; exit 2; }
read -r base_name new_name <<<"$labels"
[ -n "${new_name:-}" ] || { echo "small_compare: -L '$labels': two names" >&2; exit 2; }
case $build in /*) ;; *) build=$PWD/$build ;; esac
[ -x "$build/bin/lincoll-ecd" ] || { echo "small_compare: $build/bin/lincoll-ecd not found (deploy/build.sh)" >&2; exit 1; }
[ -n "$out" ] || out=$top/docs/perf/$(date +%F)-storage-small
case $out in /*) ;; *) out=$PWD/$out ;; esac
mkdir -p "$out"
W=$(mktemp -d "${TMPDIR:-/tmp}/small_compare.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  { wait; } 2>/dev/null
  if [ -n "$keep_logs" ]; then
    for d in "$W"/*/; do [ -d "$d/d0" ] && mkdir -p "$out/logs/$(basename "$d")" && cp "$d"/log* "$out/logs/$(basename "$d")/"; done
  fi
  rm -rf "$W"
}
trap cleanup EXIT
up0=$(uptime)
two_clusters small_compare "$rev" "$build" "$nodes" "$base_name" "$new_name"
head -c "$bytes" /dev/urandom >"$W/obj"
declare -A in_fd out_fd
for d in "$base_name" "$new_name"; do
  mkfifo "$W/in-$d" "$W/out-$d"
  "$build/bin/lincoll-ec" --insecure -s "127.0.0.1:$(cat "$W/$d/p0")" -t 300 batch \
    <"$W/in-$d" >"$W/out-$d" 2>"$W/err-$d" &
  pids+=($!)
  exec {fi}>"$W/in-$d" {fo}<"$W/out-$d"
  in_fd[$d]=$fi out_fd[$d]=$fo
done
for d in "$base_name" "$new_name"; do # the warm-up, not timed
  for j in $(seq 1 "$warm"); do echo "put $W/obj w-$d-$j"; done >&"${in_fd[$d]}"
  n=0
  while [ "$n" -lt "$warm" ] && read -r -t 300 line <&"${out_fd[$d]}"; do
    case $line in "done put "*" rc=0 "*) n=$((n + 1)) ;; "done "*) echo "small_compare: $d warm-up: '$line'" >&2; exit 1 ;; esac
  done
  [ "$n" -eq "$warm" ] || { echo "small_compare: $d warm-up: $n of $warm puts answered" >&2; exit 1; }
done
printf 'daemon\tput\tblock\tms\n' >"$out/ops.tsv"
batch_blocks "$puts" "$block" "$W/obj" s "$W/err" "$base_name" "$new_name" >>"$out/ops.tsv"
python3 - "$out/ops.tsv" "$out/summary.tsv" "$base_name" "$new_name" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
base, new = sys.argv[3], sys.argv[4]
ms = {base: [], new: []}
for d, _, _, m in rows:
    ms[d].append(float(m))
def q(v, f):
    v = sorted(v)
    return v[min(len(v) - 1, int(f * len(v)))]
s = {d: (statistics.median(v), q(v, 0.9), q(v, 0.99)) for d, v in ms.items()}
with open(sys.argv[2], "w") as f:
    f.write("daemon\tputs\tp50_ms\tp90_ms\tp99_ms\n")
    for d in (base, new):
        f.write("%s\t%d\t%.3f\t%.3f\t%.3f\n" % ((d, len(ms[d])) + s[d]))
    f.write("%s/%s\t-\t%.2f\t%.2f\t%.2f\n" % ((base, new) + tuple(s[base][i] / s[new][i] for i in range(3))))
print(open(sys.argv[2]).read(), end="")
PY
{ echo "date $(date -u +%FT%TZ)"; echo "uptime before $up0"; echo "uptime after $(uptime)"
  echo "nproc $(nproc)"; echo "$base_name $(git -C "$top" rev-parse --short "$rev")"
  echo "$new_name $(git -C "$top" rev-parse --short HEAD) (this build)"
  echo "nodes $nodes puts $puts warmup $warm block $block bytes $bytes TMPDIR ${TMPDIR:-/tmp}"; } >"$out/env.txt"
if command -v gnuplot >/dev/null; then
  for d in "$base_name" "$new_name"; do
    awk -F'\t' -v d="$d" 'NR > 1 && $1 == d { print $4 }' "$out/ops.tsv" | sort -g |
      awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print 100 * (i - 0.5) / NR, v[i] }' >"$W/$d.dat"
  done
  gnuplot <<GP
set terminal pngcairo size 800,450 font ",10"
set output "$out/small.png"
set title "lincoll-ecd, $nodes daemons RS(4,2) on 127.0.0.1: $bytes-byte puts on a kept connection, interleaved"
set xlabel "percentile of $puts puts"
set ylabel "ms (client: request to checked answer)"
set logscale y
set grid
set key top left
plot "$W/$base_name.dat" using 1:2 with lines lw 2 title "$base_name ($(git -C "$top" rev-parse --short "$rev"))", \
     "$W/$new_name.dat" using 1:2 with lines lw 2 title "$new_name (this build)"
GP
fi
echo "small_compare: wrote $out/summary.tsv" >&2
