/*
 * core/encode/vandermonde.c: Vandermonde (Reed-Solomon evaluation)
 * all-to-all encode: rank k ends with f(a_k) = sum_j x_j a_k^j.
 *
 * What (specific, points chosen by lincoll): K = Z M with M = P^L_M the
 * largest power of P = p + 1 dividing both K and q - 1; points are Z cosets
 * of the M-th roots of unity, a_{zM+l} = b_z w^rev(l), b_z = g^z (g the
 * field's generator, w of order M; the b_z^M are distinct since K <= q - 1).
 * Writing j = bM + a:  f(b_z w^r) = sum_a w^(r a) u_{a,z},
 * u_{a,z} = sum_b x_{bM+a} b_z^(bM+a).
 *   stage 1: in every residue class a (ranks bM + a, stride M, in parallel)
 *            universal best-window prepare-and-shoot on Z ranks with
 *            B[b][z] = b_z^(bM+a): rank zM + a gets u_{a,z};
 *   stage 2: in every block z (ranks zM .. zM+M-1) the size-M DIF DFT
 *            (dft.c): rank zM + l gets f(a_{zM+l}).
 * Reference: Wang & Raviv, arXiv 2205.05183 (DFT as the building block of
 * Vandermonde encoding); the construction: docs/encode.md,
 * "Vandermonde".
 * Cost: C1 = ceil(log_P Z) + L_M = ceil(log_P K) (optimal),
 *       C2 = C2_best_window(Z) + L_M   (vs C2_universal(K) ~ 2 sqrt(K)/p);
 *       e.g. K = 16, p = 1, q = 29 (M = 4): (4, 4) instead of (4, 6).
 * Given points (any distinct a_k): a universal algorithm on A[j][k] = a_k^j.
 * Restrictions: default points need K <= q - 1; given points distinct.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/encode/encode_int.h"

uint64_t lc_vdm_coef(const void *arg, int j, int k)
{
    const lc_vdm_t *v = arg;
    return lc_gf_pow(v->f, v->pts[k], (uint64_t)j);
}

static uint64_t lc_vdm_stage1_coef(const void *arg, int b, int z)
{
    const lc_vdm_t *v = arg;
    return lc_gf_pow(v->f, v->beta[z], (uint64_t)b * (uint64_t)v->M + (uint64_t)v->a);
}

static int lc_u64_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* index of a repeated element of v[0..n), or -1 */
int lc_enc_find_repeat(const uint64_t *v, int n, uint64_t *dup)
{
    uint64_t *s = malloc(sizeof(uint64_t) * (size_t)n);
    if (s == NULL) return -2;
    memcpy(s, v, sizeof(uint64_t) * (size_t)n);
    qsort(s, (size_t)n, sizeof(uint64_t), lc_u64_cmp);
    int r = -1;
    for (int i = 1; i < n && r < 0; i++) {
        if (s[i] == s[i - 1]) {
            *dup = s[i];
            for (int j = 0; j < n; j++) {
                if (v[j] == s[i]) {
                    r = j;
                    break;
                }
            }
        }
    }
    free(s);
    return r;
}

lincoll_status_t lc_enc_vdm_build(lc_enc_b_t *b, const lc_vdm_t *v, int me, int Z, int mz, int LM,
                                  int P, uint64_t w, lc_bufref_t in, lc_bufref_t out)
{
    const int M = v->M;
    lc_enc_group_t g1 = {.K = Z, .me = me / M, .off = me % M, .stride = M};
    lc_enc_group_t g2 = {.K = M, .me = me % M, .off = (me / M) * M, .stride = 1};
    int r1 = 0, r2 = 0;
    lc_bufref_t u = out;
    if (LM > 0) {
        int s = lc_enc_scratch(b, 1);
        if (s < 0) return LINCOLL_ERR_NOMEM;
        u = lc_ref(s, 0);
    }
    lincoll_status_t st = lc_enc_ps_build(b, &g1, mz, lc_vdm_stage1_coef, v, in, u, 0, &r1);
    if (st == LINCOLL_OK && LM > 0) st = lc_enc_fft_build(b, &g2, P, LM, w, 0, 1, u, out, r1, &r2);
    return st;
}
