/*
 * core/encode/prepare_shoot.c: universal all-to-all encode, "prepare and
 * shoot", with the every-K fix and any window size.
 *
 * What: K ranks, rank k holds x_k, ends with y_k = sum_j x_j A[j][k], any A.
 * Reference: C. Wang, N. Raviv, "All-to-All Encode in Synchronous Systems",
 * ITW 2022 / arXiv 2205.05183 (journal: IEEE Trans. Commun. 73(12), 2025);
 * the reconstruction and its every-K fix: docs/encode.md, "Prepare-and-shoot";
 * any window: "Windows and best_window".
 *
 * Schedule (P = p + 1, indices mod K, window m, n' = ceil(K/m) leaves):
 *  prepare  w = 1, P, P^2, ... < m: on port rho send the window
 *           x_{k}, x_{k-1}, ... (min(w, m - rho w) packets) to k + rho w and
 *           receive the window of k - rho w at distance rho w; w <- min(wP, m).
 *           Afterwards k holds win[i] = x_{k-i}, i < m.
 *  init     partial E < n' (target k + E m) = sum_{i < m, E m + i < K}
 *           A[k-i][k+Em] win[i]   (partition rule: every offset once, so no
 *           correction; the paper's subtraction fails when (n-1) m >= K,
 *           e.g. K = 9..12, p = 1).  Partial 0 is the output buffer itself.
 *  shoot    round t (unit u = P^(t-1)): on port rho send the partials with
 *           base-P digit t of E equal to rho (E = rho u + X u P < n') to
 *           k + rho m u; the receiver adds each into its partial E - rho u.
 *           Partials are stored in digit-reversed order of E so that every
 *           message is one contiguous block.
 *  After the last round partial 0 = y_k.
 *
 * Cost (docs/encode.md, "Closed forms C1 and C2"):
 *   C1 = ceil(log_P m) + ceil(log_P n') = ceil(log_P K)
 * for the windows used (paper: m = P^T_p; best_window: least C2),
 *   C2 = sum_prepare min(w, m - w) + sum_{t=1..T_s} ceil((n' - P^(t-1)) / P^t)
 *   (paper window: (m-1)/p + ..., = (m+n-2)/p when (n-1) m < K)
 *   Time = C1.alpha + C2.n.beta + (n' m + n' - 1).n.gamma_gf   (n = packet bytes)
 * Restrictions: none (any K >= 1, p >= 1, any field, any A, A may be singular).
 * Scratch: (m + n' - 1 + received partials) packets (m - 1 + ... when m <= P: the
 * one prepare round sends the own packet from the input, without copying it
 * into the window); in and out must not overlap.
 */
#include <stdlib.h>

#include "core/base/log.h"
#include "core/encode/encode_int.h"

lincoll_status_t lc_enc_ps_build(lc_enc_b_t *b, const lc_enc_group_t *g, int m,
                                 lc_enc_coef_fn_t coef, const void *arg, lc_bufref_t in,
                                 lc_bufref_t out, int r0, int *rounds_p)
{
    const int K = g->K, me = g->me, p = b->p, P = p + 1;
    const size_t B = b->B;
    lincoll_status_t st = LINCOLL_OK;
    if (m < 1 || m > K) return LINCOLL_ERR_INTERNAL;
    /* ---- prepare ---- */
    int nwin = m;
    lc_bufref_t *win = malloc(sizeof(*win) * (size_t)nwin);
    int n1 = (K + m - 1) / m, Ts = lc_enc_ceil_log(n1, P);
    int *order = malloc(sizeof(int) * (size_t)n1), *pos = malloc(sizeof(int) * (size_t)n1);
    lc_bufref_t *part = malloc(sizeof(*part) * (size_t)n1);
    uint64_t *M = malloc(sizeof(uint64_t) * (size_t)n1 * (size_t)m);
    if (win == NULL || order == NULL || pos == NULL || part == NULL || M == NULL) {
        st = LINCOLL_ERR_NOMEM;
        goto out;
    }
    int r = r0;
    if (lc_enc_round(b, r0) < 0) {
        st = LINCOLL_ERR_NOMEM;
        goto out;
    }
    if (m == 1) {
        win[0] = in;
    } else {
        /* one prepare round (m <= P) sends the own packet alone: the window
         * need not hold it, so no copy; more rounds send x_k, x_{k-1}, ...
         * as one block */
        const int own = m <= P;
        int ws = lc_enc_scratch(b, (size_t)(m - own));
        if (ws < 0) {
            st = LINCOLL_ERR_NOMEM;
            goto out;
        }
        for (int i = 0; i < m; i++)
            win[i] = own && i == 0 ? in : lc_ref(ws, (size_t)(i - own) * B);
        if (!own) st = lc_plan_copy(b->plan, r0, 0, win[0], in, B);
        long w = 1;
        while (st == LINCOLL_OK && w < m) {
            if (lc_enc_round(b, r) < 0) st = LINCOLL_ERR_NOMEM;
            for (int rho = 1; st == LINCOLL_OK && rho <= p; rho++) {
                long cnt = m - rho * w < w ? m - rho * w : w;
                if (cnt <= 0) break;
                int d = (int)(rho * w);
                st = lc_plan_recv(b->plan, r, lc_enc_real(g, me - d), win[d], (size_t)cnt * B);
                if (st == LINCOLL_OK)
                    st = lc_plan_send(b->plan, r, lc_enc_real(g, me + d), win[0], (size_t)cnt * B);
            }
            w = w * P < m ? w * P : m;
            r++;
        }
    }
    if (st != LINCOLL_OK) goto out;
    int Tp = r - r0;
    /* ---- partial sums: digit-reversed order of E (E = 0 first: the output) ---- */
    for (int E = 0; E < n1; E++)
        order[E] = E;
    {
        int *key = malloc(sizeof(int) * (size_t)n1);
        if (key == NULL) {
            st = LINCOLL_ERR_NOMEM;
            goto out;
        }
        for (int E = 0; E < n1; E++)
            key[E] = lc_enc_rev(E, Ts, P);
        for (int i = 1; i < n1; i++) { /* insertion sort by key (n1 is small) */
            int e = order[i], j = i;
            while (j > 0 && key[order[j - 1]] > key[e]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = e;
        }
        free(key);
    }
    for (int i = 0; i < n1; i++)
        pos[order[i]] = i;
    int ps = n1 > 1 ? lc_enc_scratch(b, (size_t)(n1 - 1)) : 0;
    if (ps < 0) {
        st = LINCOLL_ERR_NOMEM;
        goto out;
    }
    for (int E = 0; E < n1; E++) {
        part[E] = E == 0 ? out : lc_ref(ps, (size_t)(pos[E] - 1) * B);
    }
    /* ---- init: partition rule ---- */
    for (int E = 0; E < n1; E++) {
        int tgt = me + E * m;
        for (int i = 0; i < m; i++) {
            M[(size_t)E * (size_t)m + (size_t)i] =
                (long)E * m + i < K ? coef(arg, (me - i + K) % K, tgt % K) : 0;
        }
    }
    st = lc_enc_lincomb(b, Tp > 0 ? r - 1 : r0, Tp > 0, m, win, n1, part, M);
    /* ---- shoot ---- */
    long u = 1;
    for (int t = 1; st == LINCOLL_OK && t <= Ts; t++, r++, u *= P) {
        if (lc_enc_round(b, r) < 0) {
            st = LINCOLL_ERR_NOMEM;
            break;
        }
        long stride = (long)m * u;
        for (int rho = 1; st == LINCOLL_OK && rho <= p; rho++) {
            int cnt = 0, lo = n1, hi = -1;
            for (long E = rho * u; E < n1; E += u * P) {
                cnt++;
                lo = pos[E] < lo ? pos[E] : lo;
                hi = pos[E] > hi ? pos[E] : hi;
            }
            if (cnt == 0) continue;
            if (hi - lo + 1 != cnt || lo < 1) {
                lc_error("prepare_shoot: K=%d m=%d round %d: partials are not contiguous", K, m, t);
                st = LINCOLL_ERR_INTERNAL;
                break;
            }
            int rs = lc_enc_scratch(b, (size_t)cnt);
            if (rs < 0) {
                st = LINCOLL_ERR_NOMEM;
                break;
            }
            int d = (int)((rho * stride) % K);
            st = lc_plan_recv(b->plan, r, lc_enc_real(g, me - d), lc_ref(rs, 0), (size_t)cnt * B);
            if (st == LINCOLL_OK)
                st = lc_plan_send(b->plan, r, lc_enc_real(g, me + d), part[order[lo]],
                                  (size_t)cnt * B);
            for (int j = 0; st == LINCOLL_OK && j < cnt; j++) {
                int E = order[lo + j];
                st = lc_enc_add(b, r, 1, part[E - rho * u], lc_ref(rs, (size_t)j * B));
            }
        }
    }
    *rounds_p = r - r0;
out:
    free(win);
    free(order);
    free(pos);
    free(part);
    free(M);
    return st;
}

static double lc_enc_ps_pred(const lc_env_t *env, const lc_enc_args_t *a)
{
    return lc_enc_cost_of(LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, env->cfg, a->K, a->p, a->B);
}

static lincoll_status_t lc_enc_paper_c(lc_enc_b_t *b, const lc_enc_args_t *a)
{
    lc_enc_group_t g = {.K = a->K, .me = a->me, .off = 0, .stride = 1};
    int rounds;
    return lc_enc_ps_build(b, &g, lc_enc_paper_window(a->K, b->p), a->coef, a->arg, a->in, a->out,
                           0, &rounds);
}

/* the paper's window m = P^T_p */
const lc_enc_alg_t lc_enc_alg_prepare_shoot = {.name = "prepare_shoot",
                                               .cost = lc_enc_ps_pred,
                                               .compile = lc_enc_paper_c,
                                               .algo = LINCOLL_ENCODE_ALGO_PREPARE_SHOOT};
