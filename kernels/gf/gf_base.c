/*
 * kernels/gf/gf_base.c: plain C reference kernels for every field kind.
 *
 * What: lincomb (dst_j = sum_i a_ji src_i) and mad (dst_j += a_j,col src)
 * for GF(2^8), GF(2^16), primes below 2^31 and Goldilocks, plus the
 * [off, end) range forms the SIMD variants use for their tails.  These are
 * the oracle every variant is compared with, byte for byte.
 * Reference: ISA-L ec_base.c (gf_vect_dot_prod_base, gf_vect_mad_base).
 * Cost: GF(2^w): two (w=8) or eight (w=16) table lookups per term; p32: one
 * 32x32->64 multiply per term and one division per max_terms terms;
 * Goldilocks: one 64x64->128 multiply and reduction per term.
 * Restrictions: dst must not overlap src; wide elements element-aligned.
 */
#include "gf_kernels.h"

#include <string.h>

/* ------------------------------------------------------------ GF(2^8) */

void lc_gf8_lincomb_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end,
                               const void *const *src, void *const *dst)
{
    for (int j = 0; j < c->r; j++) {
        uint8_t *d = dst[j];
        memset(d + off, 0, end - off);
        for (int i = 0; i < c->k; i++) {
            const uint8_t *t = c->nib + 32 * ((size_t)j * c->k + i);
            const uint8_t *s = src[i];
            for (size_t p = off; p < end; p++)
                d[p] ^= t[s[p] & 15] ^ t[16 + (s[p] >> 4)];
        }
    }
}

void lc_gf8_mad_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end, int col,
                           const void *src, void *const *dst)
{
    const uint8_t *s = src;
    for (int j = 0; j < c->r; j++) {
        const uint8_t *t = c->nib + 32 * ((size_t)j * c->k + col);
        uint8_t *d = dst[j];
        for (size_t p = off; p < end; p++)
            d[p] ^= t[s[p] & 15] ^ t[16 + (s[p] >> 4)];
    }
}

void lc_gf8_lincomb_base(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                         void *const *dst)
{
    lc_gf8_lincomb_range_base(c, 0, len, src, dst);
}

void lc_gf8_mad_base(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                     void *const *dst)
{
    lc_gf8_mad_range_base(c, 0, len, col, src, dst);
}

/* ----------------------------------------------------------- GF(2^16) */

static inline uint16_t lc_gf16_tmul(const uint8_t *t, uint16_t x)
{
    unsigned lo = 0, hi = 0;
    for (int n = 0; n < 4; n++) {
        unsigned v = (x >> (4 * n)) & 15;
        lo ^= t[(n * 2 + 0) * 16 + v];
        hi ^= t[(n * 2 + 1) * 16 + v];
    }
    return (uint16_t)(lo | hi << 8);
}

void lc_gf16_lincomb_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end,
                                const void *const *src, void *const *dst)
{
    size_t e0 = off / 2, e1 = end / 2;
    for (int j = 0; j < c->r; j++) {
        uint16_t *d = dst[j];
        for (size_t p = e0; p < e1; p++)
            d[p] = 0;
        for (int i = 0; i < c->k; i++) {
            const uint8_t *t = c->nib + 128 * ((size_t)j * c->k + i);
            const uint16_t *s = src[i];
            for (size_t p = e0; p < e1; p++)
                d[p] ^= lc_gf16_tmul(t, s[p]);
        }
    }
}

void lc_gf16_mad_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end, int col,
                            const void *src, void *const *dst)
{
    const uint16_t *s = src;
    for (int j = 0; j < c->r; j++) {
        const uint8_t *t = c->nib + 128 * ((size_t)j * c->k + col);
        uint16_t *d = dst[j];
        for (size_t p = off / 2; p < end / 2; p++)
            d[p] ^= lc_gf16_tmul(t, s[p]);
    }
}

void lc_gf16_lincomb_base(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                          void *const *dst)
{
    lc_gf16_lincomb_range_base(c, 0, len, src, dst);
}

void lc_gf16_mad_base(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                      void *const *dst)
{
    lc_gf16_mad_range_base(c, 0, len, col, src, dst);
}

/* ------------------------------------------------------- p < 2^31 */

void lc_gfp32_lincomb_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end,
                                 const void *const *src, void *const *dst)
{
    const uint64_t p = c->field->p;
    const unsigned T = c->field->max_terms;
    for (int j = 0; j < c->r; j++) {
        const uint32_t *a = c->a32 + (size_t)j * c->k;
        uint32_t *d = dst[j];
        for (size_t e = off / 4; e < end / 4; e++) {
            uint64_t acc = 0;
            unsigned n = 0;
            for (int i = 0; i < c->k; i++) {
                acc += (uint64_t)a[i] * ((const uint32_t *)src[i])[e];
                if (++n == T) {
                    acc %= p;
                    n = 0;
                }
            }
            d[e] = (uint32_t)(acc % p);
        }
    }
}

void lc_gfp32_mad_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end, int col,
                             const void *src, void *const *dst)
{
    const uint64_t p = c->field->p;
    const uint32_t *s = src;
    for (int j = 0; j < c->r; j++) {
        uint64_t a = c->a32[(size_t)j * c->k + col];
        uint32_t *d = dst[j];
        for (size_t e = off / 4; e < end / 4; e++)
            d[e] = (uint32_t)((d[e] + a * s[e]) % p);
    }
}

void lc_gfp32_lincomb_base(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                           void *const *dst)
{
    lc_gfp32_lincomb_range_base(c, 0, len, src, dst);
}

void lc_gfp32_mad_base(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                       void *const *dst)
{
    lc_gfp32_mad_range_base(c, 0, len, col, src, dst);
}

/* --------------------------------------------------------- Goldilocks */

void lc_gfp64_lincomb_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end,
                                 const void *const *src, void *const *dst)
{
    for (int j = 0; j < c->r; j++) {
        const uint64_t *a = c->m + (size_t)j * c->k;
        uint64_t *d = dst[j];
        for (size_t e = off / 8; e < end / 8; e++) {
            uint64_t acc = 0;
            for (int i = 0; i < c->k; i++) {
                uint64_t x = ((const uint64_t *)src[i])[e];
                acc = lc_gfp64_add(acc, lc_gfp64_reduce128((unsigned __int128)a[i] * x));
            }
            d[e] = acc;
        }
    }
}

void lc_gfp64_mad_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end, int col,
                             const void *src, void *const *dst)
{
    const uint64_t *s = src;
    for (int j = 0; j < c->r; j++) {
        uint64_t a = c->m[(size_t)j * c->k + col];
        uint64_t *d = dst[j];
        for (size_t e = off / 8; e < end / 8; e++)
            d[e] = lc_gfp64_add(d[e], lc_gfp64_reduce128((unsigned __int128)a * s[e]));
    }
}

void lc_gfp64_lincomb_base(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                           void *const *dst)
{
    lc_gfp64_lincomb_range_base(c, 0, len, src, dst);
}

void lc_gfp64_mad_base(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                       void *const *dst)
{
    lc_gfp64_mad_range_base(c, 0, len, col, src, dst);
}
