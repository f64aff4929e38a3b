#!/usr/bin/env bash
# perf/daemon/build_base.sh: lincoll-ecd as of another revision, for a
# comparison in one run (epoch_compare.sh, small_compare.sh).
#
#   perf/daemon/build_base.sh REV BUILD_DIR OUT_BIN_DIR
#
# REV's daemon/ (git archive), compiled with the flags of BUILD_DIR's
# lincoll-ecd and linked against the same liblincoll.a, so that the two
# daemons differ in daemon/ only.  OUT_BIN_DIR gets lincoll-ecd (a daemon
# from before TLS gets a wrapper that drops --insecure, which it does not
# know) and a copy of BUILD_DIR's lincoll-ec.
set -euo pipefail
[ $# -eq 3 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
rev=$1 build=$2 dest=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
d=$build/daemon/CMakeFiles/lincoll-ecd.dir
[ -f "$d/flags.make" ] || { echo "build_base: $d/flags.make not found (deploy/build.sh)" >&2; exit 1; }
git -C "$top" rev-parse --verify -q "$rev^{commit}" >/dev/null ||
  { echo "build_base: '$rev' is not a revision of this repository" >&2; exit 1; }
T=$(mktemp -d /tmp/ecd_base.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/src" "$T/obj" "$dest"
git -C "$top" archive "$rev" daemon | tar -x -C "$T/src"
flags=$(sed -n 's/^C_FLAGS = //p' "$d/flags.make")
defs=$(sed -n 's/^C_DEFINES = //p' "$d/flags.make")
incs=$(sed -n 's/^C_INCLUDES = //p' "$d/flags.make")
libs=$(sed "s|\.\./lib/liblincoll_ecd_common.a||; s|\.\./lib/|$build/lib/|g; s|\"||g" "$d/linkLibs.rsp")
srcs=$(cd "$T/src/daemon" && ls ecd_*.c lincoll-ecd.c)
objs=()
for s in $srcs; do
  # shellcheck disable=SC2086
  cc $defs -I"$T/src" $incs $flags -c "$T/src/daemon/$s" -o "$T/obj/${s%.c}.o"
  objs+=("$T/obj/${s%.c}.o")
done
# shellcheck disable=SC2086
g++ -Wl,-u,lc_config_install_hooks "${objs[@]}" -o "$dest/lincoll-ecd.real" $libs \
  -L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib
rm -f "$dest/lincoll-ecd"
if grep -q '"insecure"' "$T/src/daemon/lincoll-ecd.c"; then
  ln -s lincoll-ecd.real "$dest/lincoll-ecd"
else
  cat >"$dest/lincoll-ecd" <<'EOS'
#!/usr/bin/env bash
a=()
for x in "$@"; do [ "$x" = --insecure ] || a+=("$x"); done
exec "$(dirname "$0")/lincoll-ecd.real" "${a[@]}"
EOS
  chmod +x "$dest/lincoll-ecd"
fi
cp "$build/bin/lincoll-ec" "$dest/"
