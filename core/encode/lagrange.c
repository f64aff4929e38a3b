/*
 * core/encode/lagrange.c: Lagrange all-to-all encode (Lagrange coded
 * computing): rank i holds u(b_i) of a polynomial u of degree < K and ends
 * with u(a_i); A[i][k] = l_i(a_k), l_i the Lagrange basis of the b's.
 *
 * What (specific, default points, K = P^L, K | q - 1, q > 2K): b_i =
 * w^rev(i) (all K-th roots of unity in digit-reversed order), a_k =
 * g w^rev(k) (the coset of the generator g, disjoint from the b's):
 *   stage 1: inverse DFT by decimation in time with w^-1 (dft.c): rank s
 *            gets K c_s, the coefficient of z^s of u; the local factors
 *            1/K and g^s are folded into the last round's coefficients;
 *   stage 2: DFT by decimation in frequency with w: rank k gets
 *            sum_s c_s g^s w^(s rev(k)) = u(g w^rev(k)) = u(a_k).
 * Reference: Wang & Raviv, arXiv 2205.05183 / IEEE Trans. Commun. 2025
 * (Lagrange generator matrices); the construction: docs/encode.md,
 * "Lagrange"; Yu et al., Lagrange coded computing (2019).
 * Cost: specific C1 = C2 = 2L;  Time = 2L.(alpha + n.beta) + 2L.P.n.gamma_gf.
 * Other points (any distinct b, any a; a NULL set takes its default when K
 * is eligible): a universal algorithm on A (C1 = L, C2 = C2_universal(K));
 * with default points the cost model picks between the two.
 * Restrictions: interpolation points distinct.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/encode/encode_int.h"
#include "core/exec/exec.h"

typedef struct lc_lag {
    const uint64_t *Lm; /* K x K: Lm[k][i] = l_i(a_k) (lincoll_gf_matrix_lagrange) */
    int K;
} lc_lag_t;

static uint64_t lc_lag_coef(const void *arg, int i, int k)
{
    const lc_lag_t *l = arg;
    return l->Lm[(size_t)k * (size_t)l->K + (size_t)i];
}

lincoll_status_t lincoll_encode_lagrange_init(lincoll_comm_t *comm, const lincoll_field_t *field,
                                              const uint64_t *interp, const uint64_t *eval,
                                              uint64_t *interp_out, uint64_t *eval_out,
                                              size_t packet_bytes, const void *in, void *out,
                                              const lincoll_encode_opts_t *opts,
                                              lincoll_plan_t **plan_p)
{
    static const char *fn = "lincoll_encode_lagrange_init";
    int p;
    lincoll_status_t st =
        lc_enc_check_common(fn, comm, field, packet_bytes, in, 1, out, 1, opts, plan_p, &p);
    if (st != LINCOLL_OK) return st;
    const int K = comm->size, me = comm->rank, P = p + 1;
    const uint64_t q = field->q;
    lincoll_encode_algo_t algo;
    st = lc_enc_requested_algo(&comm->ctx->cfg, opts, &algo);
    if (st != LINCOLL_OK) return st;
    int L = lc_enc_ceil_log(K, P);
    long PL = 1;
    for (int i = 0; i < L; i++)
        PL *= P;
    int eligible = PL == K && (q - 1) % (uint64_t)K == 0 && (q - 1) / (uint64_t)K >= 2;
    LC_CHECK_ARG((interp != NULL && eval != NULL) || eligible,
                 "%s: default points need K=%d = (p+1)^L with K | q-1 and q > 2K (q=%llu, "
                 "p=%d); pass interp and eval",
                 fn, K, (unsigned long long)q, p);
    uint64_t *b = malloc(sizeof(uint64_t) * (size_t)K), *a = malloc(sizeof(uint64_t) * (size_t)K);
    uint64_t *Lm = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
    if (a == NULL || b == NULL || Lm == NULL) {
        free(a);
        free(b);
        free(Lm);
        return LINCOLL_ERR_NOMEM;
    }
    uint64_t w = eligible ? lc_gf_pow(field, field->gen, (q - 1) / (uint64_t)K) : 0;
    for (int k = 0; k < K; k++) {
        uint64_t root = eligible ? lc_gf_pow(field, w, (uint64_t)lc_enc_rev(k, L, P)) : 0;
        b[k] = interp != NULL ? interp[k] : root;
        a[k] = eval != NULL ? eval[k] : lc_gf_mul(field, field->gen, root);
    }
    for (int k = 0; k < K && st == LINCOLL_OK; k++) {
        if (b[k] >= q || a[k] >= q) {
            lc_error("%s: %s[%d] is not a reduced element (q=%llu)", fn,
                     b[k] >= q ? "interp" : "eval", k, (unsigned long long)q);
            st = LINCOLL_ERR_INVALID;
        }
    }
    uint64_t dup = 0;
    int r = st == LINCOLL_OK ? lc_enc_find_repeat(b, K, &dup) : -1;
    if (r == -2) st = LINCOLL_ERR_NOMEM;
    if (r >= 0) {
        lc_error("%s: interpolation points are not distinct (interp[%d]=%llu repeats)", fn, r,
                 (unsigned long long)dup);
        st = LINCOLL_ERR_INVALID;
    }
    if (st == LINCOLL_OK) st = lincoll_gf_matrix_lagrange(field, K, b, K, a, Lm);
    if (st == LINCOLL_OK) {
        if (interp_out != NULL) memcpy(interp_out, b, sizeof(uint64_t) * (size_t)K);
        if (eval_out != NULL) memcpy(eval_out, a, sizeof(uint64_t) * (size_t)K);
    }
    int specific = st == LINCOLL_OK && interp == NULL && eval == NULL;
    if (st == LINCOLL_OK && algo == LINCOLL_ENCODE_ALGO_SPECIFIC && !specific) {
        lc_warn("%s: specific needs the default points; choosing automatically", fn);
        algo = LINCOLL_ENCODE_ALGO_AUTO;
    }
    if (specific && algo == LINCOLL_ENCODE_ALGO_AUTO) {
        double tu;
        lc_enc_pick_universal(&comm->ctx->cfg, K, p, packet_bytes, algo, &tu);
        specific = lc_enc_predict(&comm->ctx->cfg, (unsigned)(2 * L), (uint64_t)(2 * L),
                                  packet_bytes, 2.0 * L * P * (double)packet_bytes) <= tu;
    } else if (algo != LINCOLL_ENCODE_ALGO_SPECIFIC) {
        specific = 0;
    }
    lc_enc_b_t bb;
    if (st == LINCOLL_OK)
        st = lc_enc_begin(comm, specific ? "lagrange_dft" : "universal", p, field, packet_bytes,
                          opts, &bb);
    if (st != LINCOLL_OK) {
        free(a);
        free(b);
        free(Lm);
        return st;
    }
    int si = lc_plan_slot_user(bb.plan, (void *)in, packet_bytes);
    int so = lc_plan_slot_user(bb.plan, out, packet_bytes);
    if (si < 0 || so < 0) st = LINCOLL_ERR_NOMEM;
    if (st == LINCOLL_OK && specific) {
        lc_enc_group_t g = {.K = K, .me = me, .off = 0, .stride = 1};
        uint64_t winv = lc_gf_inv(field, w);
        uint64_t scale = lc_gf_mul(field, lc_gf_inv(field, lc_enc_int_elem(field, (uint64_t)K)),
                                   lc_gf_pow(field, field->gen, (uint64_t)me));
        int c = L > 0 ? lc_enc_scratch(&bb, 1) : -1, r1 = 0, r2 = 0;
        if (L > 0 && c < 0) st = LINCOLL_ERR_NOMEM;
        lc_bufref_t mid = L > 0 ? lc_ref(c, 0) : lc_ref(so, 0);
        if (st == LINCOLL_OK)
            st = lc_enc_fft_build(&bb, &g, P, L, winv, 1, scale, lc_ref(si, 0), mid, 0, &r1);
        if (st == LINCOLL_OK && L > 0)
            st = lc_enc_fft_build(&bb, &g, P, L, w, 0, 1, mid, lc_ref(so, 0), r1, &r2);
    } else if (st == LINCOLL_OK) {
        lc_lag_t l = {.Lm = Lm, .K = K};
        st = lc_enc_universal(&bb, algo, K, me, lc_lag_coef, &l, lc_ref(si, 0), lc_ref(so, 0));
    }
    free(a);
    free(b);
    free(Lm);
    return lc_enc_end(&bb, st, plan_p);
}
