"""Closed forms of the messages and elements every rank sends and receives,
and of the global rounds, for lincoll's reduction/gather collectives: the
table of docs/collectives.md, "Per-rank messages and elements", written out.

`counts(op, algo, p, me, n, c, root)` returns dict(ms, es, mr, er);
`rounds(op, algo, p)` the global rounds.  check_expect.py compares both with
the simulated schedules (schedules.py) and with test/coll/coll_expect.c.
"""

from schedules import Fold, root_parity, seg_bounds, group_bounds


def bitrev(v, k):
    return int(format(v, f"0{k}b")[::-1], 2) if k else 0


def tz(u):
    return (u & -u).bit_length() - 1


def aligned(x, w):
    """A_w(x): the start of the aligned window of width w holding x."""
    return x - x % w


def _window(offs):
    """C(lo, w) over a table of unit offsets."""
    return lambda lo, w: offs[lo + w] - offs[lo]


def _rec(ms, es, mr, er):
    return dict(ms=ms, es=es, mr=mr, er=er)


def _allreduce_rhd(p, me, n):
    f = Fold(p)
    if f.vrank(me) is None:
        return _rec(1, n, 1, n)
    k, P = f.k, f.P
    C = _window(seg_bounds(n, P))
    o = bitrev(f.vrank(me), k)
    rseg = sum(C(aligned(o, P >> j), P >> j) for j in range(1, k + 1))
    e = (n - C(o, 1)) + rseg
    if f.in_pair(me):
        return _rec(2 * k + 1, n + e, 2 * k + 1, n + e)
    return _rec(2 * k, e, 2 * k, e)


def _rs_ag_rhd(p, me, c, gather):
    f = Fold(p)
    total = sum(c)
    if f.vrank(me) is None:
        return _rec(1, c[me], 1, total) if gather else _rec(1, total, 1, c[me])
    k, P, v = f.k, f.P, f.vrank(me)
    G = _window(group_bounds(f, c))
    rest = total - G(v, 1)
    pair = f.in_pair(me)
    if gather:
        sgrp = sum(G(aligned(v, 1 << j), 1 << j) for j in range(k))
        if pair:
            return _rec(k + 1, sgrp + total, k + 1, rest + c[me + 1])
        return _rec(k, sgrp, k, rest)
    rgrp = sum(G(aligned(v, P >> j), P >> j) for j in range(1, k + 1))
    if pair:
        return _rec(k + 1, rest + c[me + 1], k + 1, total + rgrp)
    return _rec(k, rest, k, rgrp)


def _bcast_binomial(p, me, root, n):
    f = Fold(p, root_parity(p, root))
    if f.vrank(me) is None:
        return _rec(0, 0, 1, n)
    u = f.vrank(me) ^ f.vrank(root)
    pair = 1 if f.in_pair(me) else 0
    if u == 0:
        return _rec(f.k + pair, (f.k + pair) * n, 0, 0)
    return _rec(tz(u) + pair, (tz(u) + pair) * n, 1, n)


def _bcast_rhd(p, me, root, n):
    f = Fold(p, root_parity(p, root))
    if f.vrank(me) is None:
        return _rec(0, 0, 1, n)
    k, P = f.k, f.P
    C = _window(seg_bounds(n, P))
    u = f.vrank(me) ^ f.vrank(root)
    pair = 1 if f.in_pair(me) else 0
    ags = sum(C(aligned(u, 1 << j), 1 << j) for j in range(k))
    if u == 0:
        return _rec(2 * k + pair, (n - C(0, 1)) + ags + pair * n, k, n - C(0, 1))
    low = u & -u
    got = C(u, low)
    return _rec(tz(u) + k + pair, (got - C(u, 1)) + ags + pair * n, k + 1, got + n - C(u, 1))


def _reduce_rhd(p, me, root, n):
    f = Fold(p, root_parity(p, root))
    if f.vrank(me) is None:
        return _rec(1, n, 0, 0)
    k, P, v = f.k, f.P, f.vrank(me)
    C = _window(seg_bounds(n, P))
    rseg = sum(C(aligned(v, P >> j), P >> j) for j in range(1, k + 1))
    pair = 1 if f.in_pair(me) else 0
    d = v ^ f.vrank(root)
    if d == 0:
        return _rec(k, n - C(v, 1), 2 * k + pair, pair * n + rseg + (n - C(v, 1)))
    t = tz(d)
    win = C(aligned(v, 1 << t), 1 << t)
    return _rec(k + 1, (n - C(v, 1)) + win, k + t + pair, pair * n + rseg + win - C(v, 1))


def counts(op, algo, p, me, n=0, c=None, root=0):
    if p == 1:
        return _rec(0, 0, 0, 0)
    if algo == "ring":
        left, right = (me - 1) % p, (me + 1) % p
        if op == "allreduce":
            offs = seg_bounds(n, p)
            seg = [offs[i + 1] - offs[i] for i in range(p)]
            return _rec(2 * p - 2, 2 * n - seg[me] - seg[right], 2 * p - 2,
                        2 * n - seg[left] - seg[me])
        total = sum(c)
        if op == "rs":
            return _rec(p - 1, total - c[me], p - 1, total - c[left])
        if op == "ag":
            return _rec(p - 1, total - c[right], p - 1, total - c[me])
        return None
    if algo == "binomial":
        if op == "bcast":
            return _bcast_binomial(p, me, root, n)
        if op == "reduce":  # the time reverse of the broadcast
            b = _bcast_binomial(p, me, root, n)
            return _rec(b["mr"], b["er"], b["ms"], b["es"])
        return None
    return {
        "allreduce": lambda: _allreduce_rhd(p, me, n),
        "rs": lambda: _rs_ag_rhd(p, me, c, False),
        "ag": lambda: _rs_ag_rhd(p, me, c, True),
        "bcast": lambda: _bcast_rhd(p, me, root, n),
        "reduce": lambda: _reduce_rhd(p, me, root, n),
    }[op]()


def rounds(op, algo, p):
    if p == 1:
        return 0
    f = Fold(p)
    k, d = f.k, 1 if f.r else 0
    if algo == "ring":
        return 2 * (p - 1) if op == "allreduce" else p - 1
    if algo == "binomial":
        return k + d
    return {"allreduce": 2 * k + 2 * d, "rs": k + 2 * d, "ag": k + 2 * d}.get(op, 2 * k + d)
