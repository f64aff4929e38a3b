/*
 * core/encode/best_window.c: prepare-and-shoot with the window of least C2.
 *
 * What: the schedule of prepare_shoot.c with window m chosen among all
 * m in [1, K] that keep C1 = ceil(log_P K) rounds (P = p + 1): the one whose
 * prepare and shoot phases send the fewest packets, the smallest m on ties
 * (lc_enc_best_window).  At K <= P the window one prepare round fills is
 * the direct schedule, and the registry's order names it direct.
 * Reference: Wang & Raviv, "On the Encoding Process in Decentralized
 * Systems" (arXiv 2408.15203), prepare-and-shoot with a free window size;
 * docs/encode.md, "Windows and best_window".
 * Cost: C1 = ceil(log_P K), C2 = min over those m of
 *   sum_prepare min(w, m - w) + sum_t ceil((n' - P^(t-1)) / P^t)  (n' = ceil(K/m));
 *   Time = C1.alpha + C2.n.beta + (n' m + n' - 1).n.gamma_gf.
 * Restrictions: none (as prepare_shoot.c).
 */
#include "core/encode/encode_int.h"

static double lc_enc_best_pred(const lc_env_t *env, const lc_enc_args_t *a)
{
    return lc_enc_cost_of(LINCOLL_ENCODE_ALGO_BEST_WINDOW, env->cfg, a->K, a->p, a->B);
}

static lincoll_status_t lc_enc_best_c(lc_enc_b_t *b, const lc_enc_args_t *a)
{
    lc_enc_group_t g = {.K = a->K, .me = a->me, .off = 0, .stride = 1};
    int rounds;
    return lc_enc_ps_build(b, &g, lc_enc_best_window(a->K, b->p), a->coef, a->arg, a->in, a->out, 0,
                           &rounds);
}

const lc_enc_alg_t lc_enc_alg_best_window = {.name = "best_window",
                                             .cost = lc_enc_best_pred,
                                             .compile = lc_enc_best_c,
                                             .algo = LINCOLL_ENCODE_ALGO_BEST_WINDOW};
