#!/usr/bin/env bash
# perf/calibrate_profile.sh end to end: it measures this machine with
# lincoll_perf (two ranks under lincoll-run, the kernels on one core), writes a
# profile whose alpha, beta, gamma and flops are positive numbers, and
# lincoll_sim --profile reads that file back under its name.  The committed
# profiles (perf/profiles/*.profile) are read the same way.
#   calibrate_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sim="$build/bin/lincoll_sim"
"$src/perf/calibrate_profile.sh" "$build" "$tmp/here.profile" calib-test >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; echo "FAIL: calibrate_profile.sh exited $?"; exit 1; }
for k in alpha beta gamma flops; do
  v=$(awk -v k="$k" '$1 == k {print $2}' "$tmp/here.profile")
  python3 -c "import sys; v=float(sys.argv[1]); sys.exit(0 if v > 0 and v < 1e30 else 1)" "$v" 2>/dev/null ||
    { cat "$tmp/here.profile"; echo "FAIL: $k = '$v' in the calibrated profile"; exit 1; }
done
check() { # profile-file name
  hdr=$("$sim" -t allreduce -K 8 -A rhd --profile "$1" 2>&1 | head -n 1)
  case $hdr in
    "# model $2:"*) ;;
    *) echo "FAIL: lincoll_sim --profile $1 says '$hdr', want '# model $2: ...'"; exit 1 ;;
  esac
}
check "$tmp/here.profile" calib-test
n=0
for f in "$src"/perf/profiles/*.profile; do
  check "$f" "$(awk '$1 == "name" {print $2}' "$f")"
  n=$((n + 1))
done
[ "$n" -ge 3 ] || { echo "FAIL: $n committed profiles, want ib200, eth100 and vm2core"; exit 1; }
echo "calibrate test passed: $(grep -c '^#' "$tmp/here.profile") comment lines, $n committed profiles read"
