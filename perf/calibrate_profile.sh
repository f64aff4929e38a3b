#!/usr/bin/env bash
# Writes a lincoll_sim machine profile for this machine from lincoll_perf:
#   perf/calibrate_profile.sh [BUILD_DIR] [OUT] [NAME]
#   (defaults: build, perf/profiles/<hostname>.profile, <hostname>)
#   alpha = tag_lat p50 at 8 B (half round trip, 2 ranks under lincoll-run): the
#           latency of one plan round between two ranks of this host;
#   beta  = 1 / tag_bw at 4 MiB (bytes/s between two ranks of this host);
#   gamma = 1 / the slower of the GF(2^8) lincomb (lincoll_perf -t gf, 10+4) and
#           the float SUM reduction (-t reduce, 1 MiB): local compute per byte;
#   flops = dgemm 512^3 (lincoll_perf -t gemm), one thread.
# Ranks are pinned to the first two CPUs this script may use.  Run it on a quiet
# machine: the profile says when and where it was measured, and lincoll_sim
# --profile OUT uses it.  Takes about a minute.
set -uo pipefail
build=${1:-build}
host=$(hostname -s 2>/dev/null || echo this-machine)
out=${2:-perf/profiles/$host.profile}
name=${3:-$host}
bin="$build/bin"
for p in "$bin/lincoll-run" "$bin/lincoll_perf"; do
  [ -x "$p" ] || { echo "calibrate_profile: $p not found (build first)" >&2; exit 2; }
done
read -r cpu0 cpu1 < <(python3 -c 'import os; c=sorted(os.sched_getaffinity(0)); print(c[0], c[1 % len(c)])')
pin2="exec taskset -c \$([ \"\$LINCOLL_RANK\" = 0 ] && echo $cpu0 || echo $cpu1)"

two_ranks() { # test size iters column -> value of rank 0's CSV row
  "$bin/lincoll-run" -n 2 --timeout 120 sh -c "$pin2 $bin/lincoll_perf -t $1 -s $2 -n $3 -f csv" 2>/dev/null |
    sed -n 's/^\[0\] //p' | grep -v '^test,' | awk -F, -v c="$4" 'NR==1 {print $c}'
}
one() { taskset -c "$cpu0" "$bin/lincoll_perf" "$@" -f csv 2>/dev/null; }

lat_us=$(two_ranks tag_lat 8 20000 6)
bw_mbps=$(two_ranks tag_bw 4m 200 8)
gf_gbps=$(one -t gf | awk -F, '$1 == "10+4" && $3 == "GF(2^8)" && $5 == "lincomb" {print $6; exit}')
red_gbps=$(one -t reduce -s 1m | awk -F, '$1 == "float" && $2 == "sum" {print $5; exit}')
gflops=$(one -t gemm -s 512 -n 5 | awk -F, '$1 == "dgemm" {print $7; exit}')
for v in lat_us bw_mbps gf_gbps red_gbps gflops; do
  [ -n "${!v}" ] || { echo "calibrate_profile: no value for $v (lincoll_perf failed?)" >&2; exit 1; }
done
mkdir -p "$(dirname "$out")"
python3 - "$out" "$name" "$lat_us" "$bw_mbps" "$gf_gbps" "$red_gbps" "$gflops" "$(date -u +%Y-%m-%dT%H:%MZ)" \
  "$(uname -n)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)" <<'PY'
import sys
out, name, lat, bw, gf, red, gfl, when, host, load, ncpu = sys.argv[1:]
lat, bw, gf, red, gfl = map(float, (lat, bw, gf, red, gfl))
gamma = 1.0 / (min(gf, red) * 1e9)
with open(out, "w") as f:
    f.write(f"""# lincoll_sim machine profile of {host}, measured {when} by perf/calibrate_profile.sh
# ({ncpu} CPUs, load average {load} when it ran).  Two ranks of this host:
#   tag_lat p50 (8 B)   {lat:.3f} us      -> alpha
#   tag_bw (4 MiB)      {bw:.1f} MB/s    -> beta
#   GF(2^8) lincomb     {gf:.2f} GB/s, float SUM reduce {red:.2f} GB/s -> gamma (the slower)
#   dgemm 512^3         {gfl:.1f} GFlop/s -> flops
name    {name}
alpha   {lat * 1e-6:.4g}
beta    {1.0 / (bw * 1e6):.4g}
gamma   {gamma:.4g}
flops   {gfl * 1e9:.4g}
ports   1
""")
print(f"calibrate_profile: wrote {out}")
PY
