/*
 * core/coll/zcopy_direct_bcast.c: large broadcast by every peer copying the
 * root's buffer straight out of the root's mapped window (zero copy, one
 * node).
 *
 * What: round 0 the root flags "ready" to every peer (its buffer holds this
 * call's data); each peer waits for it and copies (POST); round 1 each peer
 * flags "done" to the root, which may then return.
 * Reference: the single-copy large-message bcast of intra-node collectives
 * (e.g. UCC tl/shm, XPMEM-based MPI collectives).
 * Cost: 2 alpha_mapped + n beta (one copy per peer, in parallel).
 * Restrictions: n >= LINCOLL_COLL_ZCOPY_THRESHOLD, P >= 2, every rank's
 * buffer lincoll memory mapped by every peer (bind agrees at init); P - 1
 * ports at the root.
 */
#include "core/coll/coll_int.h"

static int lc_zc_dbcast_applies(const lc_env_t *env, const lc_coll_args_t *a)
{
    return env->mapped && env->P >= 2 && a->count > 0 &&
           lc_coll_bytes(a) >= env->cfg->zcopy_threshold;
}

static double lc_zc_dbcast_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    const lc_config_t *c = env->cfg;
    return 2 * c->model_alpha_mapped + (double)lc_coll_bytes(a) / c->model_bw_mapped;
}

static lincoll_status_t lc_zc_dbcast_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P, R = a->root;
    const size_t bytes = a->count * a->es;
    int buf = lc_plan_slot_user(p, a->rbuf, bytes);
    int win = buf >= 0 ? lc_plan_win_user(p, LC_ZC_KEY_OUT, buf) : -1;
    if (win < 0 || lc_coll_round(p, 1) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    if (me == R) {
        for (int j = 0; j < np && st == LINCOLL_OK; j++) {
            if (j == R) continue;
            st = lc_plan_signal(p, 0, j, win);
            LC_COLL_TRY(st, lc_plan_wait(p, 1, j, win, 1, lc_ref(0, 0), 0));
        }
        return st;
    }
    int rs = lc_plan_slot_peer(p, win, R, 0, bytes);
    if (rs < 0) return LINCOLL_ERR_NOMEM;
    st = lc_plan_wait(p, 0, R, win, 1, lc_ref(0, 0), 0);
    LC_COLL_TRY(st, lc_plan_copy(p, 0, LC_STEP_POST, lc_ref(buf, 0), lc_ref(rs, 0), bytes));
    LC_COLL_TRY(st, lc_plan_signal(p, 1, R, win));
    return st;
}

const lc_coll_alg_t lc_alg_zcopy_direct_bcast = {.name = "zcopy_direct",
                                                 .plan_name = "zcopy_direct_bcast",
                                                 .op = LC_COLL_BCAST,
                                                 .mapped = 1,
                                                 .ports = -1,
                                                 .applies = lc_zc_dbcast_applies,
                                                 .cost = lc_zc_dbcast_cost,
                                                 .compile = lc_zc_dbcast_build};
