"""Executable schedules of lincoll's reduction/gather collectives.

The schedules follow docs/collectives.md (sections "Non-power-of-two fold",
"Segments and groups", "RHD allreduce" ... "RHD reduce", "Ring algorithms",
"Binomial algorithms"): for one rank, `build(op, algo, p, me, ...)` lists
the messages of every global round as

    ("send", round, peer, lo, hi)          elements [lo, hi) of its buffer
    ("recv", round, peer, lo, hi, mode)    mode "reduce" (combine) or "put"

and `simulate()` runs the schedules of all ranks together on symbolic data:

  * a message sent in round r must be received in round r by the named
    peer, with exactly the posted length (the executor fails a plan with
    LINCOLL_ERR_MISMATCH otherwise);
  * reductions carry the set of contributing ranks as a bit mask; combining
    two partials that share a rank is an error (every input is reduced
    exactly once), and the result must hold every rank where the operation
    promises it;
  * gathers and broadcasts carry the origin of each element, which must
    arrive intact.

It returns, per rank, the messages and elements sent and received (0-byte
messages count: lincoll sends every protocol message) and the number of
global rounds (the last round that carries a message, plus one).  Only the
Python standard library is used.
"""

OPS = ("allreduce", "rs", "ag", "bcast", "reduce")
ALGOS = ("rhd", "ring", "binomial")


class Fold:
    """The non-power-of-two fold: pairs (2i, 2i+1), i < r, keep the member of
    parity s in the power-of-two block of P = 2^k vranks."""

    def __init__(self, p, s=0):
        self.p, self.s = p, s
        self.k = p.bit_length() - 1
        self.P = 1 << self.k
        self.r = p - self.P

    def vrank(self, x):
        if x < 2 * self.r:
            return x >> 1 if (x & 1) == self.s else None
        return x - self.r

    def real(self, v):
        return 2 * v + self.s if v < self.r else v + self.r

    def in_pair(self, x):
        return x < 2 * self.r


def root_parity(p, root):
    """Parity of the representatives for rooted operations: the root's own
    parity when it sits in a pair, so that it always stays in the block."""
    f = Fold(p)
    return root & 1 if root < 2 * f.r else 0


def seg_bounds(n, nseg):
    """Element offsets of nseg near-equal segments of n elements (the first
    n mod nseg one longer): offs[i] .. offs[i+1] is segment i."""
    q, m = divmod(n, nseg)
    return [i * q + min(i, m) for i in range(nseg + 1)]


def group_bounds(f, counts):
    """Element offsets of the P groups of reduce-scatter/allgather: group
    g < r holds the blocks of ranks 2g and 2g+1, group g >= r the block of
    rank g + r; groups are contiguous and in rank order."""
    offs = [0]
    for g in range(f.P):
        size = counts[2 * g] + counts[2 * g + 1] if g < f.r else counts[g + f.r]
        offs.append(offs[-1] + size)
    return offs


def block_bounds(counts):
    offs = [0]
    for c in counts:
        offs.append(offs[-1] + c)
    return offs


class Sched:
    """The message list of one rank; unit ranges are turned into element
    ranges through a table of offsets."""

    def __init__(self):
        self.ops = []

    def send(self, rnd, peer, lo, hi):
        self.ops.append(("send", rnd, peer, lo, hi))

    def recv(self, rnd, peer, lo, hi, mode):
        self.ops.append(("recv", rnd, peer, lo, hi, mode))


# ---- RHD -----------------------------------------------------------------------


def rhd_allreduce(p, me, n):
    s = Sched()
    f = Fold(p)
    fold = 1 if f.r else 0
    k, P = f.k, f.P
    offs = seg_bounds(n, P)
    v = f.vrank(me)
    if v is None:  # the extra: vector to its proxy, result back at the end
        s.send(0, me - 1, 0, n)
        s.recv(2 * k + 1, me - 1, 0, n, "put")
        return s
    if f.in_pair(me):
        s.recv(0, me + 1, 0, n, "reduce")
    # reduce-scatter with distance doubling: step j splits the window on bit j
    lo, w = 0, P
    for j in range(k):
        bit = 1 << j
        peer = f.real(v ^ bit)
        half = w // 2
        mine, theirs = (lo + half, lo) if v & bit else (lo, lo + half)
        s.send(fold + j, peer, offs[theirs], offs[theirs + half])
        s.recv(fold + j, peer, offs[mine], offs[mine + half], "reduce")
        lo, w = mine, half
    # allgather: the exact reverse, distance halving
    for step, j in enumerate(reversed(range(k))):
        bit = 1 << j
        peer = f.real(v ^ bit)
        other = lo - w if v & bit else lo + w
        s.send(fold + k + step, peer, offs[lo], offs[lo + w])
        s.recv(fold + k + step, peer, offs[other], offs[other + w], "put")
        lo, w = min(lo, other), 2 * w
    if f.in_pair(me):
        s.send(2 * k + 1, me + 1, 0, n)
    return s


def rhd_reduce_scatter(p, me, counts):
    s = Sched()
    f = Fold(p)
    fold = 1 if f.r else 0
    k, P = f.k, f.P
    total = sum(counts)
    blocks = block_bounds(counts)
    g = group_bounds(f, counts)
    v = f.vrank(me)
    if v is None:
        s.send(0, me - 1, 0, total)
        s.recv(k + 1, me - 1, blocks[me], blocks[me + 1], "put")
        return s
    if f.in_pair(me):
        s.recv(0, me + 1, 0, total, "reduce")
    # distance halving: the partner P/2 away first, so group v stays on vrank v
    lo, w = 0, P
    for step, j in enumerate(reversed(range(k))):
        bit = 1 << j
        peer = f.real(v ^ bit)
        half = w // 2
        mine, theirs = (lo + half, lo) if v & bit else (lo, lo + half)
        s.send(fold + step, peer, g[theirs], g[theirs + half])
        s.recv(fold + step, peer, g[mine], g[mine + half], "reduce")
        lo, w = mine, half
    if f.in_pair(me):  # the extra's block of the pair's group
        s.send(k + 1, me + 1, blocks[me + 1], blocks[me + 2])
    return s


def rhd_allgather(p, me, counts):
    s = Sched()
    f = Fold(p)
    fold = 1 if f.r else 0
    k = f.k
    total = sum(counts)
    blocks = block_bounds(counts)
    g = group_bounds(f, counts)
    v = f.vrank(me)
    if v is None:
        s.send(0, me - 1, blocks[me], blocks[me + 1])
        s.recv(k + 1, me - 1, 0, total, "put")
        return s
    if f.in_pair(me):
        s.recv(0, me + 1, blocks[me + 1], blocks[me + 2], "put")
    # recursive doubling: the window of groups doubles and stays contiguous
    lo, w = v, 1
    for j in range(k):
        bit = 1 << j
        peer = f.real(v ^ bit)
        other = lo - w if v & bit else lo + w
        s.send(fold + j, peer, g[lo], g[lo + w])
        s.recv(fold + j, peer, g[other], g[other + w], "put")
        lo, w = min(lo, other), 2 * w
    if f.in_pair(me):
        s.send(k + 1, me + 1, 0, total)
    return s


def rhd_bcast(p, me, root, n):
    """Scatter + allgather: relative vrank u owns segment u."""
    s = Sched()
    f = Fold(p, root_parity(p, root))
    k, P = f.k, f.P
    offs = seg_bounds(n, P)
    v = f.vrank(me)
    if v is None:
        s.recv(2 * k, me ^ 1, 0, n, "put")
        return s
    u = v ^ f.vrank(root)
    for t in range(k):  # binomial scatter, distance halving
        m = 1 << (k - 1 - t)
        peer = f.real(v ^ m)
        if u % (2 * m) == 0:
            s.send(t, peer, offs[u + m], offs[u + 2 * m])
        elif u % (2 * m) == m:
            s.recv(t, peer, offs[u], offs[u + m], "put")
    lo, w = u, 1
    for j in range(k):  # allgather, distance doubling
        m = 1 << j
        peer = f.real(v ^ m)
        other = lo - w if u & m else lo + w
        s.send(k + j, peer, offs[lo], offs[lo + w])
        s.recv(k + j, peer, offs[other], offs[other + w], "put")
        lo, w = min(lo, other), 2 * w
    if f.in_pair(me):
        s.send(2 * k, me ^ 1, 0, n)
    return s


def rhd_reduce(p, me, root, n):
    """Reduce-scatter by distance halving, then a gather towards the root."""
    s = Sched()
    f = Fold(p, root_parity(p, root))
    fold = 1 if f.r else 0
    k, P = f.k, f.P
    offs = seg_bounds(n, P)
    v = f.vrank(me)
    if v is None:
        s.send(0, me ^ 1, 0, n)
        return s
    if f.in_pair(me):
        s.recv(0, me ^ 1, 0, n, "reduce")
    lo, w = 0, P
    for step, j in enumerate(reversed(range(k))):
        bit = 1 << j
        peer = f.real(v ^ bit)
        half = w // 2
        mine, theirs = (lo + half, lo) if v & bit else (lo, lo + half)
        s.send(fold + step, peer, offs[theirs], offs[theirs + half])
        s.recv(fold + step, peer, offs[mine], offs[mine + half], "reduce")
        lo, w = mine, half
    vr = f.vrank(root)
    lo, w = v, 1
    for j in range(k):
        bit = 1 << j
        peer = f.real(v ^ bit)
        other = lo - w if v & bit else lo + w
        if (v & bit) == (vr & bit):  # on the root's side: collect
            s.recv(fold + k + j, peer, offs[other], offs[other + w], "put")
            lo, w = min(lo, other), 2 * w
        else:  # hand the window over and stop
            s.send(fold + k + j, peer, offs[lo], offs[lo + w])
            break
    return s


# ---- binomial and ring -------------------------------------------------------------


def binomial_bcast(p, me, root, n):
    s = Sched()
    f = Fold(p, root_parity(p, root))
    k = f.k
    v = f.vrank(me)
    if v is None:
        s.recv(k, me ^ 1, 0, n, "put")
        return s
    u = v ^ f.vrank(root)
    for t in range(k):
        m = 1 << (k - 1 - t)
        if u % (2 * m) == 0:
            s.send(t, f.real(v ^ m), 0, n)
        elif u % (2 * m) == m:
            s.recv(t, f.real(v ^ m), 0, n, "put")
    if f.in_pair(me):
        s.send(k, me ^ 1, 0, n)
    return s


def binomial_reduce(p, me, root, n):
    s = Sched()
    f = Fold(p, root_parity(p, root))
    fold = 1 if f.r else 0
    v = f.vrank(me)
    if v is None:
        s.send(0, me ^ 1, 0, n)
        return s
    if f.in_pair(me):
        s.recv(0, me ^ 1, 0, n, "reduce")
    u = v ^ f.vrank(root)
    for j in range(f.k):
        m = 1 << j
        peer = f.real(v ^ m)
        if u % (2 * m) == m:
            s.send(fold + j, peer, 0, n)
            break
        s.recv(fold + j, peer, 0, n, "reduce")
    return s


def ring_reduce_scatter(p, me, counts):
    s = Sched()
    b = block_bounds(counts)
    right, left = (me + 1) % p, (me - 1) % p
    for t in range(p - 1):
        out, inc = (me - t - 1) % p, (me - t - 2) % p
        s.send(t, right, b[out], b[out + 1])
        s.recv(t, left, b[inc], b[inc + 1], "reduce")
    return s


def ring_allgather(p, me, counts, first_round=0):
    s = Sched()
    b = block_bounds(counts)
    right, left = (me + 1) % p, (me - 1) % p
    for t in range(p - 1):
        out, inc = (me - t) % p, (me - t - 1) % p
        s.send(first_round + t, right, b[out], b[out + 1])
        s.recv(first_round + t, left, b[inc], b[inc + 1], "put")
    return s


def ring_allreduce(p, me, n):
    offs = seg_bounds(n, p)
    sizes = [offs[i + 1] - offs[i] for i in range(p)]
    s = ring_reduce_scatter(p, me, sizes)
    s.ops += ring_allgather(p, me, sizes, first_round=p - 1).ops
    return s


def build(op, algo, p, me, n=0, counts=None, root=0):
    """The schedule of rank `me` (None when the operation has no such
    algorithm).  n: elements of allreduce/bcast/reduce; counts: per-rank
    block sizes of rs/ag."""
    if p == 1:
        return Sched()
    table = {
        ("allreduce", "rhd"): lambda: rhd_allreduce(p, me, n),
        ("allreduce", "ring"): lambda: ring_allreduce(p, me, n),
        ("rs", "rhd"): lambda: rhd_reduce_scatter(p, me, counts),
        ("rs", "ring"): lambda: ring_reduce_scatter(p, me, counts),
        ("ag", "rhd"): lambda: rhd_allgather(p, me, counts),
        ("ag", "ring"): lambda: ring_allgather(p, me, counts),
        ("bcast", "rhd"): lambda: rhd_bcast(p, me, root, n),
        ("bcast", "binomial"): lambda: binomial_bcast(p, me, root, n),
        ("reduce", "rhd"): lambda: rhd_reduce(p, me, root, n),
        ("reduce", "binomial"): lambda: binomial_reduce(p, me, root, n),
    }
    make = table.get((op, algo))
    return make() if make else None


# ---- the simulation ------------------------------------------------------------------


class ScheduleError(Exception):
    pass


def _initial(op, p, me, n, counts, root):
    """Symbolic contents of rank me's buffer before the call."""
    if op in ("allreduce", "reduce"):
        return [1 << me] * n  # contributions as rank bit masks
    if op == "rs":
        return [1 << me] * sum(counts)
    if op == "ag":  # the origin (rank + 1) of every element this rank holds
        b = block_bounds(counts)
        state = [0] * b[-1]
        state[b[me]:b[me + 1]] = [me + 1] * counts[me]
        return state
    return [1] * n if me == root else [0] * n  # bcast: known or not


def _check_result(op, p, me, state, n, counts, root):
    full = (1 << p) - 1
    if op == "allreduce":
        want = [full] * n
    elif op == "reduce":
        if me != root:
            return
        want = [full] * n
    elif op == "rs":
        b = block_bounds(counts)
        got = state[b[me]:b[me + 1]]
        if got != [full] * counts[me]:
            raise ScheduleError(f"rank {me}: its block is not fully reduced: {got}")
        return
    elif op == "ag":
        b = block_bounds(counts)
        want = [i + 1 for i in range(p) for _ in range(b[i], b[i + 1])]
    else:
        want = [1] * n
    if state != want:
        raise ScheduleError(f"rank {me}: wrong result {state}, expected {want}")


def simulate(op, algo, p, n=0, counts=None, root=0):
    """Run every rank's schedule; returns (per-rank dicts ms/es/mr/er, global
    rounds), or raises ScheduleError.  None when op has no such algorithm."""
    scheds = [build(op, algo, p, me, n, counts, root) for me in range(p)]
    if any(s is None for s in scheds):
        return None
    state = [_initial(op, p, me, n, counts, root) for me in range(p)]
    stats = [dict(ms=0, es=0, mr=0, er=0) for _ in range(p)]
    by_round = {}
    for me, s in enumerate(scheds):
        for o in s.ops:
            if not 0 <= o[2] < p or o[2] == me:
                raise ScheduleError(f"rank {me}: bad peer in {o}")
            by_round.setdefault(o[1], []).append((me, o))
    rounds = 0
    for rnd in sorted(by_round):
        ops = by_round[rnd]
        if rnd < 0 or rnd >= 1 << 16:
            raise ScheduleError(f"round {rnd} out of the tag's range")
        flight = {}
        for me, o in ops:  # every send of the round reads the state before it
            if o[0] != "send":
                continue
            key = (me, o[2])
            if key in flight:
                raise ScheduleError(f"round {rnd}: two messages {me} -> {o[2]}")
            flight[key] = state[me][o[3]:o[4]]
            stats[me]["ms"] += 1
            stats[me]["es"] += o[4] - o[3]
        for me, o in ops:
            if o[0] != "recv":
                continue
            key = (o[2], me)
            if key not in flight:
                raise ScheduleError(f"round {rnd}: rank {me} waits for {o[2]}, who sends nothing")
            data = flight.pop(key)
            lo, hi = o[3], o[4]
            if len(data) != hi - lo:
                raise ScheduleError(f"round {rnd}: {o[2]} -> {me} carries {len(data)} elements, "
                                    f"the receive expects {hi - lo}")
            if o[5] == "reduce":
                mine = state[me][lo:hi]
                if any(a & b for a, b in zip(mine, data)):
                    raise ScheduleError(f"round {rnd}: rank {me} reduces a contribution twice")
                state[me][lo:hi] = [a | b for a, b in zip(mine, data)]
            else:
                state[me][lo:hi] = data
            stats[me]["mr"] += 1
            stats[me]["er"] += hi - lo
        if flight:
            raise ScheduleError(f"round {rnd}: unreceived messages {sorted(flight)}")
        rounds = rnd + 1
    for me in range(p):
        _check_result(op, p, me, state[me], n, counts, root)
    return stats, rounds


if __name__ == "__main__":
    # a quick self-check: every schedule is consistent and correct
    for p in range(1, 20):
        for n in (0, 1, p - 1, p, p + 1, 2 * p + 3):
            c = [(5 * i + n) % 3 for i in range(p)]
            for op in OPS:
                for algo in ALGOS:
                    for root in range(p if op in ("bcast", "reduce") else 1):
                        simulate(op, algo, p, n, c, root)
    print("schedules: ok")
