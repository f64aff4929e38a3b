#!/usr/bin/env bash
# perf/anchors/ucx_perftest.sh: UCX's own benchmark (ucx_perftest, package
# ucx-utils), server and client on this machine, one figure line out.
#   ucx_perftest.sh [-c SERVER_CPU,CLIENT_CPU] [-T SECONDS] TEST SIZE ITERS [WARMUP] [-- ARGS...]
#     TEST      a ucx_perftest test: tag_lat, tag_bw, ucp_put_bw, ...
#     SIZE      message bytes; ITERS timed iterations; WARMUP (default ITERS/10)
#     -c        pin the server and the client (taskset) to these CPUs
#     -T        stop both after SECONDS (default 120)
#     ARGS      passed on to the client (e.g. -O 32); UCX_* variables reach both
# prints one line:
#     TEST SIZE ITERS P50_US AVG_US MBPS MSGPS
#   (the client's final figures: latency percentile 50 of the last
#   iterations, and over the whole run the mean latency in us, bandwidth MB/s
#   and message rate /s -- ucx_perftest's "overall" columns; latency tests
#   report half a round trip, as ucx_perftest does).
# The server listens on a port the kernel picks (-p 0); the script reads the
# port from the server's socket in /proc/net/tcp and hands it to the client,
# so two runs at once never collide.  Exit 1, with both sides' output, when
# either side fails; the server is never left running.
set -uo pipefail
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; }
cpus="" limit=120
while getopts c:T:h f; do
  case $f in
    c) cpus=$OPTARG ;;
    T) limit=$OPTARG ;;
    *) usage; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || { usage; exit 2; }
test=$1 size=$2 iters=$3
shift 3
warmup=$((iters / 10))
if [ $# -gt 0 ] && [ "$1" != -- ]; then warmup=$1; shift; fi
[ "${1:-}" = -- ] && shift
for v in "size:$size" "iters:$iters" "warmup:$warmup" "-T:$limit"; do
  case ${v#*:} in '' | *[!0-9]*) echo "ucx_perftest.sh: ${v%%:*} '${v#*:}': expected a number" >&2; exit 2 ;; esac
done
command -v ucx_perftest >/dev/null || { echo "ucx_perftest.sh: ucx_perftest not found (package ucx-utils)" >&2; exit 2; }
srv_pin=() cli_pin=()
if [ -n "$cpus" ]; then
  srv_pin=(taskset -c "${cpus%%,*}") cli_pin=(taskset -c "${cpus##*,}")
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ucx_perftest.XXXXXX")
srv=""
cleanup() {
  [ -n "$srv" ] && kill -TERM "$srv" 2>/dev/null && sleep 0.2 && kill -KILL "$srv" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

listen_port() { # pid -> the TCP port it listens on, empty while none
  local inodes hex
  inodes=$(ls -l "/proc/$1/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\].*/\1/p' | tr '\n' ' ')
  [ -n "$inodes" ] || return 0
  hex=$(awk -v want=" $inodes" '$4 == "0A" && index(want, " " $10 " ") { split($2, a, ":"); print a[2]; exit }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null)
  [ -n "$hex" ] && echo $((16#$hex))
}

"${srv_pin[@]}" ucx_perftest -p 0 >"$tmp/server.out" 2>&1 &
srv=$!
port=""
for _ in $(seq 1 200); do
  port=$(listen_port "$srv")
  [ -n "$port" ] && break
  kill -0 "$srv" 2>/dev/null || break
  sleep 0.05
done
if [ -z "$port" ]; then
  echo "ucx_perftest.sh: the server did not listen:" >&2
  cat "$tmp/server.out" >&2
  exit 1
fi
timeout -k 5 "$limit" "${cli_pin[@]}" ucx_perftest 127.0.0.1 -p "$port" -t "$test" -s "$size" \
  -n "$iters" -w "$warmup" -v "$@" >"$tmp/client.out" 2>&1
rc=$?
# the server ends by itself after the test; give it a moment, then stop it
for _ in $(seq 1 50); do
  kill -0 "$srv" 2>/dev/null || break
  sleep 0.1
done
# -v: a CSV header "iterations,50.0_percentile_lat,avg_lat,..." then a line
# per report interval ("[thread 0]ITERS,...": the figures so far) and, last,
# the final figures without the thread prefix: keep the last bare line
line=$(awk -F, '/^iterations,/ { h = 1; next } h && NF >= 8 { gsub(/ /, "") } h && NF >= 8 && /^[0-9]/ { last = $0 }
  END { if (last != "") print last }' "$tmp/client.out")
if [ "$rc" != 0 ] || [ -z "$line" ]; then
  echo "ucx_perftest.sh: $test failed (client status $rc); client:" >&2
  cat "$tmp/client.out" >&2
  echo "server:" >&2
  cat "$tmp/server.out" >&2
  exit 1
fi
# iterations, p50 lat, avg lat, overall lat, avg bw, overall bw, avg mr, overall mr
echo "$line" | awk -F, -v t="$test" -v s="$size" '{ print t, s, $1, $2, $4, $6, $8 }'
