/*
 * core/coll/zcopy_bcast.c: small broadcast by one put into each peer's
 * mapped scratch ring, with credits returned once per batch of starts
 * (zero copy, one node).
 *
 * What (root R, n bytes below LINCOLL_COLL_ZCOPY_THRESHOLD): every rank's
 * scratch window is a ring of LC_ZC_DEPTH = 8 positions (start s uses
 * s % 8); credits travel once per LC_ZC_CREDIT_BATCH = 4 starts:
 *   round 0  (the first start of each batch) R waits for every peer's credit
 *            for the batch's ring positions (the peer has consumed the
 *            broadcasts of 8 starts ago; the first 2 batches are
 *            pre-credited), so R may run 5-8 broadcasts ahead;
 *   round 1  R puts the vector into every peer's scratch (a store + signal
 *            when mapped); each peer waits for it and copies it into its
 *            buffer;
 *   round 2  (the last start of each batch) each peer gives R its credit
 *            back (a signal).
 * The root never waits for the data path of its peers: in steady state a
 * broadcast costs one store and one flag.  The IR says all of it: rounds 0
 * and 2 run every 4th start (phases 0 and 3), the scratch rotates with a
 * ring region, the initial credits are declared.
 * Reference: the eager shared-memory bcast of intra-node MPI collectives
 * (Open MPI coll/sm's per-peer control flags and fragments), with credits
 * instead of a barrier.
 * Cost: (1 + 2/4) alpha_mapped + n beta (+ n beta, the peer's copy).
 * Restrictions: 0 < n < LINCOLL_COLL_ZCOPY_THRESHOLD, 2 <= P <= 65, every
 * peer mapped (bind agrees at init).  Scratch window: 8 x n bytes per rank,
 * in whole cache lines.
 */
#include "core/coll/coll_int.h"

static int lc_zc_bcast_applies(const lc_env_t *env, const lc_coll_args_t *a)
{
    return env->mapped && env->P >= 2 && env->P <= 65 && a->count > 0 &&
           lc_coll_bytes(a) < env->cfg->zcopy_threshold;
}

static double lc_zc_bcast_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    const lc_config_t *c = env->cfg;
    const double n = (double)lc_coll_bytes(a);
    return 1.5 * c->model_alpha_mapped + 2 * n / c->model_bw_mapped;
}

static lincoll_status_t lc_zc_bcast_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P, R = a->root;
    const size_t bytes = a->count * a->es, stride = lc_zc_ring_stride(bytes);
    const unsigned B = LC_ZC_CREDIT_BATCH;
    int win = lc_plan_win_scratch(p, LC_ZC_KEY_SCRATCH, LC_ZC_DEPTH * stride);
    unsigned ring = lc_plan_ring(p, LC_ZC_DEPTH, stride);
    int buf = lc_plan_slot_user(p, a->rbuf, bytes);
    if (win < 0 || ring == 0 || buf < 0 || lc_coll_round(p, 2) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_plan_round_every(p, 0, B, 0);
    LC_COLL_TRY(st, lc_plan_round_every(p, 2, B, B - 1));
    if (me == R) {
        for (int j = 0; j < np && st == LINCOLL_OK; j++) {
            if (j == R) continue;
            /* the first DEPTH / BATCH batches are pre-credited */
            st = lc_plan_credit(p, win, j, LC_ZC_DEPTH / B);
            LC_COLL_TRY(st, lc_plan_wait(p, 0, j, win, 1, lc_ref(0, 0), 0));
            LC_COLL_TRY(st, lc_plan_put(p, 1, j, lc_ref(buf, 0), bytes, win, 0, ring));
        }
        return st;
    }
    int scr = lc_plan_slot_peer(p, win, me, 0, bytes);
    if (scr < 0) return LINCOLL_ERR_NOMEM;
    LC_COLL_TRY(st, lc_plan_slot_ring(p, scr, ring));
    LC_COLL_TRY(st, lc_plan_wait(p, 1, R, win, 1, lc_ref(scr, 0), bytes));
    LC_COLL_TRY(st, lc_plan_copy(p, 1, LC_STEP_POST, lc_ref(buf, 0), lc_ref(scr, 0), bytes));
    LC_COLL_TRY(st, lc_plan_signal(p, 2, R, win));
    return st;
}

const lc_coll_alg_t lc_alg_zcopy_bcast = {.name = "zcopy",
                                          .plan_name = "zcopy_bcast",
                                          .op = LC_COLL_BCAST,
                                          .mapped = 1,
                                          .ports = -1,
                                          .applies = lc_zc_bcast_applies,
                                          .cost = lc_zc_bcast_cost,
                                          .compile = lc_zc_bcast_build};
