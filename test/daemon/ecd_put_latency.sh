#!/usr/bin/env bash
# test/daemon/ecd_put_latency.sh: a measurement, not a test.  The latency of
# 4 KiB puts on N local lincoll-ecd daemons, RS(4,2), one at a time through
# node 0, and the share of it the members spend forming the put's lincoll
# group (their "group ready" log times; 0 for puts that form none).
#
#   test/daemon/ecd_put_latency.sh BIN_DIR [NODES] [PUTS] [DAEMON FLAGS]
#
# e.g. "--direct-max 0" makes every put form its group, as before puts of
# small objects sent their parity directly.
# Prints p50 and p90 of the put latency as a client sees it (connect,
# request, upload, answer) and the members' p50 group setup.
set -uo pipefail
bin=$1 N=${2:-6} R=${3:-30} flags=${4:-}
W=$(mktemp -d /tmp/ecd_lat.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$W"' EXIT
for i in $(seq 0 $((N - 1))); do
  "$bin/lincoll-ecd" --insecure --node "$i" --dir "$W/d$i" --cluster "$W/cluster" --listen 127.0.0.1:0 \
      --port-file "$W/p$i" --timeout 5 --die-with-parent $flags >>"$W/log$i" 2>&1 &
  pids+=($!)
done
for i in $(seq 0 $((N - 1))); do
  for _ in $(seq 1 100); do [ -s "$W/p$i" ] && break; sleep 0.1; done
  [ -s "$W/p$i" ] || { echo "node $i published no port"; exit 1; }
done
{ echo "code 4 2"; for i in $(seq 0 $((N - 1))); do echo "node $i 127.0.0.1:$(cat "$W/p$i")"; done; } \
  > "$W/cluster"
head -c 4096 /dev/urandom > "$W/obj"
python3 - "$W" "$(cat "$W/p0")" "$R" <<'PY'
import glob, re, socket, statistics, sys, time
W, port, R = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(W + "/obj", "rb").read()
lat = []
for i in range(R):
    t = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"PUT lat%d %d\n" % (i, len(data)) + data)
    r = s.makefile().readline()
    lat.append(time.perf_counter() - t)
    if not r.startswith("OK"):
        sys.exit("put lat%d: %s" % (i, r.strip()))
ready = [float(m.group(1)) for f in glob.glob(W + "/log*") for l in open(f)
         for m in [re.search(r"group ready ([0-9.]+) s", l)] if m]
p50 = statistics.median(lat)
g = statistics.median(ready) if ready else 0.0
print("%d puts of 4 KiB on %d nodes: p50 %.1f ms, p90 %.1f ms; members' group setup p50 %.1f ms "
      "(%.0f%% of the p50)" % (R, len(glob.glob(W + "/p*")), p50 * 1e3,
                              sorted(lat)[int(0.9 * R)] * 1e3, g * 1e3, 100 * g / p50))
PY
