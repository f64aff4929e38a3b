/*
 * core/coll/zcopy_direct_reduce.c: large reduce by direct loads from every
 * rank's mapped input and stores into the root's mapped output (zero copy,
 * one node).
 *
 * What: like zcopy_allreduce without the copies back.  Round 0: "ready"
 * flags between all ranks (every input valid, the root's output free); then
 * (POST) rank i reduces segment i reading every rank's input in place and
 * stores it into the root's output (rhd_allreduce's bracketing,
 * zcopy_tree.c).  Round 1: "done" flags.  Windows: IN over every input, OUT
 * over the root's output (other ranks expose their input there).
 * Reference: the direct shared-memory reduce of intra-node collectives
 * (e.g. UCC tl/shm).
 * Cost (n bytes): 2 alpha_mapped + (P-1)/P n gamma (+ n/P stored per rank).
 * Restrictions: n >= LINCOLL_COLL_ZCOPY_THRESHOLD, P >= 2, every rank's input
 * and the root's output lincoll memory mapped by every peer (bind agrees at
 * init); P - 1 ports.
 */
#include <stdlib.h>

#include "core/coll/coll_int.h"

static int lc_zc_dreduce_applies(const lc_env_t *env, const lc_coll_args_t *a)
{
    return env->mapped && env->P >= 2 && a->count > 0 &&
           lc_coll_bytes(a) >= env->cfg->zcopy_threshold;
}

static double lc_zc_dreduce_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    const lc_config_t *c = env->cfg;
    const double n = (double)lc_coll_bytes(a), f = (double)(env->P - 1) / env->P;
    return 2 * c->model_alpha_mapped + n / env->P / c->model_bw_mapped +
           2 * f * n / c->model_reduce_bw;
}

static lincoll_status_t lc_zc_dreduce_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P, R = a->root;
    const size_t es = a->es, n = a->count, bytes = n * es;
    const lc_segs_t sg = {n / (size_t)np, n % (size_t)np};
    const size_t off = lc_seg_off(&sg, (size_t)me), cnt = lc_seg_sum(&sg, (size_t)me, 1);
    const void *inp = a->inplace ? a->rbuf : a->sbuf;
    int in = lc_plan_slot_user(p, (void *)inp, bytes);
    int outs = me == R ? (a->inplace ? in : lc_plan_slot_user(p, a->rbuf, bytes)) : in;
    int win_in = in >= 0 ? lc_plan_win_user(p, LC_ZC_KEY_IN, in) : -1;
    /* the root exposes its output under OUT, the others their input again */
    int win_out = outs >= 0
                      ? (outs == in ? lc_plan_win_user(p, LC_ZC_KEY_OUT,
                                                       lc_plan_slot_user(p, (void *)inp, bytes))
                                    : lc_plan_win_user(p, LC_ZC_KEY_OUT, outs))
                      : -1;
    int *x = calloc((size_t)np, sizeof(int));
    lincoll_status_t st =
        (win_in >= 0 && win_out >= 0 && x != NULL) ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    int outR =
        st == LINCOLL_OK ? (me == R ? outs : lc_plan_slot_peer(p, win_out, R, 0, bytes)) : -1;
    if (outR < 0) st = LINCOLL_ERR_NOMEM;
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        x[j] = j == me ? in : lc_plan_slot_peer(p, win_in, j, 0, bytes);
        if (x[j] < 0) st = LINCOLL_ERR_NOMEM;
    }
    if (st == LINCOLL_OK && lc_coll_round(p, 1) < 0) st = LINCOLL_ERR_NOMEM;
    LC_COLL_TRY(st, lc_zc_flags(p, 0, win_in));
    LC_COLL_TRY(st, lc_zc_flags(p, 1, win_in));
    if (st == LINCOLL_OK && cnt > 0)
        st = lc_zc_reduce_tree(p, a, 0, x, off, cnt, lc_ref(outR, off * es));
    free(x);
    return st;
}

const lc_coll_alg_t lc_alg_zcopy_direct_reduce = {.name = "zcopy_direct",
                                                  .plan_name = "zcopy_direct_reduce",
                                                  .op = LC_COLL_REDUCE,
                                                  .mapped = 1,
                                                  .ports = -1,
                                                  .applies = lc_zc_dreduce_applies,
                                                  .cost = lc_zc_dreduce_cost,
                                                  .compile = lc_zc_dreduce_build};
