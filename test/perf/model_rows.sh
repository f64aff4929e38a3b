#!/usr/bin/env bash
# lincoll_perf's table rows hold a measurement against the model's
# prediction only where the run can tell (docs/perf/README.md, lincoll_perf):
#   test/perf/model_rows.sh LINCOLL_RUN LINCOLL_PERF
# Checks, on 2 ranks over UCX:
#  - every collective row says either "measured / predicted R" (R a positive
#    number equal to p50 / predicted up to rounding) or "not compared: WHY";
#  - 5 iterations: every row of allreduce, encode and matmul, and the
#    "# encode" and "# matmul" lines, say "not compared: 5 iterations";
#  - two busy loops beside the ranks: the 1 MiB allreduce row says "other
#    processes used", and its #cpu line counts others > 0.3 cores over a run
#    long enough for /proc/stat (3000 iterations); a run too short for it
#    (100 iterations) still says so, from the ranks' run-queue waits
#    (wait_max > 0.3 on the #cpu line, or others > 0.3 where it lasted).
set -uo pipefail
run=$1 perf=$2
fail=0
err() { echo "model_rows: $*" >&2; fail=1; }
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
export LINCOLL_PROFILE=none

lp() { # out-file args... : lincoll_perf on 2 ranks, rank 0's lines without the prefix
  local out=$1
  shift
  if ! "$run" -n 2 --timeout 120 "$perf" "$@" >"$tmp/raw" 2>"$tmp/err"; then
    err "lincoll_perf $*: failed: $(tail -3 "$tmp/err")"
    return 1
  fi
  sed -n 's/^\[0\] //p' "$tmp/raw" >"$out"
}

# 1. every row: a ratio that matches its figures, or a reason
if lp "$tmp/a" -t allreduce -s 8,64k,1m -n 200 -w 10; then
  rows=$(grep -c '^| allreduce ' "$tmp/a")
  [ "$rows" = 3 ] || err "allreduce: $rows rows, want 3"
  awk -F'|' '/^\| allreduce / {
      p50 = $7 + 0; tail = $10
      if (match(tail, /predicted [0-9.]+ us, measured \/ predicted [0-9.]+\)/)) {
        s = substr(tail, RSTART, RLENGTH); split(s, w, " ")
        pred = w[2] + 0; r = w[7] + 0
        if (r <= 0 || pred <= 0) { print "bad ratio: " $0; bad = 1 }
        else {
          # R is printed with 2 decimals, p50 with 3 and the prediction with 2:
          # R must be p50 / predicted to within that rounding
          want = p50 / pred; tol = 0.005 + 0.01 * want
          if (r - want > tol || want - r > tol) { print "ratio " r " is not p50 / predicted (" want "): " $0; bad = 1 }
        }
      } else if (tail !~ /predicted [0-9.]+ us; not compared: (other processes used|iteration times spread|[0-9]+ iterations)/) {
        print "neither a ratio nor a reason: " $0; bad = 1
      }
    } END { exit bad }' "$tmp/a" >&2 || err "allreduce rows (above)"
  grep '^#cpu ' "$tmp/a" | grep -qv ' others=' && err "#cpu line without others="
fi

# 2. too few iterations
if lp "$tmp/b" -t allreduce -s 8,64k -n 5 -w 1; then
  n=$(grep '^| allreduce ' "$tmp/b" | grep -c 'not compared: 5 iterations, fewer than 10')
  [ "$n" = 2 ] || err "allreduce -n 5: $n of 2 rows say 5 iterations: $(grep '^| allreduce' "$tmp/b")"
fi
if lp "$tmp/c" -t encode -s 4k -n 5 -w 1; then
  grep -q '^# encode .*not compared: 5 iterations' "$tmp/c" || err "# encode line: $(grep '^# encode' "$tmp/c")"
  grep -q '^| encode .*not compared: 5 iterations' "$tmp/c" || err "encode row: $(grep '^| encode' "$tmp/c")"
fi
if lp "$tmp/d" -t matmul -s 128 -n 5 -w 1; then
  grep -q '^# matmul n=.*not compared: 5 iterations' "$tmp/d" || err "# matmul line: $(grep '^# matmul n' "$tmp/d")"
  grep -q '^| matmul .*predicted [0-9.]* us communication; not compared: 5 iterations' "$tmp/d" ||
    err "matmul row: $(grep '^| matmul' "$tmp/d")"
fi

# 3. other processes: two busy loops for the length of the run
for _ in 1 2; do
  (while :; do :; done) &
  pids+=($!)
done
cpu_kv() { # file key: the value of key= on the file's last #cpu line
  awk -v k="$2" '/^#cpu / { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) v = substr($i, length(k) + 2) }
       END { print v + 0 }' "$1"
}
if lp "$tmp/e" -t allreduce -s 1m -n 3000 -w 5; then
  grep -q '^| allreduce .*not compared: other processes used' "$tmp/e" ||
    err "busy machine: $(grep '^| allreduce' "$tmp/e")"
  awk -v o="$(cpu_kv "$tmp/e" others)" 'BEGIN { exit !(o > 0.3) }' ||
    err "busy machine: #cpu: $(grep '^#cpu' "$tmp/e")"
fi
if lp "$tmp/f" -t allreduce -s 1m -n 100 -w 2; then
  grep -q '^| allreduce .*not compared: other processes used' "$tmp/f" ||
    err "busy machine, short run: $(grep '^| allreduce' "$tmp/f") $(grep '^#cpu' "$tmp/f")"
  awk -v o="$(cpu_kv "$tmp/f" others)" -v w="$(cpu_kv "$tmp/f" wait_max)" 'BEGIN { exit !(o > 0.3 || w > 0.3) }' ||
    err "busy machine, short run: #cpu: $(grep '^#cpu' "$tmp/f")"
fi
[ "$fail" = 0 ] && echo "PASS: model_rows"
exit "$fail"
