#!/usr/bin/env bash
# perf/scale/scale.sh: lincoll at scale on the emulated cluster, where the
# network is the bottleneck: one rank per host (network namespace), slow
# tbf-shaped links, p links per host for p ports; every result beside the
# alpha-beta-gamma prediction of its plan under figures calibrated on the
# same links in the same run.
#
#   perf/scale/scale.sh [-b BUILD] [-o OUT_ROOT] [-d DATE] [-r RATE] [-y IDLE_US]
#                       [-f "encode coll matmul"] [-n ITERS] [-K "4 8 16"]
#                       [-p "1 2 3"] [-s "1m 8m"] [-P "4 5 6 8 12 16"] [-B BURST]
#                       [--quick | --point4] [--render-only]
#
#   -b build          build directory (build/bin/lincoll_perf, lincoll_sim)
#   -o docs/perf      where DATE-scale.md and DATE-scale/ (raw logs, CSV, PNGs) go
#   -d DATE           default: date +%F
#   -r 100mbit        tbf rate of every link, each direction
#   -B 256kb          tbf burst (a full bucket lets
#                     that many bytes through at once; emucluster's default)
#   -y 500            lincoll_perf -y: waiting ranks sleep this many microseconds
#                     between polls instead of spinning, so sixteen ranks on two
#                     cores leave the CPU to the ones that work (0: spin)
#   -f families       encode coll matmul (default all three)
#   -n 3              measured iterations per run (one warm-up first); medians
#   -K, -p, -s        encode group sizes, ports (links) and packet sizes
#   -P                collective sizes
#   --quick           the CI smoke test: K = P = 4, tiny sizes, 1gbit links, a
#                     minute or two (functional: the chain runs and every row
#                     comes out; its figures mean nothing)
#   --point4          only the runs of the seed paper's claim: K = 16, 8 MiB,
#                     prepare_shoot and direct at p = 1 and 2, dft and
#                     prepare_shoot at p = 3 (a few minutes; for cross-checks)
#   --render-only     measure nothing: predictions, tables and plots from
#                     DATE-scale/runs.csv and calib.csv as they are
#
# What runs (default):
#   calibration, right before the runs of each host count H (the machine's
#     load drifts): alpha = the mean round of an 8-byte ring shift over H
#     hosts (every host sends to the next and receives from the previous, one
#     encode round), beta = (median 4 MiB shift - alpha) / 4 MiB, on the same
#     links (one link per host); gamma and flops from the kernels
#     (lincoll_perf -t gf, -t reduce, -t gemm in one process), divided by
#     H / cores when H ranks share fewer cores;
#   encode: K = 4, 8, 16 hosts with p = 1, 2, 3 links (p ports), packets of
#     1 MiB and 8 MiB: prepare_shoot, best_window, direct, and dft where
#     K = (p+1)^L; controls: prepare_shoot at K = 16, p = 2 and 3 on one lane
#     (p ports sharing one link);
#   coll: allreduce, reduce_scatter, allgather (rhd, ring), bcast, reduce
#     (rhd, binomial) of 4 MiB at P = 4, 5, 6, 8, 12, 16;
#   matmul: SUMMA and Cannon at P = 4, 9, 16, 2.5D at P = 8 (2 x 2 x 2: the
#     only P <= 16 with 2 <= c <= q), doubles, n = 512 (compute minor);
#     control: Cannon on two links per host (its rounds send A and B at once).
# Every run's rank 0 lines and every rank's errors are kept in raw/; its
# figures, and the CPU share of the ranks (getrusage over the test) and of
# the machine (/proc/stat), go to runs.csv.  Then perf/scale/scale_report.py
# asks lincoll_sim for every row's prediction, rounds and model choice under
# the calibrated figures, writes scale.csv, the tables and the PNGs.
# Needs root (emucluster: network namespaces); exits 77 when they are not
# permitted.  About 50 minutes at 100mbit with the defaults.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=build outroot=docs/perf date_=$(date +%F) rate=100mbit burst=256kb idle=500
fams="encode coll matmul" iters=3 quick=0 point4=0 render_only=0
Ks="4 8 16" ports="1 2 3" esizes="1m 8m" Ps="4 5 6 8 12 16" csize=4m
mPs="4 9 16" m25="8" mn=512 controls=1
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2; shift 2 ;;
    -o) outroot=$2; shift 2 ;;
    -d) date_=$2; shift 2 ;;
    -r) rate=$2; shift 2 ;;
    -B) burst=$2; shift 2 ;;
    -s) esizes=$2; shift 2 ;;
    -y) idle=$2; shift 2 ;;
    -f) fams=$2; shift 2 ;;
    -n) iters=$2; shift 2 ;;
    -K) Ks=$2; shift 2 ;;
    -p) ports=$2; shift 2 ;;
    -P) Ps=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --point4) point4=1; shift ;;
    --render-only) render_only=1; shift ;;
    -h | --help) sed -n 2,56p "$0"; exit 0 ;;
    *) echo "scale.sh: unknown argument $1" >&2; sed -n 2,56p "$0" >&2; exit 2 ;;
  esac
done
if [ "$quick" = 1 ]; then
  Ks=4 ports="1 3" esizes=64k Ps=4 csize=256k mPs=4 m25= mn=128 iters=2 rate=1gbit controls=0
fi
if [ "$point4" = 1 ]; then
  fams=encode Ks=16 ports="1 2 3" esizes=8m controls=0
fi
case $build in /*) ;; *) build=$top/$build ;; esac
case $outroot in /*) ;; *) outroot=$top/$outroot ;; esac
out=$outroot/$date_-scale
raw=$out/raw
emu=$top/deploy/emucluster/emucluster.sh
perf=$build/bin/lincoll_perf
mkdir -p "$raw"
has() { case " $fams " in *" $1 "*) return 0 ;; esac; return 1; }

render() {
  python3 "$top/perf/scale/scale_report.py" --out "$out" --report "$outroot/$date_-scale.md" \
    --sim "$build/bin/lincoll_sim" --plots "$top/perf/plot" --date "$date_"
}
if [ "$render_only" = 1 ]; then render; exit $?; fi

[ -x "$perf" ] && [ -x "$build/bin/lincoll_sim" ] ||
  { echo "scale.sh: build $build first (deploy/build.sh)" >&2; exit 1; }
if ! why=$("$emu" --check 2>&1); then
  rc=$?
  echo "scale.sh: the emulated cluster cannot run here: $why" >&2
  [ "$rc" = 77 ] && exit 77
  exit 1
fi

t0=$(date +%s)
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "lincoll: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$top" diff --quiet 2>/dev/null || echo ' (modified)')"
  echo "host: $(uname -srm), $(nproc) cores"
  echo "cpu: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
  echo "ucx: $(ucx_info -v 2>/dev/null | awk '/Version/ {print $3; exit}')"
  echo "links: tbf $rate each direction, burst $burst; waits sleep ${idle} us between polls (lincoll_perf -y)"
  echo "iterations: $iters measured + 1 warm-up per run (medians)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/env.txt"

# runs.csv: one row per run (scale_report.py adds the predictions)
runs=$out/runs.csv
echo "family,op,algo,P,p,links,lanes,size,rate,iters,plan,meas_us,comm_us,run_pred_us,run_choice,chunks,C1,C2,cpu_mean,cpu_max,sys_frac,machine_busy,wall_s,status,cal" >"$runs"
calib=$out/calib.csv
echo "cal,H,rate,alpha_us,bw_Bps,shift8_us,shift4m_us,gf_gbps,red_gbps,gflops,cores,cpu_mean,machine_busy,status" >"$calib"

nrun=0
# emurun <log> <H> <L> <env...> -- <lincoll_perf args...>: rank 0's lines to <log>
emurun() {
  local log=$1 H=$2 L=$3
  shift 3
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  nrun=$((nrun + 1))
  echo "== scale [$nrun, $(($(date +%s) - t0)) s]: H=$H L=$L ${envs[*]} lincoll_perf $*" >&2
  env LINCOLL_TIMEOUT=600 "${envs[@]}" "$emu" -H "$H" -L "$L" -r "$rate" -b "$burst" --timeout 1200 -- \
    "$perf" "$@" -y "$idle" -f csv >"$log.all" 2>"$log.err"
  local rc=$?
  sed -n 's/^\[0@emu1\] //p' "$log.all" >"$log"
  rm -f "$log.all"
  [ -s "$log.err" ] || rm -f "$log.err"
  return $rc
}
kv() { # kv <line> <key>: the value of key=value in a '#...' line
  local v=" $1 "
  v=${v#* "$2"=}
  [ "$v" = " $1 " ] && return 0
  echo "${v%% *}"
}
cpu_fields() { # cpu_mean,cpu_max,sys_frac,machine_busy,wall_s of the log's last #cpu line
  local l
  l=$(grep '^#cpu ' "$1" | tail -1)
  echo "$(kv "$l" share_mean),$(kv "$l" share_max),$(kv "$l" sys_frac),$(kv "$l" machine_busy),$(kv "$l" wall_s)"
}
# one runs.csv row of an encode log
encode_row() { # encode_row <log> <rc> <algo> <K> <p> <lanes>
  local row meas st
  row=$(grep '^#encode ' "$1" | tail -1)
  meas=$(kv "$row" p50_us)
  st=ok
  [ "$2" = 0 ] && [ -n "$meas" ] || st="failed(exit $2)"
  echo "encode,encode,$3,$4,$5,$5,$6,$(kv "$row" size),$rate,$iters,$(kv "$row" algo),$meas,,$(kv "$row" model_us),$(kv "$row" choice),$(kv "$row" chunks),$(kv "$row" C1),$(kv "$row" C2),$(cpu_fields "$1"),$st,$CAL" >>"$runs"
}

# ---- local kernels: gamma and flops -------------------------------------------------
gf_gbps=$("$perf" -t gf -K 10 -M 4 -s 1048576 -q 256 -r 3 -f csv 2>/dev/null |
  awk -F, '$1 == "10+4" && $3 == "GF(2^8)" && $5 == "lincomb" {print $6; exit}')
red_gbps=$("$perf" -t reduce -s 4m -n 20 -f csv 2>/dev/null | awk -F, '$1 == "float" && $2 == "sum" {print $5; exit}')
gflops=$("$perf" -t gemm -s 512 -d d -n 3 -f csv 2>/dev/null | awk -F, '$1 == "dgemm" {print $7; exit}')
cores=$(nproc)
: "${gf_gbps:=1}" "${red_gbps:=1}" "${gflops:=1}"

# ---- calibration, right before the runs of each host count -------------------------
# calibrate <H>: ALPHA[H], BW[H] and CAL (the calib.csv row the runs cite)
declare -A ALPHA BW
ncal=0 CAL=0
calibrate() {
  local H=$1 l8 l4 s8 s4 st c
  ncal=$((ncal + 1))
  l8=$raw/calib${ncal}_H${H}_8.log l4=$raw/calib${ncal}_H${H}_4m.log
  emurun "$l8" "$H" 1 -- -t shift -s 8 -n 300 -w 30
  emurun "$l4" "$H" 1 -- -t shift -s 4m -n 9 -w 1
  s8=$(awk -F, '$1 == "shift" {print $7}' "$l8" | tail -1) # mean round (8 B: bimodal intervals)
  s4=$(awk -F, '$1 == "shift" {print $6}' "$l4" | tail -1) # median round
  st=ok
  if [ -z "$s8" ] || [ -z "$s4" ]; then
    st=failed
    s8=${s8:-nan} s4=${s4:-nan}
    ALPHA[$H]=1e-3 BW[$H]=1.25e7
  else
    ALPHA[$H]=$(python3 -c "print('%.6g' % ($s8 * 1e-6))")
    BW[$H]=$(python3 -c "print('%.6g' % ((4 << 20) / (($s4 - $s8) * 1e-6)))")
  fi
  c=$(cpu_fields "$l4")
  echo "$ncal,$H,$rate,$(python3 -c "print('%.3f' % (${ALPHA[$H]} * 1e6))"),${BW[$H]},$s8,$s4,$gf_gbps,$red_gbps,$gflops,$cores,$(echo "$c" | cut -d, -f1),$(echo "$c" | cut -d, -f4),$st" >>"$calib"
  CAL=$ncal
}

# the model figures every run of H ranks gets (the library's choice and its
# own prediction then use them too): compute shared by H ranks on `cores`
model_env() { # model_env <H> <gbps of the compute kind>
  local H=$1 g=$2
  python3 -c "
H, c, g, f = $H, $cores, $g, $gflops
share = min(1.0, c / H)
print('LINCOLL_MODEL_ALPHA=%s LINCOLL_MODEL_BW=%s LINCOLL_MODEL_COMPUTE_BW=%.6g LINCOLL_MODEL_FLOPS=%.6g'
      % ('${ALPHA[$H]}', '${BW[$H]}', g * 1e9 * share, f * 1e9 * share))"
}

# ---- encode ---------------------------------------------------------------------------
is_pow() { # is_pow K base: K = base^L, L >= 1
  python3 -c "
K, b = $1, $2
x = b
while x < K: x *= b
print(1 if x == K and K > 1 else 0)"
}
if has encode; then
  for K in $Ks; do
    calibrate "$K"
    read -r -a menv <<<"$(model_env "$K" "$gf_gbps")"
    for p in $ports; do
      algos="prepare_shoot best_window direct"
      [ "$(is_pow "$K" $((p + 1)))" = 1 ] && algos="$algos dft"
      if [ "$point4" = 1 ]; then
        algos="prepare_shoot direct"
        [ "$p" = 3 ] && algos="prepare_shoot dft"
      fi
      for s in $esizes; do
        for a in $algos; do
          log=$raw/encode_K${K}_p${p}_${s}_${a}.log
          emurun "$log" "$K" "$p" "${menv[@]}" -- -t encode -A "$a" -p "$p" -s "$s" -n "$iters" -w 1 -b 0
          encode_row "$log" $? "$a" "$K" "$p" "$p"
        done
      done
    done
  done
  # controls: p ports on one link (LINCOLL_UCX_LANES=emu0 on a p-link cluster)
  if [ "$controls" = 1 ]; then
    for p in 2 3; do
      case " $ports " in *" $p "*) ;; *) continue ;; esac
      case " $Ks " in *" 16 "*) ;; *) continue ;; esac
      calibrate 16
      read -r -a menv <<<"$(model_env 16 "$gf_gbps")"
      log=$raw/encode_K16_p${p}_8m_prepare_shoot_1lane.log
      emurun "$log" 16 "$p" "${menv[@]}" LINCOLL_UCX_LANES=emu0 -- -t encode -A prepare_shoot -p "$p" -s 8m -n "$iters" -w 1 -b 0
      encode_row "$log" $? prepare_shoot 16 "$p" 1
    done
  fi
fi

# ---- collectives ----------------------------------------------------------------------
if has coll; then
  for P in $Ps; do
    calibrate "$P"
    read -r -a menv <<<"$(model_env "$P" "$red_gbps")"
    for op in allreduce reduce_scatter allgather bcast reduce; do
      case $op in bcast | reduce) algos="rhd binomial" ;; *) algos="rhd ring" ;; esac
      for a in $algos; do
        log=$raw/coll_${op}_P${P}_${csize}_${a}.log
        t=$op
        [ "$op" = reduce ] && t=reduce_coll
        emurun "$log" "$P" 1 "${menv[@]}" -- -t "$t" -A "$a" -s "$csize" -n "$iters" -w 1
        rc=$?
        line=$(awk -F, -v op="$op" '$1 == op && NF >= 11' "$log" | tail -1)
        meas=$(echo "$line" | cut -d, -f6)
        st=ok
        [ "$rc" = 0 ] && [ -n "$meas" ] || st="failed(exit $rc)"
        echo "coll,$op,$a,$P,1,1,1,$(echo "$line" | cut -d, -f4),$rate,$iters,$(echo "$line" | cut -d, -f10),$meas,,$(echo "$line" | cut -d, -f11),,,,,$(cpu_fields "$log"),$st,$CAL" >>"$runs"
      done
    done
  done
fi

# ---- matmul ---------------------------------------------------------------------------
if has matmul; then
  for P in $mPs $m25; do
    algos="summa cannon"
    case " $m25 " in *" $P "*) algos=25d ;; esac
    calibrate "$P"
    read -r -a menv <<<"$(model_env "$P" "$red_gbps")"
    for a in $algos; do
      log=$raw/matmul_P${P}_n${mn}_${a}.log
      emurun "$log" "$P" 1 "${menv[@]}" -- -t matmul -A "$a" -s "$mn" -d double -n "$iters" -w 1
      rc=$?
      line=$(awk -F, '$1 == "matmul" && NF >= 11' "$log" | tail -1)
      meas=$(echo "$line" | cut -d, -f6)
      mrow=$(grep '^# matmul-row ' "$log" | tail -1)
      st=ok
      [ "$rc" = 0 ] && [ -n "$meas" ] || st="failed(exit $rc)"
      echo "matmul,matmul,$a,$P,1,1,1,$mn,$rate,$iters,$(kv "$mrow" algo),$meas,$(kv "$mrow" comm_us),$(kv "$mrow" pred_net_us),,,,,$(cpu_fields "$log"),$st,$CAL" >>"$runs"
    done
    # control: Cannon's rounds send A and B at once (two ports): on two links
    if [ "$controls" = 1 ] && [ "$algos" != 25d ]; then
      log=$raw/matmul_P${P}_n${mn}_cannon_2links.log
      emurun "$log" "$P" 2 "${menv[@]}" -- -t matmul -A cannon -s "$mn" -d double -n "$iters" -w 1
      rc=$?
      line=$(awk -F, '$1 == "matmul" && NF >= 11' "$log" | tail -1)
      meas=$(echo "$line" | cut -d, -f6)
      mrow=$(grep '^# matmul-row ' "$log" | tail -1)
      st=ok
      [ "$rc" = 0 ] && [ -n "$meas" ] || st="failed(exit $rc)"
      echo "matmul,matmul,cannon,$P,1,2,2,$mn,$rate,$iters,$(kv "$mrow" algo),$meas,$(kv "$mrow" comm_us),$(kv "$mrow" pred_net_us),,,,,$(cpu_fields "$log"),$st,$CAL" >>"$runs"
    fi
  done
fi

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); $nrun runs in $(($(date +%s) - t0)) s" >>"$out/env.txt"
render
