#!/usr/bin/env bash
# test/daemon/ecd_auth.sh: keys, TLS 1.3 and capabilities of lincoll-ecd
# (docs/daemon.md, Security): 6 daemons on 127.0.0.1, RS(4,2), one keyring.
#
#   ecd_auth.sh <bin dir>
#
#  1. a keyring that group or others can read is refused, with the reason;
#  2. an outsider with no key (plaintext), with a wrong key, and with an
#     unknown key is refused for every client and peer request, the forged
#     STORE of issue #34 included (a zeroed chunk, its crc recomputed into
#     the manifest); a client key is refused every peer request; the
#     cluster key's forged STORE is refused (no repair of this cluster
#     confirms it); every object reads back intact, every chunk unchanged;
#  3. a read key can GET and STAT but not PUT or REPAIR (not allowed, the
#     capability named); an admin key can REPAIR;
#  4. a real rewrite (a get's write-back of a damaged chunk) is confirmed
#     and taken;
#  5. a daemon with the wrong cluster key takes no part in a put (the put
#     goes on without it, nothing of it on that node) and cannot coordinate
#     one;
#  6. rotations of a client key and of the cluster key keep every client
#     working; a removed generation is refused; a kept connection between
#     daemons is closed once its key generation is removed; a client's batch
#     runs every request on one connection;
#  7. a handshake that stalls costs its connection only, cut at the timeout;
#  8. over --max-conns, a client with a key reads the refusal (inside the
#     TLS session), and is served once the connection that held the slot
#     is gone.
# Every process started is killed on exit, success or not.
set -uo pipefail
bin=$1
T=3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ecd_harness.sh" ecd_auth
N=6
auth() { "$bin/lincoll-ec-auth" "$@" >>"$W/auth.log" 2>&1 || fail "lincoll-ec-auth $*: $(tail -1 "$W/auth.log")"; }
auth create --keyring "$W/kr" --id cluster
auth create --keyring "$W/kr" --id app --caps write
auth create --keyring "$W/kr" --id viewer --caps read
auth create --keyring "$W/kr" --id ops --caps admin
for id in app viewer ops; do auth export --keyring "$W/kr" --id $id --out "$W/$id.kr"; done
"$bin/lincoll-ec-auth" list --keyring "$W/kr" | grep -q '^viewer .* 1 read ' || fail "list does not show viewer/1 read"

# 1. a world-readable keyring
cp "$W/kr" "$W/kr.open" && chmod 644 "$W/kr.open"
out=$("$bin/lincoll-ecd" --node 0 --dir "$W/dx" --cluster "$W/nocluster" --keyring "$W/kr.open" 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q 'refused: mode 644 lets group or others read' ||
  fail "a world-readable keyring was not refused (rc $rc): $out"
out=$("$bin/lincoll-ec" -s 127.0.0.1:1 --keyring "$W/kr.open" --key-id app stat 2>&1) &&
  fail "the client took a world-readable keyring"
echo "$out" | grep -q 'refused: mode 644' || fail "client: $out"
say "a keyring readable by others is refused by the daemon and the client"

start() { # start NODE KEYRING
  "$bin/lincoll-ecd" --node "$1" --dir "$W/d$1" --cluster "$W/cluster" --keyring "$2" \
      --listen 127.0.0.1:0 --port-file "$W/p$1" --timeout $T --scrub-interval 0 \
      --die-with-parent >>"$W/log$1" 2>&1 &
  pids+=($!)
  eval "pid$1=$!"
}
for i in $(seq 0 $((N - 1))); do start "$i" "$W/kr"; done
for i in $(seq 0 $((N - 1))); do
  for _ in $(seq 1 300); do [ -s "$W/p$i" ] && break; sleep 0.1; done
  [ -s "$W/p$i" ] || fail "node $i published no port"
done
{ echo "code 4 2"; for i in $(seq 0 $((N - 1))); do echo "node $i 127.0.0.1:$(cat "$W/p$i")"; done; } \
  > "$W/cluster"
ec() { local n=$1 k=$2; shift 2; "$bin/lincoll-ec" -s "127.0.0.1:$(cat "$W/p$n")" --keyring "$W/$k.kr" -t 60 "$@"; }
raw() { local n=$1; shift; "$bin/ecd_rawtls" --to "127.0.0.1:$(cat "$W/p$n")" "$@"; }
plain() { raw "$1" --insecure; }

head -c 1048576 /dev/urandom >"$W/big"
head -c 4096 /dev/urandom >"$W/small"
ec 0 app put "$W/big" big >/dev/null || fail "put big with the write key"
ec 1 app put "$W/small" small >/dev/null || fail "put small with the write key"
st=$(ec 2 viewer stat) || fail "stat with the read key: $st"
echo "$st" | grep -q '^security tls1.3-psk (this request: key viewer/1, read)' ||
  fail "stat does not show the security mode: $st"
snap() { (cd "$W" && cat d*/chunks/* d*/objects/* | sha256sum); }
before=$(snap)
say "2 objects put with the write key; stat shows the mode"

# 2. outsiders
mf="$W/d0/objects/big.mf"
reqs=("GET big" "STAT" "PUT evil 5" "REPAIR 0" "PING" "MANIFEST big" "FETCH big 0" "CHECK big 0"
      "DEGRADED" "OP n9-1-1 0" "PIECES n9-1-1 0" "REPAIRING 0123456789abcdef0123456789abcdef big 0 0")
for n in 0 3; do
  for r in "${reqs[@]}"; do
    out=$(printf '%s\nhello' "$r" | plain $n)
    echo "$out" | grep -q '^ERR no key: ' || fail "plaintext '$r' at node $n: $out"
  done
done
out=$(raw 2 --insecure forge "$mf" 0)
echo "$out" | grep -q '^ERR no key: ' || fail "plaintext forged STORE: $out"
say "no key: ${#reqs[@]} requests and the forged STORE refused at every try (ERR no key)"

sed 's/^\(key app 1 write \)..../\10000/' "$W/app.kr" >"$W/wrong.kr" && chmod 600 "$W/wrong.kr"
sed 's/^\(key cluster 1 cluster \)..../\10000/' "$W/kr" >"$W/wrongcl.kr" && chmod 600 "$W/wrongcl.kr"
sed 's/^key app /key mallory /' "$W/app.kr" >"$W/unknown.kr" && chmod 600 "$W/unknown.kr"
for k in wrong:app wrongcl:cluster unknown:mallory; do
  file=${k%%:*} id=${k#*:}
  want='wrong key: '
  [ "$file" = unknown ] && want='unknown client: '
  for r in "${reqs[@]}"; do
    out=$(printf '%s\n' "$r" | raw 1 --keyring "$W/$file.kr" --key-id "$id")
    echo "$out" | grep -q "^CONNECT FAILED: $want" || fail "$file key, '$r': $out"
  done
  out=$(raw 1 --keyring "$W/$file.kr" --key-id "$id" forge "$W/d1/objects/big.mf" 1)
  echo "$out" | grep -q "^CONNECT FAILED: $want" || fail "$file key, forged STORE: $out"
done
out=$(ec 1 wrong get big "$W/x" 2>&1) && fail "get with a wrong key succeeded"
echo "$out" | grep -q '^lincoll-ec: wrong key: ' || fail "the client's line for a wrong key: $out"
out=$(ec 1 unknown stat 2>&1) && fail "stat with an unknown key succeeded"
echo "$out" | grep -q '^lincoll-ec: unknown client: ' || fail "the client's line for an unknown key: $out"
grep -q 'refused 127.0.0.1:[0-9]*: wrong key: key app/1' "$W/log1" || fail "node 1 logs no refusal with the peer's address"
say "wrong key, wrong cluster key, unknown key: every request refused in the handshake"

for r in "PING" "MANIFEST big" "FETCH big 0" "CHECK big 0" "DEGRADED" "OP n9-1-1 0" \
         "PIECES n9-1-1 0" "REPAIRING 0123456789abcdef0123456789abcdef big 0 0"; do
  out=$(printf '%s\n' "$r" | raw 4 --keyring "$W/ops.kr")
  echo "$out" | grep -q "^ERR not allowed: ${r%% *} is a daemon's request (cluster key only)" ||
    fail "admin key, '$r': $out"
done
out=$(raw 4 --keyring "$W/ops.kr" forge "$W/d4/objects/big.mf" 4 2>&1)
echo "$out" | grep -q "^ERR not allowed: STORE is a daemon's request" || fail "admin key, forged STORE: $out"
for i in $(seq 0 $((N - 1))); do
  out=$(raw $i --keyring "$W/kr" --key-id cluster forge "$W/d$i/objects/big.mf" "$(
        awk -v n=$i '$1=="row" && $3==n {print $2; exit}' "$W/d$i/objects/big.mf")")
  echo "$out" | grep -q '^ERR usage: STORE' || fail "node $i, old-form forged STORE: $out"
  out=$(raw $i --keyring "$W/kr" --key-id cluster forge "$W/d$i/objects/big.mf" "$(
        awk -v n=$i '$1=="row" && $3==n {print $2; exit}' "$W/d$i/objects/big.mf")" \
        FROM $(( (i + 1) % N )) 0123456789abcdef0123456789abcdef)
  echo "$out" | grep -q '^ERR STORE big row [0-9]* refused: not a repair this cluster started' ||
    fail "node $i, forged STORE with the cluster key: $out"
done
[ "$(snap)" = "$before" ] || fail "a chunk or a manifest changed under the outsiders"
for o in big small; do
  ec 5 viewer get $o "$W/$o.out" >/dev/null && cmp -s "$W/$o" "$W/$o.out" || fail "$o does not read back intact"
done
say "client keys refused every peer request; the cluster key's forged STOREs refused on all 6 nodes; objects intact"

# 3. capabilities
out=$(ec 2 viewer put "$W/small" nope 2>&1) && fail "a read key put an object"
echo "$out" | grep -q '^lincoll-ec: not allowed: PUT needs the write capability; key viewer/1 has read' ||
  fail "read key put: $out"
out=$(ec 2 viewer repair 1 2>&1) && fail "a read key ran a repair"
echo "$out" | grep -q '^lincoll-ec: not allowed: REPAIR needs the admin capability; key viewer/1 has read' ||
  fail "read key repair: $out"
out=$(ec 2 app repair 1 2>&1) && fail "a write key ran a repair"
echo "$out" | grep -q 'not allowed: REPAIR needs the admin capability; key app/1 has write' || fail "write key repair: $out"
ec 3 ops repair 1 >/dev/null || fail "the admin key's repair failed"
[ "$(snap)" = "$before" ] || fail "a repair of a healthy node changed chunks"
say "read key: GET and STAT only; write key: no REPAIR; admin key: REPAIR"

# 4. a real rewrite: damage node 2's chunk of big, a get writes it back (STORE, confirmed)
ch=$(ls "$W"/d2/chunks/big.*)
printf 'XXXX' | dd of="$ch" bs=1 seek=100 conv=notrunc 2>/dev/null
ec 0 viewer get big "$W/big.out" >/dev/null && cmp -s "$W/big" "$W/big.out" || fail "degraded get of big"
# the get answers its client first and writes back after: wait for it
for _ in $(seq 600); do
  grep -q 'object big: row [0-9]* rewritten' "$W/log2" && break
  sleep 0.1
done
grep -q 'object big: row [0-9]* rewritten' "$W/log2" || fail "the write-back to node 2 was not taken within 60 s"
[ "$(snap)" = "$before" ] || fail "the write-back did not restore the chunk"
say "a damaged chunk rewritten by a get's confirmed STORE"

# 5. a daemon with the wrong cluster key
kill -KILL "$pid5"; wait "$pid5" 2>/dev/null
sed 's/^\(key cluster 1 cluster \)..../\10000/' "$W/kr" >"$W/kr5" && chmod 600 "$W/kr5"
rm -f "$W/p5"
start 5 "$W/kr5"
for _ in $(seq 1 300); do [ -s "$W/p5" ] && break; sleep 0.1; done
# the cluster file keeps node 5's address only if it got the same port: rewrite it
{ echo "code 4 2"; for i in $(seq 0 $((N - 1))); do echo "node $i 127.0.0.1:$(cat "$W/p$i")"; done; } \
  > "$W/cluster.new" && mv "$W/cluster.new" "$W/cluster"
head -c 300000 /dev/urandom >"$W/third"
out=$(ec 0 app put "$W/third" third) || fail "a put with node 5 on the wrong cluster key: $out"
echo "$out" | grep -q 'on 5/6 nodes' || fail "node 5 took part in a put without the cluster key: $out"
[ -e "$W/d5/objects/third.mf" ] && fail "node 5 holds part of an object put without it"
grep -q 'wrong key' "$W/log0" "$W/log5" || fail "no wrong-key refusal logged for node 5"
out=$(ec 5 app put "$W/small" fromfive 2>&1) && fail "node 5 coordinated a put with a wrong cluster key"
say "a daemon with the wrong cluster key: left out of a put (5/6), cannot coordinate one"
kill -KILL "$pid5"; wait "$pid5" 2>/dev/null
rm -f "$W/p5"
start 5 "$W/kr"
for _ in $(seq 1 300); do [ -s "$W/p5" ] && break; sleep 0.1; done
{ echo "code 4 2"; for i in $(seq 0 $((N - 1))); do echo "node $i 127.0.0.1:$(cat "$W/p$i")"; done; } \
  > "$W/cluster.new" && mv "$W/cluster.new" "$W/cluster"

# 6. rotations: the app key, then the cluster key (one keyring file, read again by every daemon)
auth rotate --keyring "$W/kr" --id app
ec 1 app stat >/dev/null || fail "the old app key stopped working when the new one was added"
auth export --keyring "$W/kr" --id app --out "$W/app2.kr"
grep -q '^key app 2 write ' "$W/app2.kr" || fail "export did not write generation 2"
ec 1 app2 put "$W/small" rot1 >/dev/null || fail "put with the new app key"
ec 2 app get rot1 "$W/rot1" >/dev/null || fail "get with the old app key during the rotation"
auth remove --keyring "$W/kr" --id app --gen 1
out=$(ec 1 app stat 2>&1) && fail "the removed app key still works"
echo "$out" | grep -q 'unknown client: .* no key app/1' || fail "removed key: $out"
ec 3 app2 get rot1 "$W/rot1b" >/dev/null && cmp -s "$W/small" "$W/rot1b" || fail "get with the new app key"
auth rotate --keyring "$W/kr" --id cluster
ec 0 app2 put "$W/small" rot2 >/dev/null || fail "put while the cluster key has two generations"
auth remove --keyring "$W/kr" --id cluster --gen 1
out=$(ec 4 app2 put "$W/small" rot3) || fail "put after the old cluster key was removed: $out"
echo "$out" | grep -q 'on 6/6 nodes' || fail "after the cluster key's rotation: $out"
for o in rot2 rot3; do ec 5 viewer get $o "$W/$o" >/dev/null || fail "get $o after the rotations"; done
say "rotations of a client key and of the cluster key: clients kept working, removed keys refused"

# 6b. kept connections between daemons (docs/daemon.md, "Kept connections"): one serves
# request after request while its key is in the keyring, and is closed once that key
# generation is removed; puts then go on over new connections
out=$(raw 1 --keyring "$W/kr" --key-id cluster kept true)
[ "$(echo "$out" | grep -c '^OK node 1 ')" = 2 ] || fail "a kept connection did not serve twice: $out"
out=$(raw 1 --keyring "$W/kr" --key-id cluster kept \
  "'$bin/lincoll-ec-auth' rotate --keyring '$W/kr' --id cluster >/dev/null &&
   '$bin/lincoll-ec-auth' remove --keyring '$W/kr' --id cluster --gen 2 >/dev/null")
echo "$out" | sed -n 1p | grep -q '^OK node 1 ' || fail "kept connection, first request: $out"
[ "$(echo "$out" | sed -n 2p)" = CLOSED ] ||
  fail "a kept connection served a request after its key was removed: $out"
for i in 0 2 3; do
  out=$(ec $i app2 put "$W/small" kept$i) || fail "put after the kept connections' key was removed: $out"
  echo "$out" | grep -q 'on 6/6 nodes' || fail "put kept$i after the removal: $out"
done
say "a kept connection serves while its key is valid and is closed when it is removed; puts go on"

# 6c. a client's batch (lincoll-ec batch): every request on one kept connection, one handshake
printf 'stat\nput %s batch1\nput %s batch2\nput %s batch3\nget batch2 %s\nstat\n' \
  "$W/small" "$W/small" "$W/small" "$W/batch2.out" | ec 2 app2 batch >"$W/batch.out" 2>"$W/batch.err" ||
  fail "batch: $(cat "$W/batch.err" "$W/batch.out")"
[ "$(grep -c '^done .* rc=0 ' "$W/batch.out")" = 6 ] || fail "batch: not 6 requests done: $(cat "$W/batch.out")"
cmp -s "$W/small" "$W/batch2.out" || fail "batch: the get read something else"
acc=$(sed -n 's/.*connections accepted \([0-9]*\)$/\1/p' "$W/batch.out" | tr '\n' ' ')
set -- $acc
[ $# = 2 ] && [ "$1" = "$2" ] ||
  fail "batch: node 2 accepted connections during the batch (stat before and after: $acc)"
set --
say "a batch of 6 requests ran on one connection (node 2 accepted $acc)"
# 6d. -c CLUSTER: the client sends each put and get to its object's owner, in TLS
"$bin/lincoll-ec" -c "$W/cluster" --keyring "$W/app2.kr" -t 60 put "$W/big" routed >/dev/null ||
  fail "put with -c and the write key"
"$bin/lincoll-ec" -c "$W/cluster" --keyring "$W/app2.kr" -t 60 get routed "$W/routed.out" >/dev/null ||
  fail "get with -c and the write key"
cmp -s "$W/big" "$W/routed.out" || fail "-c: the get read something else"
grep -q "put routed: .*committed" "$W"/log* || fail "-c: no node logged the put of routed"
say "-c: a put and a get sent to the object's owner, in TLS"

# 7. a stalled handshake
python3 - "$(cat "$W/p0")" "$T" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"\x16\x03\x01")  # a ClientHello that never ends
t0 = time.time()
s.settimeout(60)
try:
    while s.recv(100):
        pass
except OSError:
    pass
sys.exit(0 if time.time() - t0 < 4 * float(sys.argv[2]) + 5 else 1)
PY
stall=$!
pids+=($stall)
ec 0 viewer stat >/dev/null || fail "stat while a handshake stalls"
wait $stall || fail "a stalled handshake held its connection past the timeout"
grep -q 'no TLS handshake within' "$W/log0" || fail "no log line for the stalled handshake"
say "a stalled handshake cut at the timeout while others were served"

# 8. --max-conns under TLS: a daemon of its own (node 0 of a two-node
# cluster whose node 1 is down: no epoch connections take its one slot)
"$bin/lincoll-ecd" --node 0 --dir "$W/dm" --cluster "$W/cluster_mc" --keyring "$W/kr" \
    --listen 127.0.0.1:0 --port-file "$W/pm" --timeout $T --scrub-interval 0 --max-conns 1 \
    --die-with-parent >>"$W/logm" 2>&1 &
pids+=($!)
for _ in $(seq 1 300); do [ -s "$W/pm" ] && break; sleep 0.1; done
[ -s "$W/pm" ] || fail "the --max-conns 1 daemon published no port"
printf 'code 1 1\nnode 0 127.0.0.1:%s\nnode 1 127.0.0.1:1\n' "$(cat "$W/pm")" >"$W/cluster_mc"
mc() { "$bin/lincoll-ec" -s "127.0.0.1:$(cat "$W/pm")" --keyring "$W/viewer.kr" -t 60 "$@"; }
python3 - "$(cat "$W/pm")" "$W/held" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2], "w").close()
s.settimeout(60)
try:
    while s.recv(100):  # silent: the daemon cuts it at the timeout
        pass
except OSError:
    pass
PY
holder=$!
pids+=($holder)
for _ in $(seq 1 300); do [ -e "$W/held" ] && break; sleep 0.1; done
out=$(mc stat 2>&1) && fail "stat over --max-conns 1 succeeded: $out"
echo "$out" | grep -q 'too many connections (--max-conns 1); try again' ||
  fail "the refusal over --max-conns was not readable under TLS: $out"
wait $holder
# the daemon frees the slot just after it cuts the holder: a few tries
for try in $(seq 1 20); do mc stat >/dev/null 2>&1 && break; sleep 0.25; done
[ "$try" -lt 20 ] || mc stat >/dev/null || fail "stat once the slot was free again"
say "over --max-conns a client with a key reads the refusal; served once the slot is free"
echo "PASS"
