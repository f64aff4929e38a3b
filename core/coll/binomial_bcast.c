/*
 * core/coll/binomial_bcast.c: broadcast down a binomial tree, whole message
 * per hop; the latency-optimal broadcast for small messages, any p and root.
 *
 * k = floor(log2 p), P = 2^k, r = p - P.  The pair members of the root's
 * parity represent their pairs (so the root is in the block); relative vrank
 * u = v XOR vrank(root).
 *   rounds 0..k-1  distance halving: in round t (m = P/2^(t+1)) a holder
 *                  (u mod 2m == 0) sends to u + m; the root sends to the
 *                  largest subtree first;
 *   round k        each representative sends to its partner (only if r > 0).
 *
 * Reference: docs/collectives.md, "Binomial algorithms" (HCCL
 * BcastRecursiveHalvingDoubling); MPICH bcast_intra_binomial.c.
 * Cost (n bytes): ceil(log2 p).(alpha + n.beta).
 * Restrictions: none.  No scratch, no compute.
 */
#include "core/coll/coll_int.h"

static lincoll_status_t lc_binomial_bcast_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t bytes = a->count * a->es;
    lincoll_status_t st = LINCOLL_OK;
    int buf = lc_plan_slot_user(p, a->rbuf, bytes);
    if (buf < 0 || lc_coll_round(p, 0) < 0) return LINCOLL_ERR_NOMEM;
    if (np == 1) return LINCOLL_OK;
    lc_fold_t f;
    lc_fold_init(&f, np, 0);
    lc_fold_init(&f, np, a->root < 2 * f.r ? (a->root & 1) : 0);
    const int k = f.k;
    if (lc_coll_round(p, k + (f.r > 0 ? 1 : 0) - 1) < 0) return LINCOLL_ERR_NOMEM;
    const int v = lc_fold_vrank(&f, me);
    if (v < 0) {
        return lc_plan_recv(p, k, me ^ 1, lc_ref(buf, 0), bytes);
    }
    const int u = v ^ lc_fold_vrank(&f, a->root);
    for (int t = 0; t < k && st == LINCOLL_OK; t++) {
        const int m = 1 << (k - 1 - t), peer = lc_fold_real(&f, v ^ m);
        if ((u & (2 * m - 1)) == 0) {
            LC_COLL_TRY(st, lc_plan_send(p, t, peer, lc_ref(buf, 0), bytes));
        } else if ((u & (2 * m - 1)) == m) {
            LC_COLL_TRY(st, lc_plan_recv(p, t, peer, lc_ref(buf, 0), bytes));
        }
    }
    if (me < 2 * f.r) {
        LC_COLL_TRY(st, lc_plan_send(p, k, me ^ 1, lc_ref(buf, 0), bytes));
    }
    return st;
}

static double lc_binomial_bcast_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return (m.k + m.d) * (m.al + m.n * m.be);
}

const lc_coll_alg_t lc_alg_binomial_bcast = {.name = "binomial",
                                             .plan_name = "binomial_bcast",
                                             .op = LC_COLL_BCAST,
                                             .cost = lc_binomial_bcast_cost,
                                             .compile = lc_binomial_bcast_build};
