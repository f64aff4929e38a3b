#!/usr/bin/env bash
# perf/daemon/load_emu.sh: lincoll-ecd under load on the emulated cluster:
# many clients putting at once, one daemon per host, against the aggregate
# limit of the links.
#
#   perf/daemon/load_emu.sh [-b BIN_DIR] [-o OUT_DIR] [-n NODES] [-H CLIENT_HOSTS]
#                           [-c "4 16"] [-s SIZE] [-d SECONDS] [-r REPS]
#                           [--rate 50mbit] [--burst 64kb] [-a "DAEMON ARGS"] [-K]
#   perf/daemon/load_emu.sh --plot-only -o OUT_DIR    (load.png again from runs.csv)
#
# The cluster: deploy/emucluster/emucluster.sh with NODES + CLIENT_HOSTS
# hosts (default 12 + 4; network namespaces on one bridge, every link shaped
# by tc tbf at --rate in both directions).  Hosts 1..NODES run one
# lincoll-ecd each (RS(4,2), --insecure, objects placed on 6 of the NODES
# by their names); the other hosts hold the clients: C clients in all, as
# even as can be over the client hosts, one perf/daemon/load_gen.py per
# host (threads), each client keeping one connection per daemon and sending
# each put to its object's owner (--keep --route owner).  For every C of -c
# and each repetition: puts only of SIZE-byte objects (default 1m) for -d
# seconds (default 20), every reply checked.  -a: more lincoll-ecd flags
# (for example "--stripe 65536").
#
# The link limit.  Every byte of an object crosses the client hosts' links
# once (the upload), and the daemons' links f times: the upload into the
# owner, the data pieces to the data rows' nodes, the encode's transfers to
# the parity rows' nodes (f is measured: the bytes all daemon hosts
# received over the object bytes put).  The aggregate limit is the object
# throughput at which those links are full, if the load were spread evenly:
#   limit = min(NODES * rate / f, min(C, CLIENT_HOSTS) * rate)
# (payload bytes: TCP/IP and Ethernet headers take about 4% of a link), and
# ratio = MB/s / limit.  The busiest single link direction is reported too
# (placement by hash does not spread load evenly).  The CPU share: the
# machine's busy share during the run (0..1 of its cores): when it is high,
# the CPU, not the links, may be the limit.
#
# Output in OUT_DIR (default docs/perf/$(date +%F)-storage-load-emu):
#   runs.csv     one row per (C, repetition): clients,rep,ok,fail,wrong,hang,
#                MBps,p50_ms,p99_ms,f,limit_MBps,ratio,busiest,busiest_util,
#                cpu_machine
#   summary.md   the table (medians over repetitions)
#   load.png     MB/s and the limit against the client count (gnuplot, when
#                installed)
#   raw/         every load_gen.py output
#   logs/        the daemons' logs, when the run failed or with -K
# Exit 77 (SKIP, reason on stderr) only when network namespaces are not
# permitted here; everything started is torn down on exit and on failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/bin
out=
nodes=12
chosts=4
clients="4 16"
size=1m
dur=20
reps=1
rate=50mbit
burst=64kb
dargs=
keep_logs=
plot_only=
while [ $# -gt 0 ]; do
  case $1 in
    -b) bin=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -n) nodes=$2; shift 2 ;;
    -H) chosts=$2; shift 2 ;;
    -c) clients=$2; shift 2 ;;
    -s) size=$2; shift 2 ;;
    -d) dur=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --burst) burst=$2; shift 2 ;;
    -a) dargs=$2; shift 2 ;;
    -K) keep_logs=1; shift ;;
    --plot-only) plot_only=1; shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "load_emu: unknown argument '$1' (-h for usage)" >&2; exit 2 ;;
  esac
done
die() { echo "load_emu: $*" >&2; exit 2; }
plot() { # OUT_DIR: load.png from its runs.csv (medians per client count)
  command -v gnuplot >/dev/null || return 0
  local d
  d=$(mktemp /tmp/load_emu_plot.XXXXXX)
  python3 - "$1/runs.csv" >"$d" <<'PY'
import csv, statistics, sys
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    by.setdefault(int(r["clients"]), []).append(r)
for c in sorted(by):
    print(c, *("%.3f" % statistics.median(float(r[k]) for r in by[c]) for k in ("MBps", "limit_MBps")))
PY
  gnuplot <<GP
set terminal pngcairo size 800,450 font ",10"
set output "$1/load.png"
set title "lincoll-ecd on the emulated cluster: aggregate put throughput against the link limit"
set xlabel "concurrent clients"
set ylabel "MB/s (object bytes put)"
set logscale x 2
set grid
set key bottom right
set yrange [0:*]
plot "$d" using 1:2 with linespoints lw 2 title "puts", "$d" using 1:3 with lines dt 2 lw 2 title "aggregate link limit", \
     "$d" using 1:(0.8*\$3) with lines dt 3 title "0.8 of the limit"
GP
  rm -f "$d"
}
if [ -n "$plot_only" ]; then
  [ -n "$out" ] && [ -s "$out/runs.csv" ] || die "--plot-only: -o OUT_DIR with a runs.csv"
  plot "$out"
  exit 0
fi
for v in nodes chosts reps dur; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "${v}: '${!v}' is not a positive count"
done
[ "$nodes" -ge 6 ] || die "-n $nodes: RS(4,2) needs at least 6 nodes"
[ $((nodes + chosts)) -le 60 ] || die "-n $nodes -H $chosts: at most 60 hosts"
for c in $clients; do [[ $c =~ ^[1-9][0-9]*$ ]] || die "-c: '$c' is not a positive count"; done
case $size in
  *[kK]) bytes=$((${size%?} * 1024)) ;; *[mM]) bytes=$((${size%?} * 1048576)) ;;
  *[!0-9]* | '') die "-s '$size': expected N, Nk or Nm" ;; *) bytes=$size ;;
esac
rate_Bps=$(python3 -c "
s='$rate'.lower()
for suf, m in (('gbit', 1e9), ('mbit', 1e6), ('kbit', 1e3)):
    if s.endswith(suf) and s[:-len(suf)].replace('.', '', 1).isdigit(): print(float(s[:-len(suf)]) * m / 8); break
else: print('')")
[ -n "$rate_Bps" ] || die "--rate $rate: expected Ngbit, Nmbit or Nkbit"
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ -x "$bin/lincoll-ecd" ] || { echo "load_emu: $bin/lincoll-ecd not found (deploy/build.sh)" >&2; exit 1; }
[ -n "$out" ] || out=$top/docs/perf/$(date +%F)-storage-load-emu
case $out in /*) ;; *) out=$PWD/$out ;; esac
emu=$top/deploy/emucluster/emucluster.sh
gen=$top/perf/daemon/load_gen.py
if ! reason=$("$emu" --check 2>&1); then
  rc=$?
  [ "$rc" = 77 ] && { echo "SKIP: $reason" >&2; exit 77; }
  echo "load_emu: emucluster --check failed: $reason" >&2
  exit 1
fi
H=$((nodes + chosts))
W=$(mktemp -d /tmp/load_emu.XXXXXX)
emupid=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  [ -n "$emupid" ] && { kill -TERM "$emupid" 2>/dev/null; wait "$emupid" 2>/dev/null; }
  if [ -d "$out" ] && { [ "$rc" != 0 ] || [ -n "$keep_logs" ]; }; then
    mkdir -p "$out/logs" && cp "$W"/log* "$out/logs/" 2>/dev/null
  fi
  rm -rf "$W"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
fail() { echo "load_emu: FAIL: $*" >&2; exit 1; }
rm -rf "$out/raw" "$out/logs"
mkdir -p "$out/raw"

cat >"$W/node.sh" <<EOS
#!/bin/sh
if [ "\$EMU_RANK" -ge $nodes ]; then # a client host: no daemon
  touch "$W/p\$EMU_RANK"
  exec sleep 100000
fi
exec "$bin/lincoll-ecd" --insecure --node "\$EMU_RANK" --dir "$W/d\$EMU_RANK" --cluster "$W/cluster" \\
    --listen 0.0.0.0:0 --port-file "$W/p\$EMU_RANK" --timeout 20 --scrub-interval 0 $dargs >>"$W/log\$EMU_RANK" 2>&1
EOS
chmod +x "$W/node.sh"
"$emu" -H "$H" -n 1 -r "$rate" -b "$burst" --timeout 100000 -- "$W/node.sh" >"$W/log.emu" 2>&1 &
emupid=$!
for i in $(seq 0 $((H - 1))); do
  for _ in $(seq 1 600); do [ -e "$W/p$i" ] && break; sleep 0.1; done
  [ -e "$W/p$i" ] || fail "host $((i + 1)) did not come up: $(tail -3 "$W/log.emu")"
done
for i in $(seq 0 $((nodes - 1))); do
  for _ in $(seq 1 300); do [ -s "$W/p$i" ] && break; sleep 0.1; done
  [ -s "$W/p$i" ] || fail "node $i published no port: $(tail -3 "$W/log$i")"
done
S=$(sed -n 's/.*, 10\.213\.\([0-9]*\)\.0\/24,.*/\1/p' "$W/log.emu" | head -1)
NSP=$(sed -n 's/.*namespaces \(lcemu[0-9]*h\)1\.\..*/\1/p' "$W/log.emu" | head -1)
[ -n "$S" ] && [ -n "$NSP" ] || fail "no subnet or namespace prefix in the emucluster banner"
ID=${NSP#lcemu}; ID=${ID%h}
{ echo "code 4 2"; for i in $(seq 0 $((nodes - 1))); do echo "node $i 10.213.$S.$((i + 1)):$(cat "$W/p$i")"; done; } \
  >"$W/cluster"
# every daemon answers from a client host (and an epoch forms)
st=$(ip netns exec "${NSP}$H" "$bin/lincoll-ec" --insecure -s "10.213.$S.1:$(cat "$W/p0")" -t 60 stat) ||
  fail "stat: $st"
[ "$(echo "$st" | grep -c ' up objects')" = "$nodes" ] || fail "not every daemon answers: $st"
echo "load_emu: $nodes daemons on hosts 1-$nodes, clients on hosts $((nodes + 1))-$H, links $rate burst $burst" >&2

snap() { # machine busy/total jiffies, then per host: bytes out, bytes in
  local s
  s=$(awk '/^cpu / {b = $2 + $3 + $4 + $7 + $8; print b, b + $5 + $6}' /proc/stat)
  for h in $(seq 1 "$H"); do
    d=/sys/class/net/lcv${ID}h$h/statistics
    s="$s $(cat "$d/rx_bytes") $(cat "$d/tx_bytes")"
  done
  echo "$s"
}
echo "clients,rep,ok,fail,wrong,hang,MBps,p50_ms,p99_ms,f,limit_MBps,ratio,busiest,busiest_util,cpu_machine" >"$out/runs.csv"
for rep in $(seq 1 "$reps"); do
  for c in $clients; do
    s0=$(snap)
    t0=$(date +%s.%N)
    pids=()
    for h in $(seq 0 $((chosts - 1))); do
      n=$((c / chosts + (h < c % chosts ? 1 : 0)))
      [ "$n" -gt 0 ] || continue
      ip netns exec "${NSP}$((nodes + 1 + h))" python3 "$gen" run --cluster "$W/cluster" --clients "$n" \
        --duration "$dur" --out "$out/raw/c$c-r$rep-h$h" --sizes "$bytes" --weights 1 --get-share 0 \
        --route owner --keep --repair-wait 0 --deadline 120 --tag "c${c}r${rep}h$h" --seed $((h + 1)) \
        >"$out/raw/c$c-r$rep-h$h.out" 2>&1 &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || fail "a client host's load_gen failed: $(tail -3 "$out"/raw/c$c-r$rep-h*.out)"; done
    t1=$(date +%s.%N)
    s1=$(snap)
    python3 - "$out/raw" "$c" "$rep" "$bytes" "$dur" "$rate_Bps" "$nodes" "$chosts" "$s0" "$s1" "$t0" "$t1" \
      >>"$out/runs.csv" <<'PY' || fail "summary of $c clients, repetition $rep"
import csv, glob, statistics, sys
raw, c, rep, size, dur, Bps, nodes, ch, s0, s1, t0, t1 = sys.argv[1:]
size, dur, Bps, nodes, ch = int(size), float(dur), float(Bps), int(nodes), int(ch)
ops, mbps, wrong, hang = [], 0.0, 0, 0
for f in glob.glob("%s/c%s-r%s-h*.summary.csv" % (raw, c, rep)):
    for r in csv.DictReader(open(f)):
        if r["op"] == "put":
            mbps += float(r["MBps"])
            wrong += int(r["wrong"])
            hang += int(r["hang"])
for f in glob.glob("%s/c%s-r%s-h*.ops.csv" % (raw, c, rep)):
    ops += [r for r in csv.DictReader(open(f)) if r["op"] == "put"]
ok = [1e3 * (float(r["t_end"]) - float(r["t_start"])) for r in ops if r["status"] == "ok"]
fail = sum(1 for r in ops if r["status"] in ("fail", "lost"))
def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")
a, b = [float(x) for x in s0.split()], [float(x) for x in s1.split()]
d = [y - x for x, y in zip(a, b)]
cpu = d[0] / d[1] if d[1] > 0 else float("nan")
links = d[2:]  # per host: out, in
wall = float(t1) - float(t0)
put_bytes = mbps * 1e6 * dur
daemon_in = sum(links[2 * h + 1] for h in range(nodes))
f = daemon_in / put_bytes if put_bytes > 0 else float("nan")
active = min(int(c), ch)  # client hosts with clients
limit = min(nodes * Bps / f, active * Bps) / 1e6 if f == f and f > 0 else float("nan")
worst, name = 0.0, ""
for h in range(nodes + ch):
    for j, dirn in ((0, "out"), (1, "in")):
        if links[2 * h + j] > worst:
            worst, name = links[2 * h + j], "h%d-%s" % (h + 1, dirn)
print("%s,%s,%d,%d,%d,%d,%.2f,%.1f,%.1f,%.2f,%.2f,%.3f,%s,%.3f,%.3f" % (
    c, rep, len(ok), fail, wrong, hang, mbps, q(ok, 0.5), q(ok, 0.99), f, limit,
    mbps / limit if limit == limit and limit > 0 else float("nan"), name, worst / Bps / wall, cpu))
PY
    echo "load_emu: $(tail -1 "$out/runs.csv")" >&2
  done
done
python3 - "$out/runs.csv" "$out/summary.md" "$nodes" "$chosts" "$rate" "$size" "$dur" "$reps" "$dargs" <<'PY'
import csv, statistics, sys
src, md, nodes, ch, rate, size, dur, reps, dargs = sys.argv[1:]
rows = list(csv.DictReader(open(src)))
by = {}
for r in rows:
    by.setdefault(int(r["clients"]), []).append(r)
def med(rs, k):
    v = [float(r[k]) for r in rs if r[k] not in ("", "nan")]
    return statistics.median(v) if v else float("nan")
with open(md, "w") as f:
    f.write("%s daemons RS(4,2), one per host%s, %s client hosts; links %s each direction; puts of %s for "
            "%s s; medians of %s repetitions; MB = 10^6 bytes.\n\n"
            % (nodes, " (flags: %s)" % dargs if dargs else "", ch, rate, size, dur, reps))
    f.write("| clients | puts ok | failed / wrong / hangs | MB/s | p50 / p99 ms | f (daemon link bytes per object byte) "
            "| limit MB/s | MB/s / limit | busiest link direction, use | CPU share |\n")
    f.write("|---:|---:|---|---:|---|---:|---:|---:|---|---:|\n")
    for c in sorted(by):
        rs = by[c]
        f.write("| %d | %d | %d / %d / %d | %.2f | %.0f / %.0f | %.2f | %.2f | %.2f | %s, %.2f | %.2f |\n" % (
            c, sum(int(r["ok"]) for r in rs), sum(int(r["fail"]) for r in rs),
            sum(int(r["wrong"]) for r in rs), sum(int(r["hang"]) for r in rs), med(rs, "MBps"),
            med(rs, "p50_ms"), med(rs, "p99_ms"), med(rs, "f"), med(rs, "limit_MBps"), med(rs, "ratio"),
            rs[0]["busiest"], med(rs, "busiest_util"), med(rs, "cpu_machine")))
print(open(md).read(), end="")
PY
plot "$out"
echo "load_emu: wrote $out/summary.md" >&2
