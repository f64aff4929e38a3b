#!/usr/bin/env bash
# Installs the Debian 12 (bookworm) packages lincoll needs, only those that
# are missing.  Run as root (or with sudo available).
#   deploy/install-deps.sh [GROUP...]      default: all groups but devcheck
#   deploy/install-deps.sh --list [GROUP...]   print the packages, install nothing
# Groups:
#   build     compile the library, lincoll-run, lincoll_perf and the tests
#             (libssl-dev: OpenSSL for lincoll-ecd's TLS 1.3, daemon/ecd_tls.c,
#             and its SHA-256 from libcrypto)
#   test      what ctest and the scripts it runs call: mpirun (Open MPI, with
#             ssh-client because Open MPI's launcher refuses to start without
#             an rsh agent even on one node), ucx_info/ucx_perftest, hwloc,
#             python3 (models and checkers), ip/tc/bridge and unshare (the
#             emulated cluster: network namespaces, veth, tbf), taskset,
#             pgrep/ps, timeout, clang-format (the format check), valgrind,
#             clang + libFuzzer runtime (deploy/fuzz.sh), Debian's mpi4py and
#             numpy (a client of liblincoll_mpi.so), MPICH (liblincoll_mpi.so
#             is also built and tested against it: mpicc.mpich, mpirun.mpich;
#             installing it leaves mpicc and mpirun on Open MPI, whose
#             alternatives have the higher priority)
#   slurm     a local Slurm with PMIx for the srun tests (deploy/slurm-local.sh):
#             slurmctld, slurmd, the client commands, the mpi/pmix plugin
#             (slurm-wlm-basic-plugins), munge, python3 (picks free ports)
#   anchors   the programs lincoll is measured against (perf/anchors/build.sh):
#             Open MPI, OpenBLAS, ScaLAPACK, Gloo, ISA-L, ucx_perftest, a C++
#             compiler; ctest builds and runs them once (label anchors);
#             autoconf, automake, libtool: UCC from a source tarball
#             (LINCOLL_UCC_SRC, perf/anchors/build.sh)
#   bench     the sweep scripts' extras: gnuplot (PNG plots of perf/*.sh)
#   devcheck  the fresh-root check only (deploy/fresh-root-check.sh):
#             debootstrap; never installed by default
# deploy/test.sh installs the default set (build test slurm anchors bench).
set -euo pipefail
declare -A group
group[build]="build-essential cmake pkg-config git ca-certificates
  libucx-dev libhwloc-dev libpmix-dev libibverbs-dev libcmocka-dev libisal-dev libssl-dev"
group[test]="python3 ucx-utils hwloc openmpi-bin libopenmpi-dev openssh-client
  iproute2 procps util-linux coreutils clang-format valgrind
  clang libclang-rt-14-dev python3-mpi4py python3-numpy mpich libmpich-dev"
group[slurm]="slurm-wlm slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libpmix2 python3"
group[anchors]="g++ openmpi-bin libopenmpi-dev libopenblas-dev libscalapack-openmpi-dev
  libgloo-dev libisal-dev ucx-utils procps autoconf automake libtool"
group[bench]="gnuplot-nox"
group[devcheck]="debootstrap"
default_groups=(build test slurm anchors bench)

list=0
if [ "${1:-}" = --list ]; then
  list=1
  shift
fi
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=("${default_groups[@]}")
pkgs=()
for g in "${groups[@]}"; do
  [ -n "${group[$g]:-}" ] || {
    echo "install-deps: unknown group '$g' (groups: build test slurm anchors bench devcheck)" >&2
    exit 2
  }
  # shellcheck disable=SC2206
  pkgs+=(${group[$g]})
done
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u)
if [ "$list" = 1 ]; then
  printf '%s\n' "${pkgs[@]}"
  exit 0
fi
missing=()
for p in "${pkgs[@]}"; do
  [ "$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing+=("$p")
done
((${#missing[@]})) || exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
# the slurm and munge packages start their daemons from their postinst
# scripts where an init system runs; policy-rc.d 101 keeps them stopped
# (deploy/slurm-local.sh starts its own), removed again afterwards
rcd=/usr/sbin/policy-rc.d
own_rcd=0
if [ ! -e "$rcd" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$rcd" >/dev/null
  $SUDO chmod 755 "$rcd"
  own_rcd=1
fi
trap '[ "$own_rcd" = 0 ] || $SUDO rm -f "$rcd"' EXIT
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
