#!/usr/bin/env bash
# perf/daemon/secure_compare.sh: what TLS 1.3 with pre-shared keys costs
# lincoll-ecd (docs/daemon.md, Security): put and get throughput of 1 MiB
# and 16 MiB objects and the p50 latency of a 4 KiB put, with keys (the
# default) against --insecure (plaintext, the anchor), same run, on
# 127.0.0.1.
#
#   perf/daemon/secure_compare.sh [-b BIN_DIR] [-o OUT_DIR] [-s "1m 16m"] [-r REPS] [-n SMALL]
#                                 [-B BLOCK] [-c]
#
# Two clusters of 6 daemons each, RS(4,2), run side by side: "tls" (one
# keyring, the client with an exported write key) and "insecure".  Each
# repetition, for each size S and each cluster in turn (interleaved, so
# that a noisy neighbour hits both alike): a put of a fresh random object
# of S bytes through its owner node, timed until the client has the reply
# (committed on every node), then a get of it through another node, sha256
# checked by the client.  MB/s = S / wall time (10^6 bytes), the client's
# process start included.  Then SMALL (default 31) 4 KiB puts per cluster,
# interleaved, each timed the same way: their median is the p50 ("4k").
# Each of those is a lincoll-ec process with its own connection, so with
# keys it pays a TLS handshake; the daemons' connections among themselves
# are kept (docs/daemon.md).  Then SMALL more 4 KiB puts per cluster on
# one kept connection (lincoll-ec batch, one handshake), the two clusters'
# connections open together and their puts alternating, each timed by the
# client: their median is the p50 of "4k-batch".  Last, every size of -s
# once per repetition on those kept connections, the two clusters
# alternating: a put, then a get of it, timed by the client (MB/s of
# "SIZE-kept": no process start, no handshake).  The kept connections go to
# node 0, which relays each put to its object's owner; with -c, the batch
# clients are given the cluster file (lincoll-ec -c) and send each request
# to its object's owner, on a kept connection per node.
#
# The daemons' directories are made under $TMPDIR (default /tmp):
# TMPDIR=/dev/shm takes the disk out of the comparison.
#
# Output in OUT_DIR (default docs/perf/$(date +%F)-daemon-security):
#   ops.tsv       mode op size rep wall_s MBps, one row per operation
#   summary.tsv   op size median_tls median_insecure ratio (MB/s; for the
#                 4 KiB put: p50 ms, and the difference in ms)
#   security.png  the medians (gnuplot, when installed)
#   pool.tsv      each daemon's connections at the end (its stat): kept
#                 idle, reused of asked for, accepted
#   env.txt       uptime, nproc, the commit
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/perf/daemon/batch_blocks.sh"
bin=$top/build/bin
out=$top/docs/perf/$(date +%F)-daemon-security
sizes="1m 16m"
reps=7
small=31
block=8
route=0
while [ $# -gt 0 ]; do
  case $1 in
    -b) bin=$(cd "$2" && pwd); shift 2 ;;
    -o) out=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -n) small=$2; shift 2 ;;
    -B) block=$2; shift 2 ;;
    -c) route=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "secure_compare.sh: unknown argument '$1' (see -h)" >&2; exit 2 ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "secure_compare.sh: -r '$reps' is not a positive count" >&2; exit 2; }
[[ $small =~ ^[1-9][0-9]*$ ]] || { echo "secure_compare.sh: -n '$small' is not a positive count" >&2; exit 2; }
[[ $block =~ ^[1-9][0-9]*$ ]] || { echo "secure_compare.sh: -B '$block' is not a positive count" >&2; exit 2; }
for p in lincoll-ecd lincoll-ec lincoll-ec-auth; do
  [ -x "$bin/$p" ] || { echo "secure_compare.sh: $bin/$p is missing (build first, or -b BIN_DIR)" >&2; exit 2; }
done
bytes() { # 1m -> 1048576
  local v=${1%[kKmM]}
  case $1 in *[kK]) echo $((v * 1024)) ;; *[mM]) echo $((v * 1048576)) ;; *) echo "$1" ;; esac
}
for s in $sizes; do
  [[ $(bytes "$s") =~ ^[1-9][0-9]*$ ]] || { echo "secure_compare.sh: size '$s' (expected N, Nk or Nm)" >&2; exit 2; }
done
mkdir -p "$out"
W=$(mktemp -d "${TMPDIR:-/tmp}/secure_compare.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done; { wait; } 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
"$bin/lincoll-ec-auth" create --keyring "$W/keyring" --id cluster >/dev/null
"$bin/lincoll-ec-auth" create --keyring "$W/keyring" --id bench --caps write >/dev/null
"$bin/lincoll-ec-auth" export --keyring "$W/keyring" --id bench --out "$W/bench.keyring" >/dev/null
declare -A keys=([tls]="--keyring $W/keyring" [insecure]="--insecure")
declare -A ckeys=([tls]="--keyring $W/bench.keyring" [insecure]="--insecure")
start() { # start MODE
  local mode=$1
  mkdir -p "$W/$mode"
  for i in 0 1 2 3 4 5; do
    # shellcheck disable=SC2086
    "$bin/lincoll-ecd" ${keys[$mode]} --node "$i" --dir "$W/$mode/d$i" --cluster "$W/$mode/cluster" \
        --listen 127.0.0.1:0 --port-file "$W/$mode/p$i" --timeout 10 --die-with-parent \
        --scrub-interval 0 --max-object 1073741824 >>"$W/$mode/log$i" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2 3 4 5; do
    for _ in $(seq 1 300); do [ -s "$W/$mode/p$i" ] && break; sleep 0.1; done
    [ -s "$W/$mode/p$i" ] || { echo "secure_compare.sh: $mode node $i did not start" >&2; exit 1; }
  done
  { echo "code 4 2"; for i in 0 1 2 3 4 5; do echo "node $i 127.0.0.1:$(cat "$W/$mode/p$i")"; done; } \
    >"$W/$mode/cluster"
}
start tls
start insecure
now() { date +%s.%N; }
# shellcheck disable=SC2086
ec() { local mode=$1 n=$2; shift 2; "$bin/lincoll-ec" ${ckeys[$mode]} -s "127.0.0.1:$(cat "$W/$mode/p$n")" -t 300 "$@"; }
ec tls 0 stat | grep -q '^security tls1.3-psk' || { echo "secure_compare.sh: the tls cluster is not in TLS" >&2; exit 1; }
ec insecure 0 stat | grep -q '^security insecure' || { echo "secure_compare.sh: the insecure cluster is not plaintext" >&2; exit 1; }
# the owner node of a name (rendezvous hashing, docs/daemon.md): it coordinates its put
owners() { # NAME... -> one owner per line
  python3 - "$@" <<'PY'
import sys
M = (1 << 64) - 1
def mix64(x):
    x ^= x >> 30; x = (x * 0xbf58476d1ce4e5b9) & M
    x ^= x >> 27; x = (x * 0x94d049bb133111eb) & M
    return x ^ (x >> 31)
for name in sys.argv[1:]:
    h = 14695981039346656037
    for b in name.encode():
        h = ((h ^ b) * 1099511628211) & M
    w = [mix64(h ^ mix64(i + 1)) for i in range(6)]
    print(sorted(range(6), key=lambda i: (-w[i], i))[0])
PY
}
printf 'mode\top\tsize\trep\twall_s\tMBps\n' >"$out/ops.tsv"
for rep in $(seq 1 "$reps"); do
  for s in $sizes; do
    b=$(bytes "$s")
    head -c "$b" /dev/urandom >"$W/obj"
    name="o$s-$rep"
    o=$(owners "$name")
    for mode in tls insecure; do
      t0=$(now); ec "$mode" "$o" put "$W/obj" "$name" >/dev/null || { echo "secure_compare.sh: $mode put $name failed" >&2; exit 1; }
      t1=$(now); ec "$mode" $(( (o + 1) % 6 )) get "$name" "$W/back" >/dev/null || { echo "secure_compare.sh: $mode get $name failed" >&2; exit 1; }
      t2=$(now)
      cmp -s "$W/obj" "$W/back" || { echo "secure_compare.sh: $mode $name read back wrong" >&2; exit 1; }
      awk -v m="$mode" -v s="$s" -v r="$rep" -v b="$b" -v t0="$t0" -v t1="$t1" -v t2="$t2" 'BEGIN {
        printf "%s\tput\t%s\t%d\t%.4f\t%.2f\n", m, s, r, t1 - t0, b / (t1 - t0) / 1e6
        printf "%s\tget\t%s\t%d\t%.4f\t%.2f\n", m, s, r, t2 - t1, b / (t2 - t1) / 1e6 }' >>"$out/ops.tsv"
    done
  done
  echo "secure_compare.sh: repetition $rep of $reps done" >&2
done
head -c 4096 /dev/urandom >"$W/small"
names=(); for i in $(seq 1 "$small"); do names+=("s4k-$i"); done
mapfile -t own < <(owners "${names[@]}")
for i in $(seq 0 $((small - 1))); do
  for mode in tls insecure; do
    t0=$(now); ec "$mode" "${own[$i]}" put "$W/small" "${names[$i]}" >/dev/null || { echo "secure_compare.sh: $mode put ${names[$i]} failed" >&2; exit 1; }
    t1=$(now)
    awk -v m="$mode" -v r="$((i + 1))" -v t0="$t0" -v t1="$t1" 'BEGIN {
      printf "%s\tput\t4k\t%d\t%.4f\t%.3f\n", m, r, t1 - t0, 4096 / (t1 - t0) / 1e6 }' >>"$out/ops.tsv"
  done
done
# the same small puts on one kept connection per mode (lincoll-ec batch: one
# handshake, then request after request), both connections open at once and
# their requests alternating in blocks of -B (a block of puts on one, each
# sent as soon as the one before is answered, then a block on the other,
# the first side swapped every block), so that a noisy moment hits both
# alike: each put's time as the client measured it, from its request to the
# checked answer.  -B 1 alternates single puts: each one then starts from a
# machine gone idle since the last, and pays the wakeups of every process
# on its path.
for mode in tls insecure; do
  mkfifo "$W/bin-$mode" "$W/bout-$mode"
  if [ $route = 1 ]; then
    # shellcheck disable=SC2086
    "$bin/lincoll-ec" ${ckeys[$mode]} -c "$W/$mode/cluster" -t 300 batch <"$W/bin-$mode" >"$W/bout-$mode" 2>"$W/berr-$mode" &
  else
    ec "$mode" 0 batch <"$W/bin-$mode" >"$W/bout-$mode" 2>"$W/berr-$mode" &
  fi
  pids+=($!)
done
exec {tls_in}>"$W/bin-tls" {tls_out}<"$W/bout-tls" {ins_in}>"$W/bin-insecure" {ins_out}<"$W/bout-insecure"
declare -A in_fd=([tls]=$tls_in [insecure]=$ins_in) out_fd=([tls]=$tls_out [insecure]=$ins_out)
batch_blocks "$small" "$block" "$W/small" b4k "$W/berr" tls insecure >"$W/batch.raw"
awk -F'\t' '{ s = $4 / 1e3; printf "%s\tput\t4k-batch\t%d\t%.6f\t%.3f\n", $1, $2, s, 4096 / s / 1e6 }' \
  "$W/batch.raw" >>"$out/ops.tsv"
# each size once more per repetition on the kept connections: a put, then a
# get of it, timed by the client (no process start, no handshake), the
# two clusters alternating ("SIZE-kept")
batch_op() { # MODE REQUEST -> the request's ms, or exit
  echo "$2" >&"${in_fd[$1]}"
  local line=
  while read -r -t 600 line <&"${out_fd[$1]}"; do
    case $line in "done "*) break ;; esac
  done
  local ms=${line##*rc=0 ms=}
  [[ $line == "done "* && $ms =~ ^[0-9.]+$ ]] || { echo "secure_compare.sh: $1 '$2': '$line' $(cat "$W/berr-$1")" >&2; exit 1; }
  echo "$ms"
}
for rep in $(seq 1 "$reps"); do
  for s in $sizes; do
    b=$(bytes "$s")
    head -c "$b" /dev/urandom >"$W/kobj"
    order="tls insecure"; [ $((rep % 2)) = 0 ] && order="insecure tls"
    for mode in $order; do
      rm -f "$W/kback"
      pm=$(batch_op "$mode" "put $W/kobj k$s-$mode-$rep")
      gm=$(batch_op "$mode" "get k$s-$mode-$rep $W/kback")
      cmp -s "$W/kobj" "$W/kback" || { echo "secure_compare.sh: $mode k$s-$mode-$rep read back wrong on the kept connection" >&2; exit 1; }
      awk -v m="$mode" -v s="$s-kept" -v r="$rep" -v b="$b" -v pm="$pm" -v gm="$gm" 'BEGIN {
        printf "%s\tput\t%s\t%d\t%.6f\t%.2f\n", m, s, r, pm / 1e3, b / (pm / 1e3) / 1e6
        printf "%s\tget\t%s\t%d\t%.6f\t%.2f\n", m, s, r, gm / 1e3, b / (gm / 1e3) / 1e6 }' >>"$out/ops.tsv"
    done
  done
done
exec {tls_in}>&- {ins_in}>&- {tls_out}<&- {ins_out}<&-
# each daemon's kept connections to the others: a connection that is not
# reused costs a handshake with keys
printf 'mode\tnode\tkept\treused\tasked\taccepted\n' >"$out/pool.tsv"
for mode in tls insecure; do
  for i in 0 1 2 3 4 5; do
    ec "$mode" "$i" stat | sed -n "s/^peer connections kept \([0-9]*\), reused \([0-9]*\) of \([0-9]*\) asked for; connections accepted \([0-9]*\)\$/$mode\t$i\t\1\t\2\t\3\t\4/p" >>"$out/pool.tsv"
  done
done
python3 - "$out/ops.tsv" "$out/summary.tsv" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
mbps, wall = {}, {}
for mode, op, size, rep, w, m in rows:
    mbps.setdefault((op, size, mode), []).append(float(m))
    wall.setdefault((op, size, mode), []).append(float(w))
order = []
for mode, op, size, *_ in rows:
    if (op, size) not in order:
        order.append((op, size))
with open(sys.argv[2], "w") as f:
    f.write("op\tsize\tmedian_tls\tmedian_insecure\tratio_or_diff\tunit\n")
    for op, size in order:
        if size.startswith("4k"):
            t = 1e3 * statistics.median(wall[(op, size, "tls")])
            i = 1e3 * statistics.median(wall[(op, size, "insecure")])
            f.write("%s\t%s\t%.2f\t%.2f\t%+.2f\tp50 ms (difference)\n" % (op, size, t, i, t - i))
        else:
            t = statistics.median(mbps[(op, size, "tls")])
            i = statistics.median(mbps[(op, size, "insecure")])
            f.write("%s\t%s\t%.2f\t%.2f\t%.3f\tMB/s (ratio)\n" % (op, size, t, i, t / i))
PY
{ echo "date $(date -u +%FT%TZ)"; echo "uptime $(uptime)"; echo "nproc $(nproc)";
  echo "commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)";
  echo "reps $reps sizes $sizes small $small block $block"; } >"$out/env.txt"
if command -v gnuplot >/dev/null; then
  awk -F'\t' 'NR > 1 && $2 !~ /^4k/ { print $1 "-" $2, $3, $4 }' "$out/summary.tsv" >"$W/plot.dat"
  awk -F'\t' 'NR > 1 && $2 ~ /^4k/ { print $1 "-" $2 "-p50", $3, $4 }' "$out/summary.tsv" >"$W/lat.dat"
  gnuplot <<GP
set terminal pngcairo size 1000,450 font ",10"
set output "$out/security.png"
set multiplot layout 1,2 title "lincoll-ecd, 6 daemons RS(4,2) on 127.0.0.1: TLS 1.3-PSK against --insecure, same run, medians"
set style data histograms
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set yrange [0:*]
set key top left
set xtics rotate by -30
set ylabel "MB/s (10^6 bytes, median of $reps)"
plot "$W/plot.dat" using 2:xtic(1) title "TLS 1.3-PSK (keys)", "" using 3 title "--insecure (anchor)"
set ylabel "ms (median of $small)"
plot "$W/lat.dat" using 2:xtic(1) title "TLS 1.3-PSK (keys)", "" using 3 title "--insecure (anchor)"
unset multiplot
GP
fi
cat "$out/summary.tsv"
