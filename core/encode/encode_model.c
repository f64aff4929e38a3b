/*
 * core/encode/encode_model.c: the closed-form costs of the all-to-all
 * encode algorithms (the choice among the registry's candidates that uses
 * them is encode_api_select.c's).
 *
 * Closed forms (docs/encode.md, "Closed forms C1 and C2" and "Windows and
 * best_window"; P = p + 1):
 *   prepare-and-shoot with window m (1 <= m <= K):
 *     prepare: w = 1, P, P^2, ... until m; round sends min(w, m - w) packets
 *              (the largest port), w <- min(wP, m);
 *     shoot:   n' = ceil(K/m) leaves, T_s = ceil(log_P n') rounds, round t
 *              sends ceil((n' - P^(t-1)) / P^t) packets (port 1);
 *     C1 = ceil(log_P m) + ceil(log_P n') (= ceil(log_P K) for the windows
 *     we use), C2 = sum of the above.  With the paper's m = P^T_p this is
 *     the "pruned" C2 = (m-1)/p + sum_t ceil((n' - P^(t-1))/P^t).
 *   direct: C1 = C2 = ceil((K-1)/p).
 * Selection: the requested algorithm (options, then LINCOLL_ENCODE_ALGO),
 * otherwise the least C1*alpha + C2*B*beta + gf*gamma (model of the plan
 * stats, LINCOLL_MODEL_ALPHA / _BW / _COMPUTE_BW; zcopy: lc_enc_zc_predict),
 * ties to the first of direct, best_window, prepare_shoot, zcopy (a window
 * that one prepare round fills is the direct schedule: at K = 2 the two are
 * the same plan, and direct names it).  The choice depends only on
 * arguments that match on every rank and on the configuration.
 */
#include "core/base/log.h"
#include "core/encode/encode_int.h"

/* ---- closed forms --------------------------------------------------------------- */

int lc_enc_ceil_log(int K, int P)
{
    int L = 0;
    long v = 1;
    while (v < K) {
        v *= P;
        L++;
    }
    return L;
}

int lc_enc_paper_window(int K, int p)
{
    int P = p + 1, L = 0;
    long v = P;
    while (v < K) { /* largest L with P^L < K */
        v *= P;
        L++;
    }
    int Tp = (L % 2 == 0) ? L / 2 + 1 : (L + 1) / 2;
    long m = 1;
    for (int i = 0; i < Tp && m < K; i++)
        m *= P;
    return m < K ? (int)m : K;
}

void lc_enc_ps_cost(int K, int p, int m, unsigned *c1, uint64_t *c2)
{
    int P = p + 1;
    unsigned r = 0;
    uint64_t c = 0;
    long w = 1;
    while (w < m) {
        long cnt = m - w < w ? m - w : w;
        c += (uint64_t)cnt;
        r++;
        w = w * P < m ? w * P : m;
    }
    int n1 = (K + m - 1) / m;
    int Ts = lc_enc_ceil_log(n1, P);
    long u = 1;
    for (int t = 1; t <= Ts; t++) {
        long up = u * P;
        c += (uint64_t)((n1 - u + up - 1) / up);
        r++;
        u = up;
    }
    if (c1) *c1 = r;
    if (c2) *c2 = c;
}

int lc_enc_best_window(int K, int p)
{
    int P = p + 1, L1 = lc_enc_ceil_log(K, P), best = 1;
    uint64_t bc = UINT64_MAX;
    for (int m = 1; m <= K; m++) {
        int n1 = (K + m - 1) / m;
        if (lc_enc_ceil_log(m, P) + lc_enc_ceil_log(n1, P) != L1) continue;
        uint64_t c;
        lc_enc_ps_cost(K, p, m, NULL, &c);
        if (c < bc) {
            bc = c;
            best = m;
        }
    }
    return best;
}

void lc_enc_direct_cost(int K, int p, unsigned *c1, uint64_t *c2)
{
    unsigned r = (unsigned)((K - 1 + p - 1) / p);
    if (c1) *c1 = r;
    if (c2) *c2 = r;
}

lincoll_status_t lc_enc_closed_cost(int K, int ports, lincoll_encode_algo_t algo, unsigned *c1_p,
                                    uint64_t *c2_p, int *window_p)
{
    LC_CHECK_ARG(K >= 1, "lincoll_encode_cost: K=%d must be >= 1", K);
    LC_CHECK_ARG(ports >= 1, "lincoll_encode_cost: ports=%d must be >= 1", ports);
    int m = 0;
    switch (algo) {
    case LINCOLL_ENCODE_ALGO_PREPARE_SHOOT:
    case LINCOLL_ENCODE_ALGO_BEST_WINDOW:
        m = algo == LINCOLL_ENCODE_ALGO_BEST_WINDOW ? lc_enc_best_window(K, ports)
                                                    : lc_enc_paper_window(K, ports);
        lc_enc_ps_cost(K, ports, m, c1_p, c2_p);
        break;
    case LINCOLL_ENCODE_ALGO_DIRECT:
        lc_enc_direct_cost(K, ports, c1_p, c2_p);
        break;
    case LINCOLL_ENCODE_ALGO_ZCOPY: /* two flag rounds; K - 1 packets read from peers */
        if (c1_p) *c1_p = K > 1 ? 2 : 0;
        if (c2_p) *c2_p = (uint64_t)(K - 1);
        break;
    case LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT: /* two flag rounds; 2 (K-1)/K packets moved */
        if (c1_p) *c1_p = K > 1 ? 2 : 0;
        if (c2_p) *c2_p = K > 1 ? 1 : 0;
        break;
    default:
        lc_error("lincoll_encode_cost: algo=%d is not prepare_shoot, best_window, direct, zcopy "
                 "or zcopy_split",
                 (int)algo);
        return LINCOLL_ERR_INVALID;
    }
    if (window_p) *window_p = m;
    return LINCOLL_OK;
}

double lc_enc_predict(const lc_config_t *cfg, unsigned c1, uint64_t c2, size_t B, double gf_bytes)
{
    return (double)c1 * cfg->model_alpha + (double)c2 * (double)B / cfg->model_bw +
           gf_bytes / cfg->model_compute_bw;
}

/* Local work of one rank in bytes (GF coefficient x bytes, as lc_plan_gf_step
 * counts it, plus copies): prepare-and-shoot copies its own packet into the
 * window when the window needs more than one prepare round (m > p + 1). */
double lc_enc_gf_work(int K, int p, int m, lincoll_encode_algo_t a, size_t B)
{
    if (a == LINCOLL_ENCODE_ALGO_DIRECT) return (double)K * (double)B;
    int n1 = (K + m - 1) / m;
    double copy = m > p + 1 ? 1.0 : 0.0;
    return ((double)n1 * (double)m + (double)(n1 - 1) + copy) * (double)B;
}

double lc_enc_cost_of(lincoll_encode_algo_t a, const lc_config_t *cfg, int K, int p, size_t B)
{
    unsigned c1;
    uint64_t c2;
    int m;
    lc_enc_closed_cost(K, p, a, &c1, &c2, &m);
    return lc_enc_predict(cfg, c1, c2, B, lc_enc_gf_work(K, p, m, a, B));
}
