/*
 * core/coll/zcopy_rd_allreduce.c: small allreduce on P = 2^k ranks by
 * recursive doubling, each round one put of the whole vector into the
 * partner's mapped scratch (zero copy, one node).
 *
 * What: round j: put the current vector into region j of the partner
 * (rank ^ 2^j) scratch window (a store + a signal when mapped), wait for the
 * partner's, reduce the two (lower rank on the left) into the output.  The
 * scratch is a ring of depth 2 (stride k n): start s uses position s % 2, so
 * a put of start s+1 never lands where the partner still reads start s (a
 * rank begins start s+2 only after every partner has finished start s).
 * Reference: recursive doubling allreduce (Thakur, Rabenseifner, Gropp,
 * IJHPCA 19(1), 2005) over eager shared-memory buffers.
 * Cost (n bytes): k alpha_mapped + k n beta (the puts) + k n gamma.
 * Restrictions: P a power of two >= 2, 0 < n < LINCOLL_COLL_ZCOPY_THRESHOLD,
 * every peer mapped (bind agrees at init).  Scratch window: 2 k n bytes.
 */
#include "core/coll/coll_int.h"

static int lc_zc_rd_allreduce_applies(const lc_env_t *env, const lc_coll_args_t *a)
{
    return env->mapped && env->P >= 2 && a->count > 0 && lc_zc_log2(env->P) >= 0 &&
           lc_coll_bytes(a) < env->cfg->zcopy_threshold;
}

static double lc_zc_rd_allreduce_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    const lc_config_t *c = env->cfg;
    const double k = lc_zc_log2(env->P), n = (double)lc_coll_bytes(a);
    return k * (c->model_alpha_mapped + n / c->model_bw_mapped + 2 * n / c->model_reduce_bw);
}

static lincoll_status_t lc_zc_rd_allreduce_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, k = lc_zc_log2(p->env.P);
    if (k < 1) return LINCOLL_ERR_UNSUPPORTED; /* a power of two P >= 2 */
    const size_t bytes = a->count * a->es, half = (size_t)k * bytes;
    int out = lc_plan_slot_user(p, a->rbuf, bytes);
    int src = a->inplace ? out : lc_plan_slot_user(p, (void *)a->sbuf, bytes);
    int win = lc_plan_win_scratch(p, LC_ZC_KEY_SCRATCH, 2 * half);
    unsigned ring = lc_plan_ring(p, 2, half);
    int scr = win >= 0 ? lc_plan_slot_peer(p, win, me, 0, half) : -1;
    if (out < 0 || src < 0 || scr < 0 || ring == 0 || lc_coll_round(p, k - 1) < 0)
        return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_plan_slot_ring(p, scr, ring);
    int cur = src;
    for (int j = 0; j < k && st == LINCOLL_OK; j++) {
        const int peer = me ^ (1 << j);
        lc_bufref_t mine = lc_ref(cur, 0), theirs = lc_ref(scr, (size_t)j * bytes);
        st = lc_plan_put(p, j, peer, mine, bytes, win, (size_t)j * bytes, ring);
        LC_COLL_TRY(st, lc_plan_wait(p, j, peer, win, 1, theirs, bytes));
        LC_COLL_TRY(st,
                    lc_plan_reduce(p, j, LC_STEP_POST, lc_ref(out, 0), me < peer ? mine : theirs,
                                   me < peer ? theirs : mine, a->count, a->dtype, a->rop));
        cur = out;
    }
    return st;
}

const lc_coll_alg_t lc_alg_zcopy_rd_allreduce = {.name = "zcopy_rd",
                                                 .plan_name = "zcopy_rd_allreduce",
                                                 .op = LC_COLL_ALLREDUCE,
                                                 .mapped = 1,
                                                 .applies = lc_zc_rd_allreduce_applies,
                                                 .cost = lc_zc_rd_allreduce_cost,
                                                 .compile = lc_zc_rd_allreduce_build};
