#!/usr/bin/env bash
# perf/daemon/load.sh: lincoll-ecd under load: many concurrent clients, a
# mix of object sizes, nodes killed during the load.
#
#   perf/daemon/load.sh [-b BIN_DIR] [-o OUT_DIR] [-d SECONDS] [-n NODES]
#                       [-c "1 4 16 64"] [-s "4k 1m 16m"] [-w "8 4 1"]
#                       [-p "load kill small"] [-k CLIENTS] [-t TIMEOUT]
#                       [--deadline S] [--get-share F] [--preload N]
#                       [--repair-wait S] [--events "T kill N,T start N,..."]
#                       [--daemon-args "FLAGS"] [--keep] [--route node|owner]
#
# A local cluster: NODES daemons on 127.0.0.1 (default 12; a daemon whose
# stripes span every node of its cluster file takes -n 6 for RS(4,2)), code
# RS(4,2), each daemon its own directory, port 0 (published to a file, and
# kept on a restart).  A fresh cluster for every phase and client count.
# The clients: perf/daemon/load_gen.py (python3, the daemon's client
# protocol); client i asks node i mod NODES; content derived from the
# object's name, every get compared byte for byte with what was put.
#
# Phases (-p, any subset, in this order):
#   load   for every C of -c: C clients for -d seconds (default 60), sizes
#          -s picked by weights -w, half gets (--get-share) of objects put
#          before: per op and size, throughput (MB/s, ops/s), p50 and p99
#          latency of the successful operations, failures (and how many not
#          explained by more than m nodes down), wrong reads, hangs (no
#          reply within --deadline seconds, default 60);
#   kill   -k clients (default 16) for -d seconds: at d/4 one daemon is
#          SIGKILLed, at d/2 a second, at 3d/4 both restart (same directory,
#          same port; --events: another schedule, seconds after the start); then every object whose put succeeded before the
#          first kill (and each of --preload N objects, default 12, put
#          one at a time before the clients start) is read back, and the time until the cluster reports 0
#          degraded objects (stat's degraded count; a daemon without one gets
#          an operator REPAIR of each restarted node, timed instead; at
#          most --repair-wait seconds, default 300, 0: not waited for);
#   small  1 client, 4 KiB puts only, for min(d, 20) seconds: the p50 put
#          latency, and the share of it the coordinator spent before the
#          upload's reading started (its log's "put NAME timing setup");
#   bench  like rados bench (perf/anchors/ceph_bench.sh): for every C of
#          -c and size of -s, a fresh cluster, C clients putting objects of
#          that size for -d seconds, then getting them for -d seconds.
# --daemon-args: more flags for every lincoll-ecd (e.g. "--direct-max 0":
# every put forms its group, small ones too).  The daemons' directories
# are made under $TMPDIR (default /tmp): TMPDIR=/dev/shm puts them on
# tmpfs, which takes the disk's fsyncs out of the latencies.  --keep: every
# client keeps one connection per daemon between its puts and gets (KEEP,
# docs/daemon.md) instead of a new one per request.  --route owner: every
# request goes to its object's owner (the first node of its placement, as
# a client that knows the cluster map sends it: no relay) instead of client
# i's node i mod NODES (default node).
# Output in OUT_DIR (default docs/perf/$(date +%F)-storage-load):
#   load.csv, kill.csv, small.csv, bench.csv (the summaries: clients,op,size,ops,ok,
#   fail,unexplained,wrong,hang,MBps,ops_s,p50_ms,p99_ms,mean_ms,max_ms;
#   MB = 10^6 bytes), kill.txt (the kill phase's counts, key=value),
#   load.md (the tables, and `uptime` before and after: the machine is
#   shared), raw/ (every operation: *.ops.csv) and logs/.
# Exit 1 on a wrong read, a hang or an unreadable pre-kill object; failed
# operations are reported, not fatal.  Every process started is killed on
# exit.  The emulated cluster (one daemon per host, shaped links) is
# perf/daemon/ecd_put_emu.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/bin
out=
dur=60
nodes=12
clients="1 4 16 64"
sizes="4k 1m 16m"
weights="8 4 1"
phases="load kill small"
kclients=16
T=5
deadline=60
getshare=0.5
preload=12
rwait=300
events=
dargs=
keep=
route=node
while [ $# -gt 0 ]; do
  case $1 in
    -b) bin=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -d) dur=$2; shift 2 ;;
    -n) nodes=$2; shift 2 ;;
    -c) clients=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -w) weights=$2; shift 2 ;;
    -p) phases=$2; shift 2 ;;
    -k) kclients=$2; shift 2 ;;
    -t) T=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    --get-share) getshare=$2; shift 2 ;;
    --preload) preload=$2; shift 2 ;;
    --repair-wait) rwait=$2; shift 2 ;;
    --events) events=$2; shift 2 ;;
    --daemon-args) dargs=$2; shift 2 ;;
    --keep) keep=--keep; shift ;;
    --route) route=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "load: unknown argument '$1' (-h for usage)" >&2; exit 2 ;;
  esac
done
case $route in node | owner) ;; *) echo "load: --route '$route' (expected node or owner)" >&2; exit 2 ;; esac
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ -n "$out" ] || out=$top/docs/perf/$(date +%F)-storage-load
case $out in /*) ;; *) out=$PWD/$out ;; esac
for p in lincoll-ecd lincoll-ec; do
  [ -x "$bin/$p" ] || { echo "load: $bin/$p not found (build first: deploy/build.sh)" >&2; exit 1; }
done
case $nodes in '' | *[!0-9]*) echo "load: -n $nodes: expected a count" >&2; exit 2 ;; esac
[ "$nodes" -ge 6 ] || { echo "load: -n $nodes: RS(4,2) needs at least 6 nodes" >&2; exit 2; }
to_bytes() {
  case $1 in
    *[kK]) echo $((${1%?} * 1024)) ;; *[mM]) echo $((${1%?} * 1048576)) ;; *) echo "$1" ;;
  esac
}
blist=
for s in $sizes; do blist="$blist,$(to_bytes "$s")"; done
blist=${blist#,}
wlist=$(echo "$weights" | tr ' ' ',')
gen=$top/perf/daemon/load_gen.py

W=$(mktemp -d "${TMPDIR:-/tmp}/ecd_load.XXXXXX")
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  stop_cluster
  if [ -d "$out" ]; then mkdir -p "$out/logs"; cp "$W"/*.log "$out/logs/" 2>/dev/null || true; fi
  rm -rf "$W"
  exit $rc
}
stop_cluster() {
  local f p
  for f in "$W"/pid*; do
    [ -e "$f" ] || continue
    p=$(cat "$f")
    rm -f "$f"
    kill -KILL "$p" 2>/dev/null || continue
    while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
  done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
mkdir -p "$out/raw"

# ctl kill N / ctl start N: what load_gen.py runs during the kill phase
cat >"$W/ctl" <<EOS
#!/usr/bin/env bash
set -euo pipefail
W=$W
case \$1 in
  kill)
    p=\$(cat "\$W/pid\$2")
    kill -KILL "\$p"
    while kill -0 "\$p" 2>/dev/null; do sleep 0.05; done ;;
  start)
    port=\$(cat "\$W/p\$2")
    rm -f "\$W/p\$2"
    "$bin/lincoll-ecd" --insecure --node "\$2" --dir "\$W/run/d\$2" --cluster "\$W/cluster" --listen "127.0.0.1:\$port" \\
      --port-file "\$W/p\$2" --timeout $T $dargs >>"\$W/\$(cat "\$W/phase")-n\$2.log" 2>&1 </dev/null &
    echo \$! >"\$W/pid\$2"
    for _ in \$(seq 1 600); do [ -s "\$W/p\$2" ] && exit 0; sleep 0.1; done
    echo "node \$2 did not come back" >&2; exit 1 ;;
esac
EOS
chmod +x "$W/ctl"

start_cluster() { # phase name
  stop_cluster
  rm -rf "$W/run" "$W"/p[0-9]*
  mkdir -p "$W/run"
  echo "$1" >"$W/phase"
  for i in $(seq 0 $((nodes - 1))); do
    "$bin/lincoll-ecd" --insecure --node "$i" --dir "$W/run/d$i" --cluster "$W/cluster" --listen 127.0.0.1:0 \
      --port-file "$W/p$i" --timeout "$T" --die-with-parent $dargs >>"$W/$1-n$i.log" 2>&1 &
    echo $! >"$W/pid$i"
    disown $!
  done
  for i in $(seq 0 $((nodes - 1))); do
    for _ in $(seq 1 300); do [ -s "$W/p$i" ] && break; sleep 0.1; done
    [ -s "$W/p$i" ] || { echo "load: node $i published no port" >&2; tail -5 "$W/$1-n$i.log" >&2; exit 1; }
  done
  { echo "code 4 2"; for i in $(seq 0 $((nodes - 1))); do echo "node $i 127.0.0.1:$(cat "$W/p$i")"; done; } >"$W/cluster.new"
  mv "$W/cluster.new" "$W/cluster"
  local st
  st=$("$bin/lincoll-ec" --insecure -s "127.0.0.1:$(cat "$W/p0")" -t 60 stat 2>&1) || {
    echo "load: stat of a fresh $nodes-node cluster failed: $st" >&2
    echo "load: (a daemon whose stripes span the whole cluster file runs with -n 6)" >&2
    exit 1
  }
  # a daemon with membership epochs (EPOCHSTAT) is started once every node
  # is in one epoch; one without them answers "unknown request"
  python3 - "$W/cluster" <<'PY' >&2
import socket, sys, time
addrs = [l.split()[2] for l in open(sys.argv[1]) if l.startswith("node ")]
def stat(a):
    try:
        s = socket.create_connection((a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])), timeout=10)
        s.sendall(b"EPOCHSTAT\n")
        return s.makefile().readline().split()
    except OSError:
        return []
t0 = time.time()
while time.time() - t0 < 60:
    w = [stat(a) for a in addrs]
    if any(x[:3] == ["ERR", "unknown", "request"] for x in w):
        sys.exit(0)
    seqs = {x[2] for x in w if len(x) >= 7 and x[1] == "epoch" and x[6] == str(len(addrs))}
    if len(seqs) == 1 and all(len(x) >= 7 and x[1] == "epoch" and x[6] == str(len(addrs)) for x in w):
        print("load: every node in epoch %s after %.1f s" % (seqs.pop(), time.time() - t0))
        sys.exit(0)
    time.sleep(0.2)
print("load: the nodes did not agree on an epoch within 60 s: %s" % w)
PY
}
run_gen() { # phase tag clients duration [args]
  local phase=$1 tag=$2 c=$3 d=$4
  shift 4
  python3 "$gen" run --cluster "$W/cluster" --clients "$c" --duration "$d" --deadline "$deadline" \
    --m 2 --tag "$tag" --out "$out/raw/$tag" $keep --route "$route" "$@" >&2 || { echo "load: $phase: load_gen exited $?" >&2; return 1; }
}
bad=0
check_bad() { # summary csv: wrong reads and hangs are failures of the daemon
  awk -F, 'NR > 1 {w += $8; h += $9} END {exit !(w + h == 0)}' "$1" || bad=1
}
up0=$(uptime)
echo "load: $nodes daemons RS(4,2), phases '$phases', $dur s each; $up0" >&2

for ph in $phases; do
  case $ph in
    load)
      first=1
      for c in $clients; do
        start_cluster "load-c$c"
        echo "load: $c clients, $dur s" >&2
        run_gen load "load-c$c" "$c" "$dur" --sizes "$blist" --weights "$wlist" --get-share "$getshare" || exit 1
        check_bad "$out/raw/load-c$c.summary.csv"
        if [ $first = 1 ]; then cat "$out/raw/load-c$c.summary.csv"; first=0; else tail -n +2 "$out/raw/load-c$c.summary.csv"; fi
      done >"$out/load.csv" ;;
    kill)
      start_cluster kill
      # two nodes that no client asks first when there are more nodes than
      # clients; the kill is the same either way
      k1=$((nodes - 1)) k2=$((nodes / 2))
      ev=$events
      [ -n "$ev" ] || ev="$(python3 -c "d=$dur; print('%g kill $k1,%g kill $k2,%g start $k1,%g start $k2' % (d/4, d/2, 3*d/4, 3*d/4))")"
      echo "load: kill phase: $kclients clients, $dur s; events: $ev" >&2
      run_gen kill kill "$kclients" "$dur" --sizes "$blist" --weights "$wlist" --get-share "$getshare" \
        --events "$ev" --ctl "$W/ctl" --repair-wait "$rwait" --preload "$preload" --strict ||
        bad=1
      cp "$out/raw/kill.summary.csv" "$out/kill.csv"
      cp "$out/raw/kill.kill.txt" "$out/kill.txt" ;;
    small)
      start_cluster small
      sd=$(python3 -c "print(min($dur, 20))")
      run_gen small small 1 "$sd" --sizes 4096 --weights 1 --get-share 0 || exit 1
      check_bad "$out/raw/small.summary.csv"
      cp "$out/raw/small.summary.csv" "$out/small.csv"
      # the coordinator's setup share of each 4 KiB put (its log's timing line)
      cat "$W"/small-n*.log | python3 -c "
import re, statistics, sys
s = []
for ln in sys.stdin:
    m = re.search(r'put \S+ timing setup ([0-9.]+) .* commit ([0-9.]+)', ln)
    if m and float(m.group(2)) > 0:
        s.append((float(m.group(1)), float(m.group(2))))
if s:
    print('setup_p50_ms=%.3f' % (statistics.median(a for a, _ in s) * 1e3))
    print('commit_p50_ms=%.3f' % (statistics.median(b for _, b in s) * 1e3))
    print('setup_share_p50=%.3f' % statistics.median(a / b for a, b in s))
else:
    print('setup_share_p50=n/a (no timing lines in the coordinators\' logs)')
" >"$out/small.txt" ;;
    bench)
      first=1
      for c in $clients; do
        for s in $sizes; do
          b=$(to_bytes "$s")
          start_cluster "bench-c$c-$b"
          run_gen bench "bench-c$c-$b" "$c" "$dur" --sizes "$b" --weights 1 --get-share 0 --then-get || exit 1
          check_bad "$out/raw/bench-c$c-$b.summary.csv"
          if [ $first = 1 ]; then cat "$out/raw/bench-c$c-$b.summary.csv"; first=0; else tail -n +2 "$out/raw/bench-c$c-$b.summary.csv"; fi
        done
      done >"$out/bench.csv" ;;
    *) echo "load: unknown phase '$ph' (load, kill, small, bench)" >&2; exit 2 ;;
  esac
done
up1=$(uptime)

{
  echo "# lincoll-ecd under load"
  echo
  echo "$nodes daemons on 127.0.0.1, RS(4,2), daemon timeout $T s, hang deadline $deadline s; $dur s per run;"
  echo "sizes $sizes picked with weights $weights, get share $getshare; MB = 10^6 bytes; latency of the successful operations."
  echo "The machine is shared (\`uptime\` before: $up0; after: $up1)."
  if [ -s "$out/load.csv" ]; then echo; echo "## Load"; echo; python3 "$gen" table "$out/load.csv"; fi
  if [ -s "$out/kill.csv" ]; then
    echo; echo "## Kill phase ($kclients clients)"; echo; python3 "$gen" table "$out/kill.csv"
    echo; sed 's/^/    /' "$out/kill.txt"
  fi
  if [ -s "$out/bench.csv" ]; then echo; echo "## One size at a time: puts, then gets"; echo; python3 "$gen" table "$out/bench.csv"; fi
  if [ -s "$out/small.csv" ]; then
    echo; echo "## 4 KiB puts, 1 client"; echo; python3 "$gen" table "$out/small.csv"
    echo; sed 's/^/    /' "$out/small.txt"
  fi
} >"$out/load.md"
cat "$out/load.md"
echo "load: wrote $out/load.md" >&2
[ $bad = 0 ] || { echo "load: FAIL: wrong reads, hangs or unreadable objects (above)" >&2; exit 1; }
