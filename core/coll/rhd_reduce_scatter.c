/*
 * core/coll/rhd_reduce_scatter.c: reduce-scatter (block and v forms) by
 * recursive halving with distance halving, natural block order, any p.
 *
 * Phases (docs/collectives.md, "RHD reduce-scatter"), k = floor(log2 p), P = 2^k,
 * r = p - P.  Groups: g < r holds the blocks of ranks 2g and 2g+1, g >= r the
 * block of rank g + r; groups are contiguous and in rank order.
 *   round 0        fold: odd rank 2i+1 < 2r sends its whole vector to 2i;
 *   rounds 1..k    RS, distance halving (partner P/2 away first), contiguous
 *                  halves of the group window: vrank v ends with group v;
 *   round k+1      the proxy hands block 2i+1 to its extra.
 * (Rounds shift down by one when p is a power of two.)
 *
 * Reference: HCCL ReduceScatterHalvingDoubling (vector halving, distance
 * halving, "keeps the scatter order"); MPICH reduce_scatter_intra_recursive_
 * halving.c; Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005.
 * Cost (n = total bytes, b = n/p):
 *   p = 2^k:  k.alpha + (p-1)/p.n.(beta + gamma)
 *   other p:  (k+2).alpha + (n + b.sum_j M_j + b).beta + (n + b.sum_j M_j).gamma,
 *             M_j = P/2^j + min(r, P/2^j)
 * Restrictions: commutative operators only (distance halving merges
 * non-adjacent ranks) — every lincoll operator is commutative.  For a fixed p
 * the combination tree is fixed: results are bitwise reproducible.
 * In place (sbuf == rbuf, rbuf holds the total input, the result lands at
 * its start and the rest of rbuf is overwritten) and out of place (the first
 * step reads sbuf; the last step reduces straight into rbuf).
 * Scratch: total elements of work (out of place) plus the largest receive.
 */
#include <stdlib.h>

#include "core/coll/coll_int.h"

static lincoll_status_t lc_rhd_reduce_scatter_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t es = a->es, total = a->total, mine = a->counts[me], dme = a->displs[me];
    lincoll_status_t st = LINCOLL_OK;
    int out = lc_plan_slot_user(p, a->rbuf, (a->inplace ? total : mine) * es);
    int src = a->inplace ? out : lc_plan_slot_user(p, (void *)a->sbuf, total * es);
    if (out < 0 || src < 0) return LINCOLL_ERR_NOMEM;
    if (np == 1) {
        if (lc_coll_round(p, 0) < 0) return LINCOLL_ERR_NOMEM;
        return src == out ? LINCOLL_OK
                          : lc_plan_copy(p, 0, 0, lc_ref(out, 0), lc_ref(src, 0), total * es);
    }
    lc_fold_t f;
    lc_fold_init(&f, np, 0);
    const int k = f.k, P = f.P, base = f.r > 0 ? 1 : 0;
    if (lc_coll_round(p, k + 2 * base - 1) < 0) return LINCOLL_ERR_NOMEM;
    const int v = lc_fold_vrank(&f, me);
    if (v < 0) {
        LC_COLL_TRY(st, lc_plan_send(p, 0, me - 1, lc_ref(src, 0), total * es));
        LC_COLL_TRY(st, lc_plan_recv(p, k + 1, me - 1, lc_ref(out, 0), mine * es));
        return st;
    }
    /* goff[g] = element offset of group g, goff[P] = total */
    size_t *goff = malloc(((size_t)P + 1) * sizeof(*goff));
    if (goff == NULL) return LINCOLL_ERR_NOMEM;
    for (int g = 0; g < P; g++)
        goff[g] = a->displs[lc_fold_real(&f, g)];
    goff[P] = total;
    const int proxy = me < 2 * f.r;
    /* largest receive: the fold (proxies) or the first butterfly step */
    size_t tmpn = proxy ? total : 0;
    {
        size_t lo = 0, w = (size_t)P;
        for (int j = k - 1; j >= 0; j--) {
            size_t h = w / 2, keep = (v & (1 << j)) ? lo + h : lo;
            size_t kn = goff[keep + h] - goff[keep];
            tmpn = kn > tmpn ? kn : tmpn;
            lo = keep;
            w = h;
        }
    }
    int tmp = lc_plan_slot_scratch(p, (tmpn ? tmpn : 1) * es);
    int work = a->inplace ? out : lc_plan_slot_scratch(p, (total ? total : 1) * es);
    if (tmp < 0 || work < 0) st = LINCOLL_ERR_NOMEM;
    int cur = src;
    if (proxy) {
        LC_COLL_TRY(st, lc_plan_recv(p, 0, me + 1, lc_ref(tmp, 0), total * es));
        if (total > 0) {
            LC_COLL_TRY(st, lc_plan_reduce(p, 0, 1, lc_ref(work, 0), lc_ref(src, 0), lc_ref(tmp, 0),
                                           total, a->dtype, a->rop));
        }
        cur = work;
    }
    size_t lo = 0, w = (size_t)P;
    for (int j = k - 1; j >= 0 && st == LINCOLL_OK; j--) {
        const int mask = 1 << j, pv = v ^ mask, peer = lc_fold_real(&f, pv);
        const int R = base + (k - 1 - j);
        const size_t h = w / 2;
        const size_t keep = (v & mask) ? lo + h : lo, give = (v & mask) ? lo : lo + h;
        const size_t kn = goff[keep + h] - goff[keep], ko = goff[keep];
        LC_COLL_TRY(st, lc_plan_recv(p, R, peer, lc_ref(tmp, 0), kn * es));
        LC_COLL_TRY(st, lc_plan_send(p, R, peer, lc_ref(cur, goff[give] * es),
                                     (goff[give + h] - goff[give]) * es));
        /* the last step of a non-proxy out of place reduces into rbuf */
        const int direct = (j == 0 && !proxy && !a->inplace);
        if (kn > 0) {
            lc_bufref_t m = lc_ref(cur, ko * es), t = lc_ref(tmp, 0);
            LC_COLL_TRY(st, lc_plan_reduce(p, R, 1, direct ? lc_ref(out, 0) : lc_ref(work, ko * es),
                                           v < pv ? m : t, v < pv ? t : m, kn, a->dtype, a->rop));
        }
        cur = work;
        lo = keep;
        w = h;
    }
    free(goff);
    const int last = base + k - 1;
    if (proxy) {
        const size_t de = a->displs[me + 1], ce = a->counts[me + 1];
        LC_COLL_TRY(st, lc_plan_send(p, k + 1, me + 1, lc_ref(work, de * es), ce * es));
        LC_COLL_TRY(st,
                    lc_plan_copy(p, k + 1, 1, lc_ref(out, 0), lc_ref(work, dme * es), mine * es));
    } else if (a->inplace && dme > 0) {
        LC_COLL_TRY(st,
                    lc_plan_copy(p, last, 1, lc_ref(out, 0), lc_ref(work, dme * es), mine * es));
    }
    return st;
}

static double lc_rhd_reduce_scatter_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return (m.k + 2 * m.d) * m.al + (m.fr * m.n + m.d * (m.n + m.b)) * m.be +
           (m.fr + m.d) * m.n * m.ga;
}

const lc_coll_alg_t lc_alg_rhd_reduce_scatter = {.name = "rhd",
                                                 .plan_name = "rhd_reduce_scatter",
                                                 .op = LC_COLL_REDUCE_SCATTER,
                                                 .cost = lc_rhd_reduce_scatter_cost,
                                                 .compile = lc_rhd_reduce_scatter_build};
