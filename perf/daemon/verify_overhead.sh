#!/usr/bin/env bash
# perf/daemon/verify_overhead.sh: what checking the chunks that cross UCX
# costs lincoll-ecd (docs/daemon.md, "What crosses UCX"): put and get
# throughput with verification (the default) against --test-no-verify, same
# run, on 127.0.0.1.
#
#   perf/daemon/verify_overhead.sh [-b BIN_DIR] [-o OUT_DIR] [-s "1m 16m"] [-r REPS]
#
# Two clusters of 6 daemons each, RS(4,2), run side by side: "verify" (the
# default) and "noverify" (--test-no-verify; a test hook, used here as the
# anchor).  Each repetition, for each size S and each cluster in turn
# (interleaved, so that a noisy neighbour hits both alike; the cluster that
# goes first alternates between repetitions): a put of a fresh random
# object of S bytes through its owner node, timed until the client has the
# reply (committed on every node), then a get of it through another node,
# sha256 checked by the client.  MB/s = S / wall time (10^6 bytes), the
# client's process start included.  The ratio verify / noverify is taken
# within each repetition (the same load), then its median.  Gets cross no
# collective (TCP only) and are the control: their ratio should be 1.
# Around every operation the CPU time of the cluster's 6 daemons (utime +
# stime of /proc/PID/stat, every thread; clock ticks): what verification
# costs, less sensitive than wall time to other load on the machine.
#
# Output in OUT_DIR (default docs/perf/$(date +%F)-daemon-verify):
#   ops.tsv       mode op size rep wall_s MBps cpu_s, one row per operation
#   summary.tsv   op size median_MBps_verify median_MBps_noverify median_ratio
#                 (the median of the per-repetition ratios) min_ratio max_ratio
#                 median_cpu_s_verify median_cpu_s_noverify cpu_ratio (of the medians)
#   verify.png    the medians (gnuplot, when installed)
#   env.txt       uptime, nproc, the commit
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/bin
out=$top/docs/perf/$(date +%F)-daemon-verify
sizes="1m 16m"
reps=7
while [ $# -gt 0 ]; do
  case $1 in
    -b) bin=$(cd "$2" && pwd); shift 2 ;;
    -o) out=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "verify_overhead.sh: unknown argument '$1' (see -h)" >&2; exit 2 ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "verify_overhead.sh: -r '$reps' is not a positive count" >&2; exit 2; }
for p in lincoll-ecd lincoll-ec; do
  [ -x "$bin/$p" ] || { echo "verify_overhead.sh: $bin/$p is missing (build first, or -b BIN_DIR)" >&2; exit 2; }
done
bytes() { # 1m -> 1048576
  local v=${1%[kKmM]}
  case $1 in *[kK]) echo $((v * 1024)) ;; *[mM]) echo $((v * 1048576)) ;; *) echo "$1" ;; esac
}
for s in $sizes; do
  [[ $(bytes "$s") =~ ^[1-9][0-9]*$ ]] || { echo "verify_overhead.sh: size '$s' (expected N, Nk or Nm)" >&2; exit 2; }
done
mkdir -p "$out"
W=$(mktemp -d /tmp/verify_overhead.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; { wait; } 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
start() { # start MODE EXTRA...
  local mode=$1; shift
  mkdir -p "$W/$mode"
  for i in 0 1 2 3 4 5; do
    "$bin/lincoll-ecd" --insecure --node "$i" --dir "$W/$mode/d$i" --cluster "$W/$mode/cluster" \
        --listen 127.0.0.1:0 --port-file "$W/$mode/p$i" --timeout 10 --die-with-parent \
        --scrub-interval 0 --max-object 1073741824 "$@" >>"$W/$mode/log$i" 2>&1 &
    pids+=($!)
    echo $! >>"$W/$mode/pids"
  done
  for i in 0 1 2 3 4 5; do
    for _ in $(seq 1 300); do [ -s "$W/$mode/p$i" ] && break; sleep 0.1; done
    [ -s "$W/$mode/p$i" ] || { echo "verify_overhead.sh: $mode node $i did not start" >&2; exit 1; }
  done
  { echo "code 4 2"; for i in 0 1 2 3 4 5; do echo "node $i 127.0.0.1:$(cat "$W/$mode/p$i")"; done; } \
    >"$W/$mode/cluster"
}
up0=$(uptime)
start verify
start noverify --test-no-verify
now() { date +%s.%N; }
tck=$(getconf CLK_TCK)
cpu() { # cpu MODE: CPU seconds of its daemons so far
  local t=0 p f
  for p in $(cat "$W/$1/pids"); do
    read -r -a f <"/proc/$p/stat"
    t=$((t + f[13] + f[14]))
  done
  awk -v t=$t -v h="$tck" 'BEGIN { printf "%.3f", t / h }'
}
ec() { local mode=$1 n=$2; shift 2; "$bin/lincoll-ec" --insecure -s "127.0.0.1:$(cat "$W/$mode/p$n")" -t 300 "$@"; }
# the owner node of a name (rendezvous hashing, docs/daemon.md): it coordinates its put
owner() {
  python3 - "$1" <<'PY'
import sys
M = (1 << 64) - 1
def mix64(x):
    x ^= x >> 30; x = (x * 0xbf58476d1ce4e5b9) & M
    x ^= x >> 27; x = (x * 0x94d049bb133111eb) & M
    return x ^ (x >> 31)
h = 14695981039346656037
for b in sys.argv[1].encode():
    h = ((h ^ b) * 1099511628211) & M
w = [mix64(h ^ mix64(i + 1)) for i in range(6)]
print(sorted(range(6), key=lambda i: (-w[i], i))[0])
PY
}
printf 'mode\top\tsize\trep\twall_s\tMBps\tcpu_s\n' >"$out/ops.tsv"
for rep in $(seq 1 "$reps"); do
  for s in $sizes; do
    b=$(bytes "$s")
    head -c "$b" /dev/urandom >"$W/obj"
    modes="verify noverify"
    [ $((rep % 2)) = 0 ] && modes="noverify verify"
    for mode in $modes; do
      name="o$s-$rep"
      o=$(owner "$name")
      c0=$(cpu "$mode")
      t0=$(now); ec "$mode" "$o" put "$W/obj" "$name" >/dev/null || { echo "verify_overhead.sh: $mode put $name failed" >&2; exit 1; }
      t1=$(now); c1=$(cpu "$mode"); ec "$mode" $(( (o + 1) % 6 )) get "$name" "$W/back" >/dev/null || { echo "verify_overhead.sh: $mode get $name failed" >&2; exit 1; }
      t2=$(now)
      c2=$(cpu "$mode")
      cmp -s "$W/obj" "$W/back" || { echo "verify_overhead.sh: $mode $name read back wrong" >&2; exit 1; }
      awk -v m="$mode" -v s="$s" -v r="$rep" -v b="$b" -v t0="$t0" -v t1="$t1" -v t2="$t2" \
          -v c0="$c0" -v c1="$c1" -v c2="$c2" 'BEGIN {
        printf "%s\tput\t%s\t%d\t%.4f\t%.2f\t%.3f\n", m, s, r, t1 - t0, b / (t1 - t0) / 1e6, c1 - c0
        printf "%s\tget\t%s\t%d\t%.4f\t%.2f\t%.3f\n", m, s, r, t2 - t1, b / (t2 - t1) / 1e6, c2 - c1 }' >>"$out/ops.tsv"
    done
  done
  echo "verify_overhead.sh: repetition $rep of $reps done" >&2
done
python3 - "$out/ops.tsv" "$out/summary.tsv" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
med, by_rep, cpu = {}, {}, {}
for mode, op, size, rep, wall, mbps, cpus in rows:
    med.setdefault((op, size, mode), []).append(float(mbps))
    cpu.setdefault((op, size, mode), []).append(float(cpus))
    by_rep[(op, size, mode, rep)] = float(mbps)
order = []
for mode, op, size, *_ in rows:
    if (op, size) not in order:
        order.append((op, size))
with open(sys.argv[2], "w") as f:
    f.write("op\tsize\tmedian_MBps_verify\tmedian_MBps_noverify\tmedian_ratio\tmin_ratio\t"
            "max_ratio\tmedian_cpu_s_verify\tmedian_cpu_s_noverify\tcpu_ratio\n")
    for op, size in order:
        v = statistics.median(med[(op, size, "verify")])
        n = statistics.median(med[(op, size, "noverify")])
        reps = sorted({r for (o, s, m, r) in by_rep if (o, s) == (op, size)})
        ratios = [by_rep[(op, size, "verify", r)] / by_rep[(op, size, "noverify", r)]
                  for r in reps if (op, size, "noverify", r) in by_rep]
        cv = statistics.median(cpu[(op, size, "verify")])
        cn = statistics.median(cpu[(op, size, "noverify")])
        f.write("%s\t%s\t%.2f\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n" % (
            op, size, v, n, statistics.median(ratios), min(ratios), max(ratios), cv, cn,
            "%.3f" % (cv / cn) if cn > 0 else "-"))
PY
{ echo "date $(date -u +%FT%TZ)"; echo "uptime $(uptime)"; echo "nproc $(nproc)";
  echo "commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"; echo "reps $reps sizes $sizes"; } >"$out/env.txt"
echo "uptime at the start: $up0" >>"$out/env.txt"
if command -v gnuplot >/dev/null; then
  awk -F'\t' 'NR > 1 { print $1 "-" $2, $3, $4, $5 }' "$out/summary.tsv" >"$W/plot.dat"
  gnuplot <<GP
set terminal pngcairo size 800,450 font ",10"
set output "$out/verify.png"
set title "lincoll-ecd, 6 daemons RS(4,2), 127.0.0.1: median MB/s with and without checking what crosses UCX\n(labels: median per-repetition ratio verified / unchecked)"
set style data histograms
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set ylabel "MB/s (10^6 bytes, median of $reps)"
set yrange [0:*]
set key outside bottom center horizontal
set offsets 0, 0, graph 0.15, 0
plot "$W/plot.dat" using 2:xtic(1) title "verified (default)", "" using 3 title "--test-no-verify (anchor)", \
     "" using (\$0):(\$2 > \$3 ? \$2 : \$3):(sprintf("%.2f", \$4)) with labels offset 0,1 notitle
GP
fi
cat "$out/summary.tsv"
