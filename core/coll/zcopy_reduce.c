/*
 * core/coll/zcopy_reduce.c: small reduce by one put of every non-root's
 * vector into the root's mapped scratch ring, with credits returned once per
 * batch of starts (zero copy, one node).
 *
 * What (root R, n bytes below LINCOLL_COLL_ZCOPY_THRESHOLD), the mirror
 * image of zcopy_bcast:
 *   round 0  (the first start of each batch of 4) every non-root waits for
 *            R's credit (the first 2 batches are pre-credited);
 *   round 1  every non-root puts its vector into slot [rank] of R's scratch
 *            (ring position s % 8); R waits for all of them and reduces
 *            (rhd_allreduce's bracketing, zcopy_tree.c: bitwise equal to
 *            rhd_allreduce's result, which differs from rhd_reduce's for
 *            non-associative floating-point sums at P > 2);
 *   round 2  (the last start of each batch) R returns the credits.
 * Reference: the eager shared-memory reduce of intra-node MPI collectives
 * (Open MPI coll/sm), with credits instead of a barrier.
 * Cost: (1 + 2/4) alpha_mapped + n beta + (P-1) n gamma at the root.
 * Restrictions: 0 < n < LINCOLL_COLL_ZCOPY_THRESHOLD, 2 <= P <= 65, every
 * peer mapped (bind agrees at init).  Scratch window: 8 x P n bytes at the
 * root (whole cache lines), 64 bytes elsewhere.
 */
#include <stdlib.h>

#include "core/coll/coll_int.h"

static int lc_zc_reduce_applies(const lc_env_t *env, const lc_coll_args_t *a)
{
    return env->mapped && env->P >= 2 && env->P <= 65 && a->count > 0 &&
           lc_coll_bytes(a) < env->cfg->zcopy_threshold;
}

static double lc_zc_reduce_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    const lc_config_t *c = env->cfg;
    const double n = (double)lc_coll_bytes(a);
    return 1.5 * c->model_alpha_mapped + n / c->model_bw_mapped +
           2 * (env->P - 1) * n / c->model_reduce_bw;
}

static lincoll_status_t lc_zc_reduce_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P, R = a->root;
    const size_t bytes = a->count * a->es, stride = lc_zc_ring_stride((size_t)np * bytes);
    const unsigned B = LC_ZC_CREDIT_BATCH;
    int win = lc_plan_win_scratch(p, LC_ZC_KEY_SCRATCH, me == R ? LC_ZC_DEPTH * stride : 64);
    unsigned ring = lc_plan_ring(p, LC_ZC_DEPTH, stride);
    const void *in = a->inplace ? a->rbuf : a->sbuf;
    int src = lc_plan_slot_user(p, (void *)in, bytes);
    if (win < 0 || ring == 0 || src < 0 || lc_coll_round(p, 2) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_plan_round_every(p, 0, B, 0);
    LC_COLL_TRY(st, lc_plan_round_every(p, 2, B, B - 1));
    if (me != R) {
        /* the first DEPTH / BATCH batches are pre-credited */
        LC_COLL_TRY(st, lc_plan_credit(p, win, R, LC_ZC_DEPTH / B));
        LC_COLL_TRY(st, lc_plan_wait(p, 0, R, win, 1, lc_ref(0, 0), 0));
        LC_COLL_TRY(st, lc_plan_put(p, 1, R, lc_ref(src, 0), bytes, win, (size_t)me * bytes, ring));
        return st;
    }
    int out = lc_plan_slot_user(p, a->rbuf, bytes);
    int *x = calloc((size_t)np, sizeof(int));
    if (out < 0 || x == NULL) {
        free(x);
        return LINCOLL_ERR_NOMEM;
    }
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        if (j == R) {
            x[j] = src;
            continue;
        }
        x[j] = lc_plan_slot_peer(p, win, me, (size_t)j * bytes, bytes);
        if (x[j] < 0) st = LINCOLL_ERR_NOMEM;
        LC_COLL_TRY(st, lc_plan_slot_ring(p, x[j], ring));
        LC_COLL_TRY(st, lc_plan_wait(p, 1, j, win, 1, lc_ref(x[j], 0), bytes));
        LC_COLL_TRY(st, lc_plan_signal(p, 2, j, win));
    }
    LC_COLL_TRY(st, lc_zc_reduce_tree(p, a, 1, x, 0, a->count, lc_ref(out, 0)));
    free(x);
    return st;
}

const lc_coll_alg_t lc_alg_zcopy_reduce = {.name = "zcopy",
                                           .plan_name = "zcopy_reduce",
                                           .op = LC_COLL_REDUCE,
                                           .mapped = 1,
                                           .ports = -1,
                                           .applies = lc_zc_reduce_applies,
                                           .cost = lc_zc_reduce_cost,
                                           .compile = lc_zc_reduce_build};
