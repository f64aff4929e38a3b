/*
 * kernels/reduce/reduce_base.c: reference reductions and 16-bit float conversions.
 *
 * What: dst[i] = a[i] (+) b[i] for every valid (dtype, op) in plain C, and the
 *       float16/bfloat16 <-> float conversions every variant must agree with.
 * Reference: IEEE 754-2008 binary16 and round-to-nearest-even; bfloat16 as
 *       the top half of binary32 (Intel BF16 spec, without its flush-to-zero).
 * Cost: one pass, count * (2 loads + 1 store).
 * Restrictions: dst may equal a or b, no partial overlap.
 */
#include "reduce_kernels.h"
#include "reduce_ops.h"

#include <string.h>

static uint32_t lc_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static float lc_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

float lc_f16_to_f32(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) { /* infinity, or NaN made quiet */
        return lc_bits_f32(s | 0x7f800000u | (m ? 0x400000u | (m << 13) : 0));
    }
    if (e == 0) {
        if (m == 0) return lc_bits_f32(s);
        e = 113; /* subnormal: normalise */
        while (!(m & 0x400u)) {
            m <<= 1;
            e--;
        }
        return lc_bits_f32(s | (e << 23) | ((m & 0x3ffu) << 13));
    }
    return lc_bits_f32(s | ((e + 112) << 23) | (m << 13));
}

uint16_t lc_f32_to_f16(float f)
{
    uint32_t x = lc_f32_bits(f);
    uint16_t s = (uint16_t)((x >> 16) & 0x8000u);
    x &= 0x7fffffffu;
    if (x > 0x7f800000u) return (uint16_t)(s | 0x7e00u | ((x >> 13) & 0x3ffu)); /* quiet NaN */
    if (x >= 0x477ff000u) return (uint16_t)(s | 0x7c00u); /* >= 65520 rounds to infinity */
    if (x >= 0x38800000u) {                               /* normal half */
        x -= 0x38000000u;                                 /* rebias 127 -> 15 */
        return (uint16_t)(s | ((x + 0xfffu + ((x >> 13) & 1u)) >> 13));
    }
    if (x <= 0x33000000u) return s; /* <= 2^-25: rounds to zero (ties to even) */
    /* Subnormal half: round M * 2^(e-150) to a multiple of 2^-24. */
    uint32_t e = x >> 23, mant = (x & 0x7fffffu) | 0x800000u, shift = 126 - e;
    uint32_t r = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) r++;
    return (uint16_t)(s | r);
}

float lc_bf16_to_f32(uint16_t h)
{
    return lc_bits_f32((uint32_t)h << 16);
}

uint16_t lc_f32_to_bf16(float f)
{
    uint32_t x = lc_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* ---- reference kernels ---- */

#define LC_RB_INT(DT, SUF, T, UW, OPN)                                                             \
    static void lc_reduce_base_##SUF##_##OPN(void *d_, const void *a_, const void *b_, size_t n)   \
    {                                                                                              \
        T *d = d_;                                                                                 \
        const T *a = a_, *b = b_;                                                                  \
        for (size_t i = 0; i < n; i++) {                                                           \
            T x = a[i], y = b[i];                                                                  \
            d[i] = LC_OP_##OPN(T, UW, x, y);                                                       \
        }                                                                                          \
    }
#define LC_RB_INT_ALL(DT, SUF, T, UW)                                                              \
    LC_RB_INT(DT, SUF, T, UW, SUM)                                                                 \
    LC_RB_INT(DT, SUF, T, UW, PROD)                                                                \
    LC_RB_INT(DT, SUF, T, UW, MIN)                                                                 \
    LC_RB_INT(DT, SUF, T, UW, MAX)                                                                 \
    LC_RB_INT(DT, SUF, T, UW, BXOR)
LC_REDUCE_INT_TYPES(LC_RB_INT_ALL)

#define LC_RB_FLT(SUF, T, OPN)                                                                     \
    static void lc_reduce_base_##SUF##_##OPN(void *d_, const void *a_, const void *b_, size_t n)   \
    {                                                                                              \
        T *d = d_;                                                                                 \
        const T *a = a_, *b = b_;                                                                  \
        for (size_t i = 0; i < n; i++) {                                                           \
            T x = a[i], y = b[i];                                                                  \
            d[i] = LC_FOP_##OPN(x, y);                                                             \
        }                                                                                          \
    }
#define LC_RB_HALF(SUF, TO, FROM, OPN)                                                             \
    static void lc_reduce_base_##SUF##_##OPN(void *d_, const void *a_, const void *b_, size_t n)   \
    {                                                                                              \
        uint16_t *d = d_;                                                                          \
        const uint16_t *a = a_, *b = b_;                                                           \
        for (size_t i = 0; i < n; i++) {                                                           \
            float x = TO(a[i]), y = TO(b[i]);                                                      \
            d[i] = FROM(LC_FOP_##OPN(x, y));                                                       \
        }                                                                                          \
    }
#define LC_RB_FLT_ALL(SUF, T)                                                                      \
    LC_RB_FLT(SUF, T, SUM) LC_RB_FLT(SUF, T, PROD) LC_RB_FLT(SUF, T, MIN) LC_RB_FLT(SUF, T, MAX)
#define LC_RB_HALF_ALL(SUF, TO, FROM)                                                              \
    LC_RB_HALF(SUF, TO, FROM, SUM)                                                                 \
    LC_RB_HALF(SUF, TO, FROM, PROD)                                                                \
    LC_RB_HALF(SUF, TO, FROM, MIN)                                                                 \
    LC_RB_HALF(SUF, TO, FROM, MAX)
LC_RB_FLT_ALL(f32, float)
LC_RB_FLT_ALL(f64, double)
LC_RB_HALF_ALL(f16, lc_f16_to_f32, lc_f32_to_f16)
LC_RB_HALF_ALL(bf16, lc_bf16_to_f32, lc_f32_to_bf16)

static void lc_reduce_base_byte_BXOR(void *d_, const void *a_, const void *b_, size_t n)
{
    uint8_t *d = d_;
    const uint8_t *a = a_, *b = b_;
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)(a[i] ^ b[i]);
}

void lc_reduce_fill_base(lc_reduce_table_t tab)
{
    memset(tab, 0, sizeof(lc_reduce_table_t));
#define LC_FILL_INT(DT, SUF, T, UW)                                                                \
    tab[LINCOLL_##DT][LINCOLL_SUM] = lc_reduce_base_##SUF##_SUM;                                   \
    tab[LINCOLL_##DT][LINCOLL_PROD] = lc_reduce_base_##SUF##_PROD;                                 \
    tab[LINCOLL_##DT][LINCOLL_MIN] = lc_reduce_base_##SUF##_MIN;                                   \
    tab[LINCOLL_##DT][LINCOLL_MAX] = lc_reduce_base_##SUF##_MAX;                                   \
    tab[LINCOLL_##DT][LINCOLL_BXOR] = lc_reduce_base_##SUF##_BXOR;
    LC_REDUCE_INT_TYPES(LC_FILL_INT)
#undef LC_FILL_INT
#define LC_FILL_FLT(DT, SUF)                                                                       \
    tab[LINCOLL_##DT][LINCOLL_SUM] = lc_reduce_base_##SUF##_SUM;                                   \
    tab[LINCOLL_##DT][LINCOLL_PROD] = lc_reduce_base_##SUF##_PROD;                                 \
    tab[LINCOLL_##DT][LINCOLL_MIN] = lc_reduce_base_##SUF##_MIN;                                   \
    tab[LINCOLL_##DT][LINCOLL_MAX] = lc_reduce_base_##SUF##_MAX;
    LC_FILL_FLT(FLOAT, f32)
    LC_FILL_FLT(DOUBLE, f64)
    LC_FILL_FLT(FLOAT16, f16)
    LC_FILL_FLT(BFLOAT16, bf16)
#undef LC_FILL_FLT
    tab[LINCOLL_BYTE][LINCOLL_BXOR] = lc_reduce_base_byte_BXOR;
}
