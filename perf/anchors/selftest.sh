#!/usr/bin/env bash
# perf/anchors/selftest.sh: every anchor program run once, tiny, and its
# output checked line by line against the form the perf scripts read, so a
# broken anchor fails ctest (label "anchors") instead of silently emptying a
# comparison column.
#   perf/anchors/selftest.sh DIR build      perf/anchors/build.sh DIR
#   perf/anchors/selftest.sh DIR NAME...    run and check: isal blas mpi_coll
#                                           pdgemm gloo ucx_perftest (or all),
#                                           ucc (UCC: LINCOLL_UCC_SRC, built
#                                           first when DIR lacks ucc_coll)
# Each run is a few seconds at most: isal 4+2 at 64 KiB, dgemm/sgemm n=64,
# the five MPI collectives at 8 and 32 bytes on 2 ranks, pdgemm n=64 on 1
# and 2 ranks with the full check, Gloo hd and ring on 2 ranks at 8 and 32
# bytes, ucx_perftest tag_lat and tag_bw with a few iterations.  Exit 1 with
# the offending output on the first mismatch.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
dir=$1
shift
err=$(mktemp)
trap 'rm -f "$err"' EXIT
fail() {
  echo "FAIL: $*"
  [ -n "${out:-}" ] && printf '%s\n' "--- stdout:" "$out"
  [ -s "$err" ] && echo "--- stderr:" && cat "$err"
  exit 1
}
run() { # timeout-guarded command; its stdout lands in $out, its stderr in $err
  out=$(timeout -k 5 120 "$@" 2>"$err")
  local rc=$?
  [ "$rc" = 0 ] || fail "'$*' exited with status $rc"
}
expect() { # regex: every line of $out must match, and there must be $2 lines (default 1)
  local n
  n=$(grep -c . <<<"$out")
  [ "$n" = "${2:-1}" ] || fail "expected ${2:-1} line(s), got $n"
  grep -Evq "$1" <<<"$out" && fail "a line does not match /$1/"
  return 0
}
positive() { # field number: that field of every line is a number > 0
  awk -v f="$1" '{ v = $f; sub(/:$/, "", v); if (!(v + 0 > 0)) exit 1 }' <<<"$out" ||
    fail "field $1 is not a positive number"
}
mpirun=(mpirun --allow-run-as-root --oversubscribe)
num='[0-9]+(\.[0-9]+)?'

check() {
  case $1 in
  isal)
    run "$dir/isal_encode" 4 2 64k 20
    expect "^isal_encode k=4 m=2 len=65536 iters=20: $num GB/s \\(data in\\)\$"
    positive 6
    ;;
  blas)
    for t in d s; do
      # with an OpenBLAS core override set: the anchor drops it and still runs
      run env OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1 "$dir/blas_gemm" 64 $t
      expect "^${t}gemm n=64 threads=1 core=[A-Za-z0-9_]+: $num GFLOP/s\$"
      positive 5
    done
    ;;
  mpi_coll)
    for op in allreduce reduce_scatter allgather bcast reduce; do
      run "${mpirun[@]}" -np 2 "$dir/mpi_coll" $op 32 10
      expect "^(8|32) $num\$" 2
      [ "$(awk '{ print $1 }' <<<"$out" | tr '\n' ' ')" = "8 32 " ] || fail "$op: sizes are not 8 32"
      positive 2
    done
    ;;
  pdgemm)
    for P in 1 2; do
      run env OPENBLAS_NUM_THREADS=1 "${mpirun[@]}" -np $P "$dir/scalapack_pdgemm" 64 16 check
      grep -Eq "^64 $P $num $num\$" <<<"$out" || fail "no 'N P GFLOP/s SECONDS' line for P=$P"
      grep -Eq "^check n=64 nb=16 grid=1x$P max_abs_err=0 OK\$" <<<"$out" || fail "check line missing or not OK"
    done
    ;;
  gloo)
    for a in hd ring; do
      run "$dir/gloo_run.sh" 2 $a 32 10
      expect "^(8|32) $num\$" 2
      positive 2
    done
    ;;
  ucx_perftest)
    run "$dir/ucx_perftest.sh" tag_lat 8 10
    expect "^tag_lat 8 10 $num $num $num $num\$"
    positive 4
    run "$dir/ucx_perftest.sh" tag_bw 65536 20
    expect "^tag_bw 65536 20 $num $num $num $num\$"
    positive 6
    ;;
  ucc)
    if [ ! -x "$dir/ucc_coll" ]; then
      [ -n "${LINCOLL_UCC_SRC:-}" ] || fail "$dir has no ucc_coll and LINCOLL_UCC_SRC (a UCC source tarball) is not set"
      "$here/build.sh" "$dir" >/dev/null 2>"$err" || fail "perf/anchors/build.sh $dir with LINCOLL_UCC_SRC=$LINCOLL_UCC_SRC"
    fi
    for op in allreduce reduce_scatter allgather bcast reduce; do
      run "${mpirun[@]}" -np 2 "$dir/ucc_coll" $op 32 10
      expect "^(8|32) $num\$" 2
      [ "$(awk '{ print $1 }' <<<"$out" | tr '\n' ' ')" = "8 32 " ] || fail "$op: sizes are not 8 32"
      positive 2
    done
    ;;
  *) echo "selftest: unknown anchor '$1'" >&2; exit 2 ;;
  esac
  echo "PASS: $1"
}

if [ "$1" = build ]; then
  "$here/build.sh" "$dir"
  exit $?
fi
[ "$1" = all ] && set -- isal blas mpi_coll pdgemm gloo ucx_perftest
for a in "$@"; do
  [ -d "$dir" ] || fail "$dir does not exist (perf/anchors/selftest.sh $dir build)"
  check "$a"
done
