#!/usr/bin/env bash
# deploy/emucluster/bench.sh: allreduce on the emulated cluster at several
# link rates, RHD vs ring, ranks placed in blocks (consecutive ranks on a
# host) or cyclically, next to alpha-beta predictions.
#
#   bench.sh <bin dir> [rates] [size] [hosts] [ranks-per-host] [iters]
#   bench.sh build/bin "100mbit 1gbit" 4m 4 2 5
#
# Model (tbf on each host link, each direction; ranks of one host talk over
# loopback, which is not shaped): time = rounds * alpha + B * beta, where B
# is the largest number of bytes one host sends into its link over the whole
# allreduce (the slowest link sets the pace: every round is a barrier of
# sorts) and beta = 1 / rate.  alpha is measured first: the 8-byte tag_lat
# between two hosts at the same rate.  Per host link for p = H*N ranks, n bytes:
#   RHD  (p = 2^k): round j sends n/2^(j+1) to vrank v^2^j, in RS and in AG;
#                   a host pays for the rounds whose partner is on another host
#   ring: 2(p-1) rounds of n/p; a host pays for each rank whose successor is
#                   on another host
# (python3 computes B from the same host maps emucluster uses.)  Two
# predictions: beta = 1/rate (nominal), and beta_eff measured by a 2-host
# exchange of n bytes in both directions at once (TCP over a shaped link
# pair reaches about half the nominal rate each way when both directions
# carry data; one way it reaches ~90%).
set -euo pipefail
bin=$1
rates=${2:-"100mbit 1gbit"}
size=${3:-4m}
H=${4:-4}
N=${5:-2}
iters=${6:-5}
here=$(cd "$(dirname "$0")" && pwd)
emu=$here/emucluster.sh
bytes=$(python3 -c "s='$size'.lower();m={'k':1<<10,'m':1<<20,'g':1<<30};print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))")

rate_bps() { python3 -c "
s='$1'.lower()
for suf,m in (('gbit',1e9),('mbit',1e6),('kbit',1e3),('bit',1)):
    if s.endswith(suf): print(float(s[:-len(suf)])*m/8); break"; }

model() { # model <algo> <map> <alpha s> <bytes/s> -> predicted seconds
  python3 - "$1" "$2" "$3" "$4" "$H" "$N" "$bytes" <<'PY'
import sys
algo, mp, alpha, Bps, H, N, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
p = H * N
host = [(r // N) if mp == "block" else (r % H) for r in range(p)]
out = [0.0] * H  # bytes each host sends into its link
if algo == "rhd":
    k = p.bit_length() - 1
    assert 1 << k == p, "the model covers p = 2^k"
    rounds = 2 * k
    for j in range(k):
        for v in range(p):
            if host[v] != host[v ^ (1 << j)]:
                out[host[v]] += 2 * n / (2 << j)  # RS and AG
else:
    rounds = 2 * (p - 1)
    for r in range(p):
        if host[r] != host[(r + 1) % p]:
            out[host[r]] += rounds * n / p
print("%.6f %.3f" % (rounds * alpha + max(out) / Bps, max(out) / n))
PY
}

echo "# emulated cluster: $H hosts x $N ranks, allreduce of $size ($bytes bytes) float32 sum, $iters iterations (median)"
echo "| link rate | alpha (us) | 1/beta_eff (MB/s) | algorithm | placement | host-link bytes / n | predicted at rate (ms) | predicted at beta_eff (ms) | measured p50 (ms) | measured / predicted(beta_eff) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for rate in $rates; do
  Bps=$(rate_bps "$rate")
  lat=$("$emu" -H 2 -n 1 -r "$rate" --timeout 300 -- "$bin/lincoll_perf" -t tag_lat -s 8 -n 2000 -f csv 2>/dev/null |
        sed -n 's/^\[0@emu1\] \(tag_lat,.*\)/\1/p' | tail -1)
  alpha_us=$(echo "$lat" | awk -F, '{print $6}')   # half round trip, p50
  [ -n "$alpha_us" ] || alpha_us=50
  alpha=$(python3 -c "print($alpha_us * 1e-6)")
  # effective beta: 2 hosts exchanging $size both ways at once (what every
  # allreduce round does); TCP over the shaped pair gets less than the rate
  x=$("$emu" -H 2 -n 1 -r "$rate" --timeout 300 -- "$bin/lincoll_perf" -t alltoall -s "$size" -n 3 -w 1 -f csv 2>/dev/null |
      sed -n 's/^\[0@emu1\] \(alltoall,.*\)/\1/p' | tail -1 | awk -F, '{print $6}')
  Beff=$(python3 -c "print($bytes / ($x * 1e-6))")
  for algo in rhd ring; do
    for map in block cyclic; do
      line=$(LINCOLL_ALLREDUCE_ALGO=$algo "$emu" -H "$H" -n "$N" --map "$map" -r "$rate" --timeout 900 -- \
               "$bin/lincoll_perf" -t allreduce -s "$size" -n "$iters" -w 1 -f csv 2>/dev/null |
             sed -n 's/^\[0@emu1\] \(allreduce,.*\)/\1/p' | tail -1)
      meas_us=$(echo "$line" | awk -F, '{print $6}')
      read -r pred_s share < <(model "$algo" "$map" "$alpha" "$Bps")
      read -r pred_e share < <(model "$algo" "$map" "$alpha" "$Beff")
      python3 - "$rate" "$alpha_us" "$Beff" "$algo" "$map" "$share" "$pred_s" "$pred_e" "${meas_us:-nan}" <<'PY'
import sys
rate, a, beff, algo, mp, share, pred, prede, meas = sys.argv[1:]
meas_ms = float(meas) / 1e3
print("| %s | %.0f | %.2f | %s | %s | %s | %.0f | %.0f | %.0f | %.2f |" % (rate, float(a), float(beff) / 1e6, algo, mp, share, float(pred) * 1e3, float(prede) * 1e3, meas_ms, meas_ms / (float(prede) * 1e3)))
PY
    done
  done
done
