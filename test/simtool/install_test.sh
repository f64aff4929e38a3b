#!/usr/bin/env bash
# lincoll_sim installed: the binary under bin/, the profiles under
# share/lincoll/profiles, found by name from the installed binary.
#   install_test.sh BUILD_DIR
set -uo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
sim="$tmp/prefix/bin/lincoll_sim"
[ -x "$sim" ] || { echo "FAIL: $sim not installed"; exit 1; }
for p in ib200 eth100 vm2core; do
  [ -f "$tmp/prefix/share/lincoll/profiles/$p.profile" ] || { echo "FAIL: profile $p not installed"; exit 1; }
done
"$sim" -h >"$tmp/help" && grep -q SYNOPSIS "$tmp/help" || { echo "FAIL: -h"; exit 1; }
# found relative to the installed binary, even from another directory
out=$(cd / && "$sim" -t allreduce -K 8 -A rhd --profile ib200 -q p) || { echo "FAIL: --profile ib200"; exit 1; }
[ "$out" = 2 ] || { echo "FAIL: ib200 gives p=$out, want 2 (ports 2)"; exit 1; }
out=$(cd / && "$sim" -t allreduce -K 8 -A rhd --profile eth100 -q p)
[ "$out" = 1 ] || { echo "FAIL: eth100 gives p=$out, want 1"; exit 1; }
echo "install test passed"
