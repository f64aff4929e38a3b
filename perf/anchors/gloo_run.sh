#!/usr/bin/env bash
# perf/anchors/gloo_run.sh: start N ranks of gloo_allreduce on this machine
# and print rank 0's lines (BYTES AVG_US per size).
#   gloo_run.sh N hd|ring [MAXBYTES [ITERS]]     (defaults: MAXBYTES 16m)
# The binary is gloo_allreduce next to this script (the anchors' build
# directory), or $GLOO_BIN.  The ranks meet in a fresh FileStore directory,
# removed at exit.  Every rank runs under timeout (GLOO_TIMEOUT seconds,
# default 600); when one fails the others are stopped, their stderr is shown
# and the exit status is 1.  No rank is left behind on exit or interrupt.
set -uo pipefail
usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; }
[ $# -ge 2 ] && [ $# -le 4 ] || {
  usage
  exit 2
}
n=$1 algo=$2 max=${3:-16m} iters=${4:-}
case $n in '' | *[!0-9]* | 0) echo "gloo_run: N '$n': expected a rank count >= 1" >&2; exit 2 ;; esac
case $algo in hd | ring) ;; *) echo "gloo_run: algorithm '$algo': expected hd or ring" >&2; exit 2 ;; esac
bin=${GLOO_BIN:-$(cd "$(dirname "$0")" && pwd)/gloo_allreduce}
[ -x "$bin" ] || { echo "gloo_run: $bin not found (perf/anchors/build.sh builds it)" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/gloo_store.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$dir/store"
for r in $(seq 0 $((n - 1))); do
  GLOO_RANK=$r GLOO_SIZE=$n GLOO_STORE=$dir/store \
    timeout -k 5 "${GLOO_TIMEOUT:-600}" "$bin" "$algo" "$max" $iters >"$dir/out.$r" 2>"$dir/err.$r" &
  pids+=($!)
done
rc=0
# wait for the ranks as they end; on the first failure stop the rest
left=$n
while [ "$left" -gt 0 ]; do
  wait -n
  s=$?
  left=$((left - 1))
  if [ "$s" != 0 ]; then
    rc=1
    echo "gloo_run: a rank exited with status $s; stopping the others" >&2
    break
  fi
done
cat "$dir/out.0"
if [ "$rc" != 0 ]; then
  for r in $(seq 0 $((n - 1))); do
    [ -s "$dir/err.$r" ] && sed "s/^/[gloo rank $r] /" "$dir/err.$r" >&2
  done
fi
exit $rc
