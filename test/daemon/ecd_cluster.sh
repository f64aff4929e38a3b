#!/usr/bin/env bash
# test/daemon/ecd_cluster.sh: lincoll-ecd under concurrent clients, on a
# cluster larger than a stripe: 8 daemons on 127.0.0.1, RS(4,2).
#
#   ecd_cluster.sh <bin dir>
#
#  1. 16 puts, 8 at a time, each through another daemon: all succeed and
#     read back; every object is on the 6 nodes the rendezvous hash gives
#     (docs/daemon.md, recomputed here), and no node holds them all;
#  2. lincoll-ec -c CLUSTER sends each put to its object's owner, which
#     coordinates it (no relay), and past an owner that does not answer, to
#     the next node of the placement; -s with -c is a usage error;
#  3. two puts of one name at once through two daemons, three times (the
#     third small: its pieces go inline after ENCODE): exactly one
#     succeeds, the other gets a clear error, the object reads back as the
#     winner's;
#  3b. a member refuses an inline piece where the put is not direct, and
#     drops one cut short or never committed: no temporary, no object; an
#     ENCODE sent with its OP (OP ... +LEN) is served, and dropped whole
#     with a busy refusal that the coordinator reads;
#  4. a request line with a NUL is refused;
#  5. a client trickling its request line and one stalled in its upload
#     hold their connections while other clients put and get through the
#     same daemon; both are cut off with clear errors;
#  6. a node held busy by a silent operation: a put whose placement needs it
#     goes on degraded, stat counts it, and the background scrub rebuilds
#     its chunk on that node without an operator.
# Every process started is killed on exit, success or not.
set -uo pipefail
bin=$1
T=4                       # daemon timeout
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ecd_harness.sh" ecd_cluster
N=8
for i in $(seq 0 $((N - 1))); do
  "$bin/lincoll-ecd" --insecure --node "$i" --dir "$W/d$i" --cluster "$W/cluster" --listen 127.0.0.1:0 \
      --port-file "$W/p$i" --timeout $T --die-with-parent --max-conns 512 \
      --max-inflight 1073741824 --client-rate 1048576 --direct-max 65536 --scrub-interval 30 \
      --scrub-rate 16777216 >>"$W/log$i" 2>&1 &
  pids+=($!)
done
for i in $(seq 0 $((N - 1))); do
  for _ in $(seq 1 300); do [ -s "$W/p$i" ] && break; sleep 0.1; done
  [ -s "$W/p$i" ] || fail "node $i published no port"
done
{ echo "code 4 2"; for i in $(seq 0 $((N - 1))); do echo "node $i 127.0.0.1:$(cat "$W/p$i")"; done; } \
  > "$W/cluster"
ec() { local n=$1; shift; "$bin/lincoll-ec" --insecure -s "127.0.0.1:$(cat "$W/p$n")" -t 120 "$@"; }
cat > "$W/tool.py" <<'PY'
import select, socket, sys, time
M = (1 << 64) - 1
def mix64(x):
    x ^= x >> 30; x = (x * 0xbf58476d1ce4e5b9) & M
    x ^= x >> 27; x = (x * 0x94d049bb133111eb) & M
    return x ^ (x >> 31)
def placement(name, n, width):
    h = 14695981039346656037
    for b in name.encode():
        h = ((h ^ b) * 1099511628211) & M
    w = [mix64(h ^ mix64(i + 1)) for i in range(n)]
    return sorted(range(n), key=lambda i: (-w[i], i))[:width]
cmd = sys.argv[1]
if cmd == "place":          # place NAME N: the object's nodes, owner first
    print(" ".join(map(str, placement(sys.argv[2], int(sys.argv[3]), 6))))
elif cmd in ("trickle", "trickle-put"):
    # trickle PORT: a request line at a byte a second, until answered;
    # trickle-put PORT NAME: a put's upload at a byte a second, until killed
    s = socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=60)
    data = b"GET obj0" * 100
    if cmd == "trickle-put":
        s.sendall(b"PUT %s 100000000\n" % sys.argv[3].encode()); data = b"x" * 100000
    for b in data:
        s.send(bytes([b]))
        r, _, _ = select.select([s], [], [], 1.0)
        if r:
            print(s.recv(1000).decode(errors="replace").strip(), flush=True); break
elif cmd == "stall":        # stall PORT NAME: a put's first bytes, then silence
    s = socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=120)
    s.sendall(b"PUT %s 100000000\n" % sys.argv[3].encode() + b"x" * 5000)
    print(s.recv(1000).decode(errors="replace").strip())
elif cmd == "hold":         # hold PORT: a silent operation session on a node
    s = socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=120)
    s.sendall(b"OP hold-1 0\n")
    print(s.recv(100).decode().strip(), flush=True)
    time.sleep(120)
PY
say "$N daemons up"

# ---- 1. puts through 8 daemons at once; placement ----------------------------------
mkdir -p "$W/in" "$W/out"
for wave in 0 1; do
  ppids=()
  for i in $(seq 0 $((N - 1))); do
    j=$((wave * N + i)); head -c $((1000 + j * 20011)) /dev/urandom > "$W/in/obj$j"
    ec "$i" put "$W/in/obj$j" >"$W/obj$j.out" 2>"$W/obj$j.err" & ppids+=($!)
  done
  for i in $(seq 0 $((N - 1))); do
    j=$((wave * N + i))
    wait "${ppids[$i]}" || fail "concurrent put obj$j through node $i: $(cat "$W/obj$j.err")"
    grep -q 'on 6/6 nodes' "$W/obj$j.out" || say "obj$j went on degraded (a node stayed busy): $(cat "$W/obj$j.out")"
  done
done
for j in $(seq 0 15); do
  ec $(( (j + 3) % N )) get "obj$j" "$W/out/obj$j" >/dev/null || fail "get obj$j"
  cmp -s "$W/in/obj$j" "$W/out/obj$j" || fail "obj$j read back wrong"
  grep -q 'on 6/6 nodes' "$W/obj$j.out" || continue
  want=$(python3 "$W/tool.py" place "obj$j" $N | tr ' ' '\n' | sort | tr '\n' ' ')
  held=""; for i in $(seq 0 $((N - 1))); do [ -e "$W/d$i/objects/obj$j.mf" ] && held="$held$i "; done
  [ "$held" = "$want" ] || fail "obj$j is on nodes '$held', the rendezvous hash says '$want'"
done
counts=""; for i in $(seq 0 $((N - 1))); do
  c=$(ls "$W/d$i/objects" | grep -c '\.mf$'); counts="$counts $c"
  [ "$c" -lt 16 ] || fail "node $i holds every object: placement does not spread"
done
say "16 puts, 8 at a time through 8 daemons: all read back, each on the 6 nodes the hash names; objects per node:$counts"

# ---- 2. the client routes each object to its owner (-c CLUSTER) -----------------------
for j in 0 1 2 3; do
  head -c $((3000 + j * 70001)) /dev/urandom > "$W/in/route$j"
  "$bin/lincoll-ec" --insecure -c "$W/cluster" -t 120 put "$W/in/route$j" >/dev/null 2>"$W/route.err" \
    || fail "put route$j with -c: $(cat "$W/route.err")"
  own=$(python3 "$W/tool.py" place "route$j" $N | cut -d' ' -f1)
  grep -q "put route$j: .*committed" "$W/log$own" || fail "route$j was not coordinated by its owner, node $own"
  "$bin/lincoll-ec" --insecure -c "$W/cluster" -t 120 get "route$j" "$W/out/route$j" >/dev/null \
    || fail "get route$j with -c"
  cmp -s "$W/in/route$j" "$W/out/route$j" || fail "route$j read back wrong"
done
# an owner that does not answer: the next node of the placement coordinates
own=$(python3 "$W/tool.py" place route9 $N)
set -- $own
sed "s/^node $1 .*/node $1 127.0.0.1:1/" "$W/cluster" > "$W/cluster.noowner"
head -c 5000 /dev/urandom > "$W/in/route9"
"$bin/lincoll-ec" --insecure -c "$W/cluster.noowner" -t 120 put "$W/in/route9" >/dev/null 2>"$W/route.err" \
  || fail "put route9 past an owner that does not answer: $(cat "$W/route.err")"
grep -q "put route9: .*committed" "$W/log$2" || fail "route9 was not coordinated by node $2, next of its placement"
printf 'put %s r10\nput %s r11\nget r10 %s\n' "$W/in/route1" "$W/in/route2" "$W/out/r10" \
  | "$bin/lincoll-ec" --insecure -c "$W/cluster" -t 120 batch >"$W/route.batch" 2>&1 \
  || fail "a batch with -c: $(cat "$W/route.batch")"
[ "$(grep -c 'rc=0' "$W/route.batch")" = 3 ] && cmp -s "$W/in/route1" "$W/out/r10" || fail "a batch with -c: $(cat "$W/route.batch")"
"$bin/lincoll-ec" --insecure -c "$W/cluster" -s 127.0.0.1:1 stat >/dev/null 2>"$W/route.err"; rc=$?
[ $rc = 2 ] && grep -q -- '-s and -c exclude each other' "$W/route.err" || fail "-s with -c: exit $rc, $(cat "$W/route.err")"
say "-c: puts coordinated by their owners (none relayed), one past a silent owner by the next node, a batch on kept connections"

# ---- 3. two puts of one name at once ------------------------------------------------
for t in 1 2 3; do
  sz=200000; [ $t = 3 ] && sz=4000
  head -c $sz /dev/urandom > "$W/in/a$t"; head -c $sz /dev/urandom > "$W/in/b$t"
  ec 1 put "$W/in/a$t" "same$t" >"$W/a$t.out" 2>"$W/a$t.err" & pa=$!
  ec 5 put "$W/in/b$t" "same$t" >"$W/b$t.out" 2>"$W/b$t.err" & pb=$!
  wait $pa; ra=$?; wait $pb; rb=$?
  [ $((ra == 0)) -ne $((rb == 0)) ] || fail "same-name race $t: exit codes $ra and $rb"
  if [ $ra = 0 ]; then win=a; lose=b; else win=b; lose=a; fi
  grep -q 'exists' "$W/$lose$t.err" || fail "race $t: the loser's error is not clear: $(cat "$W/$lose$t.err")"
  ec 2 get "same$t" "$W/out/same$t" >/dev/null || fail "get same$t"
  cmp -s "$W/in/$win$t" "$W/out/same$t" || fail "same$t does not read back as the winner's"
  for i in $(seq 0 $((N - 1))); do
    left=$(ls "$W/d$i/tmp"); [ -z "$left" ] || fail "node $i keeps temporaries after race $t: $left"
  done
done
say "same-name races: one winner each time, the loser told: $(head -c 150 "$W/$lose$t.err")"

# ---- 3b. inline pieces on a raw OP session (node 3 holds row 3) ----------------------
raw3() { python3 "$here/ecd_raw.py" 127.0.0.1 "$(cat "$W/p3")"; }
enc='ENCODE inl 100 25 4 2 6 3 0,1,2,3,4,5 25'
out=$(printf 'OP rawinl-1-1 0 inl\n%s inline\n%s' "$enc" "$(head -c 25 /dev/zero | tr '\0' x)" | raw3)
[[ $out == *"ERR ENCODE: inconsistent arguments"* ]] || fail "inline without direct: '$out'"
out=$(printf 'OP rawinl-2-1 0 inl\n%s direct inline\nshort' "$enc" | raw3)
[ "$out" = "OK ready" ] || fail "an inline piece cut short: '$out'"
out=$(printf 'OP rawinl-3-1 0 inl\n%s direct inline\n%s' "$enc" "$(head -c 25 /dev/zero | tr '\0' x)" | raw3)
[[ $out == *$'\nOK\nREADY '* ]] || fail "a whole inline piece, no COMMIT: '$out'"
# the first request with the OP (OP ... +LEN): served as if sent after
# "OK ready", dropped whole with a refusal (the refusal is read, not a reset)
req=$(printf '%s direct inline\n%s' "$enc" "$(head -c 25 /dev/zero | tr '\0' x)")
out=$(printf 'OP rawinl-4-1 0 inl +%d\n%s' "${#req}" "$req" | raw3)
[[ $out == $'OK ready\nOK\nREADY '* ]] || fail "ENCODE sent with its OP: '$out'"
out=$(printf 'OP rawinl-5-1 0 inl +x\n' | raw3)
[[ $out == "ERR usage: OP ID COORDINATOR [NAME [+LEN]]"* ]] || fail "OP with a bad +LEN: '$out'"
python3 "$W/tool.py" hold "$(cat "$W/p3")" >"$W/hold3.out" 2>&1 & h3=$!
pids+=($h3)
for _ in $(seq 1 100); do grep -q 'OK ready' "$W/hold3.out" && break; sleep 0.1; done
grep -q 'OK ready' "$W/hold3.out" || fail "no silent operation on node 3: $(cat "$W/hold3.out")"
out=$(printf 'OP rawinl-6-1 0 inl +%d\n%s' "${#req}" "$req" | raw3)
[ "$out" = "ERR busy with another operation on inl" ] || fail "ENCODE with an OP to a busy node: '$out'"
kill -KILL $h3; wait $h3 2>/dev/null
left=$(ls "$W/d3/tmp"); [ -z "$left" ] || fail "node 3 keeps temporaries of inline pieces: $left"
[ ! -e "$W/d3/objects/inl.mf" ] || fail "an inline piece without COMMIT was committed"
say "inline pieces: refused without direct, dropped when cut short or not committed; with the OP: served, or dropped with a refusal when busy"

# ---- 4. a NUL in a request line --------------------------------------------------------
nul=$(printf 'GET obj0\0x\n' | python3 "$here/ecd_raw.py" 127.0.0.1 "$(cat "$W/p0")")
[[ $nul == ERR*0x00*outside\ the\ protocol* ]] || fail "a request with a NUL: '$nul'"
out=$(printf 'GET obj0\x80\n' | python3 "$here/ecd_raw.py" 127.0.0.1 "$(cat "$W/p0")")
[[ $out == ERR*0x80* ]] || fail "a request with byte 0x80: '$out'"
say "NUL request refused: $nul"

# ---- 5. slow clients cost their own connection ------------------------------------------
python3 "$W/tool.py" trickle "$(cat "$W/p0")" >"$W/trickle.out" 2>&1 & tp=$!
python3 "$W/tool.py" stall "$(cat "$W/p0")" stalled >"$W/stall.out" 2>&1 & sp=$!
python3 "$W/tool.py" trickle-put "$(cat "$W/p0")" trickled >"$W/tput.out" 2>&1 & up=$!
pids+=($up)
sleep 1 # the slow clients connect (nothing below depends on how far they got)
for j in 1; do
  head -c 100000 /dev/urandom > "$W/in/slow$j"
  ec 0 put "$W/in/slow$j" >/dev/null || fail "put slow$j beside the slow clients"
  ec 0 get "slow$j" "$W/out/slow$j" >/dev/null || fail "get slow$j beside the slow clients"
  cmp -s "$W/in/slow$j" "$W/out/slow$j" || fail "slow$j read back wrong"
done
kill -0 $up 2>/dev/null || fail "the client trickling its upload was cut off: $(cat "$W/tput.out")"
grep -q 'op .*trickled\|put trickled (op' "$W"/log* && fail "a node was asked to take part in the trickled put"
kill -KILL $up; wait $up 2>/dev/null
wait $tp; wait $sp
grep -q 'no whole request line' "$W/trickle.out" || fail "trickling client: $(cat "$W/trickle.out")"
grep -q 'ERR PUT stalled failed: upload truncated' "$W/stall.out" ||
  fail "stalled upload: $(cat "$W/stall.out")"
for i in $(seq 0 $((N - 1))); do
  for o in stalled trickled; do [ -e "$W/d$i/objects/$o.mf" ] && fail "the $o put left a manifest"; done
done
say "slow clients: a put and a get served beside a client trickling its upload; $(cat "$W/trickle.out"); $(cat "$W/stall.out")"

# ---- 6. a busy node: degraded put, healed by the scrub --------------------------------------
name=""
for j in $(seq 0 200); do
  pl=$(python3 "$W/tool.py" place "heal$j" $N)
  case " $pl " in *" 7 "*) case " $pl " in *" 0 "*) name=heal$j; break;; esac;; esac
done
[ -n "$name" ] || fail "no name placed on nodes 0 and 7"
python3 "$W/tool.py" hold "$(cat "$W/p7")" >"$W/hold.out" 2>&1 & hp=$!
pids+=($hp)
for _ in $(seq 1 100); do grep -q 'OK ready' "$W/hold.out" && break; sleep 0.1; done
grep -q 'OK ready' "$W/hold.out" || fail "no silent operation on node 7: $(cat "$W/hold.out")"
head -c 150000 /dev/urandom > "$W/in/$name"
ec 0 put "$W/in/$name" >"$W/heal.out" 2>"$W/heal.err" || fail "put with node 7 busy: $(cat "$W/heal.err")"
grep -q 'on 5/6 nodes' "$W/heal.out" || fail "the put with node 7 busy was not degraded: $(cat "$W/heal.out")"
[ -e "$W/d7/objects/$name.mf" ] && fail "busy node 7 holds the object"
st=$(ec 3 stat) || fail "stat"
echo "$st" | grep -q '^degraded objects [1-9]' || fail "stat does not show the degraded object: $st"
[ -e "$W/d0/degraded/$name" ] || fail "node 0, the put's coordinator, did not record $name degraded"
kill -KILL $hp; wait $hp 2>/dev/null
healed=""
for _ in $(seq 1 120); do
  st=$(ec 3 stat) && echo "$st" | grep -q '^degraded objects 0$' && { healed=1; break; }
  sleep 0.5
done
[ -n "$healed" ] || fail "the scrub did not heal $name: $st"
[ -e "$W/d7/objects/$name.mf" ] || fail "node 7 holds no manifest of $name after the scrub"
row=$(grep '^row ' "$W/d7/objects/$name.mf" | awk '$3 == 7 {print $2}')
out=$(printf 'CHECK %s %s\n' "$name" "$row" | python3 "$here/ecd_raw.py" 127.0.0.1 "$(cat "$W/p7")")
[ "$out" = "OK ok" ] || fail "node 7's rebuilt row $row: '$out'"
ec 7 get "$name" "$W/out/$name" >/dev/null && cmp -s "$W/in/$name" "$W/out/$name" || fail "get $name"
say "busy node 7: put degraded (5/6), stat counted it, the scrub rebuilt row $row on node 7"
echo "$st"
say "PASS"
