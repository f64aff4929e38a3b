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
#include "core/exec/exec.h"

typedef struct lc_vdm {
    const lincoll_field_t *f;
    const uint64_t *pts; /* universal: a_k */
    uint64_t *beta;      /* specific stage 1: b_z */
    int M, a;            /* specific stage 1: class a */
} lc_vdm_t;

static uint64_t lc_vdm_coef(const void *arg, int j, int k)
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

lincoll_status_t lincoll_encode_vandermonde_init(lincoll_comm_t *comm, const lincoll_field_t *field,
                                                 const uint64_t *points, uint64_t *points_out,
                                                 size_t packet_bytes, const void *in, void *out,
                                                 const lincoll_encode_opts_t *opts,
                                                 lincoll_plan_t **plan_p)
{
    static const char *fn = "lincoll_encode_vandermonde_init";
    int p;
    lincoll_status_t st =
        lc_enc_check_common(fn, comm, field, packet_bytes, in, 1, out, 1, opts, plan_p, &p);
    if (st != LINCOLL_OK) return st;
    const int K = comm->size, me = comm->rank, P = p + 1;
    const uint64_t q = field->q;
    lincoll_encode_algo_t algo;
    st = lc_enc_requested_algo(&comm->ctx->cfg, opts, &algo);
    if (st != LINCOLL_OK) return st;
    if (points != NULL) {
        for (int k = 0; k < K; k++) {
            LC_CHECK_ARG(points[k] < q, "%s: points[%d]=%llu is not a reduced element (q=%llu)", fn,
                         k, (unsigned long long)points[k], (unsigned long long)q);
        }
        uint64_t dup = 0;
        int r = lc_enc_find_repeat(points, K, &dup);
        if (r == -2) return LINCOLL_ERR_NOMEM;
        LC_CHECK_ARG(r < 0, "%s: points are not distinct (points[%d]=%llu repeats)", fn, r,
                     (unsigned long long)dup);
    } else {
        LC_CHECK_ARG((uint64_t)K <= q - 1,
                     "%s: K=%d default points need K <= q-1 (q=%llu); pass points", fn, K,
                     (unsigned long long)q);
    }
    /* the coset structure (also defines the default points) */
    int M = 1, LM = 0;
    while ((K % (M * P)) == 0 && ((q - 1) % (uint64_t)(M * P)) == 0) {
        M *= P;
        LM++;
    }
    int Z = K / M;
    uint64_t *pts = malloc(sizeof(uint64_t) * (size_t)K),
             *beta = malloc(sizeof(uint64_t) * (size_t)Z);
    if (pts == NULL || beta == NULL) {
        free(pts);
        free(beta);
        return LINCOLL_ERR_NOMEM;
    }
    uint64_t w = lc_gf_pow(field, field->gen, (q - 1) / (uint64_t)M);
    for (int z = 0; z < Z; z++)
        beta[z] = lc_gf_pow(field, field->gen, (uint64_t)z);
    for (int k = 0; k < K; k++) {
        pts[k] = points != NULL
                     ? points[k]
                     : lc_gf_mul(field, beta[k / M],
                                 lc_gf_pow(field, w, (uint64_t)lc_enc_rev(k % M, LM, P)));
    }
    if (points_out != NULL) memcpy(points_out, pts, sizeof(uint64_t) * (size_t)K);
    int specific = points == NULL;
    if (algo == LINCOLL_ENCODE_ALGO_SPECIFIC && !specific) {
        lc_warn("%s: specific needs the default (coset) points; choosing automatically", fn);
        algo = LINCOLL_ENCODE_ALGO_AUTO;
    }
    unsigned c1z;
    uint64_t c2z;
    int mz = lc_enc_best_window(Z, p);
    lc_enc_ps_cost(Z, p, mz, &c1z, &c2z);
    if (specific && algo == LINCOLL_ENCODE_ALGO_AUTO) {
        double tu;
        lc_enc_pick_universal(&comm->ctx->cfg, K, p, packet_bytes, algo, &tu);
        int n1 = (Z + mz - 1) / mz;
        double gf = ((double)n1 * mz + n1 + (double)LM * P) * (double)packet_bytes;
        specific = lc_enc_predict(&comm->ctx->cfg, c1z + (unsigned)LM, c2z + (uint64_t)LM,
                                  packet_bytes, gf) <= tu;
    } else if (algo != LINCOLL_ENCODE_ALGO_SPECIFIC) {
        specific = 0;
    }
    lc_enc_b_t b;
    st = lc_enc_begin(comm, specific ? "vandermonde_coset" : "universal", p, field, packet_bytes,
                      opts, &b);
    if (st != LINCOLL_OK) {
        free(pts);
        free(beta);
        return st;
    }
    int si = lc_plan_slot_user(b.plan, (void *)in, packet_bytes);
    int so = lc_plan_slot_user(b.plan, out, packet_bytes);
    if (si < 0 || so < 0) st = LINCOLL_ERR_NOMEM;
    lc_vdm_t v = {.f = field, .pts = pts, .beta = beta, .M = M, .a = me % M};
    if (st == LINCOLL_OK && specific) {
        lc_enc_group_t g1 = {.K = Z, .me = me / M, .off = me % M, .stride = M};
        lc_enc_group_t g2 = {.K = M, .me = me % M, .off = (me / M) * M, .stride = 1};
        int u = LM > 0 ? lc_enc_scratch(&b, 1) : so, r1 = 0, r2 = 0;
        if (u < 0) st = LINCOLL_ERR_NOMEM;
        if (st == LINCOLL_OK)
            st = lc_enc_ps_build(&b, &g1, mz, lc_vdm_stage1_coef, &v, lc_ref(si, 0), lc_ref(u, 0),
                                 0, &r1);
        if (st == LINCOLL_OK && LM > 0)
            st = lc_enc_fft_build(&b, &g2, P, LM, w, 0, 1, lc_ref(u, 0), lc_ref(so, 0), r1, &r2);
    } else if (st == LINCOLL_OK) {
        st = lc_enc_universal(&b, algo, K, me, lc_vdm_coef, &v, lc_ref(si, 0), lc_ref(so, 0));
    }
    free(pts);
    free(beta);
    return lc_enc_end(&b, st, plan_p);
}
