/*
 * kernels/gf/gf_avx2.c: AVX2 kernels (no AVX-512, no GFNI).
 *
 * What: GF(2^8) and GF(2^16) with split-nibble vpshufb tables (loaded with
 * vbroadcasti128), and primes below 2^31 with Shoup's multiply per term,
 * accumulating in [0, p) with two min-based corrections.
 * Reference: ISA-L gf_*vect_dot_prod_avx2.asm (and PR #365, broadcast table
 * loads); gf-complete SPLIT 16 4; Harvey 2014 for Shoup.
 * Cost per (source, output) per 32 bytes: GF(2^8) 2 vpshufb + 2 xor;
 * GF(2^16) 4 vpshufb + 4 xor; p32 (8 elements) 2 vpmuludq + 2 vpmulld + 7.
 * Restrictions: 16 ymm registers, so at most 6 (GF(2^8)) or 4 outputs per
 * block; tails below one block run the base code.
 */
#include "gf_kernels.h"

#include <immintrin.h>

#define LC_AI static inline __attribute__((always_inline))

LC_AI __m256i lc_tab256(const uint8_t *t)
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}

/* ------------------------------------------------------------ GF(2^8) */

#define GF8_RMAX 6

LC_AI void gf8_avx2_rows(const int R, const lincoll_gf_coeffs_t *c, int j0, const void *const *src,
                         void *const *dst, size_t off, size_t n)
{
    const int k = c->k;
    const uint8_t *nib = c->nib + 32 * (size_t)j0 * k;
    const __m256i m0f = _mm256_set1_epi8(0x0f);
    for (size_t p = off; p < off + n; p += 32) {
        __m256i acc[GF8_RMAX];
#pragma GCC unroll 8
        for (int j = 0; j < R; j++)
            acc[j] = _mm256_setzero_si256();
        for (int i = 0; i < k; i++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)((const uint8_t *)src[i] + p));
            __m256i lo = _mm256_and_si256(x, m0f);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), m0f);
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                const uint8_t *t = nib + 32 * ((size_t)j * k + i);
                acc[j] = _mm256_xor_si256(
                    acc[j], _mm256_xor_si256(_mm256_shuffle_epi8(lc_tab256(t), lo),
                                             _mm256_shuffle_epi8(lc_tab256(t + 16), hi)));
            }
        }
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            _mm256_storeu_si256((__m256i *)((uint8_t *)dst[j0 + j] + p), acc[j]);
        }
    }
}

#define LC_GF8_AVX2_R(R)                                                                           \
    static void gf8_avx2_r##R(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,        \
                              void *const *dst, size_t off, size_t n, size_t pf)                   \
    {                                                                                              \
        (void)pf;                                                                                  \
        gf8_avx2_rows(R, c, j0, src, dst, off, n);                                                 \
    }
LC_GF8_AVX2_R(1)
LC_GF8_AVX2_R(2)
LC_GF8_AVX2_R(3)
LC_GF8_AVX2_R(4)
LC_GF8_AVX2_R(5)
LC_GF8_AVX2_R(6)

static const lc_gf_rows_fn_t gf8_avx2_rows_fn[GF8_RMAX + 1] = {
    NULL, gf8_avx2_r1, gf8_avx2_r2, gf8_avx2_r3, gf8_avx2_r4, gf8_avx2_r5, gf8_avx2_r6,
};

void lc_gf8_lincomb_avx2(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                         void *const *dst)
{
    size_t nv = len & ~(size_t)31;
    lc_gf_run_blocks(gf8_avx2_rows_fn, GF8_RMAX, c, nv, 32, 0, src, dst);
    if (nv < len) lc_gf8_lincomb_range_base(c, nv, len, src, dst);
}

void lc_gf8_mad_avx2(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                     void *const *dst)
{
    size_t nv = len & ~(size_t)31;
    const __m256i m0f = _mm256_set1_epi8(0x0f);
    for (size_t p = 0; p < nv; p += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)((const uint8_t *)src + p));
        __m256i lo = _mm256_and_si256(x, m0f);
        __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), m0f);
        for (int j = 0; j < c->r; j++) {
            const uint8_t *t = c->nib + 32 * ((size_t)j * c->k + col);
            __m256i *d = (__m256i *)((uint8_t *)dst[j] + p);
            __m256i pr = _mm256_xor_si256(_mm256_shuffle_epi8(lc_tab256(t), lo),
                                          _mm256_shuffle_epi8(lc_tab256(t + 16), hi));
            _mm256_storeu_si256(d, _mm256_xor_si256(_mm256_loadu_si256(d), pr));
        }
    }
    if (nv < len) lc_gf8_mad_range_base(c, nv, len, col, src, dst);
}

/* ----------------------------------------------------------- GF(2^16) */

#define GF16_RMAX 4

LC_AI void gf16_nibbles256(const uint8_t *s, __m256i nb[4])
{
    const __m256i m00ff = _mm256_set1_epi16(0x00ff), m0f = _mm256_set1_epi8(0x0f);
    __m256i a = _mm256_loadu_si256((const __m256i *)s);
    __m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
    __m256i xl = _mm256_packus_epi16(_mm256_and_si256(a, m00ff), _mm256_and_si256(b, m00ff));
    __m256i xh = _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
    nb[0] = _mm256_and_si256(xl, m0f);
    nb[1] = _mm256_and_si256(_mm256_srli_epi16(xl, 4), m0f);
    nb[2] = _mm256_and_si256(xh, m0f);
    nb[3] = _mm256_and_si256(_mm256_srli_epi16(xh, 4), m0f);
}

LC_AI void gf16_mul256(const uint8_t *t, const __m256i nb[4], __m256i *yl, __m256i *yh)
{
    __m256i l = _mm256_xor_si256(_mm256_shuffle_epi8(lc_tab256(t + 0 * 16), nb[0]),
                                 _mm256_shuffle_epi8(lc_tab256(t + 2 * 16), nb[1]));
    __m256i h = _mm256_xor_si256(_mm256_shuffle_epi8(lc_tab256(t + 1 * 16), nb[0]),
                                 _mm256_shuffle_epi8(lc_tab256(t + 3 * 16), nb[1]));
    l = _mm256_xor_si256(l, _mm256_xor_si256(_mm256_shuffle_epi8(lc_tab256(t + 4 * 16), nb[2]),
                                             _mm256_shuffle_epi8(lc_tab256(t + 6 * 16), nb[3])));
    h = _mm256_xor_si256(h, _mm256_xor_si256(_mm256_shuffle_epi8(lc_tab256(t + 5 * 16), nb[2]),
                                             _mm256_shuffle_epi8(lc_tab256(t + 7 * 16), nb[3])));
    *yl = _mm256_xor_si256(*yl, l);
    *yh = _mm256_xor_si256(*yh, h);
}

LC_AI void gf16_avx2_rows(const int R, const lincoll_gf_coeffs_t *c, int j0, const void *const *src,
                          void *const *dst, size_t off, size_t n)
{
    const int k = c->k;
    const uint8_t *nib = c->nib + 128 * (size_t)j0 * k;
    for (size_t p = off; p < off + n; p += 64) {
        __m256i yl[GF16_RMAX], yh[GF16_RMAX];
#pragma GCC unroll 4
        for (int j = 0; j < R; j++)
            yl[j] = yh[j] = _mm256_setzero_si256();
        for (int i = 0; i < k; i++) {
            __m256i nb[4];
            gf16_nibbles256((const uint8_t *)src[i] + p, nb);
#pragma GCC unroll 4
            for (int j = 0; j < R; j++)
                gf16_mul256(nib + 128 * ((size_t)j * k + i), nb, &yl[j], &yh[j]);
        }
#pragma GCC unroll 4
        for (int j = 0; j < R; j++) {
            uint8_t *d = (uint8_t *)dst[j0 + j] + p;
            _mm256_storeu_si256((__m256i *)d, _mm256_unpacklo_epi8(yl[j], yh[j]));
            _mm256_storeu_si256((__m256i *)(d + 32), _mm256_unpackhi_epi8(yl[j], yh[j]));
        }
    }
}

#define LC_GF16_AVX2_R(R)                                                                          \
    static void gf16_avx2_r##R(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,       \
                               void *const *dst, size_t off, size_t n, size_t pf)                  \
    {                                                                                              \
        (void)pf;                                                                                  \
        gf16_avx2_rows(R, c, j0, src, dst, off, n);                                                \
    }
LC_GF16_AVX2_R(1)
LC_GF16_AVX2_R(2)
LC_GF16_AVX2_R(3)
LC_GF16_AVX2_R(4)

static const lc_gf_rows_fn_t gf16_avx2_rows_fn[GF16_RMAX + 1] = {
    NULL, gf16_avx2_r1, gf16_avx2_r2, gf16_avx2_r3, gf16_avx2_r4,
};

void lc_gf16_lincomb_avx2(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                          void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    lc_gf_run_blocks(gf16_avx2_rows_fn, GF16_RMAX, c, nv, 64, 0, src, dst);
    if (nv < len) lc_gf16_lincomb_range_base(c, nv, len, src, dst);
}

void lc_gf16_mad_avx2(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                      void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    for (size_t p = 0; p < nv; p += 64) {
        __m256i nb[4];
        gf16_nibbles256((const uint8_t *)src + p, nb);
        for (int j = 0; j < c->r; j++) {
            __m256i yl = _mm256_setzero_si256(), yh = _mm256_setzero_si256();
            gf16_mul256(c->nib + 128 * ((size_t)j * c->k + col), nb, &yl, &yh);
            __m256i *d = (__m256i *)((uint8_t *)dst[j] + p);
            _mm256_storeu_si256(
                d, _mm256_xor_si256(_mm256_loadu_si256(d), _mm256_unpacklo_epi8(yl, yh)));
            _mm256_storeu_si256(
                d + 1, _mm256_xor_si256(_mm256_loadu_si256(d + 1), _mm256_unpackhi_epi8(yl, yh)));
        }
    }
    if (nv < len) lc_gf16_mad_range_base(c, nv, len, col, src, dst);
}

/* ------------------------------------------------------------ p < 2^31 */

#define P32_RMAX 4

/* Shoup: a*x mod p in [0, p) for x < 2^32 (a < p, as = floor(a 2^32 / p)). */
LC_AI __m256i lc_p32_shoup256(__m256i x, __m256i xo, __m256i a, __m256i as, __m256i P)
{
    __m256i he = _mm256_srli_epi64(_mm256_mul_epu32(x, as), 32);
    __m256i ho = _mm256_mul_epu32(xo, as);
    __m256i q = _mm256_blend_epi32(he, ho, 0xAA);
    __m256i r = _mm256_sub_epi32(_mm256_mullo_epi32(x, a), _mm256_mullo_epi32(q, P));
    return _mm256_min_epu32(r, _mm256_sub_epi32(r, P));
}

LC_AI __m256i lc_p32_addmod256(__m256i a, __m256i b, __m256i P)
{
    __m256i s = _mm256_add_epi32(a, b);
    return _mm256_min_epu32(s, _mm256_sub_epi32(s, P));
}

LC_AI void p32_avx2_rows(const int R, const lincoll_gf_coeffs_t *c, int j0, const void *const *src,
                         void *const *dst, size_t off, size_t n)
{
    const int k = c->k;
    const uint32_t *a32 = c->a32 + (size_t)j0 * k, *s32 = c->s32 + (size_t)j0 * k;
    const __m256i P = _mm256_set1_epi32((int)c->field->p);
    for (size_t p = off; p < off + n; p += 32) {
        __m256i acc[P32_RMAX];
#pragma GCC unroll 4
        for (int j = 0; j < R; j++)
            acc[j] = _mm256_setzero_si256();
        for (int i = 0; i < k; i++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)((const uint8_t *)src[i] + p));
            __m256i xo = _mm256_srli_epi64(x, 32);
#pragma GCC unroll 4
            for (int j = 0; j < R; j++) {
                size_t e = (size_t)j * k + i;
                __m256i r = lc_p32_shoup256(x, xo, _mm256_set1_epi32((int)a32[e]),
                                            _mm256_set1_epi32((int)s32[e]), P);
                acc[j] = lc_p32_addmod256(acc[j], r, P);
            }
        }
#pragma GCC unroll 4
        for (int j = 0; j < R; j++) {
            _mm256_storeu_si256((__m256i *)((uint8_t *)dst[j0 + j] + p), acc[j]);
        }
    }
}

#define LC_P32_AVX2_R(R)                                                                           \
    static void p32_avx2_r##R(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,        \
                              void *const *dst, size_t off, size_t n, size_t pf)                   \
    {                                                                                              \
        (void)pf;                                                                                  \
        p32_avx2_rows(R, c, j0, src, dst, off, n);                                                 \
    }
LC_P32_AVX2_R(1)
LC_P32_AVX2_R(2)
LC_P32_AVX2_R(3)
LC_P32_AVX2_R(4)

static const lc_gf_rows_fn_t p32_avx2_rows_fn[P32_RMAX + 1] = {
    NULL, p32_avx2_r1, p32_avx2_r2, p32_avx2_r3, p32_avx2_r4,
};

void lc_gfp32_lincomb_avx2(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                           void *const *dst)
{
    size_t nv = len & ~(size_t)31;
    lc_gf_run_blocks(p32_avx2_rows_fn, P32_RMAX, c, nv, 32, 0, src, dst);
    if (nv < len) lc_gfp32_lincomb_range_base(c, nv, len, src, dst);
}

void lc_gfp32_mad_avx2(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                       void *const *dst)
{
    size_t nv = len & ~(size_t)31;
    const __m256i P = _mm256_set1_epi32((int)c->field->p);
    for (size_t p = 0; p < nv; p += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)((const uint8_t *)src + p));
        __m256i xo = _mm256_srli_epi64(x, 32);
        for (int j = 0; j < c->r; j++) {
            size_t e = (size_t)j * c->k + col;
            __m256i r = lc_p32_shoup256(x, xo, _mm256_set1_epi32((int)c->a32[e]),
                                        _mm256_set1_epi32((int)c->s32[e]), P);
            __m256i *d = (__m256i *)((uint8_t *)dst[j] + p);
            _mm256_storeu_si256(d, lc_p32_addmod256(_mm256_loadu_si256(d), r, P));
        }
    }
    if (nv < len) lc_gfp32_mad_range_base(c, nv, len, col, src, dst);
}

/* --------------------------------------------------------- Goldilocks */

/* Canonical elements (< p) in 4 x 64-bit lanes.  AVX2 has only signed
 * 64-bit compares, so unsigned a < b is (a ^ 2^63) < (b ^ 2^63). */
typedef struct {
    __m256i lo32, eps, p, sign;
} lc_gl256_t;

LC_AI lc_gl256_t lc_gl256_consts(void)
{
    lc_gl256_t K = {_mm256_set1_epi64x(0xffffffffll), _mm256_set1_epi64x((long long)LC_GF_GL_EPS),
                    _mm256_set1_epi64x((long long)LINCOLL_GF_GOLDILOCKS),
                    _mm256_set1_epi64x((long long)(1ull << 63))};
    return K;
}

/* all-ones lanes where a < b (unsigned) */
LC_AI __m256i lc_gl256_lt(__m256i a, __m256i b, const lc_gl256_t *K)
{
    return _mm256_cmpgt_epi64(_mm256_xor_si256(b, K->sign), _mm256_xor_si256(a, K->sign));
}

/* s - p where s >= p, else s (s < 2p) */
LC_AI __m256i lc_gl256_canon(__m256i s, const lc_gl256_t *K)
{
    __m256i ge = _mm256_andnot_si256(lc_gl256_lt(s, K->p, K), K->p);
    return _mm256_sub_epi64(s, ge);
}

/* a*x mod p, canonical (see lc_gl512_mul in gf_avx512.c). */
LC_AI __m256i lc_gl256_mul(__m256i x, __m256i xh, __m256i al, __m256i ah, const lc_gl256_t *K)
{
    __m256i ll = _mm256_mul_epu32(x, al), lh = _mm256_mul_epu32(x, ah);
    __m256i hl = _mm256_mul_epu32(xh, al), hh = _mm256_mul_epu32(xh, ah);
    __m256i mid = _mm256_add_epi64(lh, _mm256_srli_epi64(ll, 32));
    __m256i mid2 = _mm256_add_epi64(hl, _mm256_and_si256(mid, K->lo32));
    __m256i lo = _mm256_or_si256(_mm256_slli_epi64(mid2, 32), _mm256_and_si256(ll, K->lo32));
    __m256i hi = _mm256_add_epi64(
        hh, _mm256_add_epi64(_mm256_srli_epi64(mid, 32), _mm256_srli_epi64(mid2, 32)));
    __m256i top = _mm256_srli_epi64(hi, 32), h32 = _mm256_and_si256(hi, K->lo32);
    __m256i t0 = _mm256_sub_epi64(lo, top);
    t0 = _mm256_sub_epi64(t0, _mm256_and_si256(lc_gl256_lt(lo, top, K), K->eps));
    __m256i t1 = _mm256_sub_epi64(_mm256_slli_epi64(h32, 32), h32);
    __m256i t2 = _mm256_add_epi64(t0, t1);
    t2 = _mm256_add_epi64(t2, _mm256_and_si256(lc_gl256_lt(t2, t1, K), K->eps));
    return lc_gl256_canon(t2, K);
}

LC_AI __m256i lc_gl256_add(__m256i a, __m256i b, const lc_gl256_t *K)
{
    __m256i s = _mm256_add_epi64(a, b);
    s = _mm256_add_epi64(s, _mm256_and_si256(lc_gl256_lt(s, a, K), K->eps));
    return lc_gl256_canon(s, K);
}

#define GL_RMAX 4

LC_AI void gl_avx2_rows(const int R, const lincoll_gf_coeffs_t *c, int j0, const void *const *src,
                        void *const *dst, size_t off, size_t n)
{
    const int k = c->k;
    const uint64_t *m = c->m + (size_t)j0 * k;
    const lc_gl256_t K = lc_gl256_consts();
    for (size_t p = off; p < off + n; p += 32) {
        __m256i acc[GL_RMAX];
#pragma GCC unroll 8
        for (int j = 0; j < R; j++)
            acc[j] = _mm256_setzero_si256();
        for (int i = 0; i < k; i++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)((const uint8_t *)src[i] + p));
            __m256i xh = _mm256_srli_epi64(x, 32);
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                uint64_t a = m[(size_t)j * k + i];
                __m256i al = _mm256_set1_epi32((int)(uint32_t)a);
                __m256i ah = _mm256_set1_epi32((int)(uint32_t)(a >> 32));
                acc[j] = lc_gl256_add(acc[j], lc_gl256_mul(x, xh, al, ah, &K), &K);
            }
        }
#pragma GCC unroll 8
        for (int j = 0; j < R; j++)
            _mm256_storeu_si256((__m256i *)((uint8_t *)dst[j0 + j] + p), acc[j]);
    }
}

#define LC_GL_AVX2_R(R)                                                                            \
    static void gl_avx2_r##R(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,         \
                             void *const *dst, size_t off, size_t n, size_t pf)                    \
    {                                                                                              \
        (void)pf;                                                                                  \
        gl_avx2_rows(R, c, j0, src, dst, off, n);                                                  \
    }
LC_GL_AVX2_R(1)
LC_GL_AVX2_R(2)
LC_GL_AVX2_R(3)
LC_GL_AVX2_R(4)

static const lc_gf_rows_fn_t gl_avx2_rows_fn[GL_RMAX + 1] = {
    NULL, gl_avx2_r1, gl_avx2_r2, gl_avx2_r3, gl_avx2_r4,
};

void lc_gfp64_lincomb_avx2(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                           void *const *dst)
{
    size_t nv = len & ~(size_t)31;
    lc_gf_run_blocks(gl_avx2_rows_fn, GL_RMAX, c, nv, 32, 0, src, dst);
    if (nv < len) lc_gfp64_lincomb_range_base(c, nv, len, src, dst);
}

void lc_gfp64_mad_avx2(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                       void *const *dst)
{
    size_t nv = len & ~(size_t)31;
    const lc_gl256_t K = lc_gl256_consts();
    for (size_t p = 0; p < nv; p += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)((const uint8_t *)src + p));
        __m256i xh = _mm256_srli_epi64(x, 32);
        for (int j = 0; j < c->r; j++) {
            uint64_t a = c->m[(size_t)j * c->k + col];
            __m256i al = _mm256_set1_epi32((int)(uint32_t)a);
            __m256i ah = _mm256_set1_epi32((int)(uint32_t)(a >> 32));
            __m256i *d = (__m256i *)((uint8_t *)dst[j] + p);
            _mm256_storeu_si256(
                d, lc_gl256_add(_mm256_loadu_si256(d), lc_gl256_mul(x, xh, al, ah, &K), &K));
        }
    }
    if (nv < len) lc_gfp64_mad_range_base(c, nv, len, col, src, dst);
}
