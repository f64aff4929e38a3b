#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds a tiny consumer
# against it twice: with pkg-config and with find_package(lincoll).
#   check_install.sh BUILD_DIR
# LC_CONSUMER_CFLAGS: extra compiler flags for the consumers (deploy/sanitize.sh
# sets -fsanitize=address,undefined: a sanitized library needs a sanitized
# program, the ASan runtime must come first).
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# liblincoll_mpi.so (where an MPI was found) loads from the prefix alone:
# LD_PRELOAD of the installed file must find liblincoll.so beside it
for f in "$tmp"/prefix/lib/liblincoll_mpi.so "$tmp"/prefix/lib/mpich/liblincoll_mpi.so; do
  [ -e "$f" ] || continue
  if env -u LD_LIBRARY_PATH ldd "$f" | grep -q 'not found'; then
    echo "check_install: $f: $(ldd "$f" | grep 'not found')" >&2
    exit 1
  fi
  echo "installed $f resolves its libraries"
done
cat >"$tmp/consumer.c" <<'C'
#include <lincoll/lincoll.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    /* a status string and the config table prove the library links and runs */
    if (strcmp(lincoll_strerror(LINCOLL_ERR_TIMEOUT), "timed out") != 0) return 1;
    if (lincoll_config_var_count() == 0) return 1;
    printf("consumer ok: lincoll %s\n", LINCOLL_VERSION_STRING);
    return 0;
}
C
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:${PKG_CONFIG_PATH:-}"
# pkg-config
cc -std=c11 ${LC_CONSUMER_CFLAGS:-} -o "$tmp/consumer_pc" "$tmp/consumer.c" $(pkg-config --cflags --libs lincoll) \
   -Wl,-rpath,"$tmp/prefix/lib"
"$tmp/consumer_pc"
# CMake package
mkdir -p "$tmp/cm"
cat >"$tmp/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(lincoll REQUIRED)
add_executable(consumer_cmake $tmp/consumer.c)
target_link_libraries(consumer_cmake PRIVATE lincoll::lincoll)
CM
cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_C_FLAGS="${LC_CONSUMER_CFLAGS:-}" >/dev/null
cmake --build "$tmp/cm/build" >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/cm/build/consumer_cmake"
echo "1 passed, 0 failed"
