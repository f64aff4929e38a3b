#!/usr/bin/env bash
# perf/ucc_compare.sh: lincoll against UCC (tl/ucp, perf/anchors/ucc_coll.c)
# for the five collectives, host buffers and lincoll memory, at 2 ranks and
# at 4 ranks (on this machine's cores: 4 on 2 share them), before and after a
# change, interleaved in one run, with the small-message floor (ucx_perftest
# tag_lat of 8 bytes) measured in the same run.
#
#   perf/ucc_compare.sh -b BUILD [-B BASE_BUILD] [-a ANCHOR_DIR] [-o OUT] [-r REPS]
#                       [-n "2 4"] [-m MAXBYTES] [-t "OPS"] [-d DOC]
#
# Sizes 8 B x4 up to MAXBYTES (default 32 MiB), the sizes of mpi_coll and
# ucc_coll.  Order: repetition -> ranks -> collective -> {UCC, BUILD host,
# BUILD lincoll memory, BASE host, BASE lincoll memory}, so the load the
# machine carries falls on all of them alike; REPS (default 3) repetitions,
# medians (and best run against best run: under load a launch that was
# descheduled less).  lincoll: lincoll_perf -f csv under lincoll-run (its defaults up to
# 1 MiB, 20 iterations above); UCC: ucc_coll under mpirun, with `yield` when
# the ranks outnumber the cores (its wait loop then calls sched_yield()).
# ANCHOR_DIR (default $LINCOLL_ANCHORS or anchors-build) must hold ucc_coll:
# perf/anchors/build.sh builds it when LINCOLL_UCC_SRC names a UCC source
# tarball; without it the script says so and exits 77 (nothing to compare).
# BASE_BUILD is optional (then no "before" columns).
# Writes OUT/raw/* (default ucc-compare-out), OUT/*.tsv, OUT/*.png (gnuplot,
# perf/plot/ucc_ratio.gp) and, with -d, the page DOC (markdown; a section
# after the line "<!-- reasons -->" of an existing DOC is kept: the
# hand-written reasons).  perf/ucc_compare_report.py OUT [DOC] renders again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
B="" BASE="" A=${LINCOLL_ANCHORS:-$top/anchors-build} OUT=ucc-compare-out R=3 NS="2 4"
MAX=33554432 OPS="allreduce reduce_scatter allgather bcast reduce" DOC=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -b) B=$2; shift 2 ;;
    -B) BASE=$2; shift 2 ;;
    -a) A=$2; shift 2 ;;
    -o) OUT=$2; shift 2 ;;
    -r) R=$2; shift 2 ;;
    -n) NS=$2; shift 2 ;;
    -m) MAX=$2; shift 2 ;;
    -t) OPS=$2; shift 2 ;;
    -d) DOC=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ -n "$B" ] || usage
for v in "-r:$R" "-m:$MAX"; do
  case ${v#*:} in '' | *[!0-9]*) echo "ucc_compare: ${v%%:*} '${v#*:}': expected a number" >&2; exit 2 ;; esac
done
for b in "$B" ${BASE:+"$BASE"}; do
  [ -x "$b/bin/lincoll_perf" ] && [ -x "$b/bin/lincoll-run" ] ||
    { echo "ucc_compare: $b has no bin/lincoll_perf and bin/lincoll-run (deploy/build.sh)" >&2; exit 2; }
done
if [ ! -x "$A/ucc_coll" ]; then
  echo "ucc_compare: $A/ucc_coll is missing: build it with LINCOLL_UCC_SRC=<UCC source tarball> perf/anchors/build.sh $A" >&2
  exit 77
fi
command -v mpirun >/dev/null || { echo "ucc_compare: mpirun not found (deploy/install-deps.sh anchors)" >&2; exit 2; }
mkdir -p "$OUT/raw"
cores=$(nproc)
SMALL="" LARGE=""
s=8
while [ "$s" -le "$MAX" ]; do
  if [ "$s" -le 1048576 ]; then SMALL="$SMALL${SMALL:+,}$s"; else LARGE="$LARGE${LARGE:+,}$s"; fi
  s=$((s * 4))
done
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "lincoll: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$top" diff --quiet 2>/dev/null || echo ' (modified)')"
  echo "build: $B${BASE:+; before: $BASE}"
  echo "cpu: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $cores cores"
  echo "ucx: $(ucx_info -v 2>/dev/null | awk '/Version/ {print $3; exit}')"
  echo "ucc: $(cat "$A/ucc/source" 2>/dev/null || echo '?')"
  echo "uptime before: $(uptime)"
} >"$OUT/env.txt"

lc() { # tag build ranks op mem rep
  local tag=$1 b=$2 n=$3 op=$4 mem=$5 rep=$6 sz it f
  f=$OUT/raw/${tag}_${op}_p$n.$rep.csv
  : >"$f"
  for part in small large; do
    if [ $part = small ]; then sz=$SMALL it=""; else sz=$LARGE it="-n 20 -w 3"; fi
    [ -n "$sz" ] || continue
    # shellcheck disable=SC2086
    "$b/bin/lincoll-run" -n "$n" --timeout 600 "$b/bin/lincoll_perf" -t "$op" -s "$sz" $it -m "$mem" -f csv \
      2>>"$OUT/raw/${tag}_${op}_p$n.$rep.err" | sed 's/^\[0\] //' | grep "^$op," >>"$f" ||
      echo "ucc_compare: lincoll ($tag) $op on $n ranks failed (see ${f%.csv}.err)" >&2
  done
}
for rep in $(seq 1 "$R"); do
  "$A/ucx_perftest.sh" tag_lat 8 100000 >"$OUT/raw/floor.$rep.txt" 2>"$OUT/raw/floor.$rep.err" ||
    echo "ucc_compare: ucx_perftest failed (see $OUT/raw/floor.$rep.err)" >&2
  for n in $NS; do
    y=""
    [ "$n" -gt "$cores" ] && y=yield
    for op in $OPS; do
      echo "ucc_compare: repetition $rep, $n ranks, $op" >&2
      # shellcheck disable=SC2086
      mpirun --allow-run-as-root --oversubscribe -np "$n" "$A/ucc_coll" "$op" "$MAX" 0 $y \
        >"$OUT/raw/ucc_${op}_p$n.$rep.txt" 2>"$OUT/raw/ucc_${op}_p$n.$rep.err" ||
        echo "ucc_compare: ucc_coll $op on $n ranks failed (see $OUT/raw/ucc_${op}_p$n.$rep.err)" >&2
      lc host "$B" "$n" "$op" host "$rep"
      lc mem "$B" "$n" "$op" lincoll "$rep"
      if [ -n "$BASE" ]; then
        lc bhost "$BASE" "$n" "$op" host "$rep"
        lc bmem "$BASE" "$n" "$op" lincoll "$rep"
      fi
    done
  done
done
echo "uptime after: $(uptime)" >>"$OUT/env.txt"
"$here/ucc_compare_report.py" "$OUT" ${DOC:+"$DOC"}
