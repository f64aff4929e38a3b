#!/usr/bin/env bash
# Two builds of lincoll side by side, in one run: every case of lincoll_perf
# on 2 ranks (lincoll-run), each build's own binaries, the two builds
# alternating REPS times (odd repetitions OLD first, even ones NEW first, so
# a drift in the machine's load hits both alike).
#
#   perf/compare_builds.sh OLD_BUILD NEW_BUILD [REPS] [CASES]
#       CASES (default all): p2p coll encode matmul
#
# Cases (what the plan-IR change had to keep; -m lincoll: lincoll_mem_alloc
# buffers, so the zero-copy collectives run where they apply):
#   p2p     tag_lat 8 B (p50 us), tag_bw 4 MiB and put_bw 4 MiB (MB/s)
#   coll    allreduce, reduce_scatter, allgather, bcast, reduce at 8 B, 1 KiB,
#           64 KiB, 1 MiB, 8 MiB and 32 MiB (p50 us)
#   encode  K = 2 at 4 KiB, 64 KiB, 1 MiB, 16 MiB (p50 us)
#   matmul  n = 1024 and 2048, double, 2 ranks (GFLOP/s from the "# matmul" line)
# Prints per case and size: the median over the repetitions of OLD and NEW,
# and perf = NEW/OLD in the better-is-higher sense (old_time / new_time, or
# new_rate / old_rate), plus every repetition's pair.  Figures are only
# comparable within one run.
set -euo pipefail
old=$(realpath "$1") new=$(realpath "$2") reps=${3:-5}
cases=${4:-"p2p coll encode matmul"}
for b in "$old" "$new"; do
    [ -x "$b/bin/lincoll_perf" ] && [ -x "$b/bin/lincoll-run" ] ||
        { echo "compare_builds.sh: $b has no bin/lincoll_perf and bin/lincoll-run" >&2; exit 2; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# one measurement: build test size -> value (p50 us, MB/s, or GFLOP/s)
measure() {
    local b=$1 t=$2 s=$3 extra=() line
    case $t in
    tag_lat) extra=(-n 20000 -w 2000) ;;
    tag_bw) extra=(-n 1000 -w 100) ;;
    put_bw) extra=(-n 3000 -w 300) ;;
    encode) extra=(-K 2) ;;
    matmul) extra=(-n 5 -d double) ;;
    esac
    if [ "$t" = matmul ]; then
        line=$("$b/bin/lincoll-run" -n 2 --timeout 300 "$b/bin/lincoll_perf" -t matmul -s "$s" \
            "${extra[@]}" 2>/dev/null | sed -n 's/.*# matmul .*: \([0-9.]*\) GFLOP\/s.*/\1/p' | head -1)
        echo "${line:-nan}"
        return
    fi
    line=$("$b/bin/lincoll-run" -n 2 --timeout 300 "$b/bin/lincoll_perf" -t "$t" -s "$s" -f csv \
        "${extra[@]}" 2>/dev/null | sed 's/^\[[0-9]*\] //' | awk -F, -v s="$s" '$1 != "test" && NF >= 9 {print; exit}')
    case $t in
    tag_bw | put_bw) echo "$line" | awk -F, '{print $8}' ;;
    *) echo "$line" | awk -F, '{print $6}' ;;
    esac
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

rows=()
for c in $cases; do
    case $c in
    p2p) rows+=("tag_lat 8" "tag_bw 4m" "put_bw 4m") ;;
    coll)
        for t in allreduce reduce_scatter allgather bcast reduce; do
            for s in 8 1k 64k 1m 8m 32m; do rows+=("$t $s"); done
        done
        ;;
    encode) for s in 4k 64k 1m 16m; do rows+=("encode $s"); done ;;
    matmul) rows+=("matmul 1024" "matmul 2048") ;;
    *) echo "compare_builds.sh: unknown case $c" >&2; exit 2 ;;
    esac
done

printf '%-15s %6s %12s %12s %7s   %s\n' test size old new perf "pairs (old/new)"
for row in "${rows[@]}"; do
    read -r t s <<<"$row"
    : >"$out/old" && : >"$out/new"
    pairs=""
    for r in $(seq 1 "$reps"); do
        if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
        for w in $order; do
            b=$([ "$w" = old ] && echo "$old" || echo "$new")
            measure "$b" "$t" "$s" >>"$out/$w"
        done
        pairs+="$(tail -1 "$out/old")/$(tail -1 "$out/new") "
    done
    mo=$(median <"$out/old") mn=$(median <"$out/new")
    higher=0
    case $t in tag_bw | put_bw | matmul) higher=1 ;; esac
    perf=$(awk -v o="$mo" -v n="$mn" -v h="$higher" 'BEGIN {
        if (o == "nan" || n == "nan" || o + 0 == 0 || n + 0 == 0) print "nan";
        else printf "%.3f", h ? n / o : o / n }')
    printf '%-15s %6s %12s %12s %7s   %s\n' "$t" "$s" "$mo" "$mn" "$perf" "$pairs"
done
