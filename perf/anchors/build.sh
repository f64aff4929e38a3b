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
#   ucc_coll           UCC collectives, tl/ucp (optional, below) BYTES AVG_US (a line per size)
# UCC is optional: with LINCOLL_UCC_SRC naming a UCC source tarball (e.g.
# /path/to/ucc-1.3.0.tar.gz, from github.com/openucx/ucc; 1.3.0 is the newest that builds
# against Debian 12's UCX 1.13), UCC is built CPU-only into DIR/ucc/install
# (once per tarball: 5-8 minutes on 2 cores, log in DIR/ucc/build.log) and
# ucc_coll against it.  Without it, ucc_coll is not built and nothing asks
# for it (the scripts add a UCC column only where DIR/ucc_coll exists).
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
if [ -n "${LINCOLL_UCC_SRC:-}" ]; then
  ucc_src=$(cd "$(dirname "$LINCOLL_UCC_SRC")" 2>/dev/null && pwd)/$(basename "$LINCOLL_UCC_SRC")
  [ -f "$ucc_src" ] || { echo "anchors: LINCOLL_UCC_SRC '$LINCOLL_UCC_SRC': no such file (a UCC source tarball)" >&2; exit 1; }
  ucc=$out/ucc
  if [ ! -f "$ucc/install/include/ucc/api/ucc.h" ] || [ "$(cat "$ucc/source" 2>/dev/null)" != "$ucc_src" ] ||
    [ "$ucc_src" -nt "$ucc/install/include/ucc/api/ucc.h" ]; then
    echo "anchors: building UCC from $ucc_src (5-8 minutes on 2 cores; $ucc/build.log)" >&2
    rm -rf "$ucc"
    mkdir -p "$ucc/src"
    tar -xzf "$ucc_src" -C "$ucc/src"
    # the sources at the top of the tarball or in its one top directory
    ucc_tree=$(dirname "$(find "$ucc/src" -maxdepth 2 -name autogen.sh | sort | head -1)")
    # CPU only (tl/ucp, tl/self); the accelerator and network plugins are off
    if ! (cd "$ucc_tree" && ./autogen.sh && ./configure --prefix="$ucc/install" --with-ucx=/usr \
      --without-cuda --without-rocm --without-nccl --without-rccl --without-sharp --without-doca_urom \
      --without-mpi && make -j"${J:-2}" && make install) >"$ucc/build.log" 2>&1; then
      tail -30 "$ucc/build.log" >&2
      echo "anchors: building UCC failed (log: $ucc/build.log)" >&2
      rm -rf "$ucc/install"
      exit 1
    fi
    echo "$ucc_src" >"$ucc/source"
    rm -f "$out/ucc_coll"
  fi
  build ucc_coll "$here/ucc_coll.c" "$u" -- \
    mpicc "${cflags[@]}" -I"$ucc/install/include" "$here/ucc_coll.c" -L"$ucc/install/lib" \
    -Wl,-rpath,"$ucc/install/lib" -lucc
fi
for s in gloo_run.sh ucx_perftest.sh; do
  if stale "$out/$s" "$here/$s"; then cp "$here/$s" "$out/$s"; chmod 755 "$out/$s"; fi
done
echo "$out"
