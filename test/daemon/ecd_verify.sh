#!/usr/bin/env bash
# test/daemon/ecd_verify.sh: nothing that crosses UCX is committed unchecked
# (docs/daemon.md, "What crosses UCX").  6 daemons on 127.0.0.1, RS(4,2),
# secure (TLS 1.3 with a keyring: the fingerprint keys travel inside it),
# every one started with the test hook --test-alter-transfer 1: the first
# piece each receives from a collective has 5 bytes changed as by someone
# on the wire, keeping its CRC32C (so the CRC alone would not see it).
#
#   ecd_verify.sh <bin dir>
#
#  1. a 1 MiB put whose remote parity row is altered fails with a clear
#     error naming the fingerprint; no node keeps a chunk or a manifest of it;
#     the same put again (no alteration left on that node) succeeds and
#     reads back;
#  2. a data row's chunk removed, then repaired: the target's rebuilt chunk
#     is altered and dropped at COMMIT (the reply counts it, the chunk stays
#     missing); a second repair rebuilds it, byte for byte the original;
#  3. the same cluster with --test-no-verify as well: the same put succeeds
#     and exactly one committed chunk differs from step 1's, served as good
#     (FETCH answers OK): the damage goes through unchecked, so steps 1 and
#     2 can fail.
# Every process started is killed on exit, success or not.
set -uo pipefail
bin=$1
T=4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ecd_harness.sh" ecd_verify
N=6
auth() { "$bin/lincoll-ec-auth" "$@" >>"$W/auth.log" 2>&1 || fail "lincoll-ec-auth $*: $(tail -1 "$W/auth.log")"; }
auth create --keyring "$W/kr" --id cluster
auth create --keyring "$W/kr" --id ops --caps admin
auth export --keyring "$W/kr" --id ops --out "$W/ops.kr"
start() { # start SET EXTRA...: 6 daemons in $W/SET, the cluster file $W/SET/cluster
  local set=$1; shift
  mkdir -p "$W/$set"
  for i in $(seq 0 $((N - 1))); do
    "$bin/lincoll-ecd" --keyring "$W/kr" --node "$i" --dir "$W/$set/d$i" --cluster "$W/$set/cluster" \
        --listen 127.0.0.1:0 --port-file "$W/$set/p$i" --timeout $T --die-with-parent \
        --scrub-interval 0 --test-alter-transfer 1 "$@" >>"$W/log-$set-$i" 2>&1 &
    pids+=($!)
  done
  for i in $(seq 0 $((N - 1))); do
    for _ in $(seq 1 300); do [ -s "$W/$set/p$i" ] && break; sleep 0.1; done
    [ -s "$W/$set/p$i" ] || fail "$set: node $i published no port"
  done
  { echo "code 4 2"; for i in $(seq 0 $((N - 1))); do echo "node $i 127.0.0.1:$(cat "$W/$set/p$i")"; done; } \
    > "$W/$set/cluster"
}
stop() { for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; { wait; } 2>/dev/null; pids=(); }
ec() { local set=$1 n=$2; shift 2; "$bin/lincoll-ec" --keyring "$W/ops.kr" -s "127.0.0.1:$(cat "$W/$set/p$n")" -t 60 "$@"; }
raw() { "$bin/ecd_rawtls" --keyring "$W/kr" --key-id cluster --to "127.0.0.1:$(cat "$W/$1/p$2")"; }
row_node() { # row_node SET ROW: the node holding row ROW of obj
  local f; f=$(ls "$W/$1"/d*/chunks/obj."$2" 2>/dev/null | head -1)
  [ -n "$f" ] && basename "$(dirname "$(dirname "$f")")" | tr -d d
}
head -c 1048576 /dev/urandom > "$W/obj"
# the object's owner (the first of its nodes by rendezvous hashing) coordinates it
owner=$(python3 - <<'PY'
M = (1 << 64) - 1
def mix64(x):
    x ^= x >> 30; x = (x * 0xbf58476d1ce4e5b9) & M
    x ^= x >> 27; x = (x * 0x94d049bb133111eb) & M
    return x ^ (x >> 31)
h = 14695981039346656037
for b in b"obj":
    h = ((h ^ b) * 1099511628211) & M
w = [mix64(h ^ mix64(i + 1)) for i in range(6)]
print(sorted(range(6), key=lambda i: (-w[i], i))[0])
PY
)

# ---- 1. an altered put fails; nothing is kept; the retry succeeds ----------------
start a
say "6 daemons up, each altering the first piece it receives from a collective"
ec a "$owner" put "$W/obj" obj >"$W/put1.out" 2>"$W/put1.err" &&
  fail "the put with an altered transfer succeeded: $(cat "$W/put1.out")"
grep -q 'fingerprint' "$W/put1.err" || fail "the failed put does not name the fingerprint: $(cat "$W/put1.err")"
altered=$(grep -l 'TEST HOOK --test-alter-transfer 1: altered a parity piece' "$W"/log-a-* | wc -l)
[ "$altered" = 1 ] || fail "expected one node to alter a parity piece, $altered did"
ls "$W"/a/d*/objects/obj.mf "$W"/a/d*/chunks/obj.* 2>/dev/null && fail "the failed put left a manifest or chunk"
say "altered put refused: $(cat "$W/put1.err")"
ec a "$owner" put "$W/obj" obj >"$W/put2.out" 2>"$W/put2.err" || fail "the retry failed: $(cat "$W/put2.err")"
grep -q 'on 6/6 nodes' "$W/put2.out" || fail "the retry did not commit on 6 nodes: $(cat "$W/put2.out")"
ec a $(( (owner + 1) % N )) get obj "$W/back" >/dev/null || fail "get after the retry"
cmp -s "$W/obj" "$W/back" || fail "obj read back wrong"
say "the retry committed on 6/6 nodes and reads back"

# ---- 2. a repair whose rebuilt chunk is altered drops it; the next one keeps it ---
t=""
for r in 0 1 2 3; do
  nd=$(row_node a $r)
  [ -n "$nd" ] && [ "$nd" != "$owner" ] && { t=$nd; trow=$r; break; }
done
[ -n "$t" ] || fail "no data row of obj on a node other than the owner"
cp "$W/a/d$t/chunks/obj.$trow" "$W/orig-chunk"
rm -f "$W/a/d$t/chunks/obj.$trow"
ec a "$owner" repair "$t" >"$W/rep1.out" 2>"$W/rep1.err" || fail "repair 1: $(cat "$W/rep1.err")"
grep -q ' 0 chunks rebuilt' "$W/rep1.out" || fail "repair 1 kept an altered chunk: $(cat "$W/rep1.out")"
grep -q ' 1 failed their fingerprint' "$W/rep1.out" || fail "repair 1 does not count the drop: $(cat "$W/rep1.out")"
grep -q "TEST HOOK --test-alter-transfer 1: altered a rebuilt chunk" "$W/log-a-$t" ||
  fail "node $t did not alter its rebuilt chunk"
[ -e "$W/a/d$t/chunks/obj.$trow" ] && fail "the altered rebuilt chunk was committed"
say "repair 1 dropped the altered chunk: $(cat "$W/rep1.out")"
ec a "$owner" repair "$t" >"$W/rep2.out" 2>"$W/rep2.err" || fail "repair 2: $(cat "$W/rep2.err")"
grep -q ' 1 chunks rebuilt' "$W/rep2.out" || fail "repair 2 rebuilt nothing: $(cat "$W/rep2.out")"
cmp -s "$W/orig-chunk" "$W/a/d$t/chunks/obj.$trow" || fail "repair 2's chunk differs from the original"
say "repair 2 rebuilt row $trow on node $t, byte for byte"
mkdir -p "$W/good"
for r in 0 1 2 3 4 5; do cp "$W"/a/d*/chunks/obj."$r" "$W/good/obj.$r" || fail "row $r missing after repair"; done
stop

# ---- 3. with --test-no-verify the same alteration is committed as good -----------
start b --test-no-verify
ec b "$owner" put "$W/obj" obj >"$W/put3.out" 2>"$W/put3.err" ||
  fail "the unchecked put failed: $(cat "$W/put3.err")"
grep -q 'TEST HOOK --test-alter-transfer 1: altered a parity piece' "$W"/log-b-* ||
  fail "no node altered a parity piece without verification"
diff=""
for r in 0 1 2 3 4 5; do
  f=$(ls "$W"/b/d*/chunks/obj."$r" 2>/dev/null | head -1)
  [ -n "$f" ] || fail "unchecked put: row $r missing"
  cmp -s "$f" "$W/good/obj.$r" || diff="$diff $r"
done
[ "$(echo $diff | wc -w)" = 1 ] || fail "expected exactly one altered row without verification, got '$diff'"
r=$(echo $diff)
nd=$(row_node b "$r")
printf 'FETCH obj %s\n' "$r" | raw b "$nd" 2>/dev/null | head -c 40 | grep -q '^OK ' ||
  fail "the altered row is not served as good (FETCH refused it): the CRC32C saw it"
say "without verification the altered row $r was committed and is served as good (its CRC32C matches)"
say "PASS"
