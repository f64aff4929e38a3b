#!/usr/bin/env bash
# Prepares .gpu-carry/ (git-ignored): what test/gpu/run.sh needs on a GPU
# machine that reaches no package registry (docs/accelerators.md, "Checks on
# a GPU machine"):
#   .gpu-carry/build/bin   the GPU programs, lincoll-run and test_dev_sim
#                          from a CUDA build (debug info stripped; lincoll is
#                          linked in statically, with the CUDA runtime)
#   .gpu-carry/root        the Debian runtime libraries they load that a
#                          CUDA image may lack (UCX and its modules, hwloc,
#                          PMIx, ibverbs, cmocka, numa, libevent, libnl,
#                          munge, udev): fetched with apt-get download and
#                          unpacked with dpkg -x, docs and manuals dropped
# and prints the size, which must stay under 64 MiB.
#   deploy/gpu-carry.sh [BUILD_DIR]     default build/ (deploy/build.sh)
# On the GPU machine: test/gpu/run.sh (it finds .gpu-carry by itself).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
dest=$top/.gpu-carry
progs="test_cuda_kernels gpu_coll gpu_bench lincoll-run test_dev_sim"
for p in $progs; do
  [ -x "$build/bin/$p" ] || {
    echo "gpu-carry: $build/bin/$p is missing: build with CUDA first (deploy/build.sh where nvcc is)" >&2
    exit 1
  }
done
rm -rf "$dest"
mkdir -p "$dest/build/bin" "$dest/debs" "$dest/root"
for p in $progs; do
  strip --strip-debug -o "$dest/build/bin/$p" "$build/bin/$p"
done
# the packages of every library the programs load, but the C and C++
# runtime (every image has them); UCX's transport modules come with libucx0
libs=$(for p in $progs; do ldd "$build/bin/$p" | awk '$3 ~ /^\// {print $3}'; done | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so')
pkgs=$(for l in $libs; do dpkg -S "$(readlink -f "$l")" 2>/dev/null || dpkg -S "$l"; done |
  cut -d: -f1 | sort -u)
echo "gpu-carry: packages: $(echo $pkgs)"
(cd "$dest/debs" && apt-get download $pkgs >/dev/null)
for d in "$dest"/debs/*.deb; do dpkg -x "$d" "$dest/root"; done
rm -rf "$dest/debs" "$dest/root/usr/share/doc" "$dest/root/usr/share/man" "$dest/root/usr/share/lintian"
size=$(du -sk "$dest" | cut -f1)
echo "gpu-carry: $dest: $((size / 1024)) MiB ($(du -sh "$dest/build" | cut -f1) programs, $(du -sh "$dest/root" | cut -f1) libraries)"
if [ "$size" -ge $((64 * 1024)) ]; then
  echo "gpu-carry: over the 64 MiB a GPU machine takes" >&2
  exit 1
fi
