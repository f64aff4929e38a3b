#!/usr/bin/env bash
# perf/anchors/build.sh: builds the anchor programs, other projects'
# libraries timed beside lincoll in the same run (the perf/*.sh scripts
# report lincoll's figures as ratios against them), into DIR.
#   perf/anchors/build.sh [DIR]        default: anchors-build/ in the repository
# Installs what is missing first (deploy/install-deps.sh anchors), rebuilds a
# program only when its source (or anchor_util.h) is newer, and copies the
# two launch scripts next to the programs, so DIR is self-contained.  Prints
# DIR's absolute path as its last line.
#
#   program            anchor                                   prints
#   isal_encode        ISA-L ec_encode_data (GF(2^8) Cauchy)    isal_encode k=K m=M len=L iters=I: X GB/s (data in)
#   blas_gemm          OpenBLAS cblas_dgemm / cblas_sgemm       dgemm n=N threads=T core=C: X GFLOP/s
#   mpi_coll           Open MPI collectives (OSU-style)         BYTES AVG_US (a line per size)
#   scalapack_pdgemm   ScaLAPACK pdgemm                         N P GFLOP/s SECONDS
#   gloo_allreduce     Gloo halving-doubling / ring allreduce   BYTES AVG_US (a line per size)
#     + gloo_run.sh    starts N gloo ranks on this machine
#   ucx_perftest.sh    ucx_perftest server + client (ucx-utils) TEST SIZE ITERS P50_US AVG_US MBPS MSGPS
# Each source file's header gives its arguments.  perf/anchors/selftest.sh
# runs each once, tiny, and checks the lines (ctest label "anchors").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-$top/anchors-build}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -x "$top/deploy/install-deps.sh" ]; then
  "$top/deploy/install-deps.sh" anchors >&2
fi
for t in gcc g++ mpicc; do
  command -v "$t" >/dev/null || { echo "anchors: $t not found (deploy/install-deps.sh anchors)" >&2; exit 1; }
done
openblas_inc=$(pkg-config --cflags openblas 2>/dev/null || echo "-I/usr/include/x86_64-linux-gnu/openblas-pthread")
cflags=(-O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror)

stale() { # target sources... -> 0 when target must be rebuilt
  local t=$1 s
  shift
  [ -x "$t" ] || return 0
  for s in "$@"; do [ "$s" -nt "$t" ] && return 0; done
  return 1
}
build() { # name sources -- compile command...
  local name=$1 srcs=()
  shift
  while [ "$1" != -- ]; do srcs+=("$1"); shift; done
  shift
  if stale "$out/$name" "${srcs[@]}" "$here/build.sh"; then
    echo "anchors: building $name" >&2
    "$@" -o "$out/$name.tmp" && mv "$out/$name.tmp" "$out/$name"
  fi
}

u=$here/anchor_util.h
build isal_encode "$here/isal_encode.c" "$u" -- \
  gcc "${cflags[@]}" "$here/isal_encode.c" -lisal
# shellcheck disable=SC2086
build blas_gemm "$here/blas_gemm.c" "$u" -- \
  gcc "${cflags[@]}" $openblas_inc "$here/blas_gemm.c" -lopenblas -lm
build mpi_coll "$here/mpi_coll.c" "$u" -- \
  mpicc "${cflags[@]}" "$here/mpi_coll.c"
build scalapack_pdgemm "$here/scalapack_pdgemm.c" "$u" -- \
  mpicc "${cflags[@]}" "$here/scalapack_pdgemm.c" -lscalapack-openmpi -lm
build gloo_allreduce "$here/gloo_allreduce.cc" -- \
  g++ -O2 -g -std=c++17 -Wall -Wextra "$here/gloo_allreduce.cc" -lgloo -lpthread
for s in gloo_run.sh ucx_perftest.sh; do
  if stale "$out/$s" "$here/$s"; then cp "$here/$s" "$out/$s"; chmod 755 "$out/$s"; fi
done
echo "$out"
