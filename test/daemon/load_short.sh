#!/usr/bin/env bash
# test/daemon/load_short.sh: the short version of perf/daemon/load.sh's kill
# phase, 6 daemons RS(4,2) on 127.0.0.1 (ports 0).
#
#   load_short.sh <bin dir>
#
# 8 objects (4 KiB and 1 MiB) are put one at a time; then 4 clients put and
# get (every get compared byte for byte with what was put) for 12 s, while
# one daemon is SIGKILLed at 3 s and restarted at 8 s (same directory, same
# port).  Asserts: 0 wrong reads, 0 hangs (no operation without a reply
# within 60 s), every object put before the kill (at least the 8) read back
# intact after the restart.  Failed operations are reported, not asserted: the
# clients start them against a daemon that may refuse concurrent ones.
# Every process started is killed on exit (load.sh's own cleanup).
set -euo pipefail
bin=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d /tmp/ecd_load_short.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; [ -e "$out/kill.txt" ] && cat "$out/kill.txt"; exit 1; }
rc=0
"$top/perf/daemon/load.sh" -b "$bin" -o "$out" -n 6 -t 3 -p kill -k 4 -d 12 -s "4k 1m" -w "4 1" \
  --preload 8 --repair-wait 0 --deadline 60 --events "3 kill 5,8 start 5" || rc=$?
[ -s "$out/kill.txt" ] || fail "load.sh wrote no kill.txt (exit $rc)"
cat "$out/kill.txt"
get() { sed -n "s/^$1=//p" "$out/kill.txt"; }
[ "$(get wrong_reads)" = 0 ] || fail "wrong reads: $(get wrong_reads)"
[ "$(get hangs)" = 0 ] || fail "hangs: $(get hangs)"
[ "$(get prekill_objects)" -ge 8 ] || fail "only $(get prekill_objects) objects put before the kill"
[ "$(get prekill_unreadable)" = 0 ] || fail "$(get prekill_unreadable) objects put before the kill unreadable"
[ "$rc" = 0 ] || fail "load.sh exited $rc"
echo "PASS: load_short: $(get ops) operations, $(get failed) failed ($(get failed_unexplained) unexplained), 0 wrong reads, 0 hangs, $(get prekill_objects) pre-kill objects intact"
