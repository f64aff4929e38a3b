/*
 * core/coll/zcopy_rd_allgather.c: small allgather on P = 2^k ranks by
 * recursive doubling, each round one put into the partner's mapped scratch
 * ring (zero copy, one node).
 *
 * What: k rounds; round j puts the 2^j blocks this rank holds (contiguous:
 * blocks are in rank order) into the partner's scratch at their own offsets
 * and copies the partner's 2^j blocks from its own scratch into place.  The
 * scratch is a ring of LC_ZC_DEPTH positions (start s uses s % DEPTH); no
 * credits are needed (see zcopy_rh_reduce_scatter.c).
 * Reference: MPICH's recursive doubling over eager shared-memory buffers.
 * Cost (n = total bytes): k alpha_mapped + (P-1)/P n beta (puts) + (P-1)/P n
 * beta (the copies into place; + n/P when not in place).
 * Restrictions: P a power of two >= 2, 0 < n < 8 LINCOLL_COLL_ZCOPY_THRESHOLD;
 * every peer mapped (bind agrees at init).  Scratch window: LC_ZC_DEPTH x n
 * bytes, in whole cache lines.
 */
#include "core/coll/coll_int.h"

static int lc_zc_rdag_applies(const lc_env_t *env, const lc_coll_args_t *a)
{
    return env->mapped && env->P >= 2 && a->total > 0 && lc_zc_log2(env->P) >= 0 &&
           lc_coll_bytes(a) < 8 * env->cfg->zcopy_threshold;
}

static double lc_zc_rdag_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    const lc_config_t *c = env->cfg;
    const double n = (double)lc_coll_bytes(a), f = (double)(env->P - 1) / env->P;
    return lc_zc_log2(env->P) * c->model_alpha_mapped + 2 * f * n / c->model_bw_mapped;
}

static lincoll_status_t lc_zc_rdag_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P, k = lc_zc_log2(np);
    const size_t es = a->es, tb = a->total * es, stride = lc_zc_ring_stride(tb);
    if (k < 1 || tb == 0) return LINCOLL_ERR_UNSUPPORTED; /* a power of two P >= 2 */
    int win = lc_plan_win_scratch(p, LC_ZC_KEY_SCRATCH, LC_ZC_DEPTH * stride);
    unsigned ring = lc_plan_ring(p, LC_ZC_DEPTH, stride);
    int out = lc_plan_slot_user(p, a->rbuf, tb);
    int scr = win >= 0 ? lc_plan_slot_peer(p, win, me, 0, tb) : -1;
    if (ring == 0 || out < 0 || scr < 0 || lc_coll_round(p, k - 1) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_plan_slot_ring(p, scr, ring);
    LC_COLL_TRY(st, lc_zc_own_block(p, a, out));
    for (int j = 0; j < k && st == LINCOLL_OK; j++) {
        const int n = 1 << j, peer = me ^ n, g0 = me & ~(n - 1), p0 = peer & ~(n - 1);
        const size_t off = a->displs[g0] * es, len = tb - off;
        const size_t poff = a->displs[p0] * es, plen = tb - poff;
        /* blocks [g0, g0 + n) and [p0, p0 + n) */
        const size_t mlen = g0 + n < np ? a->displs[g0 + n] * es - off : len;
        const size_t pl = p0 + n < np ? a->displs[p0 + n] * es - poff : plen;
        st = lc_plan_put(p, j, peer, lc_ref(out, off), mlen, win, off, ring);
        LC_COLL_TRY(st, lc_plan_wait(p, j, peer, win, 1, lc_ref(scr, poff), pl));
        if (pl > 0)
            LC_COLL_TRY(st,
                        lc_plan_copy(p, j, LC_STEP_POST, lc_ref(out, poff), lc_ref(scr, poff), pl));
    }
    return st;
}

const lc_coll_alg_t lc_alg_zcopy_rd_allgather = {.name = "zcopy_rd",
                                                 .plan_name = "zcopy_rd_allgather",
                                                 .op = LC_COLL_ALLGATHER,
                                                 .mapped = 1,
                                                 .applies = lc_zc_rdag_applies,
                                                 .cost = lc_zc_rdag_cost,
                                                 .compile = lc_zc_rdag_build};
