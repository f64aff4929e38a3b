#!/usr/bin/env bash
# perf/anchors/ceph_bench.sh: the storage anchor: Ceph (Debian's 16.2) on
# one host, an erasure-coded pool RS(4,2), measured with `rados bench`.
#
#   perf/anchors/ceph_bench.sh [-o OUT_DIR] [--osds 12|6] [-d SECONDS]
#                              [-c "1 4 16 64"] [-s "4k 1m 16m"] [--install]
#   perf/anchors/ceph_bench.sh up DIR [--osds N] [--install]
#                                       start a cluster in DIR
#   perf/anchors/ceph_bench.sh bench DIR C SIZE SECONDS
#                                       one write and one read run: CSV rows
#   perf/anchors/ceph_bench.sh down DIR  stop it (every process), remove DIR
#
# The cluster: one monitor (a free port on 127.0.0.1, msgr2), one manager,
# 12 OSDs (--osds 6: six), BlueStore on a 4 GiB file each (bluestore_block_path
# in the OSD's directory, created by ceph-osd --mkfs: no LVM, no loop
# device), cephx off; everything under DIR (default a temporary directory),
# nothing in /etc/ceph or /var/lib/ceph.  The pool: erasure-code profile
# k=4 m=2 crush-failure-domain=osd (jerasure reed_sol_van), 32 placement
# groups, allow_ec_overwrites on, so that a 4 KiB object is written as
# 4 KiB (without overwrites rados bench rounds every write on an EC pool up
# to the stripe width, k x 4 KiB = 16 KiB); the OSDs' memory target is
# their minimum (896 MiB), as 12 OSDs share the machine with other work.
#
# One measurement (bench): `rados bench SECONDS write -t C -b SIZE
# --no-cleanup`, then `rados bench SECONDS seq -t C` of those objects, then
# the objects are removed.  Rows: clients,op,size,ops,MBps,ops_s,mean_ms,
# max_ms (op put = write, get = seq; MB = 10^6 bytes: rados prints MiB/s;
# rados bench reports mean and max latency, no percentiles).
#
# The default mode: up, bench for every C and size, down; writes
# OUT_DIR/ceph.csv and ceph.md (default docs/perf/$(date +%F)-ceph).
# Packages: ceph-mon ceph-mgr ceph-osd ceph-common (not among the README's
# dependencies); --install (root) installs them with apt-get when missing;
# without them the script says so and exits 1.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "ceph_bench: $*" >&2; }
die() { say "$*"; exit 1; }

need_packages() {
  local missing=
  for p in ceph-mon ceph-mgr ceph-osd ceph rados monmaptool; do
    command -v "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  if [ "${1:-}" = install ]; then
    [ "$(id -u)" = 0 ] || die "missing$missing; --install needs root"
    say "installing ceph-mon ceph-mgr ceph-osd ceph-common (apt-get)"
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ceph-mon ceph-mgr ceph-osd ceph-common; } >&2 || die "apt-get could not install Ceph's packages"
    return 0
  fi
  die "Ceph is not installed (missing$missing): apt-get install ceph-mon ceph-mgr ceph-osd ceph-common, or run with --install"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

cephc() { ceph -c "$D/ceph.conf" --connect-timeout 30 "$@"; }

pids_of() { cat "$D"/run/*.pid 2>/dev/null || true; }

down() {
  local p n
  for p in $(pids_of); do kill -TERM "$p" 2>/dev/null || true; done
  for n in $(seq 1 100); do
    local alive=0
    for p in $(pids_of); do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    [ "$n" = 50 ] && for p in $(pids_of); do kill -KILL "$p" 2>/dev/null || true; done
    sleep 0.2
  done
  rm -rf "$D"
}

up() {
  local osds=$1 port fsid i uuid id n
  mkdir -p "$D/run" "$D/log" "$D/mon" "$D/osd" "$D/blocks"
  port=$(free_port)
  fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
  # every OSD's ports from a range of free ones (ms_bind_port_min/max)
  cat >"$D/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$port
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = true
ms bind msgr1 = false
ms bind ipv4 = true
public addr = 127.0.0.1
run dir = $D/run
pid file = $D/run/\$name.pid
admin socket = $D/run/\$name.asok
log file = $D/log/\$name.log
log to stderr = false
err to stderr = true
mon data = $D/mon/\$name
osd data = $D/osd/\$id
mgr data = $D/mgr/\$name
keyring = /dev/null
osd objectstore = bluestore
bluestore block path = $D/blocks/osd\$id.block
bluestore block create = true
bluestore block size = 4294967296
bluestore block db create = false
bluestore block wal create = false
osd memory target = 939524096
osd crush chooseleaf type = 0
osd pool default size = 3
mon allow pool delete = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
osd pool default pg autoscale mode = off
mgr initial modules =
EOF
  monmaptool --create --clobber --fsid "$fsid" --addv a "[v2:127.0.0.1:$port]" "$D/monmap" >/dev/null
  ceph-mon -c "$D/ceph.conf" -i a --mkfs --monmap "$D/monmap" >"$D/log/mkfs-mon.out" 2>&1 ||
    die "ceph-mon --mkfs failed: $(tail -3 "$D/log/mkfs-mon.out")"
  ceph-mon -c "$D/ceph.conf" -i a 2>>"$D/log/mon-start.out" || die "ceph-mon did not start: $(tail -3 "$D/log/mon.a.log")"
  mkdir -p "$D/mgr/mgr.x"
  ceph-mgr -c "$D/ceph.conf" -i x 2>>"$D/log/mgr-start.out" || die "ceph-mgr did not start"
  cephc osd erasure-code-profile set ec42 k=4 m=2 crush-failure-domain=osd >/dev/null
  for i in $(seq 0 $((osds - 1))); do # ids, then every OSD's mkfs at once
    uuid=$(python3 -c 'import uuid; print(uuid.uuid4())')
    id=$(cephc osd new "$uuid")
    [ "$id" = "$i" ] || die "osd new gave id '$id', expected $i"
    mkdir -p "$D/osd/$i"
    ceph-osd -c "$D/ceph.conf" -i "$i" --mkfs --osd-uuid "$uuid" >"$D/log/mkfs-osd$i.out" 2>&1 &
  done
  for i in $(seq 0 $((osds - 1))); do
    wait -n || die "an OSD's mkfs failed: $(tail -q -n 2 "$D"/log/mkfs-osd*.out)"
  done
  for i in $(seq 0 $((osds - 1))); do # each forks into the background once up
    ceph-osd -c "$D/ceph.conf" -i "$i" 2>>"$D/log/osd-start.out" &
  done
  for i in $(seq 0 $((osds - 1))); do
    wait -n || die "an OSD did not start: $(tail -q -n 3 "$D/log/osd-start.out")"
  done
  for n in $(seq 1 300); do
    [ "$(cephc osd stat -f json | python3 -c 'import json,sys; print(json.load(sys.stdin)["num_up_osds"])')" = "$osds" ] && break
    [ "$n" = 300 ] && die "only $(cephc osd stat) after 300 s"
    sleep 1
  done
  cephc osd pool create ecpool 32 32 erasure ec42 >/dev/null
  cephc osd pool set ecpool allow_ec_overwrites true >/dev/null
  for n in $(seq 1 300); do
    cephc pg stat | grep -Eq '^([0-9]+) pgs: \1 active\+clean;' && break
    [ "$n" = 300 ] && die "the pool's placement groups did not become clean: $(cephc pg stat)"
    sleep 1
  done
  say "up: 1 mon (127.0.0.1:$port), 1 mgr, $osds OSDs, pool ecpool k=4 m=2 in $D"
}

to_bytes() {
  case $1 in
    *[kK]) echo $((${1%?} * 1024)) ;; *[mM]) echo $((${1%?} * 1048576)) ;; *) echo "$1" ;;
  esac
}

bench() { # C SIZE SECONDS: two CSV rows on stdout
  local c=$1 b secs=$3 run
  b=$(to_bytes "$2")
  run=b$c-$b-$RANDOM
  rados -c "$D/ceph.conf" -p ecpool bench "$secs" write -t "$c" -b "$b" -O "$b" --no-cleanup \
    --run-name "$run" >"$D/log/bench-$run-write.out" 2>&1 || die "rados bench write failed: $(tail -5 "$D/log/bench-$run-write.out")"
  rados -c "$D/ceph.conf" -p ecpool bench "$secs" seq -t "$c" --run-name "$run" \
    >"$D/log/bench-$run-seq.out" 2>&1 || die "rados bench seq failed: $(tail -5 "$D/log/bench-$run-seq.out")"
  rados -c "$D/ceph.conf" -p ecpool cleanup --run-name "$run" >/dev/null 2>&1 || say "cleanup of $run failed"
  local op f
  for op in put get; do
    f=$D/log/bench-$run-write.out
    [ $op = get ] && f=$D/log/bench-$run-seq.out
    python3 - "$f" "$c" "$op" "$b" <<'PY'
import re, sys
f, c, op, b = sys.argv[1:]
t = open(f).read()
def val(key):
    m = re.search(r"^" + re.escape(key) + r":\s*([0-9.eE+-]+)", t, re.M)
    return float(m.group(1)) if m else float("nan")
ops = val("Total reads made") if op == "get" else val("Total writes made")
secs = val("Total time run")
print("%s,%s,%s,%d,%.3f,%.2f,%.2f,%.2f" % (c, op, b, ops, ops * int(b) / secs / 1e6, ops / secs,
      val("Average Latency(s)") * 1e3, val("Max latency(s)") * 1e3))
PY
  done
}

mode=all
case ${1:-} in up | bench | down) mode=$1; shift ;; esac
case $mode in
  up)
    D=$1; shift
    osds=12 install=
    while [ $# -gt 0 ]; do
      case $1 in
        --osds) osds=$2; shift 2 ;;
        --install) install=install; shift ;;
        *) die "up: unknown argument '$1'" ;;
      esac
    done
    need_packages $install
    mkdir -p "$D"
    D=$(cd "$D" && pwd)
    up "$osds" || { down; exit 1; }
    exit 0 ;;
  bench) D=$(cd "$1" && pwd); bench "$2" "$3" "$4"; exit 0 ;;
  down) D=$1; [ -d "$D" ] && D=$(cd "$D" && pwd) && down; exit 0 ;;
esac

out=
osds=12
dur=60
clients="1 4 16 64"
sizes="4k 1m 16m"
install=
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    --osds) osds=$2; shift 2 ;;
    -d) dur=$2; shift 2 ;;
    -c) clients=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    --install) install=install; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (-h for usage)" ;;
  esac
done
case $osds in 6 | 12) ;; *) die "--osds $osds: 6 or 12" ;; esac
need_packages $install
[ -n "$out" ] || out=$top/docs/perf/$(date +%F)-ceph
mkdir -p "$out"
D=$(mktemp -d /tmp/ceph_bench.XXXXXX)
trap 'down' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
up "$osds"
up0=$(uptime)
echo "clients,op,size,ops,MBps,ops_s,mean_ms,max_ms" >"$out/ceph.csv"
for c in $clients; do
  for s in $sizes; do
    say "$c clients, $s, $dur s"
    bench "$c" "$s" "$dur" | tee -a "$out/ceph.csv" >&2
  done
done
{
  echo "Ceph 16.2, 1 mon, 1 mgr, $osds OSDs (BlueStore on 4 GiB files), EC pool k=4 m=2 (failure domain osd, overwrites on), rados bench $dur s per run."
  echo "\`uptime\` before: $up0; after: $(uptime)"
  echo
  echo "| clients | op | size | ops | MB/s | ops/s | mean (ms) | max (ms) |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|"
  tail -n +2 "$out/ceph.csv" | awk -F, '{printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8}'
} >"$out/ceph.md"
cat "$out/ceph.md"
