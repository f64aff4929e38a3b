#!/usr/bin/env bash
# Installs the Debian 12 packages lincoll needs to build, test and benchmark
# (only those missing).  Run as root (or with sudo available).
#   deploy/install-deps.sh          build + test dependencies
set -euo pipefail
pkgs=(build-essential cmake pkg-config git
      libucx-dev ucx-utils libhwloc-dev hwloc libpmix-dev libibverbs-dev
      libcmocka-dev openmpi-bin libopenmpi-dev libisal-dev clang-format
      clang libclang-rt-14-dev valgrind python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
