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

#include "core/encode/encode_int.h"

uint64_t lc_lag_coef(const void *arg, int i, int k)
{
    const lc_lag_t *l = arg;
    return l->Lm[(size_t)k * (size_t)l->K + (size_t)i];
}

lincoll_status_t lc_enc_lagrange_build(lc_enc_b_t *b, int K, int me, int P, int L, uint64_t w,
                                       lc_bufref_t in, lc_bufref_t out)
{
    const lincoll_field_t *field = b->f;
    lc_enc_group_t g = {.K = K, .me = me, .off = 0, .stride = 1};
    uint64_t winv = lc_gf_inv(field, w);
    uint64_t scale = lc_gf_mul(field, lc_gf_inv(field, lc_enc_int_elem(field, (uint64_t)K)),
                               lc_gf_pow(field, field->gen, (uint64_t)me));
    int r1 = 0, r2 = 0;
    lc_bufref_t mid = out;
    if (L > 0) {
        int c = lc_enc_scratch(b, 1);
        if (c < 0) return LINCOLL_ERR_NOMEM;
        mid = lc_ref(c, 0);
    }
    lincoll_status_t st = lc_enc_fft_build(b, &g, P, L, winv, 1, scale, in, mid, 0, &r1);
    if (st == LINCOLL_OK && L > 0) st = lc_enc_fft_build(b, &g, P, L, w, 0, 1, mid, out, r1, &r2);
    return st;
}
