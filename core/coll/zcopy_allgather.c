/*
 * core/coll/zcopy_allgather.c: large allgather by direct loads from the
 * peers' mapped outputs (one node, lincoll memory).
 *
 * What: round 0 each rank places its block in its own output (unless in
 * place; a PRE copy), flags "ready" to every peer and waits for theirs; then
 * (POST) copies every peer's block straight out of that peer's output;
 * round 1 "done" flags: nobody reads my output any more.
 * Reference: the direct shared-memory algorithms of intra-node collectives
 * (e.g. UCC tl/shm).
 * Cost (n = total bytes): 2 alpha_mapped + (P-1)/P n beta (the copies from
 * the peers' memory).
 * Restrictions: total >= 8 LINCOLL_COLL_ZCOPY_THRESHOLD (below that, on a
 * power of two, zcopy_rd_allgather: measured faster up to 8 KiB on 2
 * ranks); every peer mapped (bind agrees at init); P - 1 ports.
 */
#include "core/coll/coll_int.h"

static int lc_zc_ag_applies(const lc_env_t *env, const lc_coll_args_t *a)
{
    return env->mapped && env->P >= 2 && a->total > 0 &&
           lc_coll_bytes(a) >= 8 * env->cfg->zcopy_threshold;
}

static double lc_zc_ag_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    const lc_config_t *c = env->cfg;
    const double n = (double)lc_coll_bytes(a), f = (double)(env->P - 1) / env->P;
    return 2 * c->model_alpha_mapped + f * n / c->model_bw_mapped;
}

static lincoll_status_t lc_zc_ag_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t es = a->es, tb = a->total * es;
    int out = lc_plan_slot_user(p, a->rbuf, tb);
    int win = out >= 0 ? lc_plan_win_user(p, LC_ZC_KEY_OUT, out) : -1;
    if (win < 0 || lc_coll_round(p, 1) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_zc_own_block(p, a, out);
    LC_COLL_TRY(st, lc_zc_flags(p, 0, win));
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        if (j == me || a->counts[j] == 0) continue;
        int s = lc_plan_slot_peer(p, win, j, 0, tb);
        if (s < 0) return LINCOLL_ERR_NOMEM;
        st = lc_plan_copy(p, 0, LC_STEP_POST, lc_ref(out, a->displs[j] * es),
                          lc_ref(s, a->displs[j] * es), a->counts[j] * es);
    }
    LC_COLL_TRY(st, lc_zc_flags(p, 1, win));
    return st;
}

const lc_coll_alg_t lc_alg_zcopy_allgather = {.name = "zcopy",
                                              .plan_name = "zcopy_allgather",
                                              .op = LC_COLL_ALLGATHER,
                                              .mapped = 1,
                                              .ports = -1,
                                              .applies = lc_zc_ag_applies,
                                              .cost = lc_zc_ag_cost,
                                              .compile = lc_zc_ag_build};
