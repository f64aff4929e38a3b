#!/usr/bin/env bash
# test/topo/emucluster_test.sh: lincoll across an emulated multi-host
# cluster (deploy/emucluster/emucluster.sh).
#
#   emucluster_test.sh <emucluster.sh> <bin dir> <mode> [H] [N]
#   mode engine   engine_ucx on H hosts x N ranks (cyclic map): every rank passes
#   mode hosts    lincoll_info -t: H hosts detected, ranks of one namespace
#                 share a host, NIC = the emulated link
#   mode coll     coll_ucx (RHD/ring collectives, COLL_UCX_BIG=0) on H x N
#   mode cleanup  a failing job and a job killed by SIGTERM leave no namespace
# Exit 77 (ctest SKIP) only when network namespaces are not permitted.
set -uo pipefail
emu=$1 bin=$2 mode=$3 H=${4:-2} N=${5:-1}
if ! reason=$("$emu" --check 2>&1); then
  rc=$?
  if [ "$rc" = 77 ]; then echo "SKIP: $reason"; exit 77; fi
  echo "FAIL: emucluster --check: $reason"; exit 1
fi
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; tail -40 "$out"; echo "--- stderr"; tail -40 "$err"; exit 1; }
prefix_of() { sed -n 's/.*namespaces \(lcemu[0-9]*h\)1\.\..*/\1/p' "$err" | head -1; }
no_leftovers() {
  local p; p=$(prefix_of)
  [ -n "$p" ] || fail "no namespace prefix in the emucluster banner"
  local left; left=$(ip netns list | grep "^$p")
  [ -z "$left" ] || fail "namespaces $p* left behind: $left"
  local id=${p#lcemu}; id=${id%h}
  if ip link show "lcb$id" >/dev/null 2>&1; then fail "bridge lcb$id left behind"; fi
}

case "$mode" in
engine)
  "$emu" -H "$H" -n "$N" --map cyclic --timeout 600 -- "$bin/engine_ucx" >"$out" 2>"$err"
  rc=$?
  no_leftovers
  [ "$rc" = 0 ] || fail "engine_ucx exited $rc"
  n=$(grep -c 'checks passed, 0 failed' "$out")
  [ "$n" = $((H * N)) ] || fail "$n of $((H * N)) ranks passed"
  hosts=$(sed -n 's/^\[[0-9]*@\(emu[0-9]*\)\] engine_ucx.*passed.*/\1/p' "$out" | sort -u | wc -l)
  [ "$hosts" = "$H" ] || fail "ranks ran on $hosts hosts, expected $H"
  echo "PASS: engine_ucx on $H hosts x $N ranks: $n ranks passed"
  ;;
hosts)
  "$emu" -H "$H" -n "$N" --map cyclic --timeout 300 -- "$bin/lincoll_info" -t >"$out" 2>"$err"
  rc=$?
  no_leftovers
  [ "$rc" = 0 ] || fail "lincoll_info -t exited $rc"
  lines=$(grep -c '^\[0@emu1\] rank: ' "$out")
  [ "$lines" = $((H * N)) ] || fail "$lines rank lines, expected $((H * N))"
  grep -q "^\[0@emu1\] ranks:    $((H * N))\$" "$out" || fail "no 'ranks: $((H * N))' line"
  for f in '^\[0@emu1\] host:     emu1/boot:' '^\[0@emu1\] cores: ' '^\[0@emu1\] numa: ' \
           '^\[0@emu1\] binding: ' '^\[0@emu1\] device:   net  emu0 ' '^\[0@emu1\] nic:      emu0 ' \
           '^\[0@emu1\] ports: '; do
    grep -q "$f" "$out" || fail "field $f missing"
  done
  # rank r runs on emu(r % H + 1) (cyclic): its host index must be the same
  # for every rank of that namespace, and there must be H distinct ones
  for r in $(seq 0 $((H * N - 1))); do
    l=$(grep "^\[0@emu1\] rank:     $r/$((H * N)) " "$out") || fail "no line for rank $r"
    want="emu$((r % H + 1))/"
    case "$l" in *" $want"*) ;; *) fail "rank $r: expected host $want in: $l" ;; esac
    case "$l" in *"/$H $want"*) ;; *) fail "rank $r: expected $H hosts in: $l" ;; esac
    case "$l" in *" nic emu0 "*) ;; *) fail "rank $r: expected nic emu0 in: $l" ;; esac
  done
  pairs=$(sed -n 's/.* host \([0-9]*\)\/[0-9]* \(emu[0-9]*\)\/.*/\1 \2/p' "$out" | sort -u)
  [ "$(echo "$pairs" | wc -l)" = "$H" ] || fail "host index <-> namespace not one to one: $pairs"
  [ "$(echo "$pairs" | awk '{print $1}' | sort -u | wc -l)" = "$H" ] || fail "host indices: $pairs"
  echo "PASS: $H hosts detected for $((H * N)) ranks:"; grep 'rank: ' "$out"
  ;;
coll)
  COLL_UCX_BIG=0 LINCOLL_TIMEOUT=60 "$emu" -H "$H" -n "$N" --map cyclic --timeout 900 -- \
      "$bin/coll_ucx" >"$out" 2>"$err"
  rc=$?
  no_leftovers
  [ "$rc" = 0 ] || fail "coll_ucx exited $rc"
  echo "PASS: coll_ucx on $H hosts x $N ranks"; tail -$((H * N)) "$out"
  ;;
cleanup)
  "$emu" -H "$H" -n "$N" --timeout 60 -- sh -c 'echo started; exit 3' >"$out" 2>"$err"
  rc=$?
  no_leftovers
  [ "$rc" = 3 ] || fail "a job whose ranks exit 3 returned $rc"
  # killed while its ranks sleep: the trap must tear everything down
  "$emu" -H "$H" -n "$N" --timeout 600 -- sleep 300 >"$out" 2>"$err" &
  pid=$!
  for i in $(seq 1 300); do
    [ "$(grep -c '^\[' "$out")" -ge 0 ] && grep -q 'namespaces lcemu' "$err" && break
    sleep 0.1
  done
  sleep 1
  kill -TERM "$pid"
  wait "$pid"
  rc=$?
  [ "$rc" = 143 ] || fail "SIGTERM'd emucluster returned $rc, expected 143"
  no_leftovers
  p=$(prefix_of)
  for i in $(seq 1 50); do pgrep -f "sleep 300" >/dev/null || break; sleep 0.1; done
  echo "PASS: failing and killed jobs left no namespace ($p*)"
  ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
