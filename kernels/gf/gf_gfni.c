/*
 * kernels/gf/gf_gfni.c: GF(2^8) and GF(2^16) kernels with AVX-512 + GFNI.
 *
 * What: multiplication by a constant is a GF(2)-linear map, so one
 * vgf2p8affineqb with the constant's 8x8 bit-matrix (broadcast from the
 * table, any polynomial) multiplies 64 bytes.  lincomb keeps up to 8 outputs
 * x 2 vectors in registers and folds two sources per vpternlogq; GF(2^16)
 * splits 64 words into a low-byte and a high-byte plane (vpackuswb) and
 * multiplies with a 2x2 block of bit-matrices, then re-interleaves
 * (vpunpck[lh]bw), so the caller keeps plain little-endian words.
 * Reference: ISA-L gf_vect_gfni.inc / gf_*vect_dot_prod_avx512_gfni.asm;
 * ParPar fast-gf-multiplication.md (affine GF(2^16)).
 * Cost per (source, output) pair per 64 bytes: GF(2^8) 1 affine + 1/2
 * ternlog; GF(2^16) 2 affines + 1 ternlog (+ per source 6 ops for the
 * planes).  Length is cut into L2-sized chunks so row blocks re-read sources
 * from cache.
 * Restrictions: the tail below 64 bytes (GF(2^8)) or 128 bytes (GF(2^16))
 * runs the base code.
 */
#include "kernels/gf/gf_kernels.h"

#include <immintrin.h>

#define LC_AI            static inline __attribute__((always_inline))
#define LC_XOR3(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0x96)
#define LC_AFF(x, m)     _mm512_gf2p8affine_epi64_epi8((x), _mm512_set1_epi64((long long)(m)), 0)
#define LC_RMAX          8
#define GF16_RMAX        4

/* ------------------------------------------------------------ GF(2^8) */

LC_AI void gf8_gfni_rows(const int R, const int NV, const lincoll_gf_coeffs_t *c, int j0,
                         const void *const *src, void *const *dst, size_t off, size_t n)
{
    const int k = c->k;
    const uint64_t *aff = c->aff + (size_t)j0 * k;
    for (size_t p = off; p < off + n; p += 64 * (size_t)NV) {
        __m512i acc[LC_RMAX][2];
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            for (int v = 0; v < NV; v++)
                acc[j][v] = _mm512_setzero_si512();
        }
        int i = 0;
        for (; i + 1 < k; i += 2) {
            const uint8_t *s0 = (const uint8_t *)src[i] + p;
            const uint8_t *s1 = (const uint8_t *)src[i + 1] + p;
            __m512i x[2], y[2];
            for (int v = 0; v < NV; v++) {
                x[v] = _mm512_loadu_si512(s0 + 64 * v);
                y[v] = _mm512_loadu_si512(s1 + 64 * v);
            }
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                uint64_t m0 = aff[(size_t)j * k + i], m1 = aff[(size_t)j * k + i + 1];
                for (int v = 0; v < NV; v++) {
                    acc[j][v] = LC_XOR3(acc[j][v], LC_AFF(x[v], m0), LC_AFF(y[v], m1));
                }
            }
        }
        if (i < k) {
            const uint8_t *s0 = (const uint8_t *)src[i] + p;
            __m512i x[2];
            for (int v = 0; v < NV; v++)
                x[v] = _mm512_loadu_si512(s0 + 64 * v);
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                uint64_t m0 = aff[(size_t)j * k + i];
                for (int v = 0; v < NV; v++) {
                    acc[j][v] = _mm512_xor_si512(acc[j][v], LC_AFF(x[v], m0));
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

#define LC_GF8_GFNI_R(R)                                                                           \
    static void gf8_gfni_r##R(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,        \
                              void *const *dst, size_t off, size_t n)                              \
    {                                                                                              \
        size_t n2 = n & ~(size_t)127;                                                              \
        gf8_gfni_rows(R, 2, c, j0, src, dst, off, n2);                                             \
        if (n2 < n) gf8_gfni_rows(R, 1, c, j0, src, dst, off + n2, n - n2);                        \
    }
LC_GF8_GFNI_R(1)
LC_GF8_GFNI_R(2)
LC_GF8_GFNI_R(3)
LC_GF8_GFNI_R(4)
LC_GF8_GFNI_R(5)
LC_GF8_GFNI_R(6)
LC_GF8_GFNI_R(7)
LC_GF8_GFNI_R(8)

static const lc_gf_rows_fn_t gf8_gfni_rows_fn[LC_RMAX + 1] = {
    NULL,        gf8_gfni_r1, gf8_gfni_r2, gf8_gfni_r3, gf8_gfni_r4,
    gf8_gfni_r5, gf8_gfni_r6, gf8_gfni_r7, gf8_gfni_r8,
};

void lc_gf8_lincomb_gfni(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                         void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    lc_gf_run_blocks(gf8_gfni_rows_fn, LC_RMAX, c, nv, 128, src, dst);
    if (nv < len) lc_gf8_lincomb_range_base(c, nv, len, src, dst);
}

/* mad for rows j0 .. j0+R-1: bit-matrices stay in registers for the whole
 * length; 128 bytes of the source per iteration. */
LC_AI void gf8_gfni_mad_rows(const int R, const lincoll_gf_coeffs_t *c, int j0, int col,
                             const uint8_t *s, void *const *dst, size_t nv)
{
    __m512i m[LC_RMAX];
    uint8_t *d[LC_RMAX];
#pragma GCC unroll 8
    for (int j = 0; j < R; j++) {
        m[j] = _mm512_set1_epi64((long long)c->aff[(size_t)(j0 + j) * c->k + col]);
        d[j] = dst[j0 + j];
    }
    size_t p = 0;
    for (; p + 128 <= nv; p += 128) {
        __m512i x0 = _mm512_loadu_si512(s + p), x1 = _mm512_loadu_si512(s + p + 64);
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            __m512i a0 = _mm512_gf2p8affine_epi64_epi8(x0, m[j], 0);
            __m512i a1 = _mm512_gf2p8affine_epi64_epi8(x1, m[j], 0);
            _mm512_storeu_si512(d[j] + p, _mm512_xor_si512(_mm512_loadu_si512(d[j] + p), a0));
            _mm512_storeu_si512(d[j] + p + 64,
                                _mm512_xor_si512(_mm512_loadu_si512(d[j] + p + 64), a1));
        }
    }
    for (; p < nv; p += 64) {
        __m512i x0 = _mm512_loadu_si512(s + p);
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            __m512i a0 = _mm512_gf2p8affine_epi64_epi8(x0, m[j], 0);
            _mm512_storeu_si512(d[j] + p, _mm512_xor_si512(_mm512_loadu_si512(d[j] + p), a0));
        }
    }
}

#define LC_GF8_GFNI_MAD_R(R)                                                                       \
    static void gf8_gfni_mad_r##R(const lincoll_gf_coeffs_t *c, int j0, int col, const uint8_t *s, \
                                  void *const *dst, size_t nv)                                     \
    {                                                                                              \
        gf8_gfni_mad_rows(R, c, j0, col, s, dst, nv);                                              \
    }
LC_GF8_GFNI_MAD_R(1)
LC_GF8_GFNI_MAD_R(2)
LC_GF8_GFNI_MAD_R(3)
LC_GF8_GFNI_MAD_R(4)
LC_GF8_GFNI_MAD_R(5)
LC_GF8_GFNI_MAD_R(6)
LC_GF8_GFNI_MAD_R(7)
LC_GF8_GFNI_MAD_R(8)

typedef void (*lc_gf8_mad_rows_fn_t)(const lincoll_gf_coeffs_t *c, int j0, int col,
                                     const uint8_t *s, void *const *dst, size_t nv);
static const lc_gf8_mad_rows_fn_t gf8_gfni_mad_fn[LC_RMAX + 1] = {
    NULL,
    gf8_gfni_mad_r1,
    gf8_gfni_mad_r2,
    gf8_gfni_mad_r3,
    gf8_gfni_mad_r4,
    gf8_gfni_mad_r5,
    gf8_gfni_mad_r6,
    gf8_gfni_mad_r7,
    gf8_gfni_mad_r8,
};

void lc_gf8_mad_gfni(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                     void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    for (int j0 = 0; j0 < c->r; j0 += LC_RMAX) {
        int R = c->r - j0 < LC_RMAX ? c->r - j0 : LC_RMAX;
        gf8_gfni_mad_fn[R](c, j0, col, src, dst, nv);
    }
    if (nv < len) lc_gf8_mad_range_base(c, nv, len, col, src, dst);
}

/* ----------------------------------------------------------- GF(2^16) */

/* 128 bytes of words -> low-byte plane and high-byte plane (lane order kept
 * so that unpack{lo,hi}_epi8 restores the words). */
LC_AI void gf16_planes(const uint8_t *s, __m512i *xl, __m512i *xh)
{
    const __m512i m00ff = _mm512_set1_epi16(0x00ff);
    __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + 64);
    *xl = _mm512_packus_epi16(_mm512_and_si512(a, m00ff), _mm512_and_si512(b, m00ff));
    *xh = _mm512_packus_epi16(_mm512_srli_epi16(a, 8), _mm512_srli_epi16(b, 8));
}

LC_AI void gf16_gfni_rows(const int R, const int NV, const lincoll_gf_coeffs_t *c, int j0,
                          const void *const *src, void *const *dst, size_t off, size_t n)
{
    const int k = c->k;
    const uint64_t *aff = c->aff + 4 * (size_t)j0 * k;
    for (size_t p = off; p < off + n; p += 128 * (size_t)NV) {
        __m512i yl[GF16_RMAX][2], yh[GF16_RMAX][2];
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            for (int v = 0; v < NV; v++)
                yl[j][v] = yh[j][v] = _mm512_setzero_si512();
        }
        for (int i = 0; i < k; i++) {
            __m512i xl[2], xh[2];
            for (int v = 0; v < NV; v++) {
                gf16_planes((const uint8_t *)src[i] + p + 128 * v, &xl[v], &xh[v]);
            }
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                const uint64_t *m = aff + 4 * ((size_t)j * k + i);
                __m512i m0 = _mm512_set1_epi64((long long)m[0]);
                __m512i m1 = _mm512_set1_epi64((long long)m[1]);
                __m512i m2 = _mm512_set1_epi64((long long)m[2]);
                __m512i m3 = _mm512_set1_epi64((long long)m[3]);
                for (int v = 0; v < NV; v++) {
                    yl[j][v] = LC_XOR3(yl[j][v], _mm512_gf2p8affine_epi64_epi8(xl[v], m0, 0),
                                       _mm512_gf2p8affine_epi64_epi8(xh[v], m1, 0));
                    yh[j][v] = LC_XOR3(yh[j][v], _mm512_gf2p8affine_epi64_epi8(xl[v], m2, 0),
                                       _mm512_gf2p8affine_epi64_epi8(xh[v], m3, 0));
                }
            }
        }
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            uint8_t *d = (uint8_t *)dst[j0 + j] + p;
            for (int v = 0; v < NV; v++) {
                _mm512_storeu_si512(d + 128 * v, _mm512_unpacklo_epi8(yl[j][v], yh[j][v]));
                _mm512_storeu_si512(d + 128 * v + 64, _mm512_unpackhi_epi8(yl[j][v], yh[j][v]));
            }
        }
    }
}

#define LC_GF16_GFNI_R(R)                                                                          \
    static void gf16_gfni_r##R(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,       \
                               void *const *dst, size_t off, size_t n)                             \
    {                                                                                              \
        size_t n2 = n & ~(size_t)255;                                                              \
        gf16_gfni_rows(R, 2, c, j0, src, dst, off, n2);                                            \
        if (n2 < n) gf16_gfni_rows(R, 1, c, j0, src, dst, off + n2, n - n2);                       \
    }
LC_GF16_GFNI_R(1)
LC_GF16_GFNI_R(2)
LC_GF16_GFNI_R(3)
LC_GF16_GFNI_R(4)

static const lc_gf_rows_fn_t gf16_gfni_rows_fn[GF16_RMAX + 1] = {
    NULL, gf16_gfni_r1, gf16_gfni_r2, gf16_gfni_r3, gf16_gfni_r4,
};

void lc_gf16_lincomb_gfni(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                          void *const *dst)
{
    size_t nv = len & ~(size_t)127;
    lc_gf_run_blocks(gf16_gfni_rows_fn, GF16_RMAX, c, nv, 256, src, dst);
    if (nv < len) lc_gf16_lincomb_range_base(c, nv, len, src, dst);
}

void lc_gf16_mad_gfni(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                      void *const *dst)
{
    size_t nv = len & ~(size_t)127;
    const int k = c->k;
    for (size_t p = 0; p < nv; p += 128) {
        __m512i xl, xh;
        gf16_planes((const uint8_t *)src + p, &xl, &xh);
        for (int j = 0; j < c->r; j++) {
            const uint64_t *m = c->aff + 4 * ((size_t)j * k + col);
            __m512i yl = _mm512_xor_si512(LC_AFF(xl, m[0]), LC_AFF(xh, m[1]));
            __m512i yh = _mm512_xor_si512(LC_AFF(xl, m[2]), LC_AFF(xh, m[3]));
            uint8_t *d = (uint8_t *)dst[j] + p;
            _mm512_storeu_si512(
                d, _mm512_xor_si512(_mm512_loadu_si512(d), _mm512_unpacklo_epi8(yl, yh)));
            _mm512_storeu_si512(
                d + 64, _mm512_xor_si512(_mm512_loadu_si512(d + 64), _mm512_unpackhi_epi8(yl, yh)));
        }
    }
    if (nv < len) lc_gf16_mad_range_base(c, nv, len, col, src, dst);
}
