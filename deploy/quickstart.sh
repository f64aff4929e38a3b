#!/usr/bin/env bash
# The main job in one command on a fresh Debian 12 machine: install what is
# missing, build, then start 4 local ranks with lincoll-run and run
# lincoll_perf over UCX (a p-port all-to-all exchange), printing its table.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/deploy/install-deps.sh"
"$top/deploy/build.sh"
bin="$top/build/bin"
echo
echo "== lincoll-run -n 4 lincoll_perf -t alltoall -s 8:1m -p 2 =="
"$bin/lincoll-run" -n 4 --timeout 300 "$bin/lincoll_perf" -t alltoall -s 8:1m -p 2 -n 200
echo
echo "== lincoll-run -n 2 lincoll_perf -t tag_lat / tag_bw / put_bw =="
"$bin/lincoll-run" -n 2 --timeout 300 "$bin/lincoll_perf" -t tag_lat -s 8,4k
"$bin/lincoll-run" -n 2 --timeout 300 "$bin/lincoll_perf" -t tag_bw -s 64k,4m
"$bin/lincoll-run" -n 2 --timeout 300 "$bin/lincoll_perf" -t put_bw -s 64k,4m
