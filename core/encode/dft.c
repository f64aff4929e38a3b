/*
 * core/encode/dft.c: DFT all-to-all encode (specific algorithm) and the
 * radix-P butterfly compiler that the Vandermonde and Lagrange algorithms
 * reuse.
 *
 * What: K = P^L ranks (P = p + 1), w of order K (K | q - 1); rank k ends with
 * f(w^rev(k)), f(z) = sum_j x_j z^j, rev = base-P digit reversal
 * (decimation in frequency), or with sum_j x_j w^(rev(j) k) (decimation in
 * time, the transpose, used for interpolation).
 * Reference: Wang & Raviv, arXiv 2205.05183 (DFT with C1 = C2 = log_P K,
 * optimal by their Remark 2); the schedule: docs/encode.md, "DFT and butterflies".
 *
 * Round t = 1..L (DIF; DIT runs t = L..1) acts on digit s = L - t: rank k
 * (digit k_s, low = k mod P^s) sends its single packet on port rho to the
 * rank whose digit s is (k_s + rho) mod P and receives from (k_s - rho) mod P,
 * then v_k <- sum_c coef(c) v_{k[s<-c]} with
 *   DIF: coef(c) = w_t^(low k_s) w_P^(c k_s),  DIT: coef(c) = w_t^(low c) w_P^(k_s c),
 * w_t = w^(P^(t-1)), w_P = w^(P^(L-1)) (primitive P-th root).
 * Cost: C1 = C2 = L;  Time = L.(alpha + n.beta) + L.P.n.gamma_gf.
 * Natural order f(w^k) (LINCOLL_ENCODE_DFT_NATURAL): one more round that
 * sends v_k to rank rev(k) when L >= 2 (C1 = C2 = L + 1; L rounds of unit
 * messages cannot give it for K = 4, p = 1: docs/encode.md, "DFT and
 * butterflies"), or a universal algorithm on the natural DFT matrix, whichever
 * the model prefers.
 * Restrictions: specific schedule needs K = (p+1)^L and K | q - 1; GF(2^w)
 * never has p = 1 (2 does not divide 2^w - 1): use a prime field such as
 * 65537 or 998244353.  Scratch: P + 1 packets.
 */
#include <stdlib.h>

#include "core/base/log.h"
#include "core/encode/encode_int.h"

int lc_enc_rev(int k, int L, int P)
{
    int r = 0;
    for (int i = 0; i < L; i++) {
        r = r * P + k % P;
        k /= P;
    }
    return r;
}

lincoll_status_t lc_enc_fft_build(lc_enc_b_t *b, const lc_enc_group_t *g, int P, int L,
                                  uint64_t omega, int dit, uint64_t scale, lc_bufref_t in,
                                  lc_bufref_t out, int r0, int *rounds_p)
{
    const lincoll_field_t *f = b->f;
    const int me = g->me;
    const size_t B = b->B;
    lincoll_status_t st = LINCOLL_OK;
    *rounds_p = L;
    if (lc_enc_round(b, r0 + (L > 0 ? L - 1 : 0)) < 0) return LINCOLL_ERR_NOMEM;
    if (L == 0) {
        return lc_enc_lincomb(b, r0, 0, 1, &in, 1, &out, &scale);
    }
    int rs = lc_enc_scratch(b, (size_t)(P - 1));
    int ts = L > 1 ? lc_enc_scratch(b, 2) : 0;
    if (rs < 0 || ts < 0) return LINCOLL_ERR_NOMEM;
    lc_bufref_t src[64];
    uint64_t co[64];
    if (P > 64) return LINCOLL_ERR_INTERNAL;
    long PL1 = 1;
    for (int i = 0; i < L - 1; i++)
        PL1 *= P;
    uint64_t wP = lc_gf_pow(f, omega, (uint64_t)PL1);
    lc_bufref_t cur = in;
    for (int i = 0; st == LINCOLL_OK && i < L; i++) {
        int t = dit ? L - i : i + 1, s = L - t, r = r0 + i;
        long Ps = 1, Pt1 = 1;
        for (int e = 0; e < s; e++)
            Ps *= P;
        for (int e = 0; e < t - 1; e++)
            Pt1 *= P;
        int ks = (int)((me / Ps) % P);
        uint64_t low = (uint64_t)(me % Ps);
        uint64_t wt = lc_gf_pow(f, omega, (uint64_t)Pt1);
        src[0] = cur;
        int cs[64];
        cs[0] = ks;
        for (int rho = 1; st == LINCOLL_OK && rho < P; rho++) {
            int cto = (ks + rho) % P, cfrom = (ks - rho + P) % P;
            int to = me + (int)((cto - ks) * Ps), from = me + (int)((cfrom - ks) * Ps);
            src[rho] = lc_ref(rs, (size_t)(rho - 1) * B);
            cs[rho] = cfrom;
            st = lc_plan_recv(b->plan, r, lc_enc_real(g, from), src[rho], B);
            if (st == LINCOLL_OK) st = lc_plan_send(b->plan, r, lc_enc_real(g, to), cur, B);
        }
        for (int c = 0; c < P; c++) {
            uint64_t a, e1, e2;
            if (!dit) {
                e1 = low * (uint64_t)ks;
                e2 = (uint64_t)cs[c] * (uint64_t)ks;
            } else {
                e1 = low * (uint64_t)cs[c];
                e2 = (uint64_t)ks * (uint64_t)cs[c];
            }
            a = lc_gf_mul(f, lc_gf_pow(f, wt, e1), lc_gf_pow(f, wP, e2));
            co[c] = i == L - 1 ? lc_gf_mul(f, a, scale) : a;
        }
        lc_bufref_t dst = i == L - 1 ? out : lc_ref(ts, (size_t)(i % 2) * B);
        if (st == LINCOLL_OK) st = lc_enc_lincomb(b, r, 1, P, src, 1, &dst, co);
        cur = dst;
    }
    return st;
}

/* ---- the DFT as a matrix (universal algorithms) and as butterflies ------------------- */

uint64_t lc_dft_coef(const void *arg, int j, int k)
{
    const lc_dft_mat_t *d = arg;
    uint64_t e = ((uint64_t)j * (uint64_t)d->ord[k]) % (uint64_t)d->K;
    return lc_gf_mul(d->f, d->pw[e], d->scale);
}

/* the integer n as a field element */
uint64_t lc_enc_int_elem(const lincoll_field_t *f, uint64_t n)
{
    if (f->kind == LC_GF_KIND_GF8 || f->kind == LC_GF_KIND_GF16) return n & 1;
    return n % f->q;
}

lincoll_status_t lc_enc_dft_build(lc_enc_b_t *b, int K, int me, int P, int L, uint64_t w,
                                  uint64_t scale, int extra, lc_bufref_t in, lc_bufref_t out)
{
    lc_enc_group_t g = {.K = K, .me = me, .off = 0, .stride = 1};
    int rounds;
    lc_bufref_t dst = out;
    if (extra) {
        int tmp = lc_enc_scratch(b, 1);
        if (tmp < 0) return LINCOLL_ERR_NOMEM;
        dst = lc_ref(tmp, 0);
    }
    lincoll_status_t st = lc_enc_fft_build(b, &g, P, L, w, 0, scale, in, dst, 0, &rounds);
    if (st == LINCOLL_OK && extra) {
        int partner = lc_enc_rev(me, L, P), r = lc_enc_round(b, L);
        if (r < 0) {
            st = LINCOLL_ERR_NOMEM;
        } else if (partner == me) {
            st = lc_plan_copy(b->plan, r, 0, out, dst, b->B);
        } else {
            st = lc_plan_recv(b->plan, r, partner, out, b->B);
            if (st == LINCOLL_OK) st = lc_plan_send(b->plan, r, partner, dst, b->B);
        }
    }
    return st;
}
