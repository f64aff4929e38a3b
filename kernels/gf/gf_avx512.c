/*
 * kernels/gf/gf_avx512.c: AVX-512 (F/BW) kernels without GFNI.
 *
 * What: GF(2^8) and GF(2^16) with split-nibble vpshufb tables (the 16-byte
 * tables broadcast to the four lanes), and primes below 2^31.
 * - GF(2^8): c*x = T_lo[x & 15] ^ T_hi[x >> 4]; the nibble split is shared by
 *   up to 8 outputs x 2 vectors held in registers.
 * - GF(2^16): words are split into byte planes (as in gf_gfni.c), each plane
 *   into two nibble planes; 4 nibbles x 2 output bytes = 8 tables.
 * - p < 2^31 lincomb: products a*x (vpmuludq, 32x32->64) summed without
 *   reduction in 64-bit lanes, up to max_terms at a time (18 for 998244353),
 *   then one reduction: u = hi*2^32 + lo, both halves through Shoup's
 *   multiply (Harvey 2014) into [0, 2p), two conditional subtractions.
 *   mad: Shoup multiply per element, lazily corrected to [0, p).
 * Reference: ISA-L gf_*vect_dot_prod_avx512.asm; gf-complete SPLIT 16 4;
 * D. Harvey, "Faster arithmetic for number-theoretic transforms" (2014).
 * Cost per (source, output) per 64 bytes: GF(2^8) 2 vpshufb + 1 ternlog;
 * GF(2^16) 4 vpshufb + 2 ternlog; p32 2 vpmuludq + 2 vpaddq (+ ~32 ops per
 * output per 16 elements for the final reduction).
 * Restrictions: tails below one block run the base code.
 */
#include "kernels/gf/gf_kernels.h"

#include <immintrin.h>

#define LC_AI            static inline __attribute__((always_inline))
#define LC_XOR3(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0x96)
#define LC_RMAX          8

LC_AI __m512i lc_tab512(const uint8_t *t)
{
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t));
}

/* ------------------------------------------------------------ GF(2^8) */

LC_AI void gf8_avx512_rows(const int R, const int NV, const lincoll_gf_coeffs_t *c, int j0,
                           const void *const *src, void *const *dst, size_t off, size_t n)
{
    const int k = c->k;
    const uint8_t *nib = c->nib + 32 * (size_t)j0 * k;
    const __m512i m0f = _mm512_set1_epi8(0x0f);
    for (size_t p = off; p < off + n; p += 64 * (size_t)NV) {
        __m512i acc[LC_RMAX][2];
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            for (int v = 0; v < NV; v++)
                acc[j][v] = _mm512_setzero_si512();
        }
        for (int i = 0; i < k; i++) {
            const uint8_t *s = (const uint8_t *)src[i] + p;
            __m512i lo[2], hi[2];
            for (int v = 0; v < NV; v++) {
                __m512i x = _mm512_loadu_si512(s + 64 * v);
                lo[v] = _mm512_and_si512(x, m0f);
                hi[v] = _mm512_and_si512(_mm512_srli_epi16(x, 4), m0f);
            }
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                const uint8_t *t = nib + 32 * ((size_t)j * k + i);
                __m512i tl = lc_tab512(t), th = lc_tab512(t + 16);
                for (int v = 0; v < NV; v++) {
                    acc[j][v] = LC_XOR3(acc[j][v], _mm512_shuffle_epi8(tl, lo[v]),
                                        _mm512_shuffle_epi8(th, hi[v]));
                }
            }
        }
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            uint8_t *d = (uint8_t *)dst[j0 + j] + p;
            for (int v = 0; v < NV; v++)
                _mm512_storeu_si512(d + 64 * v, acc[j][v]);
        }
    }
}

#define LC_GF8_AVX512_R(R)                                                                         \
    static void gf8_avx512_r##R(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,      \
                                void *const *dst, size_t off, size_t n)                            \
    {                                                                                              \
        size_t n2 = n & ~(size_t)127;                                                              \
        gf8_avx512_rows(R, 2, c, j0, src, dst, off, n2);                                           \
        if (n2 < n) gf8_avx512_rows(R, 1, c, j0, src, dst, off + n2, n - n2);                      \
    }
LC_GF8_AVX512_R(1)
LC_GF8_AVX512_R(2)
LC_GF8_AVX512_R(3)
LC_GF8_AVX512_R(4)
LC_GF8_AVX512_R(5)
LC_GF8_AVX512_R(6)
LC_GF8_AVX512_R(7)
LC_GF8_AVX512_R(8)

static const lc_gf_rows_fn_t gf8_avx512_rows_fn[LC_RMAX + 1] = {
    NULL,          gf8_avx512_r1, gf8_avx512_r2, gf8_avx512_r3, gf8_avx512_r4,
    gf8_avx512_r5, gf8_avx512_r6, gf8_avx512_r7, gf8_avx512_r8,
};

void lc_gf8_lincomb_avx512(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                           void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    lc_gf_run_blocks(gf8_avx512_rows_fn, LC_RMAX, c, nv, 128, src, dst);
    if (nv < len) lc_gf8_lincomb_range_base(c, nv, len, src, dst);
}

void lc_gf8_mad_avx512(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                       void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    const uint8_t *s = src;
    const __m512i m0f = _mm512_set1_epi8(0x0f);
    for (size_t p = 0; p < nv; p += 64) {
        __m512i x = _mm512_loadu_si512(s + p);
        __m512i lo = _mm512_and_si512(x, m0f);
        __m512i hi = _mm512_and_si512(_mm512_srli_epi16(x, 4), m0f);
        for (int j = 0; j < c->r; j++) {
            const uint8_t *t = c->nib + 32 * ((size_t)j * c->k + col);
            uint8_t *d = (uint8_t *)dst[j] + p;
            __m512i r = LC_XOR3(_mm512_loadu_si512(d), _mm512_shuffle_epi8(lc_tab512(t), lo),
                                _mm512_shuffle_epi8(lc_tab512(t + 16), hi));
            _mm512_storeu_si512(d, r);
        }
    }
    if (nv < len) lc_gf8_mad_range_base(c, nv, len, col, src, dst);
}

/* ----------------------------------------------------------- GF(2^16) */

/* 128 bytes of words -> 4 nibble planes: low byte lo/hi nibble, high byte lo/hi. */
LC_AI void gf16_nibbles512(const uint8_t *s, __m512i nb[4])
{
    const __m512i m00ff = _mm512_set1_epi16(0x00ff), m0f = _mm512_set1_epi8(0x0f);
    __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + 64);
    __m512i xl = _mm512_packus_epi16(_mm512_and_si512(a, m00ff), _mm512_and_si512(b, m00ff));
    __m512i xh = _mm512_packus_epi16(_mm512_srli_epi16(a, 8), _mm512_srli_epi16(b, 8));
    nb[0] = _mm512_and_si512(xl, m0f);
    nb[1] = _mm512_and_si512(_mm512_srli_epi16(xl, 4), m0f);
    nb[2] = _mm512_and_si512(xh, m0f);
    nb[3] = _mm512_and_si512(_mm512_srli_epi16(xh, 4), m0f);
}

/* c*x as (low-byte plane, high-byte plane) from the 8 tables T[n][b]. */
LC_AI void gf16_mul512(const uint8_t *t, const __m512i nb[4], __m512i *yl, __m512i *yh)
{
    __m512i l01 = _mm512_xor_si512(_mm512_shuffle_epi8(lc_tab512(t + 0 * 16), nb[0]),
                                   _mm512_shuffle_epi8(lc_tab512(t + 2 * 16), nb[1]));
    __m512i h01 = _mm512_xor_si512(_mm512_shuffle_epi8(lc_tab512(t + 1 * 16), nb[0]),
                                   _mm512_shuffle_epi8(lc_tab512(t + 3 * 16), nb[1]));
    *yl = LC_XOR3(*yl, l01,
                  _mm512_xor_si512(_mm512_shuffle_epi8(lc_tab512(t + 4 * 16), nb[2]),
                                   _mm512_shuffle_epi8(lc_tab512(t + 6 * 16), nb[3])));
    *yh = LC_XOR3(*yh, h01,
                  _mm512_xor_si512(_mm512_shuffle_epi8(lc_tab512(t + 5 * 16), nb[2]),
                                   _mm512_shuffle_epi8(lc_tab512(t + 7 * 16), nb[3])));
}

LC_AI void gf16_avx512_rows(const int R, const lincoll_gf_coeffs_t *c, int j0,
                            const void *const *src, void *const *dst, size_t off, size_t n)
{
    const int k = c->k;
    const uint8_t *nib = c->nib + 128 * (size_t)j0 * k;
    for (size_t p = off; p < off + n; p += 128) {
        __m512i yl[LC_RMAX], yh[LC_RMAX];
#pragma GCC unroll 8
        for (int j = 0; j < R; j++)
            yl[j] = yh[j] = _mm512_setzero_si512();
        for (int i = 0; i < k; i++) {
            __m512i nb[4];
            gf16_nibbles512((const uint8_t *)src[i] + p, nb);
#pragma GCC unroll 8
            for (int j = 0; j < R; j++)
                gf16_mul512(nib + 128 * ((size_t)j * k + i), nb, &yl[j], &yh[j]);
        }
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            uint8_t *d = (uint8_t *)dst[j0 + j] + p;
            _mm512_storeu_si512(d, _mm512_unpacklo_epi8(yl[j], yh[j]));
            _mm512_storeu_si512(d + 64, _mm512_unpackhi_epi8(yl[j], yh[j]));
        }
    }
}

#define LC_GF16_AVX512_R(R)                                                                        \
    static void gf16_avx512_r##R(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,     \
                                 void *const *dst, size_t off, size_t n)                           \
    {                                                                                              \
        gf16_avx512_rows(R, c, j0, src, dst, off, n);                                              \
    }
LC_GF16_AVX512_R(1)
LC_GF16_AVX512_R(2)
LC_GF16_AVX512_R(3)
LC_GF16_AVX512_R(4)
LC_GF16_AVX512_R(5)
LC_GF16_AVX512_R(6)
LC_GF16_AVX512_R(7)
LC_GF16_AVX512_R(8)

static const lc_gf_rows_fn_t gf16_avx512_rows_fn[LC_RMAX + 1] = {
    NULL,           gf16_avx512_r1, gf16_avx512_r2, gf16_avx512_r3, gf16_avx512_r4,
    gf16_avx512_r5, gf16_avx512_r6, gf16_avx512_r7, gf16_avx512_r8,
};

void lc_gf16_lincomb_avx512(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                            void *const *dst)
{
    size_t nv = len & ~(size_t)127;
    lc_gf_run_blocks(gf16_avx512_rows_fn, LC_RMAX, c, nv, 128, src, dst);
    if (nv < len) lc_gf16_lincomb_range_base(c, nv, len, src, dst);
}

void lc_gf16_mad_avx512(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                        void *const *dst)
{
    size_t nv = len & ~(size_t)127;
    for (size_t p = 0; p < nv; p += 128) {
        __m512i nb[4];
        gf16_nibbles512((const uint8_t *)src + p, nb);
        for (int j = 0; j < c->r; j++) {
            __m512i yl = _mm512_setzero_si512(), yh = _mm512_setzero_si512();
            gf16_mul512(c->nib + 128 * ((size_t)j * c->k + col), nb, &yl, &yh);
            uint8_t *d = (uint8_t *)dst[j] + p;
            _mm512_storeu_si512(
                d, _mm512_xor_si512(_mm512_loadu_si512(d), _mm512_unpacklo_epi8(yl, yh)));
            _mm512_storeu_si512(
                d + 64, _mm512_xor_si512(_mm512_loadu_si512(d + 64), _mm512_unpackhi_epi8(yl, yh)));
        }
    }
    if (nv < len) lc_gf16_mad_range_base(c, nv, len, col, src, dst);
}

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

LC_AI void p32_avx512_rows(const int R, const lincoll_gf_coeffs_t *c, int j0,
                           const void *const *src, void *const *dst, size_t off, size_t n)
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
                                void *const *dst, size_t off, size_t n)                            \
    {                                                                                              \
        p32_avx512_rows(R, c, j0, src, dst, off, n);                                               \
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
    lc_gf_run_blocks(p32_avx512_rows_fn, LC_RMAX, c, nv, 64, src, dst);
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
