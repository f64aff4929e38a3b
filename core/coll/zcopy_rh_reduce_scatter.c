/*
 * core/coll/zcopy_rh_reduce_scatter.c: small reduce-scatter on P = 2^k
 * ranks by recursive halving, each round one put into the partner's mapped
 * scratch ring (zero copy, one node).
 *
 * What: rhd_reduce_scatter's recursive halving with distance halving, k
 * rounds: round j puts the half of the current group window the partner
 * keeps into region j of its scratch, waits for the partner's put and
 * reduces it into the kept half (same bracketing and operand order as
 * rhd_reduce_scatter: bitwise equal to it); in place or not.  The scratch is
 * a ring of LC_ZC_DEPTH positions (start s uses s % DEPTH).  No credits are
 * needed: a partner puts start s's round j only after finishing start s - 1,
 * whose round j needed this rank's put of start s - 1, made after this rank
 * had finished start s - 2; the position start s uses was last read by start
 * s - DEPTH <= s - 2.
 * Reference: MPICH's recursive halving over eager shared-memory buffers.
 * Cost (n = total bytes): k alpha_mapped + (P-1)/P n beta (the puts) +
 * (P-1)/P n gamma.
 * Restrictions: P a power of two >= 2 (at most 2^16), 0 < n < 2
 * LINCOLL_COLL_ZCOPY_THRESHOLD (measured on 2 ranks: the ring wins up to
 * 2 KiB, the direct loads from 4 KiB); every peer mapped (bind agrees).
 * Scratch window: LC_ZC_DEPTH x k n bytes, in whole cache lines.
 */
#include <stdlib.h>

#include "core/coll/coll_int.h"

static int lc_zc_rh_applies(const lc_env_t *env, const lc_coll_args_t *a)
{
    return env->mapped && env->P >= 2 && a->total > 0 && lc_zc_log2(env->P) >= 0 &&
           lc_coll_bytes(a) < 2 * env->cfg->zcopy_threshold;
}

static double lc_zc_rh_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    const lc_config_t *c = env->cfg;
    const double n = (double)lc_coll_bytes(a), f = (double)(env->P - 1) / env->P;
    return lc_zc_log2(env->P) * c->model_alpha_mapped + f * n / c->model_bw_mapped +
           2 * f * n / c->model_reduce_bw;
}

static lincoll_status_t lc_zc_rh_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P, k = lc_zc_log2(np);
    const size_t es = a->es, total = a->total, mine = a->counts[me], dme = a->displs[me];
    const size_t region = total * es, stride = lc_zc_ring_stride((size_t)k * region);
    if (k < 1 || total == 0) return LINCOLL_ERR_UNSUPPORTED; /* a power of two P >= 2 */
    int win = lc_plan_win_scratch(p, LC_ZC_KEY_SCRATCH, LC_ZC_DEPTH * stride);
    unsigned ring = lc_plan_ring(p, LC_ZC_DEPTH, stride);
    int out = lc_plan_slot_user(p, a->rbuf, (a->inplace ? total : mine) * es);
    int src = a->inplace ? out : lc_plan_slot_user(p, (void *)a->sbuf, total * es);
    int work = (a->inplace || k == 1) ? out : lc_plan_slot_scratch(p, region);
    int scr = win >= 0 ? lc_plan_slot_peer(p, win, me, 0, (size_t)k * region) : -1;
    if (win < 0 || ring == 0 || out < 0 || src < 0 || work < 0 || scr < 0 ||
        lc_coll_round(p, k - 1) < 0)
        return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_plan_slot_ring(p, scr, ring);
    /* goff[v] = element offset of rank v's block, goff[np] = total */
    size_t *goff = malloc(((size_t)np + 1) * sizeof(*goff));
    if (goff == NULL) return LINCOLL_ERR_NOMEM;
    for (int v = 0; v < np; v++)
        goff[v] = a->displs[v];
    goff[np] = total;
    int cur = src;
    size_t lo = 0, w = (size_t)np;
    for (int j = k - 1; j >= 0 && st == LINCOLL_OK; j--) {
        const int mask = 1 << j, peer = me ^ mask, R = k - 1 - j;
        const size_t h = w / 2;
        const size_t keep = (me & mask) ? lo + h : lo, give = (me & mask) ? lo : lo + h;
        const size_t kn = goff[keep + h] - goff[keep], ko = goff[keep];
        const size_t gn = goff[give + h] - goff[give];
        lc_bufref_t t = lc_ref(scr, (size_t)R * region);
        st = lc_plan_put(p, R, peer, lc_ref(cur, goff[give] * es), gn * es, win, (size_t)R * region,
                         ring);
        LC_COLL_TRY(st, lc_plan_wait(p, R, peer, win, 1, t, kn * es));
        /* the last step out of place reduces straight into rbuf */
        const int direct = j == 0 && !a->inplace;
        if (kn > 0) {
            lc_bufref_t m = lc_ref(cur, ko * es);
            LC_COLL_TRY(st, lc_plan_reduce(
                                p, R, LC_STEP_POST, direct ? lc_ref(out, 0) : lc_ref(work, ko * es),
                                me < peer ? m : t, me < peer ? t : m, kn, a->dtype, a->rop));
        }
        cur = work;
        lo = keep;
        w = h;
    }
    free(goff);
    if (st == LINCOLL_OK && a->inplace && dme > 0 && mine > 0)
        st =
            lc_plan_copy(p, k - 1, LC_STEP_POST, lc_ref(out, 0), lc_ref(work, dme * es), mine * es);
    return st;
}

const lc_coll_alg_t lc_alg_zcopy_rh_reduce_scatter = {.name = "zcopy_rh",
                                                      .plan_name = "zcopy_rh_reduce_scatter",
                                                      .op = LC_COLL_REDUCE_SCATTER,
                                                      .mapped = 1,
                                                      .applies = lc_zc_rh_applies,
                                                      .cost = lc_zc_rh_cost,
                                                      .compile = lc_zc_rh_build};
