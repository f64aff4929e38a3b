/*
 * core/coll/rd_allreduce.c: allreduce by recursive doubling over tagged
 * messages (host buffers), for any number of ranks p: the small-vector path.
 *
 * What: k = floor(log2 p), P = 2^k, r = p - P, rounds:
 *   round 0        fold (only when r > 0): odd rank 2i+1 < 2r sends its
 *                  vector to 2i (the proxy), which reduces it (own data on
 *                  the left);
 *   rounds b..b+k-1  (b = [r > 0]) round b+j: vrank v swaps its whole
 *                  current vector with vrank v ^ 2^j and reduces the two,
 *                  lower vrank on the left;
 *   round b+k      unfold: the proxy sends the result to its extra.
 * Every round receives into its own scratch region, so the plan lets the
 * executor post a round's receive while the round before still runs; one
 * message per round is the least latency a tagged allreduce can have (rhd
 * needs 2k rounds): it wins while alpha dominates, i.e. for small vectors.
 * Reference: recursive doubling allreduce (Thakur, Rabenseifner, Gropp,
 * "Optimization of collective communication operations in MPICH", IJHPCA
 * 19(1), 2005); the fold as in core/coll/rhd_allreduce.c.
 * Cost (n bytes): k.alpha + k.n.beta + k.n.gamma; other p: plus
 * 2.alpha + 2.n.beta + n.gamma (fold and unfold).
 * Restrictions: none on p or count.  Combination order is a fixed
 * bracketing for a given p, the same on every rank (bitwise identical
 * results).  In place and out of place (the first round sends sbuf).
 * Scratch: (k + [r > 0]) count elements on the ranks that take part in the
 * doubling.
 */
#include "core/coll/coll_int.h"

static lincoll_status_t lc_rd_allreduce_build(lc_plan_t *p, const lc_coll_args_t *a)
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
    const int k = f.k, base = f.r > 0 ? 1 : 0;
    if (lc_coll_round(p, k + 2 * base - 1) < 0) return LINCOLL_ERR_NOMEM;
    const int v = lc_fold_vrank(&f, me);
    if (v < 0) { /* extra: hand the vector over, get the result back */
        LC_COLL_TRY(st, lc_plan_send(p, 0, me - 1, lc_ref(src, 0), bytes));
        LC_COLL_TRY(st, lc_plan_recv(p, k + 1, me - 1, lc_ref(out, 0), bytes));
        return st;
    }
    const int proxy = me < 2 * f.r;
    /* region i of tmp: what round i receives */
    int tmp = lc_plan_slot_scratch(p, (bytes ? bytes : 1) * (size_t)(k + base));
    if (tmp < 0) return LINCOLL_ERR_NOMEM;
    int cur = src;
    if (proxy) {
        LC_COLL_TRY(st, lc_plan_recv(p, 0, me + 1, lc_ref(tmp, 0), bytes));
        if (n > 0) {
            LC_COLL_TRY(st, lc_plan_reduce(p, 0, LC_STEP_POST, lc_ref(out, 0), lc_ref(src, 0),
                                           lc_ref(tmp, 0), n, a->dtype, a->rop));
        }
        cur = out;
    }
    for (int j = 0; j < k && st == LINCOLL_OK; j++) {
        const int pv = v ^ (1 << j), peer = lc_fold_real(&f, pv), R = base + j;
        lc_bufref_t mine = lc_ref(cur, 0), theirs = lc_ref(tmp, (size_t)R * bytes);
        LC_COLL_TRY(st, lc_plan_recv(p, R, peer, theirs, bytes));
        LC_COLL_TRY(st, lc_plan_send(p, R, peer, mine, bytes));
        if (n > 0) {
            LC_COLL_TRY(st,
                        lc_plan_reduce(p, R, LC_STEP_POST, lc_ref(out, 0), v < pv ? mine : theirs,
                                       v < pv ? theirs : mine, n, a->dtype, a->rop));
        }
        cur = out;
    }
    if (proxy) {
        LC_COLL_TRY(st, lc_plan_send(p, k + 1, me + 1, lc_ref(out, 0), bytes));
    }
    return st;
}

static double lc_rd_allreduce_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return (m.k + 2 * m.d) * m.al + (m.k + 2 * m.d) * m.n * m.be + (m.k + m.d) * m.n * m.ga;
}

const lc_coll_alg_t lc_alg_rd_allreduce = {.name = "rd",
                                           .plan_name = "rd_allreduce",
                                           .op = LC_COLL_ALLREDUCE,
                                           .cost = lc_rd_allreduce_cost,
                                           .compile = lc_rd_allreduce_build};
