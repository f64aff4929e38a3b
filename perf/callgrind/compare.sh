#!/usr/bin/env bash
# Instructions per iteration (callgrind) of perf/callgrind/loops.c for two
# builds of lincoll side by side:
#
#   perf/callgrind/compare.sh OLD_BUILD_DIR NEW_BUILD_DIR
#
# Each build dir holds lib/liblincoll.so, include/ (the generated version.h)
# and bin/lincoll-run; the public headers come from the source tree next to
# it (OLD_SRC / NEW_SRC, default: this repository's include/).  Callgrind
# collects only inside loops_iter, one start + wait (--toggle-collect),
# 20000 iterations; rank 0's count / 20000 is the figure.  The self loop
# never waits; the bcast root never waits either (loops.c keeps its peer at
# most 4 starts behind), so both are deterministic up to UCX's own timers.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
old=$(realpath "$1") new=$(realpath "$2")
old_src=${OLD_SRC:-$top} new_src=${NEW_SRC:-$top}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v valgrind >/dev/null || { echo "compare.sh: valgrind is not installed" >&2; exit 2; }
build() { # build-dir src-dir -> binary
    local b=$1 s=$2 o=$out/loops.$3
    gcc -O2 -o "$o" "$top/perf/callgrind/loops.c" -I"$s/include" -I"$b/include" \
        -L"$b/lib" -Wl,-rpath,"$b/lib" -llincoll
    echo "$o"
}
ir() { # file -> total instructions of one callgrind output
    callgrind_annotate --auto=no "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(/,/,"",$1); print $1}'
}
run() { # build-tag binary build-dir mode iters -> Ir of rank 0
    local tag=$1 bin=$2 b=$3 mode=$4 n=$5 f=$out/cg.$1.$4.$5
    local cg=(valgrind --tool=callgrind --collect-atstart=no --toggle-collect=loops_iter)
    if [ "$mode" = self ]; then
        "${cg[@]}" --callgrind-out-file="$f.0" "$bin" self "$n" >/dev/null 2>&1
    else
        "$b/bin/lincoll-run" -n 2 "${cg[@]}" --callgrind-out-file="$f.%q{LINCOLL_RANK}" \
            "$bin" bcast "$n" >/dev/null 2>&1
    fi
    ir "$f.0"
}
printf '%-8s %14s %14s %8s\n' loop old_Ir/iter new_Ir/iter new/old
for mode in self bcast; do
    declare -A per=()
    for tag in old new; do
        b=${!tag}
        s=$([ "$tag" = old ] && echo "$old_src" || echo "$new_src")
        bin=$(build "$b" "$s" "$tag")
        per[$tag]=$(( $(run "$tag" "$bin" "$b" "$mode" 20000) / 20000 ))
    done
    printf '%-8s %14d %14d %8.3f\n' "$mode" "${per[old]}" "${per[new]}" \
        "$(echo "${per[new]} / ${per[old]}" | bc -l)"
done
