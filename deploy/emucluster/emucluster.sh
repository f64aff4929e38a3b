#!/usr/bin/env bash
# deploy/emucluster/emucluster.sh: an emulated multi-host cluster on one
# machine, and a lincoll job across it.
#
# Each "host" is a network namespace with its own UTS hostname, one veth
# link to a private bridge, and an address 10.213.S.h/24 (S picked free per
# run, h = host number).  With -L p every host has p links instead: link l
# (0-based) is a veth pair emu<l> on bridge l with the address
# 10.(213+l).S.h/24, one subnet per link so that traffic to a peer's link-l
# address leaves through the host's own link l.  Both directions of every
# link are shaped with `tc tbf` (rate, burst); netem is not used.  Ranks
# start inside the namespaces over UCX tcp (UCX_TLS=tcp,self,
# UCX_NET_DEVICES=emu0) with the TCP store bootstrap served by rank 0 at
# 10.213.S.1 (host 1); with p > 1 links they also get
# LINCOLL_UCX_LANES=emu0,..,emu<p-1> (one UCX lane per link) unless the
# environment sets LINCOLL_UCX_LANES (even to ""), so a run can keep one
# lane on a p-link cluster.  Everything is torn down on exit, on failure and
# on SIGINT/SIGTERM (trap).  Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) for
# ip netns and unshare --uts.
#
#   emucluster.sh [-H hosts] [-n ranks-per-host] [-L links] [-r rate] [-b burst]
#                 [--mtu bytes] [--queue ms] [--sysctl key=value]... [--map block|cyclic]
#                 [--timeout s] [--tls list] [--keep] [--check] [--] prog args...
#
#   -H 4               hosts (namespaces), 1..200                (default 2)
#   -n 2               ranks per host                            (default 1)
#   -L 2               links per host, 1..8: p veth pairs on p bridges, one
#                      address each, each shaped alike           (default 1)
#   -r 1gbit           tbf rate of every link, each direction    (default 1gbit)
#                      ("none" = no shaping)
#   -b 256kb           tbf burst (bucket size)                   (default 256kb)
#   --mtu 9000         MTU of every link (fewer packets per byte for the
#                      kernel to switch)                        (default: the veth's, 1500)
#   --queue 100ms      tbf latency: the longest a packet may wait in a link's
#                      queue (the queue holds rate x this)  (default 100ms)
#   --sysctl k=v       set a per-namespace sysctl in every host, e.g.
#                      net.ipv4.tcp_slow_start_after_idle=0 (repeatable)
#   --map block        rank r on host r/n (block) or r%H (cyclic)  (default block)
#   --timeout 300      kill the job after this many seconds      (default 300)
#   --tls tcp,self     UCX_TLS inside the hosts                  (default tcp,self)
#   --check            only check that namespaces can be made: exit 0, or 77
#                      with the reason on stderr
#   --keep             do not tear down (debugging; prints the names)
#
# Output lines are prefixed "[rank@host]".  Exit status: 0 if every rank
# exited 0, else the first non-zero status (124 on timeout); 77 when network
# namespaces are not permitted here.
set -uo pipefail

SYSCTLS=() QUEUE=100ms
H=2 N=1 L=1 RATE=1gbit BURST=256kb MTU= MAP=block TIMEOUT=300 TLS=tcp,self KEEP=0 CHECK=0
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    -H) H=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    -L) L=$2; shift 2 ;;
    --mtu) MTU=$2; shift 2 ;;
    --sysctl) SYSCTLS+=("$2"); shift 2 ;;
    --queue) QUEUE=$2; shift 2 ;;
    -r) RATE=$2; shift 2 ;;
    -b) BURST=$2; shift 2 ;;
    --map) MAP=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --tls) TLS=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --check) CHECK=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    -*) echo "emucluster: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) break ;;
  esac
done
case "$H" in ''|*[!0-9]*) echo "emucluster: -H $H: expected 1..200" >&2; exit 2 ;; esac
case "$N" in ''|*[!0-9]*) echo "emucluster: -n $N: expected 1..64" >&2; exit 2 ;; esac
if [ "$H" -lt 1 ] || [ "$H" -gt 200 ] || [ "$N" -lt 1 ] || [ "$N" -gt 64 ]; then
  echo "emucluster: -H $H -n $N: hosts must be 1..200 and ranks per host 1..64" >&2; exit 2
fi
case "$L" in [1-8]) ;; *) echo "emucluster: -L $L: expected 1..8 links per host" >&2; exit 2 ;; esac
case "$MTU" in ''|[0-9]*) ;; *) echo "emucluster: --mtu $MTU: expected a number of bytes" >&2; exit 2 ;; esac
case "$MAP" in block|cyclic) ;; *) echo "emucluster: --map $MAP: expected block or cyclic" >&2; exit 2 ;; esac
if [ "$CHECK" = 0 ] && [ $# -lt 1 ]; then
  echo "emucluster: no program given" >&2; usage >&2; exit 2
fi
for tool in ip tc unshare timeout; do
  command -v "$tool" >/dev/null 2>&1 || { echo "emucluster: SKIP: '$tool' not found" >&2; exit 77; }
done

# ---- can we make namespaces at all? ---------------------------------------
ID=$(( ($$ % 90000) + 10000 ))
probe=lcemu${ID}p
if ! err=$(ip netns add "$probe" 2>&1); then
  echo "emucluster: SKIP: ip netns is not permitted here: $err" >&2
  exit 77
fi
ip netns del "$probe" 2>/dev/null
if ! err=$(unshare --uts true 2>&1); then
  echo "emucluster: SKIP: unshare --uts is not permitted here: $err" >&2
  exit 77
fi
[ "$CHECK" = 1 ] && exit 0

# ---- names, a free /24 of 10.213.0.0/16 -------------------------------------
NSP=lcemu${ID}h          # namespaces lcemu12345h1 ..
BR=lcb${ID}              # bridge
LOCKDIR=
for try in $(seq 0 253); do
  S=$(( (ID + try) % 254 + 1 ))
  if mkdir "/tmp/lincoll-emucluster.10.213.$S.lock" 2>/dev/null; then
    taken=0 addrs=$(ip -4 addr show 2>/dev/null)
    for l in $(seq 0 $((L - 1))); do
      grep -q "10\.$((213 + l))\.$S\." <<<"$addrs" && taken=1
    done
    if [ "$taken" = 1 ]; then
      rmdir "/tmp/lincoll-emucluster.10.213.$S.lock"; continue
    fi
    LOCKDIR=/tmp/lincoll-emucluster.10.213.$S.lock
    echo $$ > "$LOCKDIR/pid"
    break
  fi
done
[ -n "$LOCKDIR" ] || { echo "emucluster: no free 10.213.S.0/24 (locks in /tmp)" >&2; exit 1; }

PIDS=()
teardown() {
  local rc=$?
  trap - EXIT INT TERM HUP
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  if [ "$KEEP" = 1 ]; then
    echo "emucluster: --keep: namespaces ${NSP}1..${NSP}$H, bridge $BR, lock $LOCKDIR left in place" >&2
    exit $rc
  fi
  sleep 0.2
  for h in $(seq 1 "$H"); do
    ns=${NSP}$h
    grep -q "^$ns\b" <<<"$(ip netns list 2>/dev/null)" || continue
    # processes left inside our own namespace (ranks we started)
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
  done
  ip link del "$BR" 2>/dev/null
  for l in $(seq 1 $((L - 1))); do ip link del "${BR}l$l" 2>/dev/null; done
  rm -rf "$LOCKDIR"
  exit $rc
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

die() { echo "emucluster: $*" >&2; exit 1; }

shape() { # shape <ns or ""> <dev>
  [ "$RATE" = none ] && return 0
  local cmd=(tc qdisc replace dev "$2" root tbf rate "$RATE" burst "$BURST" latency "$QUEUE")
  if [ -n "$1" ]; then ip netns exec "$1" "${cmd[@]}"; else "${cmd[@]}"; fi
}

# link l: bridge $BR (l = 0) or ${BR}l<l>, veth lcv<ID>h<h> (l = 0) or
# lcv<ID>h<h>l<l> to emu<l> inside host h, address 10.(213+l).S.h/24
br_of() { if [ "$1" = 0 ]; then echo "$BR"; else echo "${BR}l$1"; fi; }
veth_of() { if [ "$2" = 0 ]; then echo "lcv${ID}h$1"; else echo "lcv${ID}h$1l$2"; fi; }
for l in $(seq 0 $((L - 1))); do
  br=$(br_of "$l")
  ip link add "$br" type bridge || die "cannot create bridge $br"
  [ -z "$MTU" ] || ip link set "$br" mtu "$MTU"
  ip link set "$br" up
done
for h in $(seq 1 "$H"); do
  ns=${NSP}$h
  ip netns add "$ns" || die "ip netns add $ns failed"
  ip netns exec "$ns" ip link set lo up
  for kv in "${SYSCTLS[@]}"; do
    ip netns exec "$ns" sysctl -q -w "$kv" >/dev/null || die "sysctl $kv in $ns failed"
  done
  for l in $(seq 0 $((L - 1))); do
    v=$(veth_of "$h" "$l")
    ip link add "$v" type veth peer name "emu$l" netns "$ns" || die "veth $l for $ns failed"
    if [ -n "$MTU" ]; then
      ip link set "$v" mtu "$MTU" && ip netns exec "$ns" ip link set "emu$l" mtu "$MTU" ||
        die "mtu $MTU on link $l of $ns failed"
    fi
    ip link set "$v" master "$(br_of "$l")" up
    ip netns exec "$ns" ip addr add "10.$((213 + l)).$S.$h/24" dev "emu$l"
    ip netns exec "$ns" ip link set "emu$l" up
    shape "$ns" "emu$l" || die "tc tbf on $ns/emu$l failed"  # host -> switch
    shape "" "$v" || die "tc tbf on $v failed"                 # switch -> host
  done
done
LANES=emu0
for l in $(seq 1 $((L - 1))); do LANES=$LANES,emu$l; done
[ "$L" = 1 ] && LANES=
LANES=${LINCOLL_UCX_LANES-$LANES}
# (no STP on the bridge: ports forward at once; the bootstrap retries anyway)
SIZE=$((H * N))
PORT=$(( (RANDOM % 20000) + 30000 ))   # a fresh namespace: nothing listens there yet
SECRET=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
echo "emucluster: $H hosts x $N ranks ($MAP), $L link(s) per host, links $RATE burst $BURST${MTU:+ mtu $MTU}, 10.213.$S.0/24, store 10.213.$S.1:$PORT, namespaces ${NSP}1..$H${LANES:+, LINCOLL_UCX_LANES=$LANES}" >&2

for r in $(seq 0 $((SIZE - 1))); do
  if [ "$MAP" = block ]; then h=$((r / N + 1)); else h=$((r % H + 1)); fi
  ns=${NSP}$h
  ip netns exec "$ns" unshare --uts -- env \
      LINCOLL_RANK="$r" LINCOLL_SIZE="$SIZE" LINCOLL_BOOTSTRAP="10.213.$S.1:$PORT" \
      LINCOLL_JOB_SECRET="$SECRET" LINCOLL_BOOTSTRAP_KIND=tcp LINCOLL_UCX_LANES="$LANES" \
      UCX_TLS="$TLS" UCX_NET_DEVICES=emu0 EMU_HOST="emu$h" EMU_RANK="$r" \
      sh -c 'hostname "$EMU_HOST" && exec timeout -k 10 '"$TIMEOUT"' "$@"' sh "$@" \
      > >(sed -u "s/^/[$r@emu$h] /") 2> >(sed -u "s/^/[$r@emu$h] /" >&2) &
  PIDS+=($!)
done

rc=0
for i in "${!PIDS[@]}"; do
  wait "${PIDS[$i]}"
  s=$?
  if [ "$s" != 0 ]; then
    echo "emucluster: rank $i exited with status $s" >&2
    [ "$rc" = 0 ] && rc=$s
  fi
done
PIDS=()
wait 2>/dev/null   # the output filters
exit $rc
