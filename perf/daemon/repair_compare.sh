#!/usr/bin/env bash
# perf/daemon/repair_compare.sh: the time of an operator's `repair NODE`,
# lincoll-ecd of this tree against the daemon of revision -R, interleaved
# in one run, medians.
#
#   perf/daemon/repair_compare.sh -R REV [-b BUILD_DIR] [-o OUT_DIR] [-n NODES]
#                                 [-r REPS] [-j "1 8"] [-S BYTES] [-L "BASE NEW"]
#
# Two local clusters of NODES daemons each (default 6), RS(4,2),
# --insecure, on 127.0.0.1, port 0: one of REV's daemon (build_base.sh:
# REV's daemon/, this build's flags and library), one of this build's.
# Each gets the same objects of BYTES (default 65536) and one untimed
# repair of one chunk (every node's first operation opens its connections
# and endpoints).  Then REPS rounds
# (default 9): for every J of -j, on each cluster in turn (the first side
# swapped every round), J of node 1's chunks are deleted and
# `lincoll-ec -s NODE0 repair 1` is timed, from its start to its checked
# answer ("J chunks rebuilt").  The repair's collectives run over every
# live node; a daemon that forms a lincoll context per repair pays
# lincoll_init and its wireup in every round, one that runs it on its
# membership epoch does not.  The daemons' directories are made under
# $TMPDIR (default /tmp).
#
# Output in OUT_DIR (default docs/perf/$(date +%F)-storage-repair):
#   ops.tsv      daemon jobs round ms, one row per repair
#   summary.tsv  daemon jobs repairs p50_ms min_ms max_ms, and the ratios base/new
#   repair.png   the medians by J (gnuplot, when installed)
#   env.txt      uptime before and after, nproc, the two revisions, $TMPDIR
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/perf/daemon/two_clusters.sh"
build=$top/build
rev=
out=
nodes=6
reps=9
jobs="1 8"
bytes=65536
labels="before now"
while [ $# -gt 0 ]; do
  case $1 in
    -R) rev=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -n) nodes=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -S) bytes=$2; shift 2 ;;
    -L) labels=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "repair_compare: unknown argument '$1' (-h for usage)" >&2; exit 2 ;;
  esac
done
[ -n "$rev" ] || { echo "repair_compare: -R REV is required (the daemon to compare with)" >&2; exit 2; }
for v in nodes reps bytes; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "repair_compare: ${v}: '${!v}' is not a positive count" >&2; exit 2; }
done
maxj=0
for j in $jobs; do
  [[ $j =~ ^[1-9][0-9]*$ ]] || { echo "repair_compare: -j: '$j' is not a positive count" >&2; exit 2; }
  [ "$j" -gt "$maxj" ] && maxj=$j
done
[ "$maxj" -gt 0 ] || { echo "repair_compare: -j '$jobs': no count" >&2; exit 2; }
[ "$nodes" -ge 6 ] || { echo "repair_compare: -n $nodes: RS(4,2) needs at least 6 nodes" >&2; exit 2; }
read -r base_name new_name <<<"$labels"
[ -n "${new_name:-}" ] || { echo "repair_compare: -L '$labels': two names" >&2; exit 2; }
case $build in /*) ;; *) build=$PWD/$build ;; esac
[ -x "$build/bin/lincoll-ecd" ] || { echo "repair_compare: $build/bin/lincoll-ecd not found (deploy/build.sh)" >&2; exit 1; }
[ -n "$out" ] || out=$top/docs/perf/$(date +%F)-storage-repair
case $out in /*) ;; *) out=$PWD/$out ;; esac
mkdir -p "$out"
W=$(mktemp -d "${TMPDIR:-/tmp}/repair_compare.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  { wait; } 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
up0=$(uptime)
two_clusters repair_compare "$rev" "$build" "$nodes" "$base_name" "$new_name"
ec() { local d=$1; shift; "$build/bin/lincoll-ec" --insecure -s "127.0.0.1:$(cat "$W/$d/p0")" -t 300 "$@"; }
head -c "$bytes" /dev/urandom >"$W/obj"
# enough objects that node 1 holds a chunk of maxj of them, whatever NODES
nobj=$((maxj * (nodes + 5) / 6 + maxj))
for d in "$base_name" "$new_name"; do
  for o in $(seq 1 "$nobj"); do echo "put $W/obj r$o"; done |
    ec "$d" batch >"$W/put-$d" 2>&1 || { echo "repair_compare: $d: the puts failed: $(tail -3 "$W/put-$d")" >&2; exit 1; }
  held=$(find "$W/$d/d1/chunks" -type f | wc -l)
  [ "$held" -ge "$maxj" ] || { echo "repair_compare: $d: node 1 holds $held chunks, fewer than $maxj" >&2; exit 1; }
done
lose() { # delete the first $2 of cluster $1's node 1 chunks
  local f
  mapfile -t f < <(find "$W/$1/d1/chunks" -type f | sort)
  rm -f "${f[@]:0:$2}"
}
# one repair per cluster first, not timed: every node's first operation
# opens its connections and endpoints
for d in "$base_name" "$new_name"; do
  lose "$d" 1
  res=$(ec "$d" repair 1 2>&1) || { echo "repair_compare: $d warm-up repair 1: $res" >&2; exit 1; }
done
printf 'daemon\tjobs\tround\tms\n' >"$out/ops.tsv"
for r in $(seq 1 "$reps"); do
  order="$base_name $new_name"; [ $((r % 2)) = 0 ] && order="$new_name $base_name"
  for j in $jobs; do
    for d in $order; do
      lose "$d" "$j"
      t0=$(date +%s%N)
      res=$(ec "$d" repair 1 2>&1) || { echo "repair_compare: $d repair 1: $res" >&2; exit 1; }
      t1=$(date +%s%N)
      case $res in *" $j chunks rebuilt"*) ;; *) echo "repair_compare: $d: $j chunks deleted, repair said: $res" >&2; exit 1 ;; esac
      printf '%s\t%s\t%s\t%s\n' "$d" "$j" "$r" "$(((t1 - t0) / 1000))e-3" >>"$out/ops.tsv"
    done
  done
done
python3 - "$out/ops.tsv" "$out/summary.tsv" "$base_name" "$new_name" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
base, new = sys.argv[3], sys.argv[4]
ms = {}
for d, j, _, m in rows:
    ms.setdefault((d, int(j)), []).append(float(m))
with open(sys.argv[2], "w") as f:
    f.write("daemon\tjobs\trepairs\tp50_ms\tmin_ms\tmax_ms\n")
    for j in sorted({j for _, j in ms}):
        for d in (base, new):
            v = ms[(d, j)]
            f.write("%s\t%d\t%d\t%.1f\t%.1f\t%.1f\n" % (d, j, len(v), statistics.median(v), min(v), max(v)))
        f.write("%s/%s\t%d\t-\t%.2f\t%.2f\t%.2f\n" % (base, new, j,
                statistics.median(ms[(base, j)]) / statistics.median(ms[(new, j)]),
                min(ms[(base, j)]) / min(ms[(new, j)]), max(ms[(base, j)]) / max(ms[(new, j)])))
print(open(sys.argv[2]).read(), end="")
PY
{ echo "date $(date -u +%FT%TZ)"; echo "uptime before $up0"; echo "uptime after $(uptime)"
  echo "nproc $(nproc)"; echo "$base_name $(git -C "$top" rev-parse --short "$rev")"
  echo "$new_name $(git -C "$top" rev-parse --short HEAD) (this build)"
  echo "nodes $nodes reps $reps jobs $jobs bytes $bytes TMPDIR ${TMPDIR:-/tmp}"; } >"$out/env.txt"
if command -v gnuplot >/dev/null; then
  awk -F'\t' -v b="$base_name" -v n="$new_name" 'NR > 1 && ($1 == b || $1 == n) { v[$2, $1] = $4; j[$2] = 1 }
    END { for (k in j) print k, v[k, b], v[k, n] }' "$out/summary.tsv" | sort -n >"$W/med.dat"
  gnuplot <<GP
set terminal pngcairo size 800,450 font ",10"
set output "$out/repair.png"
set title "lincoll-ecd, $nodes daemons RS(4,2) on 127.0.0.1: repair of node 1, J chunks of $bytes bytes lost"
set xlabel "chunks rebuilt (J)"
set ylabel "ms, median of $reps (client: start to checked answer)"
set style data histograms
set style fill solid 0.8
set grid y
set key top left
set yrange [0:*]
plot "$W/med.dat" using 2:xtic(1) title "$base_name ($(git -C "$top" rev-parse --short "$rev"))", \
     "" using 3 title "$new_name (this build)"
GP
fi
echo "repair_compare: wrote $out/summary.tsv" >&2
