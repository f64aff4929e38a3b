"""Closed forms of lincoll's prepare-and-shoot schedule (docs/encode.md).

All-to-all encode: K processors, processor k holds x_k and must end with
y_k = sum_j A[j][k] x_j.  p ports: per round a processor sends at most p
messages and receives at most p.  C1 = rounds, C2 = sum over rounds of the
largest message of the round (in packets).  P = p + 1 throughout.

Prepare-and-shoot with a window of m packets:
  prepare  ceil(log_P m) rounds; before a round a processor knows the w
           packets x_{v-w+1} .. x_v (w = 1, P, P^2, ... capped at m); through
           port rho (1..p) it sends its first min(w, m - rho w) of them to
           v + rho w.  Afterwards it knows x_{v-m+1} .. x_v.
  shoot    n' = ceil(K / m) leaves: processor s starts with one partial sum
           per leaf l < n', aimed at processor s + l m, made of the products
           it can form from its window (offsets l m + i < K only, so every
           product is made exactly once); round t (1..ceil(log_P n')) sends
           the partial sums whose t-th base-P digit of l is rho through port
           rho, a distance rho m P^(t-1) on; the receiver adds them in.
  C2(m) = sum over prepare rounds of min(w, m - w)
        + sum_{t=1..ceil(log_P n')} ceil((n' - P^(t-1)) / P^t)
The paper's window is m = P^Tp (L = the largest integer with P^L < K,
Tp = L/2 + 1 for even L, (L + 1)/2 for odd L); with the leaves pruned to
n' = ceil(K/m) it has C1 = ceil(log_P K) for every K.  The best window is
the m in 1..K with the least C2(m) among those keeping C1 = ceil(log_P K)
(the smallest such m on ties).  ps_sim.py runs the schedule symbolically and
checks these figures.  Python 3 standard library only.
"""


def ceil_log(k, base):
    """Smallest L with base**L >= k (0 for k <= 1)."""
    rounds, reach = 0, 1
    while reach < k:
        reach *= base
        rounds += 1
    return rounds


def ceil_div(a, b):
    return -(-a // b)


def paper_split(K, p):
    """(L, Tp, Ts): prepare and shoot round counts of the paper's window."""
    P = p + 1
    L = 0
    while P ** (L + 1) < K:
        L += 1
    if L % 2 == 0:
        return L, L // 2 + 1, L // 2
    return L, (L + 1) // 2, (L + 1) // 2


def paper_window(K, p):
    """The paper's window m = P^Tp, at most K."""
    _, tp, _ = paper_split(K, p)
    return min((p + 1) ** tp, K)


def prepare_sizes(m, p):
    """Largest message of every prepare round of a window of m packets."""
    P = p + 1
    sizes, w = [], 1
    while w < m:
        sizes.append(min(w, m - w))
        w = min(w * P, m)
    return sizes


def shoot_sizes(K, p, m):
    """Largest message of every shoot round (n' = ceil(K/m) leaves)."""
    P = p + 1
    leaves = ceil_div(K, m)
    return [ceil_div(leaves - P ** (t - 1), P ** t) for t in range(1, ceil_log(leaves, P) + 1)]


def round_sizes(K, p, m):
    """d_t of every round of prepare-and-shoot with window m (C1 = len, C2 = sum)."""
    return prepare_sizes(m, p) + shoot_sizes(K, p, m)


def c1(K, p):
    return ceil_log(K, p + 1)


def c2_window(K, p, m):
    return sum(round_sizes(K, p, m))


def c2_pruned(K, p):
    """C2 of the paper's window with pruned leaves (1 when K <= p + 1)."""
    return c2_window(K, p, paper_window(K, p))


def best_window(K, p):
    """(C2, m): the least C2 over windows that keep C1 = ceil(log_P K)."""
    P = p + 1
    want = ceil_log(K, P)
    best = None
    for m in range(1, K + 1):
        if ceil_log(m, P) + ceil_log(ceil_div(K, m), P) != want:
            continue
        c = c2_window(K, p, m)
        if best is None or c < best[0]:
            best = (c, m)
    return best
