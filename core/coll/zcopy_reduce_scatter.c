/*
 * core/coll/zcopy_reduce_scatter.c: large reduce-scatter by direct loads
 * from the peers' mapped inputs (one node, lincoll memory).
 *
 * What: round 0 "ready" flags (every input holds this start's data); then
 * (POST) each rank reduces its block reading every peer's input in place,
 * into its output; round 1 "done" flags (nobody reads my input any more).
 * Reduction order: rhd_allreduce's bracketing (zcopy_tree.c) —
 * deterministic for a given P, but for floats at P > 2 not bitwise equal to
 * rhd_reduce_scatter, whose distance-halving tree differs.
 * Reference: the direct shared-memory algorithms of intra-node collectives
 * (e.g. UCC tl/shm).
 * Cost (n = total bytes): 2 alpha_mapped + n/P read from each of P inputs:
 * (P-1)/P n gamma for the reduction; no message carries data.
 * Restrictions: not in place; total >= 2 LINCOLL_COLL_ZCOPY_THRESHOLD (below
 * that zcopy_rh_reduce_scatter, measured faster there on 2 ranks); every
 * peer mapped (bind agrees at init); P - 1 ports.
 */
#include <stdlib.h>

#include "core/coll/coll_int.h"

static int lc_zc_rs_applies(const lc_env_t *env, const lc_coll_args_t *a)
{
    return env->mapped && env->P >= 2 && a->total > 0 && !a->inplace &&
           lc_coll_bytes(a) >= 2 * env->cfg->zcopy_threshold;
}

static double lc_zc_rs_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    const lc_config_t *c = env->cfg;
    const double n = (double)lc_coll_bytes(a), f = (double)(env->P - 1) / env->P;
    return 2 * c->model_alpha_mapped + 2 * f * n / c->model_reduce_bw;
}

static lincoll_status_t lc_zc_rs_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t es = a->es, tb = a->total * es, mine = a->counts[me];
    int out = lc_plan_slot_user(p, a->rbuf, mine * es);
    int in = lc_plan_slot_user(p, (void *)a->sbuf, tb);
    int win = in >= 0 ? lc_plan_win_user(p, LC_ZC_KEY_IN, in) : -1;
    int *x = calloc((size_t)np, sizeof(int));
    lincoll_status_t st = (out >= 0 && win >= 0 && x != NULL) ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    if (st == LINCOLL_OK && lc_coll_round(p, 1) < 0) st = LINCOLL_ERR_NOMEM;
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        x[j] = j == me ? in : lc_plan_slot_peer(p, win, j, 0, tb);
        if (x[j] < 0) st = LINCOLL_ERR_NOMEM;
    }
    LC_COLL_TRY(st, lc_zc_flags(p, 0, win));
    if (st == LINCOLL_OK && mine > 0)
        st = lc_zc_reduce_tree(p, a, 0, x, a->displs[me], mine, lc_ref(out, 0));
    LC_COLL_TRY(st, lc_zc_flags(p, 1, win));
    free(x);
    return st;
}

const lc_coll_alg_t lc_alg_zcopy_reduce_scatter = {.name = "zcopy",
                                                   .plan_name = "zcopy_reduce_scatter",
                                                   .op = LC_COLL_REDUCE_SCATTER,
                                                   .mapped = 1,
                                                   .ports = -1,
                                                   .applies = lc_zc_rs_applies,
                                                   .cost = lc_zc_rs_cost,
                                                   .compile = lc_zc_rs_build};
