#!/usr/bin/env bash
# lincoll_sim --sweep ... --plot out.png renders a PNG with gnuplot.
# gnuplot (Debian: gnuplot-nox) is one of the project's dependencies
# (deploy/install-deps.sh); without it this test fails and says so.
set -uo pipefail
sim=$1
command -v gnuplot >/dev/null || { echo "FAIL: gnuplot not installed (deploy/install-deps.sh installs gnuplot-nox)"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$sim" -t allreduce -A all --sweep K=2:64 -s 4k --plot "$dir/k.png" -f csv >"$dir/k.csv" || { echo "FAIL: lincoll_sim --plot exited $?"; exit 1; }
[ -s "$dir/k.png" ] || { echo "FAIL: no $dir/k.png"; exit 1; }
[ "$(head -c 8 "$dir/k.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "FAIL: k.png is not a PNG"; exit 1; }
rows=$(grep -c '^allreduce,' "$dir/k.csv")
[ "$rows" = 30 ] || { echo "FAIL: $rows rows, want 30 (6 K x 5 algorithms)"; exit 1; }
"$sim" -t encode -A prepare_shoot -K 16 -p 2 --sweep s=64:4k --plot "$dir/s.png" >/dev/null || { echo "FAIL: size sweep --plot"; exit 1; }
[ -s "$dir/s.png" ] || { echo "FAIL: no s.png"; exit 1; }
# a plot without a sweep is refused, naming --plot
if "$sim" -t encode -K 4 --plot "$dir/x.png" 2>"$dir/err"; then echo "FAIL: --plot without --sweep accepted"; exit 1; fi
grep -q -- '--plot' "$dir/err" || { echo "FAIL: error does not name --plot: $(cat "$dir/err")"; exit 1; }
echo "plot test passed"
