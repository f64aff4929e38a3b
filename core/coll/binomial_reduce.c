/*
 * core/coll/binomial_reduce.c: reduce up a binomial tree, whole vector per
 * hop; the latency-optimal reduce for small messages, any p and root.
 *
 * The exact time reverse of binomial_bcast.c: k = floor(log2 p), P = 2^k,
 * r = p - P, representatives of the root's parity, u = v XOR vrank(root).
 *   round 0        (only if r > 0) each non-representative sends its vector
 *                  to its partner, which reduces it (lower real rank left);
 *   rounds 1..k    distance doubling: in the round of m = 2^j, a rank with
 *                  u mod 2m == m sends its partial to u - m and is done; one
 *                  with u mod 2m == 0 receives and reduces (lower vrank left).
 *
 * Reference: MPICH reduce_intra_binomial.c; Thakur, Rabenseifner, Gropp,
 * IJHPCA 19(1), 2005.
 * Cost (n bytes): ceil(log2 p).(alpha + n.beta + n.gamma).
 * Restrictions: commutative operators (as every lincoll operator is); the
 * tree is fixed for (p, root), so results are bitwise reproducible.  In place
 * at the root (sbuf == rbuf or LINCOLL_IN_PLACE).  Scratch: count elements
 * (receive) plus count of work on non-roots that receive.
 */
#include "core/coll/coll_int.h"

static lincoll_status_t lc_binomial_reduce_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P, root = a->root;
    const size_t n = a->count, bytes = n * a->es;
    lincoll_status_t st = LINCOLL_OK;
    const int use_out = (me == root) || a->inplace;
    int out = lc_plan_slot_user(p, use_out ? a->rbuf : NULL, use_out ? bytes : 0);
    int src = a->inplace ? out : lc_plan_slot_user(p, (void *)a->sbuf, bytes);
    if (out < 0 || src < 0 || lc_coll_round(p, 0) < 0) return LINCOLL_ERR_NOMEM;
    if (np == 1) {
        return src == out ? LINCOLL_OK
                          : lc_plan_copy(p, 0, 0, lc_ref(out, 0), lc_ref(src, 0), bytes);
    }
    lc_fold_t f;
    lc_fold_init(&f, np, 0);
    lc_fold_init(&f, np, root < 2 * f.r ? (root & 1) : 0);
    const int k = f.k, base = f.r > 0 ? 1 : 0;
    const int v = lc_fold_vrank(&f, me);
    /* every rank holds the schedule's rounds (global_rounds) */
    if (lc_coll_round(p, k + base - 1) < 0) return LINCOLL_ERR_NOMEM;
    if (v < 0) {
        return lc_plan_send(p, 0, me ^ 1, lc_ref(src, 0), bytes);
    }
    const int u = v ^ lc_fold_vrank(&f, root);
    /* ranks that never receive send straight from the input */
    const int receives = (me < 2 * f.r) || (k > 0 && (u & 1) == 0);
    int tmp = -1, work = -1;
    if (receives) {
        tmp = lc_plan_slot_scratch(p, (n ? n : 1) * a->es);
        work = me == root ? out : lc_plan_slot_scratch(p, (n ? n : 1) * a->es);
        if (tmp < 0 || work < 0) return LINCOLL_ERR_NOMEM;
    }
    int cur = src;
    if (me < 2 * f.r) {
        LC_COLL_TRY(st, lc_plan_recv(p, 0, me ^ 1, lc_ref(tmp, 0), bytes));
        if (n > 0) {
            lc_bufref_t m = lc_ref(src, 0), t = lc_ref(tmp, 0);
            int left = (me & 1) == 0;
            LC_COLL_TRY(st, lc_plan_reduce(p, 0, 1, lc_ref(work, 0), left ? m : t, left ? t : m, n,
                                           a->dtype, a->rop));
        }
        cur = work;
    }
    for (int j = 0; j < k && st == LINCOLL_OK; j++) {
        const int m = 1 << j, pv = v ^ m, peer = lc_fold_real(&f, pv), R = base + j;
        if ((u & (2 * m - 1)) == m) {
            LC_COLL_TRY(st, lc_plan_send(p, R, peer, lc_ref(cur, 0), bytes));
            break;
        }
        LC_COLL_TRY(st, lc_plan_recv(p, R, peer, lc_ref(tmp, 0), bytes));
        if (n > 0) {
            lc_bufref_t mm = lc_ref(cur, 0), t = lc_ref(tmp, 0);
            LC_COLL_TRY(st, lc_plan_reduce(p, R, 1, lc_ref(work, 0), v < pv ? mm : t,
                                           v < pv ? t : mm, n, a->dtype, a->rop));
        }
        cur = work;
    }
    return st;
}

static double lc_binomial_reduce_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return (m.k + m.d) * (m.al + m.n * m.be + m.n * m.ga);
}

const lc_coll_alg_t lc_alg_binomial_reduce = {.name = "binomial",
                                              .plan_name = "binomial_reduce",
                                              .op = LC_COLL_REDUCE,
                                              .cost = lc_binomial_reduce_cost,
                                              .compile = lc_binomial_reduce_build};
