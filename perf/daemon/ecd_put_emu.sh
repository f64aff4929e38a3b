#!/usr/bin/env bash
# perf/daemon/ecd_put_emu.sh: put and get throughput of lincoll-ecd on the
# emulated cluster, against the limit of its links.
#
#   perf/daemon/ecd_put_emu.sh [-b BIN_DIR] [-o OUT_DIR] [-s "1m 16m 64m 256m"]
#                              [-r REPS] [--rate 1gbit] [--burst 256kb] [--stripe BYTES]
#                              [--tls] [--quick]
#
# The cluster: deploy/emucluster/emucluster.sh with 7 hosts (network
# namespaces on one bridge, every link shaped by tc tbf at --rate in both
# directions, no netem).  Hosts 1..6 run one lincoll-ecd each (nodes 0..5,
# RS(4,2)); host 7 runs no daemon and holds the client, lincoll-ec, so that
# the upload crosses a shaped link as it does from a client machine (a
# client on the coordinator's host would upload over loopback, which is not
# shaped, and the put would not be measured against the link at all).
# Every request goes to node 0, the coordinator.
#
# Each repetition, for each size S (interleaved, same run):
#   tcp  the anchor: one plain TCP stream of S bytes from host 7 to host 1
#        (python3, the same path as the upload), timed until host 1 has
#        read the last byte;
#   put  lincoll-ec put of a random object of S bytes (host 7 -> node 0),
#        timed until the client has the daemon's reply (the object is
#        committed on every node);
#   get  lincoll-ec get of it back, sha256 checked by the client (and
#        compared here with the original's).
# Around every operation: the CPU time of every daemon (utime + stime of
# /proc/PID/stat, all threads) and of the client (getrusage of the child),
# the busy share of the machine's CPUs (/proc/stat), and the bytes every
# host link carried in each direction (the root namespace's ends of the
# veth pairs: rx = what the host sent, tx = what it received, L2 bytes, as
# tbf counts them).  The busiest link direction over the rate is the
# operation's lower bound on the wire ("wire bound"): what this protocol's
# traffic, headers included, needs at least on these links.
#
# The link limit of a put (limit_MBps): the most object bytes per second the
# layout lets through links of --rate, computed from the bytes of one object
# of S bytes that each link direction must carry (payload only):
#   client out, coordinator in      S          (the upload)
#   coordinator out                 k * S/k    (the k data pieces; the
#                                   coordinator holds a parity row, which it
#                                   computes itself: nothing of the encode
#                                   crosses its link)
#   a data row's node in / out      S/k / (m-1) * S/k (its contribution to
#                                   every other parity row)
#   the other parity rows' nodes in k * S/k    (one contribution per data row)
# The busiest direction carries f * S with f = max(1, 1, (m-1)/k, 1) = 1 for
# RS(4,2), so limit = rate / f = the link rate (125 MB/s at 1gbit), and
# limit_ratio = MBps / limit.  It counts payload only: TCP/IP and Ethernet
# headers take about 4% of a tbf-shaped link (1448 payload bytes per
# 1514-byte frame), which the tcp anchor shows; a put at 0.8 of the limit
# uses about 0.84 of what one TCP stream gets through the same link.
#
# Output in OUT_DIR (default docs/perf/$(date +%F)-daemon):
#   ops.csv      one row per operation and repetition:
#                op,size,rep,wall_s,MBps,raw_ratio,anchor_ratio,wire_bound_s,
#                wire_ratio,busiest,cpu_client,cpu_n0..cpu_n5,cpu_machine,ok,
#                t_setup,t_upload,t_distribute,t_encode,t_fsync,t_commit,
#                limit_MBps,limit_ratio,drops,retrans
#                MB = 10^6 bytes; raw_ratio = MBps / (rate / 8); anchor_ratio
#                = wall of the same repetition's tcp / wall; wire_ratio =
#                wire_bound_s / wall_s; cpu_* in cores (1.0 = one core busy
#                for the whole operation; cpu_machine: of the machine's
#                cores, busy share 0..1); ok = 1 when the operation succeeded
#                (get: sha256 equal); t_* = when each phase of a put ended,
#                seconds after the coordinator read the request line (its log
#                line "put NAME timing ..."; the phases overlap): setup = the
#                members told their rows and the data streams open (the
#                upload's reading starts; the group forms meanwhile);
#                upload = the upload's last byte read;
#                distribute = the last data piece sent; encode = every node
#                through the last stripe's collective; fsync = every node's
#                chunk durable (READY); commit = every node committed;
#                limit_MBps, limit_ratio: the layout's link limit (above) and
#                MBps over it (put only; empty for tcp and get); drops =
#                packets the links' tbf qdiscs dropped (both ends), retrans =
#                TCP segments the hosts retransmitted, during the operation.
#   summary.csv  medians per (op, size), same columns.
#   summary.md   the markdown table; put.png (gnuplot, when installed).
#   logs/        the daemons' and emucluster's logs.
# --tls: a second cluster of 6 daemons with keys (TLS 1.3 with pre-shared
# keys, docs/daemon.md "Security") runs on the same hosts beside the
# plaintext one (--insecure), and its client holds an exported write key.
# Each repetition then adds put-tls and get-tls after put and get (same
# sizes, same links, interleaved); summary.md gains a table of TLS over
# plaintext: MB/s ratio, and each side's CPU in cores.  Without --tls only
# the plaintext cluster runs, as before.
# --quick: sizes 64k and 1m, 2 repetitions (a smoke run: does it work).
# Exit 77 (SKIP, reason on stderr) only when network namespaces are not
# permitted here; everything started is torn down on exit and on failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/bin
out=
sizes="1m 16m 64m 256m"
reps=5
rate=1gbit
burst=256kb
stripe=0
tls=
while [ $# -gt 0 ]; do
  case $1 in
    -b) bin=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --burst) burst=$2; shift 2 ;;
    --stripe) stripe=$2; shift 2 ;;
    --tls) tls=1; shift ;;
    --quick) sizes="64k 1m"; reps=2; shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ecd_put_emu: unknown argument '$1' (-h for usage)" >&2; exit 2 ;;
  esac
done
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ -n "$out" ] || out=$top/docs/perf/$(date +%F)-daemon
case $out in /*) ;; *) out=$PWD/$out ;; esac
emu=$top/deploy/emucluster/emucluster.sh
for p in lincoll-ecd lincoll-ec ${tls:+lincoll-ec-auth}; do
  [ -x "$bin/$p" ] || { echo "ecd_put_emu: $bin/$p not found (build first: deploy/build.sh)" >&2; exit 1; }
done
case $reps in '' | *[!0-9]* | 0) echo "ecd_put_emu: -r $reps: expected a positive count" >&2; exit 2 ;; esac
to_bytes() { # 64k, 16m, 1g, 1000 -> bytes; empty on bad input
  case $1 in
    *[kK]) n=${1%?} m=1024 ;; *[mM]) n=${1%?} m=1048576 ;; *[gG]) n=${1%?} m=1073741824 ;; *) n=$1 m=1 ;;
  esac
  case $n in '' | *[!0-9]*) echo ""; return ;; esac
  echo $((n * m))
}
bytes_list=
for s in $sizes; do
  b=$(to_bytes "$s")
  [ -n "$b" ] && [ "$b" -gt 0 ] || { echo "ecd_put_emu: size '$s': expected N, Nk, Nm or Ng" >&2; exit 2; }
  bytes_list="$bytes_list $b"
done
rate_Bps=$(python3 -c "
s='$rate'.lower()
for suf, m in (('gbit', 1e9), ('mbit', 1e6), ('kbit', 1e3), ('bit', 1)):
    if s.endswith(suf): print(float(s[:-len(suf)]) * m / 8); break
else: print('')")
[ -n "$rate_Bps" ] || { echo "ecd_put_emu: --rate $rate: expected Ngbit, Nmbit or Nkbit" >&2; exit 2; }

if ! reason=$("$emu" --check 2>&1); then
  rc=$?
  [ "$rc" = 77 ] && { echo "SKIP: $reason" >&2; exit 77; }
  echo "ecd_put_emu: emucluster --check failed: $reason" >&2
  exit 1
fi

W=$(mktemp -d /tmp/ecd_put_emu.XXXXXX)
emupid=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [ -n "$emupid" ]; then
    kill -TERM "$emupid" 2>/dev/null   # emucluster tears its namespaces down
    wait "$emupid" 2>/dev/null
  fi
  if [ -d "$out" ] && [ -d "$W" ]; then
    mkdir -p "$out/logs"
    cp "$W"/log* "$out/logs/" 2>/dev/null
  fi
  rm -rf "$W"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
fail() { echo "ecd_put_emu: FAIL: $*" >&2; for f in "$W"/log*; do [ -e "$f" ] && { echo "--- $f" >&2; tail -8 "$f" >&2; }; done; exit 1; }
mkdir -p "$out" "$W/in" "$W/out"
rm -f "$out/ops.csv" "$out/summary.csv" "$out/summary.md" "$out/put.png"
rm -rf "$out/logs"

# ---- the cluster: 6 daemons on hosts 1..6, host 7 for the client -----------------
# (with --tls, a second daemon with keys on each of hosts 1..6: port file pt*,
# log logt*; it dies with the plaintext daemon, its parent after the exec)
if [ -n "$tls" ]; then
  "$bin/lincoll-ec-auth" create --keyring "$W/keyring" --id cluster >/dev/null || fail "keyring"
  "$bin/lincoll-ec-auth" create --keyring "$W/keyring" --id bench --caps write >/dev/null || fail "client key"
  "$bin/lincoll-ec-auth" export --keyring "$W/keyring" --id bench --out "$W/bench.keyring" >/dev/null || fail "export"
fi
cat >"$W/node.sh" <<EOS
#!/bin/sh
echo \$\$ > "$W/pid\$EMU_RANK"
if [ "\$EMU_RANK" -ge 6 ]; then
  # host 7: the client's, no daemon
  touch "$W/p\$EMU_RANK"
  exec sleep 100000
fi
if [ -n "$tls" ]; then
  "$bin/lincoll-ecd" --keyring "$W/keyring" --node "\$EMU_RANK" --dir "$W/dt\$EMU_RANK" --cluster "$W/clustert" \\
      --listen 0.0.0.0:0 --port-file "$W/pt\$EMU_RANK" --timeout 20 --stripe $stripe --die-with-parent \\
      >>"$W/logt\$EMU_RANK" 2>&1 &
  echo \$! > "$W/pidt\$EMU_RANK"
fi
exec "$bin/lincoll-ecd" --insecure --node "\$EMU_RANK" --dir "$W/d\$EMU_RANK" --cluster "$W/cluster" \\
    --listen 0.0.0.0:0 --port-file "$W/p\$EMU_RANK" --timeout 20 --stripe $stripe >>"$W/log\$EMU_RANK" 2>&1
EOS
chmod +x "$W/node.sh"
cat >"$W/tcp.py" <<'PY'
# sink PORTFILE: accept connections, read each to EOF, answer its byte count.
# src HOST PORT BYTES: send BYTES, wait for the count; print the seconds.
import os, socket, sys, threading, time
def serve(c):
    n, buf = 0, bytearray(1 << 20)
    while True:
        r = c.recv_into(buf)
        if r == 0: break
        n += r
    c.sendall(b"%d\n" % n)
    c.close()
if sys.argv[1] == "sink":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 0))
    s.listen(16)
    open(sys.argv[2] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()
else:
    host, port, left = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    buf = os.urandom(1 << 20)
    t0 = time.perf_counter()
    s = socket.create_connection((host, port))
    total = left
    while left > 0:
        k = min(left, len(buf))
        s.sendall(buf[:k])
        left -= k
    s.shutdown(socket.SHUT_WR)
    got = s.makefile().readline().strip()
    t = time.perf_counter() - t0
    if got != str(total): sys.exit("tcp anchor: the sink read %s of %d bytes" % (got, total))
    print("%.6f" % t)
PY
cat >"$W/run.py" <<'PY'
# run.py CMD...: run it; print "wall_s cpu_s rc" (cpu: the child's utime + stime;
# the difference of RUSAGE_CHILDREN around it: the interpreter's start may
# already have waited for children of its own)
import resource, subprocess, sys, time
def cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime
c0 = cpu()
t0 = time.perf_counter()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
t = time.perf_counter() - t0
print("%.6f %.6f %d" % (t, cpu() - c0, rc))
PY

"$emu" -H 7 -n 1 -r "$rate" -b "$burst" --timeout 100000 -- "$W/node.sh" >"$W/log.emu" 2>&1 &
emupid=$!
for i in 0 1 2 3 4 5 6; do
  for _ in $(seq 1 300); do [ -e "$W/p$i" ] && [ -s "$W/pid$i" ] && break; sleep 0.1; done
  [ -e "$W/p$i" ] || fail "host $((i + 1)) did not come up"
  if [ -n "$tls" ] && [ "$i" -lt 6 ]; then
    for _ in $(seq 1 300); do [ -s "$W/pt$i" ] && [ -s "$W/pidt$i" ] && break; sleep 0.1; done
    [ -s "$W/pt$i" ] || fail "host $((i + 1)): the daemon with keys did not come up"
  fi
done
S=$(sed -n 's/.*, 10\.213\.\([0-9]*\)\.0\/24,.*/\1/p' "$W/log.emu" | head -1)
NSP=$(sed -n 's/.*namespaces \(lcemu[0-9]*h\)1\.\..*/\1/p' "$W/log.emu" | head -1)
[ -n "$S" ] && [ -n "$NSP" ] || fail "no subnet or namespace prefix in the emucluster banner"
ID=${NSP#lcemu}; ID=${ID%h}
ip_of() { echo "10.213.$S.$(($1 + 1))"; }
K=4 M=2 # the code of the cluster file (the link limit's k and m)
{ echo "code $K $M"; for i in 0 1 2 3 4 5; do echo "node $i $(ip_of $i):$(cat "$W/p$i")"; done; } >"$W/cluster"
[ -z "$tls" ] || { echo "code $K $M"; for i in 0 1 2 3 4 5; do echo "node $i $(ip_of $i):$(cat "$W/pt$i")"; done; } >"$W/clustert"
ip netns exec "${NSP}1" python3 "$W/tcp.py" sink "$W/sinkport" >>"$W/log.sink" 2>&1 &
for _ in $(seq 1 100); do [ -s "$W/sinkport" ] && break; sleep 0.1; done
[ -s "$W/sinkport" ] || fail "the anchor's TCP sink did not start"
client_ns=${NSP}7
ec() { ip netns exec "$client_ns" python3 "$W/run.py" "$bin/lincoll-ec" --insecure -s "$(ip_of 0):$(cat "$W/p0")" -t 120 "$@"; }
ect() { ip netns exec "$client_ns" python3 "$W/run.py" "$bin/lincoll-ec" --keyring "$W/bench.keyring" -s "$(ip_of 0):$(cat "$W/pt0")" -t 120 "$@"; }
st=$(ip netns exec "$client_ns" "$bin/lincoll-ec" --insecure -s "$(ip_of 0):$(cat "$W/p0")" stat) || fail "stat: $st"
[ "$(echo "$st" | grep -c ' up objects')" = 6 ] || fail "not every daemon answers: $st"
if [ -n "$tls" ]; then
  st=$(ip netns exec "$client_ns" "$bin/lincoll-ec" --keyring "$W/bench.keyring" -s "$(ip_of 0):$(cat "$W/pt0")" stat) || fail "stat (tls): $st"
  [ "$(echo "$st" | grep -c ' up objects')" = 6 ] || fail "not every daemon with keys answers: $st"
  echo "$st" | grep -q '^security tls1.3-psk' || fail "the cluster with keys is not in TLS: $st"
fi
echo "ecd_put_emu: 7 hosts, links $rate burst $burst (10.213.$S.0/24); daemons on hosts 1-6, client on host 7; sizes$bytes_list; $reps reps" >&2

# ---- measurements -------------------------------------------------------------------
dpids_plain=() dpids_tls=()
for i in 0 1 2 3 4 5; do
  dpids_plain+=("$(cat "$W/pid$i")")
  [ -z "$tls" ] || dpids_tls+=("$(cat "$W/pidt$i")")
done
dpids=("${dpids_plain[@]}") # the daemons whose CPU snap() reads: the cluster measured
ticks=$(getconf CLK_TCK)
ncpu=$(nproc)
cpu_of() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
snap() { # daemon ticks, machine busy/total jiffies, link bytes (h1 tx rx .. h7 tx rx),
  # packets every tbf dropped (both ends of every link), TCP segments every host retransmitted
  local s="" drops=0 retrans=0 n
  for p in "${dpids[@]}"; do s="$s $(cpu_of "$p")"; done
  s="$s $(awk '/^cpu / {b = $2 + $3 + $4 + $7 + $8; t = b + $5 + $6; print b, t}' /proc/stat)"
  for h in 1 2 3 4 5 6 7; do
    d=/sys/class/net/lcv${ID}h$h/statistics
    s="$s $(cat "$d/rx_bytes") $(cat "$d/tx_bytes")"   # host's egress, ingress
    n=$(tc -s qdisc show dev "lcv${ID}h$h" 2>/dev/null | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -1)
    drops=$((drops + ${n:-0}))
    n=$(ip netns exec "${NSP}$h" tc -s qdisc show dev emu0 2>/dev/null | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -1)
    drops=$((drops + ${n:-0}))
    n=$(ip netns exec "${NSP}$h" awk '/^Tcp:/ && $13 ~ /^[0-9]+$/ {print $13}' /proc/net/snmp)
    retrans=$((retrans + ${n:-0}))
  done
  echo "$s $drops $retrans"
}
timing_of() { # the coordinator's phase times of the put of $1 (empty fields if absent); $2: its log
  sed -n "s/.*put $1 timing setup \([0-9.]*\) upload \([0-9.]*\) distribute \([0-9.]*\) encode \([0-9.]*\) fsync \([0-9.]*\) commit \([0-9.]*\).*/\1,\2,\3,\4,\5,\6/p" "${2:-$W/log0}" | tail -1
}
echo "op,size,rep,wall_s,MBps,raw_ratio,anchor_ratio,wire_bound_s,wire_ratio,busiest,cpu_client,cpu_n0,cpu_n1,cpu_n2,cpu_n3,cpu_n4,cpu_n5,cpu_machine,ok,t_setup,t_upload,t_distribute,t_encode,t_fsync,t_commit,limit_MBps,limit_ratio,drops,retrans" >"$out/ops.csv"
row() { # op size rep wall cpu_client ok before after anchor_wall timing
  python3 - "$@" "$rate_Bps" "$ticks" "$ncpu" "$K" "$M" <<'PY' >>"$out/ops.csv"
import sys
op, size, rep, wall, cpuc, ok, before, after, anchor, timing, Bps, ticks, ncpu, k, m = sys.argv[1:]
k, m = int(k), int(m)
size, wall, Bps, ticks, ncpu = int(size), float(wall), float(Bps), float(ticks), int(ncpu)
b = [float(x) for x in before.split()]
a = [float(x) for x in after.split()]
d = [y - x for x, y in zip(b, a)]
cpu = ["%.3f" % (d[i] / ticks / wall) for i in range(6)]
busy, total = d[6], d[7]
machine = "%.3f" % (busy / total) if total > 0 else "nan"
links = d[8:22]
drops, retrans = int(d[22]), int(d[23])
worst, name = 0.0, ""
for h in range(7):
    for j, dirn in ((0, "out"), (1, "in")):
        if links[2 * h + j] > worst:
            worst, name = links[2 * h + j], "h%d-%s" % (h + 1, dirn)
bound = worst / Bps
MBps = size / wall / 1e6
anchor_ratio = "%.3f" % (float(anchor) / wall) if anchor not in ("", "nan") else "nan"
t = timing if timing else ",,,,,"
# the layout's link limit of a put (the script's header): the busiest link
# direction carries f * S payload bytes per object of S bytes
f = max(1.0, 1.0, (m - 1) / k, 1.0)
limit = "%.2f,%.3f" % (Bps / f / 1e6, MBps / (Bps / f / 1e6)) if op.startswith("put") else ","
print("%s,%d,%s,%.6f,%.2f,%.3f,%s,%.6f,%.3f,%s,%.3f,%s,%s,%s,%s,%s,%d,%d" % (
    op, size, rep, wall, MBps, size / wall / Bps, anchor_ratio, bound, bound / wall, name,
    float(cpuc) / wall, ",".join(cpu), machine, ok, t, limit, drops, retrans))
PY
}
putget() { # CLIENT SUFFIX LOG: a put of $b bytes as $name, then a get of it back
  # (ops put$SUFFIX, get$SUFFIX; LOG: the coordinator's, for the phase times)
  local client=$1 sfx=$2 log=$3 wall cpuc rc ok s0 s1
  s0=$(snap)
  read -r wall cpuc rc < <($client put "$W/in/o$b" "$name")
  s1=$(snap)
  [ "$rc" = 0 ] || fail "put$sfx $name (exit $rc)"
  row "put$sfx" "$b" "$rep" "$wall" "$cpuc" 1 "$s0" "$s1" "$t" "$(timing_of "$name" "$log")"
  s0=$(snap)
  read -r wall cpuc rc < <($client get "$name" "$W/out/x")
  s1=$(snap)
  [ "$rc" = 0 ] || fail "get$sfx $name (exit $rc)"
  ok=0
  [ "$(sha256sum <"$W/out/x" | cut -d' ' -f1)" = "$(sha256sum <"$W/in/o$b" | cut -d' ' -f1)" ] && ok=1
  [ "$ok" = 1 ] || fail "get$sfx $name: the data differs from what was put"
  rm -f "$W/out/x"
  row "get$sfx" "$b" "$rep" "$wall" "$cpuc" "$ok" "$s0" "$s1" "$t" ""
}
anchor_port=$(cat "$W/sinkport")
for b in $bytes_list; do head -c "$b" /dev/urandom >"$W/in/o$b"; done
nops=3; [ -z "$tls" ] || nops=5 # rows per repetition and size
for rep in $(seq 1 "$reps"); do
  for b in $bytes_list; do
    name=o${b}_r$rep
    # anchor: a plain TCP stream over the same link pair
    s0=$(snap)
    t=$(ip netns exec "$client_ns" python3 "$W/tcp.py" src "$(ip_of 0)" "$anchor_port" "$b") || fail "tcp anchor ($b bytes)"
    s1=$(snap)
    row tcp "$b" "$rep" "$t" 0 1 "$s0" "$s1" "$t" ""
    dpids=("${dpids_plain[@]}")
    putget ec "" "$W/log0"
    if [ -n "$tls" ]; then
      dpids=("${dpids_tls[@]}")
      putget ect -tls "$W/logt0"
      dpids=("${dpids_plain[@]}")
    fi
    echo "ecd_put_emu: rep $rep size $b: $(tail -n "$nops" "$out/ops.csv" | cut -d, -f1,5,6,9 | tr '\n' ' ')" >&2
  done
done

# ---- summary: medians per (op, size) ----------------------------------------------------
python3 - "$out/ops.csv" "$out/summary.csv" "$out/summary.md" "$rate" "$reps" <<'PY'
import csv, statistics, sys
src, dst, md, rate, reps = sys.argv[1:]
rows = list(csv.DictReader(open(src)))
cols = list(rows[0].keys())
num = [c for c in cols if c not in ("op", "size", "rep", "busiest")]
groups = {}
for r in rows:
    groups.setdefault((r["op"], int(r["size"])), []).append(r)
order = {"tcp": 0, "put": 1, "get": 2, "put-tls": 3, "get-tls": 4}
out = []
for (op, size), rs in sorted(groups.items(), key=lambda g: (g[0][1], order.get(g[0][0], 9))):
    o = {"op": op, "size": size, "rep": len(rs)}
    for c in num:
        v = [float(r[c]) for r in rs if r[c] not in ("", "nan")]
        o[c] = "%.4g" % statistics.median(v) if v else ""
    bus = [r["busiest"] for r in rs]
    o["busiest"] = max(set(bus), key=bus.count)
    out.append(o)
w = csv.DictWriter(open(dst, "w"), fieldnames=cols)
w.writeheader()
for o in out:
    w.writerow(o)
def human(b):
    for u, m in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= m and b % m == 0: return "%d %s" % (b // m, u)
    return "%d B" % b
with open(md, "w") as f:
    f.write("Links %s (tbf, each direction); medians of %s repetitions; MB = 10^6 bytes. "
            "limit = MB/s over the layout's link limit (puts: the busiest link direction "
            "carries the object's size once, so the limit is the link rate); "
            "raw = MB/s over the link rate; tcp = the same repetition's plain TCP stream "
            "time over the operation's; wire = the busiest link direction's bytes over the "
            "rate, over the time (1 = that link never idle); CPU in cores "
            "(client, coordinator n0, the busiest other daemon), machine = busy share of "
            "all its cores; tbf drops and TCP retransmitted segments: all links and hosts, during the operation.\n\n" % (rate, reps))
    f.write("| op | size | time (s) | MB/s | / link limit | / raw link | / tcp anchor | wire bound (s) | / wire bound | busiest link | CPU client | CPU n0 | CPU other max | machine busy | tbf drops | TCP retrans |\n")
    f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n")
    for o in out:
        others = max(float(o["cpu_n%d" % i] or 0) for i in range(1, 6))
        f.write("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3g | %s | %s | %s |\n" % (
            o["op"], human(o["size"]), o["wall_s"], o["MBps"], o["limit_ratio"] or "-",
            o["raw_ratio"],
            o["anchor_ratio"] if o["op"] != "tcp" else "1", o["wire_bound_s"], o["wire_ratio"],
            o["busiest"], o["cpu_client"] if o["op"] != "tcp" else "-", o["cpu_n0"], others,
            o["cpu_machine"], o["drops"], o["retrans"]))
    ph = [o for o in out if o["op"] in ("put", "put-tls") and o["t_upload"]]
    if ph:
        f.write("\nWhen each phase of a put ended, seconds after the coordinator read the "
                "request line (medians; the phases overlap): setup = members told and data "
                "streams open (the upload's reading starts; the group forms meanwhile), upload = last upload byte read, distribute = last data "
                "piece sent, encode = every node through the last stripe's collective, "
                "fsync = every node's chunk durable, commit = every node committed; "
                "client = the client's whole put.\n\n")
        f.write("| op | size | setup | upload | distribute | encode | fsync | commit | client |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for o in ph:
            f.write("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (o["op"], human(o["size"]), o["t_setup"], o["t_upload"], o["t_distribute"], o["t_encode"], o["t_fsync"], o["t_commit"], o["wall_s"]))
    # --tls: each repetition's TLS operation over its plaintext twin (same
    # repetition, same size), then the median of those ratios
    tl = sorted({int(r["size"]) for r in rows if r["op"] == "put-tls"})
    if tl:
        by = {(r["op"], int(r["size"]), r["rep"]): r for r in rows}
        def dcpu(r):  # core-seconds of all six daemons during the operation
            return sum(float(r["cpu_n%d" % i]) for i in range(6)) * float(r["wall_s"])
        f.write("\nTLS 1.3 with pre-shared keys (`put-tls`, `get-tls`) over plaintext "
                "(`--insecure`; `put`, `get`), the same repetition's pair, median over the "
                "repetitions. MB/s ratio = TLS MB/s over plaintext MB/s (1 = no cost); "
                "daemon CPU = core-seconds of the six daemons during the operation, medians, "
                "and their ratio; client CPU likewise for lincoll-ec.\n\n")
        f.write("| op | size | MB/s TLS | MB/s plaintext | MB/s ratio | daemon CPU TLS (s) | daemon CPU plaintext (s) | CPU ratio | client CPU TLS (s) | client CPU plaintext (s) |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for size in tl:
            for op in ("put", "get"):
                pairs = [(by[(op + "-tls", size, r)], by[(op, size, r)])
                         for (o, sz, r) in by if o == op + "-tls" and sz == size and (op, size, r) in by]
                if not pairs:
                    continue
                med = statistics.median
                ratio = med(float(t["MBps"]) / float(p["MBps"]) for t, p in pairs)
                ct, cp = med(dcpu(t) for t, p in pairs), med(dcpu(p) for t, p in pairs)
                kt = med(float(t["cpu_client"]) * float(t["wall_s"]) for t, p in pairs)
                kp = med(float(p["cpu_client"]) * float(p["wall_s"]) for t, p in pairs)
                f.write("| %s | %s | %.4g | %.4g | %.3f | %.3g | %.3g | %.2f | %.3g | %.3g |\n" % (
                    op, human(size), med(float(t["MBps"]) for t, p in pairs),
                    med(float(p["MBps"]) for t, p in pairs), ratio, ct, cp,
                    ct / cp if cp > 0 else float("nan"), kt, kp))
PY
[ -s "$out/summary.md" ] || fail "no summary"
if command -v gnuplot >/dev/null 2>&1; then
  gnuplot -e "in='$out/summary.csv'; out='$out/put.png'; rate='$rate'; Bps=$rate_Bps; tls=${tls:-0}" "$top/perf/plot/ecd_put.gp" 2>"$W/log.gnuplot" ||
    echo "ecd_put_emu: gnuplot failed: $(cat "$W/log.gnuplot")" >&2
else
  echo "ecd_put_emu: gnuplot not installed: no put.png (deploy/install-deps.sh installs it)" >&2
fi
cat "$out/summary.md"
# the figure the goal is stated in: the largest put against its link limit
awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i}
  NR > 1 && $1 == "put" {s = $2; l = $c["limit_MBps"]; r = $c["limit_ratio"]; mb = $c["MBps"]}
  END {if (s) printf "ecd_put_emu: put of %d bytes: %s MB/s = %s of the link limit %s MB/s (median)\n", s, mb, r, l}' \
  "$out/summary.csv" >&2
echo "ecd_put_emu: wrote $out/{ops.csv,summary.csv,summary.md,put.png}" >&2
