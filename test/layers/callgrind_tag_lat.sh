#!/usr/bin/env bash
# Instruction counts of the tag ping-pong under callgrind, for two builds side
# by side (e.g. a baseline commit's build and this one's):
#
#   test/layers/callgrind_tag_lat.sh BASE_BUILD_DIR NEW_BUILD_DIR [ITERS]
#
# Runs `lincoll-run -n 2 valgrind --tool=callgrind lincoll_perf -t tag_lat
# -s 8 -n ITERS -w 1000` with each build's own lincoll-run and lincoll_perf,
# then prints per rank the total instructions, total / ITERS, and the
# instructions of the library's per-message functions and of UCX's polling
# (summed over files, inlined parts included).  The per-message functions are
# deterministic; how often a rank polls while it waits (ucp_worker_progress,
# lc_exec_fast_test, lc_ucx_progress, peer_status) depends on scheduling, so
# compare those per call (ucp_worker_progress / lc_ucx_progress is the cost
# of one progress call relative to the wrapper's fixed cost).
# Not a ctest: a measurement (not a timing) to run by hand.
set -euo pipefail
base=$(realpath "$1") new=$(realpath "$2") iters=${3:-20000}
out=$(mktemp -d)
echo "callgrind outputs in $out"
for b in base new; do
    dir=${!b}
    "$dir/bin/lincoll-run" -n 2 valgrind --tool=callgrind --callgrind-out-file="$out/$b.%p" \
        "$dir/bin/lincoll_perf" -t tag_lat -s 8 -n "$iters" -w 1000 >"$out/$b.log" 2>&1
done
agg() { # callgrind file -> "function self-Ir" summed over files
    callgrind_annotate --auto=no --threshold=100 "$1" 2>/dev/null |
        awk '/^ *[0-9,]+ +\(/ && /:/ {c=$1; gsub(/,/,"",c); n=$0; sub(/ \[.*$/,"",n);
             sub(/^.*:/,"",n); s[n]+=c} END {for (k in s) print k, s[k]}' | LC_ALL=C sort
}
total() { callgrind_annotate --auto=no "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(/,/,"",$1); print $1}'; }
mapfile -t bf < <(ls "$out"/base.[0-9]* | sort -t. -k2 -n)
mapfile -t nf < <(ls "$out"/new.[0-9]* | sort -t. -k2 -n)
for r in 0 1; do
    tb=$(total "${bf[$r]}") tn=$(total "${nf[$r]}")
    printf '== rank %d: total %d vs %d  (per iteration %.0f vs %.0f)\n' "$r" "$tb" "$tn" \
        "$(echo "$tb / $iters" | bc -l)" "$(echo "$tn / $iters" | bc -l)"
    printf '%-28s %12s %12s %10s\n' function base new diff
    LC_ALL=C join -a1 -a2 -e0 -o 0,1.2,2.2 <(agg "${bf[$r]}") <(agg "${nf[$r]}") |
        awk '{printf "%-28s %12d %12d %+10d\n", $1, $2, $3, $3 - $2}' |
        grep -E '^(lc_ucx_|lc_exec_|lincoll_start|lincoll_wait|ucp_tag_|ucp_worker_progress)' || true
    for f in "${bf[$r]}" "${nf[$r]}"; do
        agg "$f" | awk '$1=="ucp_worker_progress"{u=$2} $1=="lc_ucx_progress"{w=$2}
            END {if (w) printf "  %s: ucp_worker_progress / lc_ucx_progress = %.3f\n", FILENAME, u / w}' \
            FILENAME="$(basename "$f")"
    done
done
