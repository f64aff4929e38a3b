#!/usr/bin/env python3
"""Symbolic run of prepare-and-shoot (docs/encode.md), the oracle behind
ps_model.py's closed forms.

Every value a processor holds or sends is a coefficient vector over GF(q)
(q prime): the linear function of x_0 .. x_{K-1} it stands for.  Processor v
starts with the unit vector e_v; the run is correct when processor k ends
with column k of A.  A Network enforces the p-port rule (at most p messages
out and p in per processor and round, no message to oneself) and records the
largest message of every round, so C1 and C2 are measured, not computed.
Each processor builds its messages from its own state only.

  ps_sim.py            check the closed forms against runs: K = 2..40 with
                       p = 1..3, and spot checks up to K = 130, for the paper
                       window and for the best window; exit 1 on a mismatch
  ps_sim.py K p [m]    one run, print its round sizes
Python 3 standard library only.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ps_model import (best_window, c1, c2_pruned, c2_window, ceil_div,  # noqa: E402
                      ceil_log, paper_window, round_sizes)

Q = 1000003  # a prime: products of random coefficients do not vanish by chance


class Network:
    def __init__(self, K, p):
        self.K, self.p = K, p
        self.sizes = []

    def exchange(self, messages):
        """messages: (src, dst, [vectors]).  Returns dst -> [(src, [vectors])]."""
        sent, recv, inbox, largest = {}, {}, {}, 0
        for src, dst, payload in messages:
            if src == dst:
                raise AssertionError("processor %d sends to itself" % src)
            sent[src] = sent.get(src, 0) + 1
            recv[dst] = recv.get(dst, 0) + 1
            if sent[src] > self.p or recv[dst] > self.p:
                raise AssertionError("more than %d messages at processor %d" % (self.p, src))
            largest = max(largest, len(payload))
            inbox.setdefault(dst, []).append((src, payload))
        self.sizes.append(largest)
        return inbox


def axpy(acc, c, vec):
    """acc += c * vec over GF(Q), in place."""
    if c:
        for i, x in enumerate(vec):
            if x:
                acc[i] = (acc[i] + c * x) % Q


def digit(n, t, P):
    """t-th base-P digit of n, t = 1 the least significant."""
    return (n // P ** (t - 1)) % P


def prepare_and_shoot(K, p, m, A, net):
    """Runs the schedule with window m on K processors; returns y_0 .. y_{K-1}."""
    P = p + 1
    # prepare: window[v][i] = the vector of x_{v-i}
    window = [{0: [1 if j == v else 0 for j in range(K)]} for v in range(K)]
    w = 1
    while w < m:
        messages = []
        for v in range(K):
            for rho in range(1, p + 1):
                count = min(w, m - rho * w)
                if count <= 0:
                    break
                messages.append((v, (v + rho * w) % K, [window[v][i] for i in range(count)]))
        for v, received in net.exchange(messages).items():
            for src, payload in received:
                shift = (v - src) % K  # src's x_{src-i} is x_{v-(shift+i)}
                for i, vec in enumerate(payload):
                    window[v][shift + i] = vec
        w = min(w * P, m)
    for v in range(K):
        assert sorted(window[v]) == list(range(m)), "processor %d: window %s" % (v, sorted(window[v]))
    # shoot: partial[s][l] aims at processor s + l m
    leaves = ceil_div(K, m)
    partial = []
    for s in range(K):
        sums = {}
        for l in range(leaves):
            k = (s + l * m) % K
            acc = [0] * K
            for i in range(m):
                if l * m + i < K:
                    axpy(acc, A[(s - i) % K][k], window[s][i])
            sums[l] = acc
        partial.append(sums)
    for t in range(1, ceil_log(leaves, P) + 1):
        step = m * P ** (t - 1)
        messages, labels = [], {}
        for s in range(K):
            for rho in range(1, p + 1):
                ls = sorted(l for l in partial[s] if digit(l, t, P) == rho)
                if ls:
                    messages.append((s, (s + rho * step) % K, [partial[s][l] for l in ls]))
                    labels[(s, rho)] = ls
        inbox = net.exchange(messages)
        kept = [{l: v for l, v in partial[s].items() if digit(l, t, P) == 0} for s in range(K)]
        for v, received in inbox.items():
            for src, payload in received:
                rho = next(r for r in range(1, p + 1)
                           if (src, r) in labels and (src + r * step) % K == v)
                for l, vec in zip(labels[(src, rho)], payload):
                    target = l - rho * P ** (t - 1)
                    if target in kept[v]:
                        axpy(kept[v][target], 1, vec)
                    else:
                        kept[v][target] = list(vec)
        partial = kept
    return [partial[k][0] for k in range(K)]


def run(K, p, m, seed=1):
    """One run with a random A; returns (correct, round sizes)."""
    rnd = random.Random(seed * 7919 + K * 131 + p * 17 + m)
    A = [[rnd.randrange(Q) for _ in range(K)] for _ in range(K)]
    net = Network(K, p)
    y = prepare_and_shoot(K, p, m, A, net)
    ok = all(y[k] == [A[j][k] for j in range(K)] for k in range(K))
    return ok, net.sizes


def check():
    cases = [(K, p) for p in (1, 2, 3) for K in range(2, 41)]
    cases += [(64, 1), (65, 1), (81, 2), (82, 2), (100, 3), (128, 1), (130, 2)]
    bad = 0
    for K, p in cases:
        c2b, mb = best_window(K, p)
        for name, m, c2 in (("paper", paper_window(K, p), c2_pruned(K, p)), ("best", mb, c2b)):
            ok, sizes = run(K, p, m)
            want = round_sizes(K, p, m)
            if not ok or sizes != want or len(sizes) != c1(K, p) or sum(sizes) != c2 \
                    or c2 != c2_window(K, p, m):
                bad += 1
                print("MISMATCH K=%d p=%d %s window m=%d: correct=%s rounds %s, closed form %s "
                      "(C1 %d, C2 %d)" % (K, p, name, m, ok, sizes, want, c1(K, p), c2))
    print("ps_sim: %d (K, p) cases, paper and best windows: %s"
          % (len(cases), "all runs correct and equal to the closed forms" if bad == 0
             else "%d mismatches" % bad))
    return bad == 0


def main(argv):
    if len(argv) == 1:
        return 0 if check() else 1
    if len(argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    K, p = int(argv[1]), int(argv[2])
    if K < 2 or p < 1:
        print("ps_sim: K >= 2 and p >= 1 expected, got K=%d p=%d" % (K, p), file=sys.stderr)
        return 2
    m = int(argv[3]) if len(argv) == 4 else paper_window(K, p)
    if not 1 <= m <= K:
        print("ps_sim: window m=%d: expected 1..K" % m, file=sys.stderr)
        return 2
    ok, sizes = run(K, p, m)
    print("K=%d p=%d m=%d correct=%s d_t=%s C1=%d C2=%d (closed form %s)"
          % (K, p, m, ok, sizes, len(sizes), sum(sizes), round_sizes(K, p, m)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
