#!/usr/bin/env python3
"""perf/daemon/load_gen.py: the load generator of perf/daemon/load.sh: C
concurrent clients of lincoll-ecd speaking its client protocol (one request
per TCP connection: `PUT NAME SIZE` + bytes, `GET NAME`, `STAT`, `REPAIR
NODE`), python3 standard library only.

  load_gen.py run --cluster FILE --clients C --duration S --out PREFIX
                  [--sizes 4096,1048576,16777216] [--weights 8,4,1]
                  [--get-share 0.5] [--deadline 60] [--m 2] [--tag NAME]
                  [--events "T kill N,T start N,..." --ctl CMD]
                  [--verify-before T] [--repair-wait S] [--preload N] [--seed N]
                  [--then-get] [--strict]
  load_gen.py table CSV... [--md FILE]  the markdown table of summary CSVs

run: every client is a thread looping until S seconds have passed: it picks
a size by the weights, and a get (with probability --get-share, of an object
of that size some client put before) or a put of a new object.  Client i
sends its requests to node i mod N of the cluster file (read again at every
connection); a node that refuses the connection is skipped (the next one is
asked: "reroutes", not failures).  Object content is derived from its name:
a header with the name and size, then bytes of a fixed random block at an
offset given by the name's crc32, so that two objects of one size differ in
every chunk; every get is compared byte for byte with it.

Per operation: ok; fail (an ERR reply, or the connection lost before the
reply); wrong (an OK get whose bytes differ: must never happen); hang (no
reply within --deadline seconds).  A failure is "explained" when more than
m nodes were down at some point during it, or when its own coordinator was
killed during it (the client saw its connection reset); the others are
"unexplained" (the goal: 0).

--events runs CMD kill N / CMD start N (CMD: a program given by load.sh,
which SIGKILLs node N / restarts it and waits until it listens) at T
seconds after the start.  Every object whose put
succeeded before T seconds (--verify-before; default: the first kill) (and every --preload object: N puts one at a
time before the clients start) is read back after the clients stop (C threads):
the count of those unreadable or wrong is reported.  --repair-wait S then
polls STAT on every node until none reports a degraded object (its line
`degraded objects N`, when the daemon's stat has one; the time is
reported), at most S
seconds (0: not at all); a daemon whose stat has no such count gets `REPAIR N` for every
node restarted, and the time of those is reported instead.

--then-get: after the run, a second one as long with gets only, of the
objects the first one put (as rados bench write, then seq); the summary has
the rows of both.  --strict: exit 1 on a wrong read, a hang or a pre-kill
object unreadable.

Output: PREFIX.ops.csv (one row per operation), PREFIX.summary.csv (one row
per op and size: clients,op,size,ops,ok,fail,unexplained,wrong,hang,
MBps,ops_s,p50_ms,p99_ms,mean_ms,max_ms), PREFIX.kill.txt (with --events:
key=value lines), and the summary on stdout.
"""
import argparse
import csv
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import zlib

SPREAD = 65536


class Objects:
    """The content of every object, from its name and size."""

    def __init__(self, maxsize, seed):
        rnd = random.Random(seed)
        self.block = rnd.randbytes(maxsize + SPREAD)

    def header(self, name, size):
        h = ("%s %d\n" % (name, size)).encode()
        return h[:size]

    def parts(self, name, size):
        h = self.header(name, size)
        off = zlib.crc32(name.encode()) % SPREAD
        return h, memoryview(self.block)[off + len(h) : off + size]

    def same(self, name, size, got):
        h, body = self.parts(name, size)
        mv = memoryview(got)
        return len(got) == size and mv[: len(h)].tobytes() == h and mv[len(h) :].tobytes() == body.tobytes()


def read_cluster(path):
    nodes = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] == "node":
                host, port = w[2].rsplit(":", 1)
                nodes[int(w[1])] = (host, int(port))
    return [nodes[i] for i in sorted(nodes)]


M64 = (1 << 64) - 1


def _mix64(x):
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & M64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def placement(name, n):
    """The nodes of 0..n-1 by rendezvous weight for this name, highest (the
    object's owner, which coordinates its put) first: docs/daemon.md."""
    h = 14695981039346656037
    for b in name.encode():
        h = ((h ^ b) * 1099511628211) & M64
    w = [_mix64(h ^ _mix64(i + 1)) for i in range(n)]
    return sorted(range(n), key=lambda i: (-w[i], i))


class Lost(Exception):
    """The connection broke before the reply."""


class Refused(Exception):
    """The node did not accept the connection."""


def readline(s, limit=4096):
    b = bytearray()
    while not b.endswith(b"\n"):
        x = s.recv(1)
        if not x:
            raise Lost("connection closed before the reply" + (": " + b.decode(errors="replace") if b else ""))
        b += x
        if len(b) > limit:
            raise Lost("reply line too long")
    return b[:-1].decode(errors="replace")


KEEP = False  # --keep: each client thread keeps one connection per daemon ("KEEP")
_kept = threading.local()


def connect(addr, deadline):
    if KEEP:
        pool = _kept.__dict__.setdefault("pool", {})
        s = pool.pop(addr, None)
        if s is not None:
            s.settimeout(deadline)
            return s
    try:
        s = socket.create_connection(addr, timeout=deadline)
    except (ConnectionRefusedError, ConnectionResetError) as e:
        raise Refused(str(e))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a request is several writes
    if KEEP:
        s.sendall(b"KEEP\n")
    return s


def release(addr, s, ok):
    """After a put or get: a connection whose request succeeded is kept
    (--keep), any other closed (the daemon closes it too)."""
    if KEEP and ok:
        _kept.__dict__.setdefault("pool", {})[addr] = s
    else:
        s.close()


def do_put(addr, name, objs, size, deadline):
    s = connect(addr, deadline)
    keep = False
    try:
        h, body = objs.parts(name, size)
        try:
            s.sendall(b"PUT %s %d\n" % (name.encode(), size))
            s.sendall(h)
            s.sendall(body)
        except (BrokenPipeError, ConnectionResetError) as e:
            try:
                line = readline(s)  # the daemon's reason, when it gave one
            except (OSError, Lost):
                raise Lost("upload broken: %s" % e)
            return False, line
        line = readline(s)
        keep = line.startswith("OK ")
        return keep, line
    except (ConnectionResetError, BrokenPipeError) as e:
        raise Lost(str(e))
    finally:
        release(addr, s, keep)


def do_get(addr, name, objs, size, deadline):
    """(ok, wrong, message)"""
    s = connect(addr, deadline)
    keep = False
    try:
        s.sendall(b"GET %s\n" % name.encode())
        line = readline(s)
        if not line.startswith("OK "):
            return False, False, line
        n = int(line.split()[1])
        buf = bytearray(n)
        mv, got = memoryview(buf), 0
        while got < n:
            r = s.recv_into(mv[got:])
            if r == 0:
                raise Lost("object cut after %d of %d bytes" % (got, n))
            got += r
        if not objs.same(name, size, buf):
            return False, True, "bytes differ from what was put (%d bytes)" % n
        keep = True
        return True, False, line
    except (ConnectionResetError, BrokenPipeError) as e:
        raise Lost(str(e))
    finally:
        release(addr, s, keep)


def request(addr, line, deadline):
    s = connect(addr, deadline)
    try:
        s.sendall(line.encode() + b"\n")
        first = readline(s)
        out = [first]
        w = first.split()
        if first.startswith("OK ") and len(w) == 2 and w[1].isdigit():
            for _ in range(int(w[1])):
                out.append(readline(s))
        return out
    finally:
        s.close()


class Run:
    def __init__(self, a):
        self.a = a
        self.sizes = [int(x) for x in a.sizes.split(",")]
        self.weights = [float(x) for x in a.weights.split(",")][: len(self.sizes)]
        while len(self.weights) < len(self.sizes):
            self.weights.append(1.0)
        self.objs = Objects(max(self.sizes), a.seed)
        self.lock = threading.Lock()
        self.done = {s: [] for s in self.sizes}  # (name, t_end) of committed puts
        self.rows = []
        self.down = {}  # node -> time it was killed (while down)
        self.intervals = []  # (node, t_kill, t_up)
        self.kills = []  # (node, t before the kill, t once it is dead)
        self.repair = None  # (last restart, degraded 0 at, most degraded seen, last seen)
        self.reroutes = 0
        self.t0 = time.monotonic()
        self.stop = self.t0 + a.duration

    def now(self):
        return time.monotonic() - self.t0

    def max_down(self, t0, t1):
        """Most nodes down at once during [t0, t1]."""
        with self.lock:
            iv = list(self.intervals) + [(n, t, float("inf")) for n, t in self.down.items()]
        pts = sorted({t0} | {t for _, t, _ in iv if t0 <= t <= t1})
        return max((sum(1 for _, a, b in iv if a <= p < b) for p in pts), default=0)

    def killed_during(self, node, t0, t1):
        """A kill of node (any node: -1) overlapped [t0, t1] (0.5 s slack)."""
        with self.lock:
            ks = list(self.kills)
        return any((node < 0 or n == node) and a - 0.5 <= t1 and t0 <= b + 0.5 for n, a, b in ks)

    def explain(self, row):
        """A row's explanation, from every kill known at the end of the run."""
        t0, t1, status, node = row[0], row[1], row[7], row[6]
        if status not in ("fail", "lost"):
            return ""
        if self.max_down(t0, t1) > self.a.m:
            return "more than m down"
        if status == "lost" and self.killed_during(node, t0, t1):
            return "coordinator killed"
        return ""

    def op(self, cid, kind, name, size):
        nodes = read_cluster(self.a.cluster)
        t0 = self.now()
        status, msg, node = "fail", "", -1
        order = [(cid + j) % len(nodes) for j in range(len(nodes))]
        if self.a.route == "owner":  # as a client that knows the cluster map
            order = placement(name, len(nodes))
        for node in order:
            try:
                if kind == "put":
                    ok, msg = do_put(nodes[node], name, self.objs, size, self.a.deadline)
                    status = "ok" if ok else "fail"
                else:
                    ok, wrong, msg = do_get(nodes[node], name, self.objs, size, self.a.deadline)
                    status = "ok" if ok else ("wrong" if wrong else "fail")
                break
            except Refused as e:
                with self.lock:
                    self.reroutes += 1
                msg = "refused: %s" % e
                t0 = self.now()
                continue
            except socket.timeout:
                status, msg = "hang", "no reply within %g s" % self.a.deadline
                break
            except Lost as e:
                status, msg = "lost", str(e)
                break
            except OSError as e:
                status, msg = "lost", str(e)
                break
        t1 = self.now()
        explained = ""  # set once every kill is known (explain)
        return t0, t1, status, node, msg, explained

    def client(self, cid):
        rnd = random.Random(self.a.seed * 1000 + cid)
        seq = 0
        while self.now() < self.a.duration:
            size = rnd.choices(self.sizes, self.weights)[0]
            kind, name = "put", None
            if rnd.random() < self.a.get_share:
                with self.lock:
                    if self.done[size]:
                        kind, name = "get", rnd.choice(self.done[size])[0]
            if name is None and self.a.get_share >= 1:
                break  # gets only, and nothing of this size to get
            if name is None:
                seq += 1
                name = "%s-c%d-%d-%d" % (self.a.tag, cid, seq, size)
            t0, t1, status, node, msg, expl = self.op(cid, kind, name, size)
            with self.lock:
                self.rows.append((t0, t1, cid, kind, size, name, node, status, expl, msg))
                if kind == "put" and status == "ok":
                    self.done[size].append((name, t1))

    def events(self):
        evs = []
        for e in filter(None, (x.strip() for x in self.a.events.split(","))):
            t, what, n = e.split()
            evs.append((float(t), what, int(n)))
        for t, what, n in sorted(evs):
            d = t - self.now()
            if d > 0:
                time.sleep(d)
            if self.now() >= self.a.duration:
                break
            if what == "kill":
                with self.lock:
                    self.down[n] = tb = self.now()
                subprocess.run([self.a.ctl, "kill", str(n)], check=True)
                with self.lock:
                    self.kills.append((n, tb, self.now()))
                log("t=%.1f s: node %d killed" % (self.now(), n))
            else:
                subprocess.run([self.a.ctl, "start", str(n)], check=True)
                with self.lock:
                    self.intervals.append((n, self.down.pop(n), self.now()))
                log("t=%.1f s: node %d restarted" % (self.now(), n))
        if self.intervals and not self.down and self.a.repair_wait > 0:
            self.watch_repair()

    def watch_repair(self):
        """After the last restart: STAT every 0.5 s until no node reports a
        degraded object (while the clients go on)."""
        t_up = max(b for _, _, b in self.intervals)
        most, seen = 0, None
        while self.now() - t_up < self.a.repair_wait:
            d = stat_degraded(read_cluster(self.a.cluster), self.a.deadline)
            if d is None:
                return  # no degraded count: kill_report runs REPAIR instead
            seen = d
            most = max(most, d)
            if d == 0:
                self.repair = (t_up, self.now(), most, d)
                return
            time.sleep(0.5)
        self.repair = (t_up, None, most, seen)

    def preload(self, n):
        """n puts, one at a time, before the clients start: objects every
        later check can count on (with --verify-before, written before it)."""
        for i in range(n):
            size = self.sizes[i % len(self.sizes)]
            name = "%s-pre-%d-%d" % (self.a.tag, i, size)
            t0, t1, status, node, msg, expl = self.op(i, "put", name, size)
            if status != "ok":
                log("preload put %s: %s: %s" % (name, status, msg))
                return False
            self.done[size].append((name, -1.0))
        return True

    def go(self):
        if self.a.preload and not self.preload(self.a.preload):
            return -1
        self.t0 = time.monotonic()
        threads = [threading.Thread(target=self.client, args=(i,), daemon=True) for i in range(self.a.clients)]
        ev = threading.Thread(target=self.events, daemon=True) if self.a.events else None
        for t in threads:
            t.start()
        if ev:
            ev.start()
        for t in threads:
            t.join(self.a.duration + self.a.deadline + 60)
        hung = sum(t.is_alive() for t in threads)
        if ev:
            ev.join()
        self.elapsed = self.now()
        return hung


def pct(v, q):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def summarize(rows, clients, elapsed):
    out = []
    keys = sorted({(r[3], r[4]) for r in rows}, key=lambda k: (k[1], k[0] != "put"))
    for kind, size in keys:
        rs = [r for r in rows if r[3] == kind and r[4] == size]
        ok = [r for r in rs if r[7] == "ok"]
        lat = [(r[1] - r[0]) * 1e3 for r in ok]
        fails = [r for r in rs if r[7] in ("fail", "lost")]
        out.append(
            {
                "clients": clients,
                "op": kind,
                "size": size,
                "ops": len(rs),
                "ok": len(ok),
                "fail": len(fails),
                "unexplained": sum(1 for r in fails if not r[8]),
                "wrong": sum(1 for r in rs if r[7] == "wrong"),
                "hang": sum(1 for r in rs if r[7] == "hang"),
                "MBps": "%.3f" % (len(ok) * size / elapsed / 1e6),
                "ops_s": "%.2f" % (len(ok) / elapsed),
                "p50_ms": "%.2f" % pct(lat, 0.5),
                "p99_ms": "%.2f" % pct(lat, 0.99),
                "mean_ms": "%.2f" % (statistics.fmean(lat) if lat else float("nan")),
                "max_ms": "%.2f" % (max(lat) if lat else float("nan")),
            }
        )
    return out


FIELDS = ["clients", "op", "size", "ops", "ok", "fail", "unexplained", "wrong", "hang", "MBps", "ops_s", "p50_ms", "p99_ms", "mean_ms", "max_ms"]


def human(b):
    for u, m in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= m and b % m == 0:
            return "%d %s" % (b // m, u)
    return "%d B" % b


def table(rows):
    s = "| clients | op | size | ops | ok | failed (unexplained) | wrong reads | hangs | MB/s | ops/s | p50 (ms) | p99 (ms) |\n"
    s += "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    for r in rows:
        s += "| %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s |\n" % (
            r["clients"], r["op"], human(int(r["size"])), r["ops"], r["ok"], r["fail"], r["unexplained"],
            r["wrong"], r["hang"], r["MBps"], r["ops_s"], r["p50_ms"], r["p99_ms"])
    return s


def log(msg):
    print("load_gen: " + msg, file=sys.stderr, flush=True)


def stat_degraded(nodes, deadline):
    """The cluster's degraded objects as the nodes' STAT reports them (a line
    `degraded objects N`; the most any node reports; -1: a node cannot tell
    or does not answer), or None when the stat has no such line."""
    worst, seen = 0, False
    for addr in nodes:
        try:
            lines = request(addr, "STAT", deadline)
        except (OSError, Lost):
            return -1
        for ln in lines:
            w = ln.split()
            if w[:2] == ["degraded", "objects"] and len(w) > 2:
                seen = True
                worst = max(worst, int(w[2])) if w[2].isdigit() and worst >= 0 else -1
    return worst if seen else None


def cmd_run(a):
    global KEEP
    KEEP = a.keep
    r = Run(a)
    log("%d clients, %g s, sizes %s weights %s, get share %g" % (a.clients, a.duration, a.sizes, a.weights, a.get_share))
    hung_threads = r.go()
    if hung_threads < 0:
        return 1
    rows = sorted(x[:8] + (r.explain(x),) + x[9:] for x in r.rows)
    summ = summarize(rows, a.clients, r.elapsed)
    if a.then_get:  # a second round: gets only, of the objects put in the first
        a.preload, a.get_share, first = 0, 1.0, len(r.rows)
        hung_threads += r.go()
        rows2 = sorted(x[:8] + (r.explain(x),) + x[9:] for x in r.rows[first:])
        summ += summarize(rows2, a.clients, r.elapsed)
        rows = rows + [(x[0] + a.duration,) + x[1:] for x in rows2]
    with open(a.out + ".ops.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["t_start", "t_end", "client", "op", "size", "name", "node", "status", "explained", "message"])
        for x in rows:
            w.writerow(["%.4f" % x[0], "%.4f" % x[1]] + list(x[2:]))
    with open(a.out + ".summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(summ)
    print(table(summ), end="")
    bad = sum(x["wrong"] for x in summ) + sum(x["hang"] for x in summ) + hung_threads
    if a.events:
        k = kill_report(r, rows, a)
        with open(a.out + ".kill.txt", "w") as f:
            for key, v in k.items():
                f.write("%s=%s\n" % (key, v))
        for key, v in k.items():
            print("%s=%s" % (key, v))
        bad += k["wrong_reads"] + k["hangs"] + k["prekill_unreadable"]
    if hung_threads:
        log("%d clients still in an operation after the deadline" % hung_threads)
    return 1 if bad and a.strict else 0


def kill_report(r, rows, a):
    k = {
        "ops": len(rows),
        "wrong_reads": sum(1 for x in rows if x[7] == "wrong"),
        "hangs": sum(1 for x in rows if x[7] == "hang"),
        "failed": sum(1 for x in rows if x[7] in ("fail", "lost")),
        "failed_unexplained": sum(1 for x in rows if x[7] in ("fail", "lost") and not x[8]),
        "failed_coordinator_killed": sum(1 for x in rows if x[8] == "coordinator killed"),
        "failed_more_than_m_down": sum(1 for x in rows if x[8] == "more than m down"),
        "failed_unexplained_overlapping_a_kill": sum(
            1 for x in rows if x[7] in ("fail", "lost") and not x[8] and r.killed_during(-1, x[0], x[1])),
        "reroutes": r.reroutes,
        "ops_while_down": sum(1 for x in rows if x[7] == "ok" and any(a <= x[0] and x[1] <= b for _, a, b in r.intervals)),
    }
    before = a.verify_before
    if before <= 0:  # the first kill
        before = min((t for _, t, _ in r.intervals), default=0)
    k["verify_before_s"] = "%.1f" % before
    pre = [(n, s) for s, lst in r.done.items() for n, t in lst if t < before]
    bad = []
    lock = threading.Lock()
    it = iter(pre)

    def reader(cid):
        while True:
            with lock:
                x = next(it, None)
            if x is None:
                return
            _, _, status, _, msg, _ = r.op(cid, "get", x[0], x[1])
            if status != "ok":
                with lock:
                    bad.append((x[0], status, msg))

    t0 = time.monotonic()
    ts = [threading.Thread(target=reader, args=(i,)) for i in range(max(1, a.clients))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    k["prekill_objects"] = len(pre)
    k["prekill_unreadable"] = len(bad)
    k["prekill_read_s"] = "%.1f" % (time.monotonic() - t0)
    for name, status, msg in bad[:10]:
        log("pre-kill object %s: %s: %s" % (name, status, msg))
    if a.repair_wait <= 0:
        k["repair"] = "not waited for"
        return k
    nodes = read_cluster(a.cluster)
    restarted = sorted({n for n, _, _ in r.intervals})
    t0 = time.monotonic()
    if r.repair is not None:
        t_up, t_zero, most, last = r.repair
        k["repair"] = "background (stat's degraded objects, polled every 0.5 s from the last restart, under load)"
        k["degraded_max_after_restart"] = most
        k["repair_ok"] = int(t_zero is not None)
        k["repair_s"] = "%.1f" % (t_zero - t_up) if t_zero is not None else "> %g" % a.repair_wait
        k["degraded_left"] = last
        return k
    d = stat_degraded(nodes, a.deadline)
    if d is None:
        k["repair"] = "no degraded count in stat: operator REPAIR of nodes %s" % restarted
        ok = True
        for n in restarted:
            try:
                out = request(nodes[n], "REPAIR %d" % n, max(a.deadline, a.repair_wait))
                ok = ok and out[0].startswith("OK")
                log("REPAIR %d: %s" % (n, out[0]))
            except (OSError, Lost) as e:
                ok = False
                log("REPAIR %d: %s" % (n, e))
        k["repair_ok"] = int(ok)
        k["repair_s"] = "%.1f" % (time.monotonic() - t0)
    else:
        while d != 0 and time.monotonic() - t0 < a.repair_wait:
            time.sleep(1)
            d = stat_degraded(nodes, a.deadline)
        k["repair"] = "background (stat's degraded objects, after the clients stopped)"
        k["repair_ok"] = int(d == 0)
        k["repair_s"] = "%.1f" % (time.monotonic() - t0)
        k["degraded_left"] = d
    return k


def cmd_table(a):
    rows = []
    for p in a.csv:
        with open(p) as f:
            rows += list(csv.DictReader(f))
    s = table(rows)
    if a.md:
        with open(a.md, "w") as f:
            f.write(s)
    print(s, end="")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--cluster", required=True)
    r.add_argument("--clients", type=int, required=True)
    r.add_argument("--duration", type=float, required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--sizes", default="4096,1048576,16777216")
    r.add_argument("--weights", default="8,4,1")
    r.add_argument("--get-share", type=float, default=0.5)
    r.add_argument("--deadline", type=float, default=60)
    r.add_argument("--m", type=int, default=2)
    r.add_argument("--tag", default="o")
    r.add_argument("--events", default="")
    r.add_argument("--ctl", default="")
    r.add_argument("--verify-before", type=float, default=0)
    r.add_argument("--repair-wait", type=float, default=120)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--then-get", action="store_true", help="after the run, as long again with gets only")
    r.add_argument("--preload", type=int, default=0, help="puts, one at a time, before the clients start")
    r.add_argument("--route", choices=("node", "owner"), default="node",
                   help="node: client i asks node i mod N; owner: each object's owner first (its placement's first node), then the others by weight")
    r.add_argument("--keep", action="store_true",
                   help="each client keeps its connection to a daemon between requests (KEEP)")
    r.add_argument("--strict", action="store_true", help="exit 1 on a wrong read, a hang or an unreadable pre-kill object")
    t = sub.add_parser("table")
    t.add_argument("csv", nargs="+")
    t.add_argument("--md")
    a = p.parse_args()
    sys.exit(cmd_run(a) if a.cmd == "run" else cmd_table(a))


if __name__ == "__main__":
    main()
