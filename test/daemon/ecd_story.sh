#!/usr/bin/env bash
# test/daemon/ecd_story.sh: the whole story of lincoll-ecd, 6 daemons RS(4,2).
#
#   ecd_story.sh local <bin dir>            all daemons on 127.0.0.1
#   ecd_story.sh emucluster <bin dir> <emucluster.sh>
#                                           one daemon per emulated host
#
#  1. start 6 daemons (port 0, ports published to files), write the cluster
#     file; put 20 objects of 1 B .. 64 MiB;
#  2. bad input: garbage, an over-long line, a truncated upload, an unknown
#     name, a bad name: clear errors, nothing written;
#  3. node 3 fails in the middle of the put of a 64 MiB object: killed
#     (local) or its link cut (emucluster).  The put fails cleanly or
#     completes; either way no node holds half of it; a retry succeeds with
#     node 3 down (a degraded write); objects read back with node 3 down
#     (degraded reads);
#  4. local: nodes 4 and 5 are stopped too: a put to a group that lost more
#     than m nodes fails with a clear error and writes nothing; node 4 comes
#     back over a chunk directory damaged meanwhile (a flipped chunk byte, a
#     garbled manifest, a stray temporary, an orphan chunk), node 5 as it was;
#  5. node 3 is replaced (local: a new daemon, empty directory, new port,
#     cluster file updated, no survivor restarted; emucluster: its link comes
#     back) and repaired; node 4 is repaired;
#  6. every object's sha256 matches the original; stat shows 6 nodes up with
#     nothing missing or corrupt.
# Every process started is killed on exit, success or not.  Exit 77 (SKIP)
# only when network namespaces are not permitted (emucluster mode).
set -uo pipefail
mode=$1 bin=$2 emu=${3:-}
T=5                       # daemon timeout (also the lincoll context's)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ecd_harness.sh" ecd_story
emupid=
ecd_on_exit() {
  if [ -n "$emupid" ]; then kill -TERM "$emupid" 2>/dev/null; wait "$emupid" 2>/dev/null; fi
}

if [ "$mode" = emucluster ]; then
  if ! reason=$("$emu" --check 2>&1); then
    rc=$?; [ "$rc" = 77 ] && { echo "SKIP: $reason"; exit 77; }
    fail "emucluster --check: $reason"
  fi
fi

# ---- the cluster -------------------------------------------------------------
ip_of() { if [ "$mode" = local ]; then echo 127.0.0.1; else echo "10.213.$S.$(( $1 + 1 ))"; fi; }
write_cluster() {
  { echo "code 4 2"; for i in 0 1 2 3 4 5; do echo "node $i $(ip_of $i):$(cat "$W/p$i")"; done; } \
    > "$W/cluster.new" && mv "$W/cluster.new" "$W/cluster"
}
wait_port() { for _ in $(seq 1 300); do [ -s "$W/p$1" ] && return 0; sleep 0.1; done; fail "node $1 published no port"; }
start_local() { # node, dir
  rm -f "$W/p$1"
  "$bin/lincoll-ecd" --insecure --node "$1" --dir "$2" --cluster "$W/cluster" --listen 127.0.0.1:0 \
      --port-file "$W/p$1" --timeout $T --die-with-parent >>"$W/log$1" 2>&1 &
  pids+=($!); eval "pid$1=$!"
  wait_port "$1"
}
ec() { # lincoll-ec from where the daemons are reachable
  if [ "$mode" = local ]; then "$bin/lincoll-ec" --insecure -s "127.0.0.1:$(cat "$W/p0")" -t 120 "$@"
  else ip netns exec "${NSP}1" "$bin/lincoll-ec" --insecure -s "$(ip_of 0):$(cat "$W/p0")" -t 120 "$@"; fi
}
raw() { # send raw bytes (stdin) to node 0, print its reply
  if [ "$mode" = local ]; then python3 "$here/ecd_raw.py" 127.0.0.1 "$(cat "$W/p0")"
  else ip netns exec "${NSP}1" python3 "$here/ecd_raw.py" "$(ip_of 0)" "$(cat "$W/p0")"; fi
}

if [ "$mode" = local ]; then
  for i in 0 1 2 3 4 5; do start_local $i "$W/d$i"; done
else
  # one daemon per emulated host: emucluster starts rank r on host r+1
  cat > "$W/node.sh" <<EOS
#!/bin/sh
exec "$bin/lincoll-ecd" --insecure --node "\$EMU_RANK" --dir "$W/d\$EMU_RANK" --cluster "$W/cluster" \
    --listen 0.0.0.0:0 --port-file "$W/p\$EMU_RANK" --timeout $T >>"$W/log\$EMU_RANK" 2>&1
EOS
  chmod +x "$W/node.sh"
  "$emu" -H 6 -n 1 --timeout 600 -- "$W/node.sh" >"$W/log.emu" 2>&1 &
  emupid=$!
  for i in 0 1 2 3 4 5; do wait_port $i; done
  S=$(sed -n 's/.*, 10\.213\.\([0-9]*\)\.0\/24,.*/\1/p' "$W/log.emu" | head -1)
  NSP=$(sed -n 's/.*namespaces \(lcemu[0-9]*h\)1\.\..*/\1/p' "$W/log.emu" | head -1)
  ID=${NSP#lcemu}; ID=${ID%h}
  [ -n "$S" ] && [ -n "$NSP" ] || fail "no subnet or namespace prefix in the emucluster banner"
fi
write_cluster
say "6 daemons up ($mode): $(tr '\n' ' ' < "$W/cluster")"

# ---- 1. twenty objects ---------------------------------------------------------
sizes="1 2 63 64 65 1000 4095 4096 4097 65536 100000 1048575 1048576 1048577 3145728 7340035 16777216 20000001 33554432 67108864"
mkdir -p "$W/in" "$W/out"
i=0
for s in $sizes; do
  head -c "$s" /dev/urandom > "$W/in/obj$i"
  i=$((i + 1))
done
for j in $(seq 0 19); do
  ec put "$W/in/obj$j" >/dev/null || fail "put obj$j"
done
say "20 objects put ($(du -sh "$W/in" | cut -f1))"

# ---- 2. bad input ----------------------------------------------------------------
out=$(printf 'HELLO there\n' | raw); [[ $out == ERR*unknown* ]] || fail "garbage: '$out'"
out=$(python3 -c 'print("A" * 5000)' | raw); [[ $out == ERR*longer* ]] || fail "long line: '$out'"
out=$(printf 'PUT truncated 100000\nonly a few bytes' | raw)
[[ $out == ERR*truncated* ]] || fail "truncated upload: '$out'"
out=$(printf 'PUT ../evil 3\nabc' | raw); [[ $out == ERR*NAME* ]] || fail "bad name: '$out'"
out=$(printf 'PUT obj3 3\nabc' | raw); [[ $out == ERR*exists* ]] || fail "overwrite: '$out'"
ec get nosuchobject "$W/out/x" 2>"$W/err" && fail "get of an unknown name succeeded"
grep -q 'no such object' "$W/err" || fail "unknown name: $(cat "$W/err")"
[ -e "$W/out/x" ] && fail "a failed get left its output file"
ec put /nonexistent/file 2>/dev/null && fail "put of a missing file succeeded"
ls "$W"/d*/objects | grep -q truncated && fail "the truncated upload left a manifest"
say "bad input: clear errors, nothing written"

# ---- 3. node 3 fails in the middle of a put ------------------------------------------
head -c 67108864 /dev/urandom > "$W/in/big"
ec put "$W/in/big" >"$W/put.out" 2>"$W/put.err" &
putpid=$!
# strike once node 0 coordinates the put (chunks on their way, then the encode)
for _ in $(seq 1 600); do grep -q 'put big (op' "$W/log0" && break; sleep 0.05; done
sleep 0.3
if [ "$mode" = local ]; then
  kill -KILL "$pid3"; wait "$pid3" 2>/dev/null; say "node 3 killed during the put"
else
  ip link set "lcv${ID}h4" down; say "node 3's link cut during the put"
fi
wait $putpid; putrc=$?
if [ "$putrc" = 0 ]; then
  say "the put completed anyway: $(cat "$W/put.out")"
else
  say "the put failed cleanly: $(cat "$W/put.err")"
  for d in "$W"/d*; do
    [ -e "$d/objects/big.mf" ] && fail "$d holds a manifest of the failed put"
  done
  ec get big "$W/out/big" 2>/dev/null && fail "the failed put's object is readable"
  ec put "$W/in/big" >"$W/put.out" || fail "retry of the put with node 3 down"
  grep -q 'on 5/6 nodes' "$W/put.out" || fail "the retry was not a degraded write: $(cat "$W/put.out")"
  say "retried with node 3 down: $(cat "$W/put.out")"
fi
for d in "$W"/d0 "$W"/d1 "$W"/d2 "$W"/d4 "$W"/d5; do
  left=$(ls "$d/tmp"); [ -z "$left" ] || fail "$d/tmp holds leftovers of the put: $left"
done
# gets with node 3 down: its rows come from parity rows (a degraded read),
# for chunks asked for at once (up to 4 MiB: obj12, obj16) and one at a time
# (obj19: 16 MiB chunks)
for f in obj12 obj16 obj19; do
  ec get "$f" "$W/out/$f.deg" >/dev/null || fail "get $f with node 3 down"
  cmp -s "$W/in/$f" "$W/out/$f.deg" || fail "$f read back wrong with node 3 down"
done
say "obj12, obj16 and obj19 read back with node 3 down"

# ---- 4. more than m nodes down; a node back over a damaged directory ---------------------
if [ "$mode" = local ]; then
  kill -TERM "$pid4" "$pid5"; wait "$pid4" "$pid5" 2>/dev/null
  head -c 5000 /dev/urandom > "$W/in/late"
  ec put "$W/in/late" 2>"$W/err" && fail "a put with 3 of 6 nodes down succeeded"
  grep -q 'more than m=2' "$W/err" || fail "no clear error for a group below k: $(cat "$W/err")"
  ls "$W"/d*/objects | grep -q '^late' && fail "the refused put left a manifest"
  say "3 of 6 down: $(cat "$W/err")"
  # node 4's disk goes bad while it is down
  c=$(ls "$W/d4/chunks" | grep '^obj19\.' | head -1)
  printf '\x55\xaa' | dd of="$W/d4/chunks/$c" bs=1 seek=1000 conv=notrunc 2>/dev/null
  m=$(ls "$W/d4/objects" | grep '^obj5\.' | head -1)
  printf 'garbage' | dd of="$W/d4/objects/$m" bs=1 seek=30 conv=notrunc 2>/dev/null
  echo partial > "$W/d4/tmp/op1.obj7.2"
  echo orphan > "$W/d4/chunks/ghost.1"
  start_local 4 "$W/d4"; start_local 5 "$W/d5"
  write_cluster
  grep -q '1 damaged manifests' "$W/log4" && grep -q 'fails its checksum' "$W/log4" &&
    grep -q 'removed 1 temporaries' "$W/log4" || fail "node 4's scan did not report the damage"
  say "node 4 restarted over a damaged directory: $(grep 'damaged manifests' "$W/log4" | tail -1)"
  # a replacement for node 3: empty directory, new port, nobody else restarted
  start_local 3 "$W/d3new"
  write_cluster
  say "replacement node 3 on port $(cat "$W/p3")"
else
  ip link set "lcv${ID}h4" up
  say "node 3's link restored"
fi

# ---- 5. repair --------------------------------------------------------------------------
out=$(ec repair 3) || fail "repair 3"
say "repair 3: $out"
if [ "$mode" = local ]; then
  out=$(ec repair 4) || fail "repair 4"
  say "repair 4: $out"
fi

# ---- 6. every object back ----------------------------------------------------------------
for j in $(seq 0 19) big; do
  f=obj$j; [ "$j" = big ] && f=big
  ec get "$f" "$W/out/$f" >/dev/null || fail "get $f"
  a=$(sha256sum < "$W/in/$f"); b=$(sha256sum < "$W/out/$f")
  [ "$a" = "$b" ] || fail "$f: sha256 differs"
done
say "all 21 objects read back with their sha256"
st=$(ec stat) || fail "stat"
echo "$st"
echo "$st" | grep -q 'up 6$' || fail "not every node is up"
[ "$(echo "$st" | grep -c 'missing 0 corrupt 0')" = 6 ] || fail "stat shows missing or corrupt chunks"
[ "$(echo "$st" | grep -c 'objects 21 ')" = 6 ] || fail "not every node holds all 21 objects"
say "PASS ($mode)"
