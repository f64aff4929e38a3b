#!/usr/bin/env bash
# test/daemon/ecd_epoch.sh: lincoll-ecd's membership epochs (docs/daemon.md,
# "Epochs"): 7 daemons on 127.0.0.1, RS(4,2), every put forming its group
# on the epoch's context (--direct-max 0).
#
#   ecd_epoch.sh <bin dir>
#
#  1. every daemon reports one epoch over all 7 nodes (EPOCHSTAT);
#  2. 24 puts (4 KiB, 200 KiB, 1 MiB), 8 at a time through every daemon,
#     then 24 gets through other daemons: every put succeeds on 6 of 6
#     nodes, every read is byte for byte what was put, and the epoch is
#     still the same one on every node (no context per operation), and
#     most sessions between the daemons ran on connections an earlier put
#     kept (STAT's last line);
#  3. two puts of one name at once through two daemons: exactly one wins;
#  4. node 6 is SIGKILLed: the survivors install a newer epoch without it
#     (its leader saw its connection close); 16 more puts at once and every
#     object's get (old and new) read right;
#  5. every chunk of node 2 is deleted and node 2 repaired: the repair
#     rebuilds them all on that same epoch (no context of its own: the
#     coordinator's log names the epoch, and no newer one is formed), and
#     every object reads right through node 2; a REPAIR line without an
#     agreed epoch, or with a malformed one, is refused with its reason.
# Every process started is killed on exit, success or not.
set -uo pipefail
bin=$1
T=5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ecd_harness.sh" ecd_epoch
N=7
for i in $(seq 0 $((N - 1))); do
  "$bin/lincoll-ecd" --insecure --node "$i" --dir "$W/d$i" --cluster "$W/cluster" --listen 127.0.0.1:0 \
      --port-file "$W/p$i" --timeout $T --die-with-parent --direct-max 0 \
      --scrub-interval 0 >>"$W/log$i" 2>&1 &
  pids+=($!)
done
for i in $(seq 0 $((N - 1))); do
  for _ in $(seq 1 300); do [ -s "$W/p$i" ] && break; sleep 0.1; done
  [ -s "$W/p$i" ] || fail "node $i published no port"
done
{ echo "code 4 2"; for i in $(seq 0 $((N - 1))); do echo "node $i 127.0.0.1:$(cat "$W/p$i")"; done; } \
  > "$W/cluster"
ports=$(for i in $(seq 0 $((N - 1))); do cat "$W/p$i"; done | tr '\n' ',')
cat > "$W/epoch.py" <<'PY'
import hashlib, socket, sys, threading, time
cmd, ports = sys.argv[1], [int(p) for p in sys.argv[2].split(",") if p]
BODIES = {}
def body(name, size):
    if (name, size) not in BODIES:
        n = name.encode()
        BODIES[(name, size)] = b"".join(hashlib.sha256(b"%s/%d" % (n, i)).digest()
                                        for i in range(size // 32 + 1))[:size]
    return BODIES[(name, size)]
def request(port, line, payload=b""):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.sendall(line.encode() + b"\n" + payload)
    f = s.makefile("rb")
    head = f.readline().decode().strip()
    data = b""
    if head.startswith("OK ") and line.startswith("GET "):
        data = f.read(int(head.split()[1]))
    s.close()
    return head, data
def epochs(alive):
    got = {}
    for i in alive:
        try:
            got[i] = request(ports[i], "EPOCHSTAT")[0]
        except OSError as e:
            got[i] = "ERR %s" % e
    return got
def wait_epoch(alive, nodes, newer_than, limit=25):
    """every node of alive reports one epoch (> newer_than) over exactly nodes"""
    want = ",".join(map(str, nodes))
    t0, got = time.time(), {}
    while time.time() - t0 < limit:
        got = epochs(alive)
        seqs = set()
        for i, l in got.items():
            w = l.split()
            if len(w) >= 9 and w[1] == "epoch" and w[8] == want and int(w[2]) > newer_than:
                seqs.add(int(w[2]))
            else:
                seqs.add(None)
        if len(seqs) == 1 and None not in seqs:
            return seqs.pop(), time.time() - t0
        time.sleep(0.2)
    sys.exit("FAIL: no common epoch over nodes %s within %d s: %s" % (want, limit, got))
SIZES = [4096, 200 * 1024, 1 << 20]
def puts(names, via, width):
    res, lock = {}, threading.Lock()
    def one(j, name):
        size = SIZES[j % len(SIZES)]
        try:
            r = request(ports[via[j % len(via)]], "PUT %s %d" % (name, size), body(name, size))[0]
        except OSError as e:
            r = "ERR %s" % e
        with lock:
            res[name] = (size, r)
    for b in range(0, len(names), width):
        th = [threading.Thread(target=one, args=(b + j, n)) for j, n in enumerate(names[b:b + width])]
        [t.start() for t in th]
        [t.join() for t in th]
    return res
def check_gets(objs, via):
    bad = []
    for j, (name, size) in enumerate(sorted(objs.items())):
        head, data = request(ports[via[j % len(via)]], "GET " + name)
        if not head.startswith("OK") or data != body(name, size):
            bad.append("%s: %s (%d bytes)" % (name, head, len(data)))
    if bad:
        sys.exit("FAIL: wrong reads: %s" % bad)
alive = list(range(len(ports)))
seq, dt = wait_epoch(alive, alive, 0)
print("1. every node in epoch %d over nodes 0..%d (%.1f s)" % (seq, len(ports) - 1, dt))
names = ["e%02d" % i for i in range(24)]
res = puts(names, alive, 8)
failed = {n: r for n, (s, r) in res.items() if not r.startswith("OK") or not r.endswith(" 6/6")}
if failed:
    sys.exit("FAIL: puts failed or degraded: %s" % failed)
objs = {n: s for n, (s, r) in res.items()}
check_gets(objs, alive[::-1])
seq2, _ = wait_epoch(alive, alive, 0, limit=1)
if seq2 != seq:
    sys.exit("FAIL: the epoch changed from %d to %d during puts with every node up" % (seq, seq2))
print("2. 24 puts 8 at a time, 24 gets right; still epoch %d everywhere" % seq)
def kept(port):
    """STAT's last line: (kept, reused, asked) of that daemon's connections to its peers"""
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.sendall(b"STAT\n")
    f = s.makefile("rb")
    n = int(f.readline().split()[1])
    last = [f.readline().decode().strip() for _ in range(n)][-1]
    s.close()
    w = last.replace(",", "").split()
    if w[:3] != ["peer", "connections", "kept"]:
        sys.exit("FAIL: STAT's last line is not the kept connections': %r" % last)
    return int(w[3]), int(w[5]), int(w[7])
k = [kept(ports[i]) for i in alive]
reused, asked = sum(x[1] for x in k), sum(x[2] for x in k)
# 24 puts open 5 OP sessions and up to 5 PIECES streams each, 7 daemons:
# most of them find a connection an earlier put of that coordinator kept
if asked < 24 * 5 or reused * 2 < asked:
    sys.exit("FAIL: puts reused %d of %d connections to peers (kept: %s)" % (reused, asked, k))
print("   connections to peers: %d of %d reused, %d kept now" % (reused, asked, sum(x[0] for x in k)))
same = {}
def racer(via):
    same[via] = request(ports[via], "PUT race %d" % 65536, body("race", 65536))[0]
th = [threading.Thread(target=racer, args=(v,)) for v in (1, 4)]
[t.start() for t in th]
[t.join() for t in th]
wins = [v for v, r in same.items() if r.startswith("OK")]
if len(wins) != 1:
    sys.exit("FAIL: same-name puts: %s" % same)
loser = [r for v, r in same.items() if not r.startswith("OK")][0]
if "exists" not in loser:
    sys.exit("FAIL: the losing same-name put's error is unclear: %s" % loser)
objs["race"] = 65536
print("3. same-name puts: one won, the other: %s" % loser)
open(sys.argv[3], "w").write("%d\n" % seq)
if cmd == "before":
    sys.exit(0)
PY
python3 "$W/epoch.py" before "$ports" "$W/seq" || fail "before the kill"
seq=$(cat "$W/seq")
say "killing node 6"
kill -KILL "${pids[6]}"
python3 - "$W/epoch.py" "$ports" "$W/seq" "$seq" "$W" <<'PY' || fail "after the kill"
import sys
src = open(sys.argv[1]).read().split("alive = list(range(len(ports)))")[0]
sys.argv = [sys.argv[1], "after", sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]]
exec(src)
old = int(sys.argv[4])
alive = list(range(len(ports) - 1))
seq, dt = wait_epoch(alive, alive, old)
print("4. node 6 killed: epoch %d over nodes 0..5 on every survivor after %.1f s" % (seq, dt))
names = ["e%02d" % i for i in range(24)] + ["race"]
objs = {n: SIZES[i % len(SIZES)] for i, n in enumerate(names[:24])}
objs["race"] = 65536
new = ["k%02d" % i for i in range(16)]
res = puts(new, alive, 8)
failed = {n: r for n, (s, r) in res.items() if not r.startswith("OK")}
if failed:
    sys.exit("FAIL: puts after the kill failed: %s" % failed)
objs.update({n: s for n, (s, r) in res.items()})
check_gets(objs, alive)
print("   16 puts 8 at a time succeeded, %d objects read right" % len(objs))
import glob, os
lost = glob.glob(os.path.join(sys.argv[5], "d2", "chunks", "*"))
if len(lost) < 4:
    sys.exit("FAIL: node 2 holds %d chunks, expected at least 4" % len(lost))
for f in lost:
    os.remove(f)
head = request(ports[0], "REPAIR 2")[0]
w = head.replace(",", "").split()
if not head.startswith("OK repaired node 2") or int(w[w.index("rebuilt") - 2]) != len(lost):
    sys.exit("FAIL: repair of node 2 (%d chunks deleted): %s" % (len(lost), head))
seq2, _ = wait_epoch(alive, alive, 0, limit=1)
if seq2 != seq:
    sys.exit("FAIL: the epoch changed from %d to %d during a repair" % (seq, seq2))
line = "chunks to rebuild, on epoch %d over 6 nodes" % seq
if line not in open(os.path.join(sys.argv[5], "log0")).read():
    sys.exit("FAIL: node 0's log has no repair line with '%s'" % line)
check_gets(objs, [2])
def session(port, line):
    """an OP session on the whole node, one request in it: its answer"""
    c = socket.create_connection(("127.0.0.1", port), timeout=60)
    f = c.makefile("rb")
    c.sendall(b"OP t-bad 0\n")
    ready = f.readline().decode().strip()
    if ready != "OK ready":
        sys.exit("FAIL: OP session: %r" % ready)
    c.sendall(line.encode() + b"\n")
    a = f.readline().decode().strip()
    c.close()
    return a
for line, want in (("REPAIR 6 1 1 0,1,2,3,4,5", "E=SEQ/TAG"),
                   ("REPAIR 6 1 1 0,1,2,3,4,5 E=%d/1" % (seq + 100), "no agreed epoch %d" % (seq + 100)),
                   ("REPAIR 6 1 1 0,1,2,3,4,5 E=x", "E=SEQ/TAG")):
    a = session(ports[1], line)
    if not a.startswith("ERR") or want not in a:
        sys.exit("FAIL: %r in an OP session: %r (expected an error naming %r)" % (line, a, want))
print("5. %d chunks of node 2 deleted: its repair rebuilt them on epoch %d, %s" % (len(lost), seq, head))
PY
say "PASS: daemon_epoch"
