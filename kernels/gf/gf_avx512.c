/*
 * kernels/gf/gf_avx512.c: AVX-512 (F/BW) kernels without GFNI.
 *
 * What: GF(2^8) and GF(2^16) with split-nibble vpshufb tables (the 16-byte
 * tables broadcast to the four lanes), and primes below 2^31.
 * - GF(2^8): c*x = T_lo[x & 15] ^ T_hi[x >> 4]; the nibble split is shared by
 *   up to 8 outputs x 2 vectors held in registers.
 * - GF(2^16): words are split into byte planes, each plane into two nibble
 *   planes; 4 nibbles x 2 output bytes = 8 tables.
 *   The GF(2^8)/GF(2^16) loop nests are gf_simd512_tmpl.h (shared with
 *   gf_gfni.c); this file only says how one coefficient multiplies a vector.
 * - p < 2^31 lincomb: products a*x (vpmuludq, 32x32->64) summed without
 *   reduction in 64-bit lanes, up to max_terms at a time (18 for 998244353),
 *   then one reduction: u = hi*2^32 + lo, both halves through Shoup's
 *   multiply (Harvey 2014) into [0, 2p), two conditional subtractions.
 *   mad: Shoup multiply per element, lazily corrected to [0, p).
 * - Goldilocks p = 2^64 - 2^32 + 1: 64x64->128 from four vpmuludq, then
 *   2^64 = 2^32 - 1 and 2^96 = -1 (mod p) reduce the 128-bit product with
 *   adds, subtracts and compare masks (plonky2's AVX-512 Goldilocks field);
 *   lincomb sums the products lazily in four words per lane and reduces once
 *   per output (lc_gl512_fold), mad reduces every product.
 * Reference: ISA-L gf_*vect_dot_prod_avx512.asm; gf-complete SPLIT 16 4;
 * D. Harvey, "Faster arithmetic for number-theoretic transforms" (2014);
 * plonky2 field/src/arch/x86_64/avx512_goldilocks_field.rs.
 * Cost per (source, output) per 64 bytes: GF(2^8) 2 vpshufb + 1 ternlog;
 * GF(2^16) 4 vpshufb + 2 ternlog; p32 2 vpmuludq + 2 vpaddq (+ ~32 ops per
 * output per 16 elements for the final reduction); Goldilocks (8 elements)
 * 4 vpmuludq + ~15 ops (+ ~20 per output for the fold).
 * Restrictions: tails below one block run the base code.
 */
#include "gf_kernels.h"

#include <immintrin.h>

#define LC_AI            static inline __attribute__((always_inline))
#define LC_XOR3(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0x96)
#define LC_RMAX          8
#define GL_RMAX          4 /* 4 accumulators per output */

LC_AI __m512i lc_tab512(const uint8_t *t)
{
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t));
}

/* GF(2^8): a source is its two nibble planes; a coefficient its two tables. */
typedef struct {
    __m512i lo, hi;
} gf8_src_t;
typedef struct {
    __m512i tl, th;
} gf8_coef_t;

LC_AI gf8_src_t gf8_prep(__m512i x)
{
    const __m512i m0f = _mm512_set1_epi8(0x0f);
    gf8_src_t s = {_mm512_and_si512(x, m0f), _mm512_and_si512(_mm512_srli_epi16(x, 4), m0f)};
    return s;
}

LC_AI gf8_coef_t gf8_coef(const lincoll_gf_coeffs_t *c, size_t e)
{
    gf8_coef_t a = {lc_tab512(c->nib + 32 * e), lc_tab512(c->nib + 32 * e + 16)};
    return a;
}

LC_AI __m512i gf8_mac(__m512i acc, gf8_coef_t a, gf8_src_t x)
{
    return LC_XOR3(acc, _mm512_shuffle_epi8(a.tl, x.lo), _mm512_shuffle_epi8(a.th, x.hi));
}

LC_AI __m512i gf8_mac2(__m512i acc, gf8_coef_t a0, gf8_src_t x0, gf8_coef_t a1, gf8_src_t x1)
{
    return gf8_mac(gf8_mac(acc, a0, x0), a1, x1);
}

/* GF(2^16): 4 nibble planes (low byte lo/hi, high byte lo/hi); a coefficient
 * is the 8 tables T[n][b] (nibble n, output byte b). */
typedef struct {
    __m512i nb[4];
} gf16_src_t;
typedef struct {
    const uint8_t *t;
} gf16_coef_t;

/* 128 bytes of words -> byte planes (vpackuswb keeps the lane order that
 * vpunpck[lh]bw undoes in gf16_join) -> 4 nibble planes. */
LC_AI gf16_src_t gf16_load(const uint8_t *s)
{
    const __m512i m00ff = _mm512_set1_epi16(0x00ff), m0f = _mm512_set1_epi8(0x0f);
    __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + 64);
    __m512i xl = _mm512_packus_epi16(_mm512_and_si512(a, m00ff), _mm512_and_si512(b, m00ff));
    __m512i xh = _mm512_packus_epi16(_mm512_srli_epi16(a, 8), _mm512_srli_epi16(b, 8));
    gf16_src_t x;
    x.nb[0] = _mm512_and_si512(xl, m0f);
    x.nb[1] = _mm512_and_si512(_mm512_srli_epi16(xl, 4), m0f);
    x.nb[2] = _mm512_and_si512(xh, m0f);
    x.nb[3] = _mm512_and_si512(_mm512_srli_epi16(xh, 4), m0f);
    return x;
}

LC_AI void gf16_join(__m512i yl, __m512i yh, __m512i *o0, __m512i *o1)
{
    *o0 = _mm512_unpacklo_epi8(yl, yh);
    *o1 = _mm512_unpackhi_epi8(yl, yh);
}

LC_AI gf16_coef_t gf16_coef(const lincoll_gf_coeffs_t *c, size_t e)
{
    gf16_coef_t a = {c->nib + 128 * e};
    return a;
}

LC_AI void gf16_mac(__m512i *yl, __m512i *yh, gf16_coef_t a, gf16_src_t x)
{
    const uint8_t *t = a.t;
    __m512i l01 = _mm512_xor_si512(_mm512_shuffle_epi8(lc_tab512(t + 0 * 16), x.nb[0]),
                                   _mm512_shuffle_epi8(lc_tab512(t + 2 * 16), x.nb[1]));
    __m512i h01 = _mm512_xor_si512(_mm512_shuffle_epi8(lc_tab512(t + 1 * 16), x.nb[0]),
                                   _mm512_shuffle_epi8(lc_tab512(t + 3 * 16), x.nb[1]));
    *yl = LC_XOR3(*yl, l01,
                  _mm512_xor_si512(_mm512_shuffle_epi8(lc_tab512(t + 4 * 16), x.nb[2]),
                                   _mm512_shuffle_epi8(lc_tab512(t + 6 * 16), x.nb[3])));
    *yh = LC_XOR3(*yh, h01,
                  _mm512_xor_si512(_mm512_shuffle_epi8(lc_tab512(t + 5 * 16), x.nb[2]),
                                   _mm512_shuffle_epi8(lc_tab512(t + 7 * 16), x.nb[3])));
}

#define LC_FN(name) name##_avx512
#define LC_TMPL_ISA LC_ISA_AVX512
#define GF8_RMAX    8
#define GF8_NV(R)   2
#define GF16_RMAX   8
#define GF16_NV(R)  1
#include "gf_simd512_tmpl.h"

/* ------------------------------------------------------------ p < 2^31 */

typedef struct {
    __m512i p, p2, r1, r1s, ones, lo32;
} lc_p32_consts_t;

LC_AI lc_p32_consts_t lc_p32_consts(const lincoll_field_t *f)
{
    lc_p32_consts_t k;
    k.p = _mm512_set1_epi64(f->p);
    k.p2 = _mm512_set1_epi64(2 * (uint64_t)f->p);
    k.r1 = _mm512_set1_epi64(f->r32);
    k.r1s = _mm512_set1_epi64(f->r32_shoup);
    k.ones = _mm512_set1_epi64(f->one_shoup);
    k.lo32 = _mm512_set1_epi64(0xffffffffll);
    return k;
}

/* u (any 64-bit lanes) -> u mod p in [0, p). */
LC_AI __m512i lc_p32_reduce64(__m512i u, const lc_p32_consts_t *K)
{
    __m512i hi = _mm512_srli_epi64(u, 32), lo = _mm512_and_si512(u, K->lo32);
    __m512i q1 = _mm512_srli_epi64(_mm512_mul_epu32(hi, K->r1s), 32);
    __m512i r1 = _mm512_sub_epi64(_mm512_mul_epu32(hi, K->r1), _mm512_mul_epu32(q1, K->p));
    __m512i q2 = _mm512_srli_epi64(_mm512_mul_epu32(lo, K->ones), 32);
    __m512i r2 = _mm512_sub_epi64(lo, _mm512_mul_epu32(q2, K->p));
    __m512i t = _mm512_add_epi64(r1, r2);
    t = _mm512_min_epu64(t, _mm512_sub_epi64(t, K->p2));
    return _mm512_min_epu64(t, _mm512_sub_epi64(t, K->p));
}

LC_AI void p32_avx512_rows(const int R, const int PF, const lincoll_gf_coeffs_t *c, int j0,
                           const void *const *src, void *const *dst, size_t off, size_t n,
                           size_t pf)
{
    const int k = c->k;
    const int T = (int)(c->field->max_terms < (unsigned)k ? c->field->max_terms : (unsigned)k);
    const uint32_t *a32 = c->a32 + (size_t)j0 * k;
    const lc_p32_consts_t K = lc_p32_consts(c->field);
    for (size_t p = off; p < off + n; p += 64) {
        __m512i ae[LC_RMAX], ao[LC_RMAX];
#pragma GCC unroll 8
        for (int j = 0; j < R; j++)
            ae[j] = ao[j] = _mm512_setzero_si512();
        for (int i0 = 0; i0 < k; i0 += T) {
            int i1 = i0 + T < k ? i0 + T : k;
            for (int i = i0; i < i1; i++) {
                if (PF) _mm_prefetch((const char *)src[i] + p + pf, _MM_HINT_T0);
                __m512i x = _mm512_loadu_si512((const uint8_t *)src[i] + p);
                __m512i xo = _mm512_srli_epi64(x, 32);
#pragma GCC unroll 8
                for (int j = 0; j < R; j++) {
                    __m512i a = _mm512_set1_epi32((int)a32[(size_t)j * k + i]);
                    ae[j] = _mm512_add_epi64(ae[j], _mm512_mul_epu32(x, a));
                    ao[j] = _mm512_add_epi64(ao[j], _mm512_mul_epu32(xo, a));
                }
            }
            if (i1 < k) {
#pragma GCC unroll 8
                for (int j = 0; j < R; j++) {
                    ae[j] = lc_p32_reduce64(ae[j], &K);
                    ao[j] = lc_p32_reduce64(ao[j], &K);
                }
            }
        }
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            __m512i re = lc_p32_reduce64(ae[j], &K), ro = lc_p32_reduce64(ao[j], &K);
            _mm512_storeu_si512((uint8_t *)dst[j0 + j] + p,
                                _mm512_or_si512(re, _mm512_slli_epi64(ro, 32)));
        }
    }
}

#define LC_P32_AVX512_R(R)                                                                         \
    static void p32_avx512_r##R(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,      \
                                void *const *dst, size_t off, size_t n, size_t pf)                 \
    {                                                                                              \
        if (pf)                                                                                    \
            p32_avx512_rows(R, 1, c, j0, src, dst, off, n, pf);                                    \
        else                                                                                       \
            p32_avx512_rows(R, 0, c, j0, src, dst, off, n, 0);                                     \
    }
LC_P32_AVX512_R(1)
LC_P32_AVX512_R(2)
LC_P32_AVX512_R(3)
LC_P32_AVX512_R(4)
LC_P32_AVX512_R(5)
LC_P32_AVX512_R(6)
LC_P32_AVX512_R(7)
LC_P32_AVX512_R(8)

static const lc_gf_rows_fn_t p32_avx512_rows_fn[LC_RMAX + 1] = {
    NULL,          p32_avx512_r1, p32_avx512_r2, p32_avx512_r3, p32_avx512_r4,
    p32_avx512_r5, p32_avx512_r6, p32_avx512_r7, p32_avx512_r8,
};

void lc_gfp32_lincomb_avx512(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                             void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    lc_gf_run_blocks(p32_avx512_rows_fn, LC_RMAX, c, nv, 64, gf_pf_avx512(c, len), src, dst);
    if (nv < len) lc_gfp32_lincomb_range_base(c, nv, len, src, dst);
}

void lc_gfp32_mad_avx512(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                         void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    const __m512i P = _mm512_set1_epi32((int)c->field->p);
    for (size_t p = 0; p < nv; p += 64) {
        __m512i x = _mm512_loadu_si512((const uint8_t *)src + p);
        __m512i xo = _mm512_srli_epi64(x, 32);
        for (int j = 0; j < c->r; j++) {
            size_t e = (size_t)j * c->k + col;
            __m512i a = _mm512_set1_epi32((int)c->a32[e]), as = _mm512_set1_epi32((int)c->s32[e]);
            __m512i he = _mm512_srli_epi64(_mm512_mul_epu32(x, as), 32);
            __m512i ho = _mm512_mul_epu32(xo, as);
            __m512i q = _mm512_mask_blend_epi32(0xAAAA, he, ho);
            __m512i r = _mm512_sub_epi32(_mm512_mullo_epi32(x, a), _mm512_mullo_epi32(q, P));
            r = _mm512_min_epu32(r, _mm512_sub_epi32(r, P));
            uint8_t *d = (uint8_t *)dst[j] + p;
            __m512i s = _mm512_add_epi32(_mm512_loadu_si512(d), r);
            _mm512_storeu_si512(d, _mm512_min_epu32(s, _mm512_sub_epi32(s, P)));
        }
    }
    if (nv < len) lc_gfp32_mad_range_base(c, nv, len, col, src, dst);
}

/* --------------------------------------------------------- Goldilocks */

/* Products and sums of canonical elements (< p) in 8 x 64-bit lanes. */
typedef struct {
    __m512i lo32, eps, p;
} lc_gl512_t;

LC_AI lc_gl512_t lc_gl512_consts(void)
{
    lc_gl512_t K = {_mm512_set1_epi64(0xffffffffll), _mm512_set1_epi64((long long)LC_GF_GL_EPS),
                    _mm512_set1_epi64((long long)LINCOLL_GF_GOLDILOCKS)};
    return K;
}

/* a*x mod p, canonical: x and xh = x >> 32 per source, a as (al, ah) 32-bit
 * halves in the low dword of each lane.  128-bit product from four
 * vpmuludq, then x = lo + 2^64 hl + 2^96 hh = lo - hh + hl (2^32 - 1). */
LC_AI __m512i lc_gl512_mul(__m512i x, __m512i xh, __m512i al, __m512i ah, const lc_gl512_t *K)
{
    __m512i ll = _mm512_mul_epu32(x, al), lh = _mm512_mul_epu32(x, ah);
    __m512i hl = _mm512_mul_epu32(xh, al), hh = _mm512_mul_epu32(xh, ah);
    __m512i mid = _mm512_add_epi64(lh, _mm512_srli_epi64(ll, 32)); /* < 2^64, no carry */
    __m512i mid2 = _mm512_add_epi64(hl, _mm512_and_si512(mid, K->lo32));
    __m512i lo = _mm512_or_si512(_mm512_slli_epi64(mid2, 32), _mm512_and_si512(ll, K->lo32));
    __m512i hi = _mm512_add_epi64(
        hh, _mm512_add_epi64(_mm512_srli_epi64(mid, 32), _mm512_srli_epi64(mid2, 32)));
    __m512i top = _mm512_srli_epi64(hi, 32), h32 = _mm512_and_si512(hi, K->lo32);
    __m512i t0 = _mm512_sub_epi64(lo, top);
    t0 = _mm512_mask_sub_epi64(t0, _mm512_cmplt_epu64_mask(lo, top), t0, K->eps);
    __m512i t1 = _mm512_sub_epi64(_mm512_slli_epi64(h32, 32), h32);
    __m512i t2 = _mm512_add_epi64(t0, t1);
    t2 = _mm512_mask_add_epi64(t2, _mm512_cmplt_epu64_mask(t2, t1), t2, K->eps);
    return _mm512_mask_sub_epi64(t2, _mm512_cmpge_epu64_mask(t2, K->p), t2, K->p);
}

/* a + b mod p for canonical a, b. */
LC_AI __m512i lc_gl512_add(__m512i a, __m512i b, const lc_gl512_t *K)
{
    __m512i s = _mm512_add_epi64(a, b);
    s = _mm512_mask_add_epi64(s, _mm512_cmplt_epu64_mask(s, a), s, K->eps);
    return _mm512_mask_sub_epi64(s, _mm512_cmpge_epu64_mask(s, K->p), s, K->p);
}

/* Lazy sum of products for lincomb: sum a_i x_i = L + 2^64 (C + H) + 2^96 T
 * with L the low words mod 2^64, C the carries out of L, and H, T the sums
 * of the low and high 32-bit halves of the high words.  k <= 1024 keeps
 * C + H and T below 2^43, so no lane overflows and the reduction runs once
 * per output (lc_gl512_fold), not once per term. */
typedef struct {
    __m512i l, c, h, t;
} lc_gl512_acc_t;

LC_AI void lc_gl512_mac(lc_gl512_acc_t *A, __m512i x, __m512i xh, __m512i al, __m512i ah,
                        const lc_gl512_t *K)
{
    __m512i ll = _mm512_mul_epu32(x, al), lh = _mm512_mul_epu32(x, ah);
    __m512i hl = _mm512_mul_epu32(xh, al), hh = _mm512_mul_epu32(xh, ah);
    __m512i mid = _mm512_add_epi64(lh, _mm512_srli_epi64(ll, 32));
    __m512i mid2 = _mm512_add_epi64(hl, _mm512_and_si512(mid, K->lo32));
    __m512i lo = _mm512_or_si512(_mm512_slli_epi64(mid2, 32), _mm512_and_si512(ll, K->lo32));
    __m512i hi = _mm512_add_epi64(
        hh, _mm512_add_epi64(_mm512_srli_epi64(mid, 32), _mm512_srli_epi64(mid2, 32)));
    A->l = _mm512_add_epi64(A->l, lo);
    A->c =
        _mm512_mask_sub_epi64(A->c, _mm512_cmplt_epu64_mask(A->l, lo), A->c, _mm512_set1_epi64(-1));
    A->h = _mm512_add_epi64(A->h, _mm512_and_si512(hi, K->lo32));
    A->t = _mm512_add_epi64(A->t, _mm512_srli_epi64(hi, 32));
}

/* x - p where x >= p (x < 2p). */
LC_AI __m512i lc_gl512_canon(__m512i x, const lc_gl512_t *K)
{
    return _mm512_mask_sub_epi64(x, _mm512_cmpge_epu64_mask(x, K->p), x, K->p);
}

/* The canonical value of a lazy sum: with M = C + H = Mh 2^32 + Ml,
 * 2^64 = 2^32 - 1 and 2^96 = -1 give L + Ml 2^32 + Mh (2^32 - 1) - M - T. */
LC_AI __m512i lc_gl512_fold(lc_gl512_acc_t A, const lc_gl512_t *K)
{
    __m512i m = _mm512_add_epi64(A.c, A.h);
    __m512i mh = _mm512_srli_epi64(m, 32);
    __m512i r = lc_gl512_canon(A.l, K);
    r = lc_gl512_add(r, lc_gl512_canon(_mm512_slli_epi64(m, 32), K), K);
    r = lc_gl512_add(r, _mm512_sub_epi64(_mm512_slli_epi64(mh, 32), mh), K);
    __m512i sub = _mm512_add_epi64(m, A.t); /* < 2^44 < p */
    __m512i d = _mm512_sub_epi64(r, sub);
    return _mm512_mask_add_epi64(d, _mm512_cmplt_epu64_mask(r, sub), d, K->p);
}

LC_AI void gl_avx512_rows(const int R, const int PF, const lincoll_gf_coeffs_t *c, int j0,
                          const void *const *src, void *const *dst, size_t off, size_t n, size_t pf)
{
    const int k = c->k;
    const uint64_t *m = c->m + (size_t)j0 * k;
    const lc_gl512_t K = lc_gl512_consts();
    for (size_t p = off; p < off + n; p += 64) {
        lc_gl512_acc_t acc[GL_RMAX];
#pragma GCC unroll 8
        for (int j = 0; j < R; j++)
            acc[j].l = acc[j].c = acc[j].h = acc[j].t = _mm512_setzero_si512();
        for (int i = 0; i < k; i++) {
            if (PF) _mm_prefetch((const char *)src[i] + p + pf, _MM_HINT_T0);
            __m512i x = _mm512_loadu_si512((const uint8_t *)src[i] + p);
            __m512i xh = _mm512_srli_epi64(x, 32);
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                uint64_t a = m[(size_t)j * k + i];
                __m512i al = _mm512_set1_epi32((int)(uint32_t)a);
                __m512i ah = _mm512_set1_epi32((int)(uint32_t)(a >> 32));
                lc_gl512_mac(&acc[j], x, xh, al, ah, &K);
            }
        }
#pragma GCC unroll 8
        for (int j = 0; j < R; j++)
            _mm512_storeu_si512((uint8_t *)dst[j0 + j] + p, lc_gl512_fold(acc[j], &K));
    }
}

#define LC_GL_AVX512_R(R)                                                                          \
    static void gl_avx512_r##R(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,       \
                               void *const *dst, size_t off, size_t n, size_t pf)                  \
    {                                                                                              \
        if (pf)                                                                                    \
            gl_avx512_rows(R, 1, c, j0, src, dst, off, n, pf);                                     \
        else                                                                                       \
            gl_avx512_rows(R, 0, c, j0, src, dst, off, n, 0);                                      \
    }
LC_GL_AVX512_R(1)
LC_GL_AVX512_R(2)
LC_GL_AVX512_R(3)
LC_GL_AVX512_R(4)

static const lc_gf_rows_fn_t gl_avx512_rows_fn[GL_RMAX + 1] = {
    NULL, gl_avx512_r1, gl_avx512_r2, gl_avx512_r3, gl_avx512_r4,
};

void lc_gfp64_lincomb_avx512(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                             void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    lc_gf_run_blocks(gl_avx512_rows_fn, GL_RMAX, c, nv, 64, gf_pf_avx512(c, len), src, dst);
    if (nv < len) lc_gfp64_lincomb_range_base(c, nv, len, src, dst);
}

void lc_gfp64_mad_avx512(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                         void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    const lc_gl512_t K = lc_gl512_consts();
    for (size_t p = 0; p < nv; p += 64) {
        __m512i x = _mm512_loadu_si512((const uint8_t *)src + p);
        __m512i xh = _mm512_srli_epi64(x, 32);
        for (int j = 0; j < c->r; j++) {
            uint64_t a = c->m[(size_t)j * c->k + col];
            __m512i al = _mm512_set1_epi32((int)(uint32_t)a);
            __m512i ah = _mm512_set1_epi32((int)(uint32_t)(a >> 32));
            uint8_t *d = (uint8_t *)dst[j] + p;
            _mm512_storeu_si512(
                d, lc_gl512_add(_mm512_loadu_si512(d), lc_gl512_mul(x, xh, al, ah, &K), &K));
        }
    }
    if (nv < len) lc_gfp64_mad_range_base(c, nv, len, col, src, dst);
}
