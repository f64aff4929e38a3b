#!/usr/bin/env bash
# perf/model_fit.sh: how well the cost model predicts this machine's
# collectives, with the built-in figures and with a machine profile, side by
# side in the same run: every collective at every size, P local ranks, the
# automatic choice, lincoll_perf's p50 beside its predicted_us.  The two
# variants are interleaved (one lincoll-run each, alternating, REPS times) so
# a change of load hits both; the load (uptime) is recorded before and after.
#
#   perf/model_fit.sh [-b BUILD] [-p PROFILE] [-n "2 4"] [-r REPS] [-s SIZES] -o OUT_DIR
#
# PROFILE: a machine profile (default: lincoll_info --calibrate writes
# OUT_DIR/machine.profile first).  Writes OUT_DIR/fit.tsv (P op size variant
# rep algo p50_us avg_us pred_us), OUT_DIR/fit.md (the markdown table: median
# p50 over the reps, prediction, measured / predicted, and per variant the
# share of rows within 1.3x) and OUT_DIR/fit.png (gnuplot, when installed).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
prof=
ranks="2 4"
reps=3
sizes=8,1k,32k,1m,8m
out=
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2; shift 2 ;;
    -p) prof=$2; shift 2 ;;
    -n) ranks=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -h | --help) sed -n 2,16p "$0"; exit 0 ;;
    *) echo "model_fit.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "model_fit.sh: -o OUT_DIR is required" >&2; exit 2; }
bin=$build/bin
mkdir -p "$out"
if [ -z "$prof" ]; then
  prof=$out/machine.profile
  "$bin/lincoll_info" --calibrate -o "$prof" >"$out/calibrate.log" 2>&1 ||
    { cat "$out/calibrate.log" >&2; exit 1; }
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >"$out/load.txt"
tsv=$out/fit.tsv
printf 'P\top\tsize\tvariant\trep\talgo\tp50_us\tavg_us\tpred_us\n' >"$tsv"
for P in $ranks; do
  for op in allreduce allgather reduce_scatter bcast reduce; do
    for rep in $(seq 1 "$reps"); do
      for variant in builtin profile; do
        if [ "$variant" = builtin ]; then pv=none; else pv=$prof; fi
        LINCOLL_PROFILE=$pv "$bin/lincoll-run" -n "$P" --timeout 300 "$bin/lincoll_perf" -t "$op" \
          -s "$sizes" -f csv 2>/dev/null | sed -n 's/^\[0\] //p' |
          awk -F, -v P="$P" -v v="$variant" -v r="$rep" -v OFS='\t' \
            '$1 != "test" && NF >= 11 {print P, $1, $4, v, r, $10, $6, $7, $11}' >>"$tsv"
      done
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"
# the table: per (P, op, size, variant) the median p50 of the reps
awk -F'\t' -v OFS='\t' '
  function med(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  NR > 1 { k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4; m[k] = m[k] " " $7; p[k] = $9; al[k] = $6
           if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
  END { for (i = 1; i <= n; i++) { k = order[i]; split(k, f, SUBSEP)
          print f[1], f[2], f[3], f[4], al[k], med(m[k]), p[k] } }' "$tsv" >"$out/fit_med.tsv"
{
  echo "| P | op | size | built-in: algorithm | measured us | predicted us | ratio | profile: algorithm | measured us | predicted us | ratio |"
  echo "|---:|---|---:|---|---:|---:|---:|---|---:|---:|---:|"
  awk -F'\t' '
    function human(b) { if (b >= 1048576) return (b / 1048576) " MiB"; if (b >= 1024) return (b / 1024) " KiB"; return b " B" }
    function cell(k, v,   r, off) { r = pr[k, v] > 0 ? me[k, v] / pr[k, v] : 0
                       tot[v]++; off = r > 1.3 || r < 1 / 1.3; if (!off) ok[v]++
                       return sprintf("%s | %.2f | %.2f | %s%.2f%s", al[k, v], me[k, v], pr[k, v], off ? "**" : "", r, off ? "**" : "") }
    { k = $1 SUBSEP $2 SUBSEP $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k; P[k] = $1; op[k] = $2; sz[k] = $3 }
      al[k, $4] = $5; me[k, $4] = $6; pr[k, $4] = $7 }
    END { for (i = 1; i <= n; i++) { k = order[i]
            printf "| %s | %s | %s | %s | %s |\n", P[k], op[k], human(sz[k]), cell(k, "builtin"), cell(k, "profile") }
          printf "\nWithin 1.3x (measured / predicted in [0.77, 1.3]): built-in figures %d of %d rows, profile %d of %d rows.\n",
                 ok["builtin"], tot["builtin"], ok["profile"], tot["profile"] }' "$out/fit_med.tsv"
  echo
  sed 's/^/- /' "$out/load.txt"
} >"$out/fit.md"
if command -v gnuplot >/dev/null; then
  for v in builtin profile; do
    awk -F'\t' -v v="$v" '$4 == v && $7 > 0 {print $1, $3, $6 / $7}' "$out/fit_med.tsv" >"$out/ratio_$v.dat"
  done
  gnuplot <<GP
set terminal pngcairo size 900,500
set output "$out/fit.png"
set logscale xy
set xlabel "bytes"
set ylabel "measured / predicted (p50)"
set title "lincoll collectives on this machine: model fit, built-in figures vs machine profile"
set key outside
set arrow from graph 0, first 1.3 to graph 1, first 1.3 nohead dt 2
set arrow from graph 0, first 0.77 to graph 1, first 0.77 nohead dt 2
plot "$out/ratio_builtin.dat" using (\$1 == 2 ? \$2 * 0.9 : 1/0):3 with points pt 6 lc 1 title "P = 2, built-in figures", \
     "$out/ratio_profile.dat" using (\$1 == 2 ? \$2 * 0.9 : 1/0):3 with points pt 7 lc 1 title "P = 2, machine profile", \
     "$out/ratio_builtin.dat" using (\$1 != 2 ? \$2 * 1.1 : 1/0):3 with points pt 4 lc 2 title "P = 4, built-in figures", \
     "$out/ratio_profile.dat" using (\$1 != 2 ? \$2 * 1.1 : 1/0):3 with points pt 5 lc 2 title "P = 4, machine profile"
GP
fi
cat "$out/fit.md"
