#!/usr/bin/env bash
# lincoll_perf's point-to-point tests on N ranks: pairs 0-1, 2-3, ... measure
# at once; rank 0 prints a row per pair and, with two pairs or more, an
# aggregate row "all".
#   test/perf/p2p_pairs.sh LINCOLL_RUN LINCOLL_PERF N
# For tag_lat, tag_bw and put_bw at 8 B and 64 KiB (few iterations), checks
#  - the CSV header is the 2-rank one plus the column "pair" (the same for
#    every N: scripts that read the 2-rank output keep working);
#  - per size exactly the rows 0-1, 2-3, ... then "all" (only with 2+ pairs),
#    every figure a number > 0, ranks = N, iters = the -n given;
#  - "all" is the sum of the pairs' MB/s and msg/s, the largest pair p50 and
#    the mean of the pairs' averages (up to the printed rounding);
#  - with an odd N, exactly one stderr line says the last rank sits out, and
#    none with an even N;
#  - the text table (no -f) has the pair column with the same labels.
set -uo pipefail
run=$1 perf=$2 n=$3
iters=50
fail=0
err() { echo "p2p_pairs n=$n: $*" >&2; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
want_header="test,ranks,ports,size,iters,lat_us_p50,lat_us_avg,bw_MBps,msg_rate,pair"
labels=""
for ((j = 0; j + 1 < n; j += 2)); do labels+="$j-$((j + 1)) "; done
npairs=$((n / 2))
[ "$npairs" -gt 1 ] && labels+="all "

for t in tag_lat tag_bw put_bw; do
  if ! "$run" -n "$n" --timeout 120 "$perf" -t "$t" -s 8,64k -n $iters -w 5 -f csv \
      >"$tmp/out" 2>"$tmp/err"; then
    err "$t: lincoll_perf failed: $(tail -3 "$tmp/err")"
    continue
  fi
  # everything comes from rank 0
  if grep -v '^\[0\] ' "$tmp/out" | grep -q .; then err "$t: lines from other ranks than 0"; fi
  sed 's/^\[0\] //' "$tmp/out" >"$tmp/csv"
  header=$(head -1 "$tmp/csv")
  [ "$header" = "$want_header" ] || err "$t: header '$header', expected '$want_header'"
  for size in 8 65536; do
    got=$(awk -F, -v s="$size" 'NR > 1 && $4 == s {printf "%s ", $10}' "$tmp/csv")
    [ "$got" = "$labels" ] || err "$t $size B: pair rows '$got', expected '$labels'"
    bad=$(awk -F, -v t="$t" -v n="$n" -v s="$size" -v it=$iters '
      NR > 1 && $4 == s {
        if (NF != 10) print "fields " NF ": " $0
        else if ($1 != t || $2 != n || $3 != 1 || $5 != it) print "columns: " $0
        else for (c = 6; c <= 9; c++)
          if ($c !~ /^[0-9]+(\.[0-9]+)?$/ || $c + 0 <= 0) print "column " c " not a number > 0: " $0
      }' "$tmp/csv")
    [ -z "$bad" ] || err "$t $size B: $bad"
    if [ "$npairs" -gt 1 ]; then
      # aggregate = sum of MB/s and msg/s, max p50, mean average (rounding: 3, 3, 2, 0 decimals)
      bad=$(awk -F, -v s="$size" -v np="$npairs" '
        NR > 1 && $4 == s && $10 != "all" {bw += $8; rate += $9; avg += $7; if ($6 > p50) p50 = $6}
        NR > 1 && $4 == s && $10 == "all" {a = $0; abw = $8; arate = $9; aavg = $7; ap50 = $6}
        END {
          d = abw - bw; if (d < 0) d = -d; if (d > 0.01 * np + 1e-9 * bw) print "MB/s " abw " != sum " bw
          d = arate - rate; if (d < 0) d = -d; if (d > np) print "msg/s " arate " != sum " rate
          d = ap50 - p50; if (d < 0) d = -d; if (d > 0.0005) print "p50 " ap50 " != max " p50
          d = aavg - avg / np; if (d < 0) d = -d; if (d > 0.001) print "avg " aavg " != mean " avg / np
        }' "$tmp/csv")
      [ -z "$bad" ] || err "$t $size B aggregate: $bad"
    fi
  done
  notes=$(grep -c 'has no partner and sits out' "$tmp/err")
  if [ $((n % 2)) = 1 ]; then
    [ "$notes" = 1 ] || err "$t: $notes 'sits out' lines on stderr, expected 1"
    grep -q "rank $((n - 1)) has no partner" "$tmp/err" || err "$t: the note does not name rank $((n - 1))"
  else
    [ "$notes" = 0 ] || err "$t: a 'sits out' note with an even rank count"
  fi
done

# the text table: same labels in the last column
if "$run" -n "$n" --timeout 120 "$perf" -t tag_bw -s 8 -n $iters -w 5 >"$tmp/out" 2>"$tmp/err"; then
  head=$(grep -c '| pair    |' "$tmp/out")
  [ "$head" = 1 ] || err "text table: $head header lines with the pair column"
  got=$(awk -F'|' '$2 ~ /tag_bw/ {gsub(/ /, "", $10); printf "%s ", $10}' "$tmp/out")
  [ "$got" = "$labels" ] || err "text table: pair column '$got', expected '$labels'"
else
  err "text table run failed: $(tail -3 "$tmp/err")"
fi

[ $fail = 0 ] && echo "p2p_pairs n=$n: OK (tag_lat, tag_bw, put_bw; pairs: $labels)"
exit $fail
