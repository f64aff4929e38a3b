#!/usr/bin/env bash
# perf/daemon/compare_ceph.sh: lincoll-ecd and Ceph side by side, the same
# number of storage processes, interleaved in one run, medians.
#
#   perf/daemon/compare_ceph.sh [-b BIN_DIR] [-o REPORT.md] [-n 12|6]
#                               [-d SECONDS] [-r REPS] [-c "1 4 16 64"]
#                               [-s "4k 1m 16m"] [-p "load kill small"]
#                               [-L LOAD_SECONDS] [-k] [--install]
#
# Ceph: perf/anchors/ceph_bench.sh up (1 mon, 1 mgr, -n OSDs, EC pool k=4
# m=2, failure domain osd, overwrites on, so 4 KiB objects are written as
# 4 KiB: like with like), kept up for the whole run (--install: its
# packages with apt-get when missing).  lincoll-ecd: -n
# daemons RS(4,2) on 127.0.0.1 (perf/daemon/load.sh -p bench, a fresh
# cluster for every measurement; -n 6 for a daemon whose stripes span every
# node of its cluster file).  Each repetition, for every C of -c and size of
# -s, interleaved: Ceph's rados bench write then seq (-d seconds each), then
# lincoll-ecd's puts then gets (-d seconds each, C clients of
# perf/daemon/load_gen.py).  -k: lincoll-ecd's clients keep one connection
# per daemon and send each request to its object's owner (load.sh --keep
# --route owner), as rados clients keep their OSD sessions and compute each
# object's primary; without -k, a connection per request to node i mod N.
# Medians over -r repetitions (default 3).
# While lincoll-ecd runs the Ceph daemons are up and idle (the other way
# round nothing of lincoll-ecd runs): any cost of that falls on lincoll-ecd.
# Then perf/daemon/load.sh with the phases -p (default load kill small; ""
# for none) for -L seconds each (default -d), its tables appended.
#
# Output: REPORT.md (default docs/perf/$(date +%F)-storage-load.md) and,
# beside it, a directory of the same name without .md: compare.csv (every
# run: system,rep,clients,op,size,ops,MBps,ops_s,mean_ms,max_ms,p50_ms,
# p99_ms,fail,wrong,hang), failures.csv (every lincoll-ecd operation that
# did not succeed, with its message), medians.csv, throughput.png and latency.png
# (perf/plot/storage_load.gp), the load test's files (load/) and Ceph's
# logs when a run failed.  `uptime` is recorded before and after: the
# machine may be shared.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/bin
report=
nodes=12
dur=10
reps=3
clients="1 4 16 64"
sizes="4k 1m 16m"
phases="load kill small"
ldur=
install=
keep=
while [ $# -gt 0 ]; do
  case $1 in
    -b) bin=$2; shift 2 ;;
    -o) report=$2; shift 2 ;;
    -n) nodes=$2; shift 2 ;;
    -d) dur=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -c) clients=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -p) phases=$2; shift 2 ;;
    -L) ldur=$2; shift 2 ;;
    -k) keep="--keep --route owner"; shift ;;
    --install) install=--install; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare_ceph: unknown argument '$1' (-h for usage)" >&2; exit 2 ;;
  esac
done
case $nodes in 6 | 12) ;; *) echo "compare_ceph: -n $nodes: 6 or 12" >&2; exit 2 ;; esac
[ -n "$ldur" ] || ldur=$dur
[ -n "$report" ] || report=$top/docs/perf/$(date +%F)-storage-load.md
case $report in /*) ;; *) report=$PWD/$report ;; esac
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
out=${report%.md}
mkdir -p "$out"
ceph_sh=$top/perf/anchors/ceph_bench.sh
load_sh=$top/perf/daemon/load.sh
W=$(mktemp -d /tmp/compare_ceph.XXXXXX)
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  "$ceph_sh" down "$W/ceph" || true
  rm -rf "$W"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
say() { echo "compare_ceph: $*" >&2; }

up0=$(uptime)
t0=$(date +%s)
"$ceph_sh" up "$W/ceph" --osds "$nodes" $install || { say "Ceph did not start"; exit 1; }
say "Ceph up in $(($(date +%s) - t0)) s; $up0"
csv=$out/compare.csv
echo "system,rep,clients,op,size,ops,MBps,ops_s,mean_ms,max_ms,p50_ms,p99_ms,fail,wrong,hang" >"$csv"
echo "rep,t_start,t_end,client,op,size,name,node,status,explained,message" >"$out/failures.csv"
for rep in $(seq 1 "$reps"); do
  for c in $clients; do
    for s in $sizes; do
      say "rep $rep: $c clients, $s: Ceph"
      "$ceph_sh" bench "$W/ceph" "$c" "$s" "$dur" >"$W/ceph.rows" ||
        { cp -r "$W/ceph/log" "$out/ceph-logs"; say "rados bench failed"; exit 1; }
      awk -F, -v r="$rep" '{print "ceph," r "," $0 ",,,,,"}' "$W/ceph.rows" >>"$csv"
      say "rep $rep: $c clients, $s: lincoll-ecd"
      "$load_sh" -b "$bin" -o "$W/l" -n "$nodes" -p bench -c "$c" -s "$s" -d "$dur" $keep >/dev/null 2>"$W/load.err" ||
        { cat "$W/load.err" >&2; say "load.sh failed"; exit 1; }
      # clients,op,size,ops,ok,fail,unexplained,wrong,hang,MBps,ops_s,p50_ms,p99_ms,mean_ms,max_ms
      awk -F, -v r="$rep" 'NR > 1 {sub(/\r$/, ""); print "lincoll," r "," $1 "," $2 "," $3 "," $5 "," $10 "," $11 "," $14 "," $15 "," $12 "," $13 "," $6 "," $8 "," $9}' \
        "$W/l/bench.csv" >>"$csv"
      # every lincoll-ecd operation that did not succeed, with its message
      for f in "$W"/l/raw/bench-c"$c"-*.ops.csv; do
        [ -f "$f" ] && awk -F, -v r="$rep" 'NR > 1 && $8 != "ok" {print r "," $0}' "$f" >>"$out/failures.csv"
      done
      tail -4 "$csv" >&2
    done
  done
done

python3 - "$csv" "$out/medians.csv" >"$W/side.md" <<'PY'
import csv, statistics, sys
src, dst = sys.argv[1:]
rows = list(csv.DictReader(open(src)))
num = ["ops", "MBps", "ops_s", "mean_ms", "max_ms", "p50_ms", "p99_ms", "fail", "wrong", "hang"]
g = {}
for r in rows:
    g.setdefault((r["system"], int(r["clients"]), r["op"], int(r["size"])), []).append(r)
med = {}
for k, rs in g.items():
    o = {}
    for c in num:
        v = [float(r[c]) for r in rs if r[c] not in ("", "nan")]
        o[c] = statistics.median(v) if v else float("nan")
    for c in ("fail", "wrong", "hang"):
        o[c] = sum(float(r[c]) for r in rs if r[c] not in ("", "nan"))
    o["n"] = len(rs)
    med[k] = o
with open(dst, "w") as f:
    f.write("system,clients,op,size,reps," + ",".join(num) + "\n")
    for k in sorted(med):
        f.write("%s,%d,%s,%d,%d," % (k + (med[k]["n"],)) + ",".join("%.4g" % med[k][c] for c in num) + "\n")
def human(b):
    for u, m in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= m and b % m == 0: return "%d %s" % (b // m, u)
    return "%d B" % b
def ratio(a, b):
    return "%.2f" % (a / b) if b and b == b and a == a else "-"
print("| clients | op | size | lincoll-ecd MB/s | Ceph MB/s | lincoll / Ceph | lincoll mean (ms) | Ceph mean (ms) | lincoll / Ceph | lincoll p50 / p99 (ms) | lincoll max (ms) | Ceph max (ms) | lincoll failed / wrong / hangs |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
keys = sorted({k[1:] for k in med}, key=lambda k: (k[0], k[2], k[1] != "put"))
for c, op, size in keys:
    l = med.get(("lincoll", c, op, size), {})
    e = med.get(("ceph", c, op, size), {})
    nan = float("nan")
    print("| %d | %s | %s | %.3g | %.3g | %s | %.4g | %.4g | %s | %.4g / %.4g | %.4g | %.4g | %d / %d / %d |" % (
        c, op, human(size), l.get("MBps", nan), e.get("MBps", nan), ratio(l.get("MBps", nan), e.get("MBps", nan)),
        l.get("mean_ms", nan), e.get("mean_ms", nan), ratio(l.get("mean_ms", nan), e.get("mean_ms", nan)),
        l.get("p50_ms", nan), l.get("p99_ms", nan), l.get("max_ms", nan), e.get("max_ms", nan),
        l.get("fail", 0), l.get("wrong", 0), l.get("hang", 0)))
PY
plots=
if command -v gnuplot >/dev/null 2>&1; then
  for m in throughput latency; do
    if gnuplot -e "in='$out/medians.csv'; out='$out/$m.png'; metric='$m'; nodes=$nodes" "$top/perf/plot/storage_load.gp" 2>"$W/gp.err"; then
      plots="$plots $m.png"
    else
      say "gnuplot failed: $(cat "$W/gp.err")"
    fi
  done
else
  say "gnuplot not installed: no plots (deploy/install-deps.sh installs it)"
fi
if [ -n "$phases" ]; then
  "$load_sh" -b "$bin" -o "$out/load" -n "$nodes" -p "$phases" -d "$ldur" -c "$clients" -s "$sizes" >/dev/null 2>"$W/load.err" ||
    say "load.sh -p '$phases' reported a failure (in its tables): $(tail -3 "$W/load.err")"
  rm -rf "$out/load/raw" "$out/load/logs"
fi
up1=$(uptime)
dname=$(basename "$out")
{
  echo "# lincoll-ecd and Ceph under load, $(date +%F)"
  echo
  echo "Produced by \`perf/daemon/compare_ceph.sh -n $nodes -d $dur -r $reps -c \"$clients\" -s \"$sizes\" -p \"$phases\" -L $ldur${keep:+ -k}\`"
  echo "at $(git -C "$top" describe --always --dirty 2>/dev/null || echo "a tree outside git") with the daemon $bin/lincoll-ecd on $(nproc) cores."
  echo "The machine is shared with other work: \`uptime\` before: $up0; after: $up1."
  echo
  echo "$nodes storage processes each: $nodes lincoll-ecd daemons RS(4,2) on 127.0.0.1, and Ceph 16.2 with"
  echo "1 mon, 1 mgr and $nodes OSDs (BlueStore on 4 GiB files) with an EC pool k=4 m=2, failure domain osd,"
  echo "overwrites on (4 KiB objects written as 4 KiB, not rounded up to k x 4 KiB)."
  echo "Each repetition runs, interleaved, for every client count and size: rados bench write then seq"
  echo "($dur s each), and lincoll-ecd's puts then gets ($dur s each, perf/daemon/load_gen.py, every get"
  echo "checked byte for byte$([ -n "$keep" ] && echo "; each client keeps a connection per daemon and sends each request to its object's owner, as a rados client keeps its OSD sessions and computes each object's primary" || echo "; a connection per request, client i to node i mod $nodes")).  Medians of $reps repetitions; MB = 10^6 bytes; latency of the successful"
  echo "operations (rados bench gives mean and max, no percentiles: the latency ratio is of means)."
  echo
  cat "$W/side.md"
  for p in $plots; do echo; echo "![${p%.png}]($dname/$p)"; done
  if [ -s "$out/load/load.md" ]; then
    echo
    sed -e '2,$s/^## /### /' -e '1s/^# .*/## The load test (perf\/daemon\/load.sh)/' "$out/load/load.md"
  fi
} >"$report"
cat "$report"
say "wrote $report and $out/"
