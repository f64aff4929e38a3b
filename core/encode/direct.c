/*
 * core/encode/direct.c: all-to-all encode baseline, "gather what you need,
 * encode locally".
 *
 * What: rank k receives every x_j with A[j][k] != 0 (j != k) and computes
 * y_k = sum_j A[j][k] x_j with one GF lincomb.
 * Reference: the trivial algorithm of Wang & Raviv (arXiv 2205.05183, §I);
 * the p-port linear-shift exchange of Bruck et al., IEEE TPDS 1997.
 * Schedule: distance d = 1..K-1 runs in round (d-1)/p: k sends x_k to k + d
 * and receives x_{k-d}; pairs whose coefficient is zero are skipped (both
 * ends know A), so the schedule depends on A's zero pattern only.
 * Cost (dense A): C1 = C2 = ceil((K-1)/p);
 *   Time = ceil((K-1)/p).(alpha + n.beta) + K.n.gamma_gf   (n = packet bytes)
 * Restrictions: none.  Scratch: one packet per received source.
 */
#include <stdlib.h>

#include "core/encode/encode_int.h"

lincoll_status_t lc_enc_direct_build(lc_enc_b_t *b, const lc_enc_group_t *g, lc_enc_coef_fn_t coef,
                                     const void *arg, lc_bufref_t in, lc_bufref_t out, int r0,
                                     int *rounds_p)
{
    const int K = g->K, me = g->me, p = b->p;
    lincoll_status_t st = LINCOLL_OK;
    lc_bufref_t *src = malloc(sizeof(*src) * (size_t)K);
    uint64_t *row = malloc(sizeof(uint64_t) * (size_t)K);
    if (src == NULL || row == NULL) {
        free(src);
        free(row);
        return LINCOLL_ERR_NOMEM;
    }
    int need = 0;
    for (int d = 1; d < K; d++)
        need += coef(arg, (me - d + K) % K, me) != 0;
    int gs = need > 0 ? lc_enc_scratch(b, (size_t)need) : 0;
    int nrounds = (K - 1 + p - 1) / p;
    if (gs < 0 || lc_enc_round(b, r0 + (nrounds > 0 ? nrounds - 1 : 0)) < 0) {
        st = LINCOLL_ERR_NOMEM;
    }
    int ns = 0;
    src[ns] = in;
    row[ns++] = coef(arg, me, me);
    for (int d = 1; st == LINCOLL_OK && d < K; d++) {
        int r = r0 + (d - 1) / p, j = (me - d + K) % K;
        uint64_t c = coef(arg, j, me);
        if (c != 0) {
            lc_bufref_t dst = lc_ref(gs, (size_t)(ns - 1) * b->B);
            st = lc_plan_recv(b->plan, r, lc_enc_real(g, j), dst, b->B);
            src[ns] = dst;
            row[ns++] = c;
        }
        if (st == LINCOLL_OK && coef(arg, me, (me + d) % K) != 0) {
            st = lc_plan_send(b->plan, r, lc_enc_real(g, me + d), in, b->B);
        }
    }
    if (st == LINCOLL_OK) {
        int last = nrounds > 0 ? r0 + nrounds - 1 : r0;
        st = lc_enc_lincomb(b, last, nrounds > 0, ns, src, 1, &out, row);
    }
    *rounds_p = nrounds;
    free(src);
    free(row);
    return st;
}

static double lc_enc_direct_pred(const lc_env_t *env, const lc_enc_args_t *a)
{
    return lc_enc_cost_of(LINCOLL_ENCODE_ALGO_DIRECT, env->cfg, a->K, a->p, a->B);
}

static lincoll_status_t lc_enc_direct_c(lc_enc_b_t *b, const lc_enc_args_t *a)
{
    lc_enc_group_t g = {.K = a->K, .me = a->me, .off = 0, .stride = 1};
    int rounds;
    return lc_enc_direct_build(b, &g, a->coef, a->arg, a->in, a->out, 0, &rounds);
}

const lc_enc_alg_t lc_enc_alg_direct = {.name = "direct",
                                        .cost = lc_enc_direct_pred,
                                        .compile = lc_enc_direct_c,
                                        .algo = LINCOLL_ENCODE_ALGO_DIRECT};
