/*
 * core/coll/rhd_allreduce.c: allreduce by recursive vector halving + distance
 * doubling reduce-scatter, then the mirrored allgather (Rabenseifner), for any
 * number of ranks p.
 *
 * Phases (docs/collectives.md, "RHD allreduce"), k = floor(log2 p), P = 2^k,
 * r = p - P, global rounds:
 *   round 0        fold: odd rank 2i+1 < 2r sends its vector to 2i (the
 *                  proxy), which reduces it (own data on the left);
 *   rounds 1..k    RS, distance doubling, contiguous halves over P segments
 *                  (c_i = floor(n/P) + [i < n mod P]); vrank v ends holding
 *                  segment bitreverse(v) fully reduced;
 *   rounds k+1..2k AG, distance halving (the exact time reverse);
 *   round 2k+1     unfold: the proxy sends the result to its extra.
 * (Rounds shift down by one when p is a power of two: no fold.)
 *
 * Reference: R. Rabenseifner, "Optimization of collective reduction
 * operations", ICCS 2004; Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005;
 * fold as in HCCL RecursiveHalvingDoublingBase (even member stays).
 * Cost (n bytes):
 *   p = 2^k:  2k.alpha + 2(p-1)/p.n.beta + (p-1)/p.n.gamma
 *   other p:  (2k+2).alpha + (2(P-1)/P + 2).n.beta + ((P-1)/P + 1).n.gamma
 * Restrictions: none on p or count (segments may be empty; zero-length
 * messages are still sent).  Operand order keeps lower ranks on the left, so
 * the combination order is a fixed bracketing of x0 (+) x1 (+) ... (+) x(p-1):
 * results are bitwise identical on every rank and across runs for a given p,
 * whatever count is.  In place (sbuf == rbuf) and out of place (no copy: the
 * first step reads sbuf).  Scratch: count elements on proxies, else
 * C(0, P/2) <= (P/2).ceil(count/P).
 */
#include "core/coll/coll_int.h"

static lincoll_status_t lc_rhd_allreduce_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t es = a->es, n = a->count, bytes = n * es;
    lincoll_status_t st = LINCOLL_OK;
    int out = lc_plan_slot_user(p, a->rbuf, bytes);
    int src = a->inplace ? out : lc_plan_slot_user(p, (void *)a->sbuf, bytes);
    if (out < 0 || src < 0) return LINCOLL_ERR_NOMEM;
    if (np == 1) {
        if (lc_coll_round(p, 0) < 0) return LINCOLL_ERR_NOMEM;
        return src == out ? LINCOLL_OK
                          : lc_plan_copy(p, 0, 0, lc_ref(out, 0), lc_ref(src, 0), bytes);
    }
    lc_fold_t f;
    lc_fold_init(&f, np, 0);
    const int k = f.k, P = f.P, base = f.r > 0 ? 1 : 0;
    const lc_segs_t sg = {n / (size_t)P, n % (size_t)P};
    if (lc_coll_round(p, 2 * k + 2 * base - 1) < 0) return LINCOLL_ERR_NOMEM;
    const int v = lc_fold_vrank(&f, me);
    if (v < 0) { /* extra: hand the vector over, get the result back */
        LC_COLL_TRY(st, lc_plan_send(p, 0, me - 1, lc_ref(src, 0), bytes));
        LC_COLL_TRY(st, lc_plan_recv(p, 2 * k + 1, me - 1, lc_ref(out, 0), bytes));
        return st;
    }
    const int proxy = me < 2 * f.r;
    size_t tmpn = lc_seg_sum(&sg, 0, (size_t)P / 2);
    if (proxy && n > tmpn) tmpn = n;
    int tmp = lc_plan_slot_scratch(p, (tmpn ? tmpn : 1) * es);
    if (tmp < 0) return LINCOLL_ERR_NOMEM;
    int cur = src; /* slot that holds my partial sums (absolute offsets) */
    if (proxy) {
        LC_COLL_TRY(st, lc_plan_recv(p, 0, me + 1, lc_ref(tmp, 0), bytes));
        if (n > 0) {
            LC_COLL_TRY(st, lc_plan_reduce(p, 0, 1, lc_ref(out, 0), lc_ref(src, 0), lc_ref(tmp, 0),
                                           n, a->dtype, a->rop));
        }
        cur = out;
    }
    /* RS: distance doubling; window [lo, lo+w) of segment indices */
    size_t lo = 0, w = (size_t)P;
    for (int j = 0; j < k && st == LINCOLL_OK; j++) {
        const int mask = 1 << j, pv = v ^ mask, peer = lc_fold_real(&f, pv), R = base + j;
        const size_t h = w / 2;
        const size_t keep = (v & mask) ? lo + h : lo, give = (v & mask) ? lo : lo + h;
        const size_t kn = lc_seg_sum(&sg, keep, h), ko = lc_seg_off(&sg, keep);
        LC_COLL_TRY(st, lc_plan_recv(p, R, peer, lc_ref(tmp, 0), kn * es));
        LC_COLL_TRY(st, lc_plan_send(p, R, peer, lc_ref(cur, lc_seg_off(&sg, give) * es),
                                     lc_seg_sum(&sg, give, h) * es));
        if (kn > 0) {
            lc_bufref_t mine = lc_ref(cur, ko * es), theirs = lc_ref(tmp, 0);
            LC_COLL_TRY(st, lc_plan_reduce(p, R, 1, lc_ref(out, ko * es), v < pv ? mine : theirs,
                                           v < pv ? theirs : mine, kn, a->dtype, a->rop));
        }
        cur = out;
        lo = keep;
        w = h;
    }
    /* AG: distance halving, straight into rbuf */
    for (int j = k - 1; j >= 0 && st == LINCOLL_OK; j--) {
        const int mask = 1 << j, peer = lc_fold_real(&f, v ^ mask);
        const int R = base + k + (k - 1 - j);
        const size_t sib = (v & mask) ? lo - w : lo + w;
        LC_COLL_TRY(st, lc_plan_recv(p, R, peer, lc_ref(out, lc_seg_off(&sg, sib) * es),
                                     lc_seg_sum(&sg, sib, w) * es));
        LC_COLL_TRY(st, lc_plan_send(p, R, peer, lc_ref(out, lc_seg_off(&sg, lo) * es),
                                     lc_seg_sum(&sg, lo, w) * es));
        lo = sib < lo ? sib : lo;
        w *= 2;
    }
    if (proxy) {
        LC_COLL_TRY(st, lc_plan_send(p, 2 * k + 1, me + 1, lc_ref(out, 0), bytes));
    }
    return st;
}

static double lc_rhd_allreduce_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return (2 * m.k + 2 * m.d) * m.al + (2 * m.fr + 2 * m.d) * m.n * m.be +
           (m.fr + m.d) * m.n * m.ga;
}

const lc_coll_alg_t lc_alg_rhd_allreduce = {.name = "rhd",
                                            .plan_name = "rhd_allreduce",
                                            .op = LC_COLL_ALLREDUCE,
                                            .cost = lc_rhd_allreduce_cost,
                                            .compile = lc_rhd_allreduce_build};
