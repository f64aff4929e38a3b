#!/usr/bin/env bash
# test/embed/store_program.sh: lincoll-store, the standalone store, serves
# two groups one after the other under different job names (two epochs of
# one set of processes), refuses a wrong secret, and stops on SIGTERM.
#   store_program.sh <bin dir>
set -uo pipefail
bin=$1
W=$(mktemp -d)
spid=
cleanup() { [ -n "$spid" ] && kill -KILL "$spid" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$W"/*.out 2>/dev/null | tail -20; exit 1; }
echo embed-cut | "$bin/lincoll-store" --listen 127.0.0.1:0 --port-file "$W/port" >"$W/store.out" 2>&1 &
spid=$!
for _ in $(seq 1 100); do [ -s "$W/port" ] && break; sleep 0.1; done
[ -s "$W/port" ] || fail "lincoll-store published no port"
addr=127.0.0.1:$(cat "$W/port")
grep -q "listening on 127.0.0.1:$(cat "$W/port") (named jobs)" "$W/store.out" || fail "no banner"
for epoch in 1 2; do
  ranks=()
  for r in 0 1 2; do
    timeout 60 "$bin/embed_cut" --member $r --store "$addr" --job "epoch$epoch" --seconds 1 \
        --timeout 10 >"$W/e$epoch.$r.out" 2>&1 &
    ranks+=($!)
  done
  wait "${ranks[@]}"
  for r in 0 1 2; do
    grep -q "RESULT rank=$r .* status=0 .* fin=0 " "$W/e$epoch.$r.out" || fail "epoch $epoch rank $r"
  done
done
# a wrong secret is refused at once
timeout 60 "$bin/embed_cut" --member 0 --store "$addr" --job bad \
    --secret wrong --seconds 1 --timeout 5 >"$W/bad.out" 2>&1
grep -q "status=-12 " "$W/bad.out" || fail "a wrong secret was not refused (authentication)"
kill -TERM "$spid"; wait "$spid"; rc=$?; spid=
[ "$rc" = 0 ] || fail "lincoll-store exited $rc on SIGTERM"
echo "PASS: lincoll-store served two epochs of 3 ranks, refused a wrong secret, stopped on SIGTERM"
