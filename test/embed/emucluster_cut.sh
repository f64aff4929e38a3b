#!/usr/bin/env bash
# test/embed/emucluster_cut.sh: a host's link is cut in the middle of a run of
# encodes on the emulated cluster (deploy/emucluster): its processes stay
# alive, they are only unreachable.
#
#   emucluster_cut.sh <emucluster.sh> <bin dir> long|short [timeout]
#
# 4 hosts x 1 rank run embed_cut (rank 0 on host 1 serves the bootstrap
# store).  Once encodes run, host 3's link is set down on the bridge side
# (ip link set ... down: packets to and from it vanish, nothing is reset).
#   long:  it stays down.  Every rank must fail within [T - 0.5, T + 6] s of
#          the cut and its lincoll_finalize must return within 2 T + 3 s (a
#          finalize barrier waits up to 2 T);
#          nothing is left running.
#   short: it comes back after 2 s (T = the timeout; ctest gives 30 s, as
#          TCP's backoff may resend only seconds after the link is back):
#          no rank may fail, every rank runs the same number of encodes and
#          finalizes ok.
# Exit 77 (ctest SKIP) only when network namespaces are not permitted.
set -uo pipefail
emu=$1 bin=$2 mode=$3 T=${4:-8}
if ! reason=$("$emu" --check 2>&1); then
  rc=$?
  if [ "$rc" = 77 ]; then echo "SKIP: $reason"; exit 77; fi
  echo "FAIL: emucluster --check: $reason"; exit 1
fi
work=$(mktemp -d)
emupid=
cleanup() {
  [ -n "$emupid" ] && kill -TERM "$emupid" 2>/dev/null && wait "$emupid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; tail -30 "$work/out"; echo "--- stderr"; tail -30 "$work/err"; exit 1; }

if [ "$mode" = long ]; then S=60; else S=$((T + 6)); fi
LINCOLL_TIMEOUT=$T "$emu" -H 4 -n 1 --timeout 120 -- "$bin/embed_cut" --seconds "$S" \
    --marker "$work/marker" >"$work/out" 2>"$work/err" &
emupid=$!
for i in $(seq 1 600); do [ -e "$work/marker" ] && break; sleep 0.1; done
[ -e "$work/marker" ] || fail "the encodes never got going"
prefix=$(sed -n 's/.*namespaces \(lcemu[0-9]*h\)1\.\..*/\1/p' "$work/err" | head -1)
id=${prefix#lcemu}; id=${id%h}
link=lcv${id}h3
sleep 0.5
ip link set "$link" down || fail "cannot cut $link"
t_cut=$(date +%s.%N)
echo "cut $link at $t_cut (timeout $T s, $mode)"
if [ "$mode" = short ]; then
  sleep 2
  ip link set "$link" up || fail "cannot restore $link"
  echo "restored $link after 2 s"
fi
wait "$emupid"; rc=$?; emupid=
cat "$work/out"
n=$(grep -c 'RESULT' "$work/out")
[ "$n" = 4 ] || fail "$n of 4 ranks reported (emucluster exit $rc)"
left=$(ip netns list | grep "^$prefix")
[ -z "$left" ] || fail "namespaces left behind: $left"
pgrep -f "$bin/embed_cut --seconds" >/dev/null && fail "embed_cut processes left behind"
if [ "$mode" = long ]; then
  awk -v tc="$t_cut" -v T="$T" '
    /RESULT/ {
      for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      since = v["err_at"] - tc
      if (v["status"] == 0) { print "FAIL: rank " v["rank"] " saw no error"; bad = 1 }
      else if (since < T - 0.5 || since > T + 6) {
        printf "FAIL: rank %s failed %.2f s after the cut (timeout %s s)\n", v["rank"], since, T; bad = 1 }
      if (v["fin_s"] > 2 * T + 3) {
        printf "FAIL: rank %s: finalize took %.2f s (timeout %s s)\n", v["rank"], v["fin_s"], T; bad = 1 }
      printf "rank %s: error %.2f s after the cut, finalize %.2f s\n", v["rank"], since, v["fin_s"]
    }
    END { exit bad }' "$work/out" || fail "timing checks"
  echo "PASS: a link cut for good: every rank failed within the timeout, finalize within it too"
else
  [ "$rc" = 0 ] || fail "emucluster exited $rc"
  awk '
    /RESULT/ {
      for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      if (v["status"] != 0 || v["fin"] != 0) { print "FAIL: rank " v["rank"] " failed"; bad = 1 }
      if (it == "") it = v["iters"]; else if (it != v["iters"]) { print "FAIL: iteration counts differ"; bad = 1 }
    }
    END { if (it < 4) { print "FAIL: only " it " encodes"; bad = 1 } exit bad }' "$work/out" \
    || fail "a 2 s cut under a $T s timeout made a rank fail"
  echo "PASS: a 2 s cut under a $T s timeout: no rank failed"
fi
