#!/usr/bin/env bash
# test/topo/lanes_test.sh: p ports as p links on the emulated cluster.
#
#   lanes_test.sh <emucluster.sh> <bin dir>
#
# Two hosts, two links of 100 Mbit/s each (emucluster -L 2), lanes_ucx:
#   1. two lanes (LINCOLL_UCX_LANES=emu0,emu1, what -L 2 sets): a round of
#      two 4 MiB sends takes about the time of one: t2 < 1.4 t1;
#   2. the control, one lane on the same cluster (LINCOLL_UCX_LANES=emu0):
#      t2 > 1.7 t1 (both messages share one link);
#   3. a peer that dies while its messages are awaited on both lanes, and
#      on any lane, is reported (LINCOLL_ERR_PEER_FAILED) within 30 s while
#      LINCOLL_TIMEOUT is 120 s.
# Exit 77 (ctest SKIP) only when network namespaces are not permitted.
set -uo pipefail
emu=$1 bin=$2
if ! reason=$("$emu" --check 2>&1); then
  rc=$?
  if [ "$rc" = 77 ]; then echo "SKIP: $reason"; exit 77; fi
  echo "FAIL: emucluster --check: $reason"; exit 1
fi
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; tail -20 "$out"; echo "--- stderr"; tail -30 "$err"; exit 1; }
# rank 0's line: "lanes L t1 S t2 S ratio R" -> "L S S R"
measure() { # measure <lanes>
  LINCOLL_UCX_LANES=$1 LINCOLL_TIMEOUT=60 "$emu" -H 2 -L 2 -r 100mbit --timeout 120 -- \
      "$bin/lanes_ucx" bw $((4 << 20)) 3 >"$out" 2>"$err" || fail "lanes_ucx bw (lanes $1) failed"
  res=$(sed -n 's/^\[0@emu1\] lanes_ucx: lanes \([0-9]*\) t1 \([0-9.]*\) t2 \([0-9.]*\) ratio \([0-9.]*\)$/\1 \2 \3 \4/p' "$out")
  [ -n "$res" ] || fail "no result line with LINCOLL_UCX_LANES=$1"
}
measure emu0,emu1
read -r l2 a1 a2 ar <<<"$res"
echo "two lanes:  lanes $l2, one 4 MiB send ${a1} s, two sends ${a2} s, ratio $ar"
[ "$l2" = 2 ] || fail "the transport runs $l2 lanes, expected 2"
measure emu0
read -r l1 b1 b2 br <<<"$res"
echo "one lane:   lanes $l1, one 4 MiB send ${b1} s, two sends ${b2} s, ratio $br"
[ "$l1" = 1 ] || fail "the control runs $l1 lanes, expected 1"
# one 4 MiB message over 100 Mbit/s is >= 0.33 s: the links really are shaped
python3 -c "import sys; sys.exit(0 if $a1 > 0.3 and $b1 > 0.3 else 1)" ||
  fail "one 4 MiB send took $a1 s / $b1 s: faster than a 100 Mbit/s link allows"
python3 -c "import sys; sys.exit(0 if $ar < 1.4 else 1)" ||
  fail "two lanes: two sends took $ar x one send (expected < 1.4)"
python3 -c "import sys; sys.exit(0 if $br > 1.7 else 1)" ||
  fail "one lane: two sends took $br x one send (expected > 1.7)"
for m in 2 1; do
  LINCOLL_TIMEOUT=120 "$emu" -H 2 -L 2 -r 100mbit --timeout 120 -- "$bin/lanes_ucx" fail $m \
      >"$out" 2>"$err"
  rc=$?
  line=$(grep '^\[0@emu1\] lanes_ucx: peer failure seen' "$out") ||
    fail "fail $m: rank 0 printed no verdict (exit $rc)"
  echo "peer death, $m message(s) awaited: $line"
  # rank 0 exits 0 only for LINCOLL_ERR_PEER_FAILED within 30 s; rank 1 exits 0 by itself
  [ "$rc" = 0 ] || fail "fail $m: $line (exit $rc)"
done
echo "PASS: two links carry a round of two sends in ${ar} x one send's time (one lane: ${br} x); peer death seen on every lane"
