/*
 * kernels/reduce/reduce_simd_tmpl.h: integer, float and double reductions as
 * 64-byte GCC vector operations, 4 vectors per iteration, scalar tail with the
 * shared definitions of reduce_ops.h.  Included once per ISA file with
 * LC_RS_FN(suffix, op) naming the functions; the file's -m flags decide
 * whether a 64-byte vector is one zmm or two ymm.
 *
 * Each vector operation is the scalar definition applied lane by lane (min is
 * the compare `y < x` and a select, exactly the scalar rule), so results
 * match the reference bit for bit.  Loads and stores go through memcpy (unaligned),
 * and every block loads before it stores, so dst may equal a or b.
 */
#include "reduce_ops.h"

#include <string.h>

/* X(DTYPE, suffix, T, UW, UN): UN is the unsigned type of T's width. */
#define LC_RS_INT_TYPES(X)                                                                         \
    X(INT8, i8, int8_t, unsigned, uint8_t)                                                         \
    X(INT16, i16, int16_t, unsigned, uint16_t)                                                     \
    X(INT32, i32, int32_t, uint32_t, uint32_t)                                                     \
    X(INT64, i64, int64_t, uint64_t, uint64_t)                                                     \
    X(UINT8, u8, uint8_t, unsigned, uint8_t)                                                       \
    X(UINT16, u16, uint16_t, unsigned, uint16_t)                                                   \
    X(UINT32, u32, uint32_t, uint32_t, uint32_t)                                                   \
    X(UINT64, u64, uint64_t, uint64_t, uint64_t)

/* Vector forms; V is the element vector, VU its unsigned twin, VI a same-width
 * signed integer vector (the type of a comparison result). */
#define LC_VOP_SUM(V, VU, VI, x, y)  ((V)((VU)(x) + (VU)(y)))
#define LC_VOP_PROD(V, VU, VI, x, y) ((V)((VU)(x) * (VU)(y)))
#define LC_VOP_BXOR(V, VU, VI, x, y) ((V)((VU)(x) ^ (VU)(y)))
#define LC_VOP_MIN(V, VU, VI, x, y)                                                                \
    __extension__({                                                                                \
        VI m_ = (VI)((y) < (x));                                                                   \
        (V)(((VI)(y)&m_) | ((VI)(x) & ~m_));                                                       \
    })
#define LC_VOP_MAX(V, VU, VI, x, y)                                                                \
    __extension__({                                                                                \
        VI m_ = (VI)((y) > (x));                                                                   \
        (V)(((VI)(y)&m_) | ((VI)(x) & ~m_));                                                       \
    })

#define LC_RS_LOOP(T, V, VOP, SOP)                                                                 \
    enum { VL = 64 / sizeof(T) };                                                                  \
    size_t i = 0;                                                                                  \
    for (; i + 4 * VL <= n; i += 4 * VL) {                                                         \
        V x0, x1, x2, x3, y0, y1, y2, y3;                                                          \
        memcpy(&x0, a + i, 64);                                                                    \
        memcpy(&x1, a + i + VL, 64);                                                               \
        memcpy(&x2, a + i + 2 * VL, 64);                                                           \
        memcpy(&x3, a + i + 3 * VL, 64);                                                           \
        memcpy(&y0, b + i, 64);                                                                    \
        memcpy(&y1, b + i + VL, 64);                                                               \
        memcpy(&y2, b + i + 2 * VL, 64);                                                           \
        memcpy(&y3, b + i + 3 * VL, 64);                                                           \
        V r0 = VOP(x0, y0), r1 = VOP(x1, y1), r2 = VOP(x2, y2), r3 = VOP(x3, y3);                  \
        memcpy(d + i, &r0, 64);                                                                    \
        memcpy(d + i + VL, &r1, 64);                                                               \
        memcpy(d + i + 2 * VL, &r2, 64);                                                           \
        memcpy(d + i + 3 * VL, &r3, 64);                                                           \
    }                                                                                              \
    for (; i + VL <= n; i += VL) {                                                                 \
        V x0, y0;                                                                                  \
        memcpy(&x0, a + i, 64);                                                                    \
        memcpy(&y0, b + i, 64);                                                                    \
        V r0 = VOP(x0, y0);                                                                        \
        memcpy(d + i, &r0, 64);                                                                    \
    }                                                                                              \
    for (; i < n; i++) {                                                                           \
        T x = a[i], y = b[i];                                                                      \
        d[i] = SOP(x, y);                                                                          \
    }

#define LC_RS_INT_ALL(DT, SUF, T, UW, UN)                                                          \
    LC_RS_INT_OPS(DT, SUF, T, UW, UN, SUM)                                                         \
    LC_RS_INT_OPS(DT, SUF, T, UW, UN, PROD)                                                        \
    LC_RS_INT_OPS(DT, SUF, T, UW, UN, MIN)                                                         \
    LC_RS_INT_OPS(DT, SUF, T, UW, UN, MAX)                                                         \
    LC_RS_INT_OPS(DT, SUF, T, UW, UN, BXOR)
/* Bind V/VU/VI and T/UW into two-argument forms for LC_RS_LOOP. */
#define LC_RS_INT_OPS(DT, SUF, T, UW, UN, OPN)                                                     \
    static void LC_RS_FN(SUF, OPN)(void *d_, const void *a_, const void *b_, size_t n)             \
    {                                                                                              \
        typedef T V __attribute__((vector_size(64)));                                              \
        typedef UN VU __attribute__((vector_size(64), unused));                                    \
        typedef __typeof__((V){0} < (V){0}) VI __attribute__((unused));                            \
        typedef T lc_t __attribute__((unused));                                                    \
        typedef UW lc_uw __attribute__((unused));                                                  \
        T *d = d_;                                                                                 \
        const T *a = a_, *b = b_;                                                                  \
        LC_RS_LOOP(T, V, LC_RS_VBIND_##OPN, LC_RS_SBIND_##OPN)                                     \
    }
#define LC_RS_VBIND_SUM(x, y)  LC_VOP_SUM(V, VU, VI, x, y)
#define LC_RS_VBIND_PROD(x, y) LC_VOP_PROD(V, VU, VI, x, y)
#define LC_RS_VBIND_MIN(x, y)  LC_VOP_MIN(V, VU, VI, x, y)
#define LC_RS_VBIND_MAX(x, y)  LC_VOP_MAX(V, VU, VI, x, y)
#define LC_RS_VBIND_BXOR(x, y) LC_VOP_BXOR(V, VU, VI, x, y)
#define LC_RS_SBIND_SUM(x, y)  LC_OP_SUM(lc_t, lc_uw, x, y)
#define LC_RS_SBIND_PROD(x, y) LC_OP_PROD(lc_t, lc_uw, x, y)
#define LC_RS_SBIND_MIN(x, y)  LC_OP_MIN(lc_t, lc_uw, x, y)
#define LC_RS_SBIND_MAX(x, y)  LC_OP_MAX(lc_t, lc_uw, x, y)
#define LC_RS_SBIND_BXOR(x, y) LC_OP_BXOR(lc_t, lc_uw, x, y)
LC_RS_INT_TYPES(LC_RS_INT_ALL)

/* Floating point: V is the float vector, VI the same-width integer vector. */
#define LC_RS_FVOP_SUM(x, y)  ((x) + (y))
#define LC_RS_FVOP_PROD(x, y) ((x) * (y))
#define LC_RS_FVOP_MIN(x, y)                                                                       \
    __extension__({                                                                                \
        VI m_ = (y) < (x);                                                                         \
        (V)(((VI)(y)&m_) | ((VI)(x) & ~m_));                                                       \
    })
#define LC_RS_FVOP_MAX(x, y)                                                                       \
    __extension__({                                                                                \
        VI m_ = (y) > (x);                                                                         \
        (V)(((VI)(y)&m_) | ((VI)(x) & ~m_));                                                       \
    })
#define LC_RS_FLT(SUF, T, TI, OPN)                                                                 \
    static void LC_RS_FN(SUF, OPN)(void *d_, const void *a_, const void *b_, size_t n)             \
    {                                                                                              \
        typedef T V __attribute__((vector_size(64)));                                              \
        typedef TI VI __attribute__((vector_size(64), unused));                                    \
        T *d = d_;                                                                                 \
        const T *a = a_, *b = b_;                                                                  \
        LC_RS_LOOP(T, V, LC_RS_FVOP_##OPN, LC_FOP_##OPN)                                           \
    }
#define LC_RS_FLT_ALL(SUF, T, TI)                                                                  \
    LC_RS_FLT(SUF, T, TI, SUM)                                                                     \
    LC_RS_FLT(SUF, T, TI, PROD) LC_RS_FLT(SUF, T, TI, MIN) LC_RS_FLT(SUF, T, TI, MAX)
LC_RS_FLT_ALL(f32, float, int32_t)
LC_RS_FLT_ALL(f64, double, int64_t)

/* Table entries of this file (fp16/bf16 are added by the ISA file). */
static void LC_RS_FILL_GENERIC(lc_reduce_table_t tab)
{
#define LC_RS_FILL_INT(DT, SUF, T, UW, UN)                                                         \
    tab[LINCOLL_##DT][LINCOLL_SUM] = LC_RS_FN(SUF, SUM);                                           \
    tab[LINCOLL_##DT][LINCOLL_PROD] = LC_RS_FN(SUF, PROD);                                         \
    tab[LINCOLL_##DT][LINCOLL_MIN] = LC_RS_FN(SUF, MIN);                                           \
    tab[LINCOLL_##DT][LINCOLL_MAX] = LC_RS_FN(SUF, MAX);                                           \
    tab[LINCOLL_##DT][LINCOLL_BXOR] = LC_RS_FN(SUF, BXOR);
    LC_RS_INT_TYPES(LC_RS_FILL_INT)
#undef LC_RS_FILL_INT
    tab[LINCOLL_FLOAT][LINCOLL_SUM] = LC_RS_FN(f32, SUM);
    tab[LINCOLL_FLOAT][LINCOLL_PROD] = LC_RS_FN(f32, PROD);
    tab[LINCOLL_FLOAT][LINCOLL_MIN] = LC_RS_FN(f32, MIN);
    tab[LINCOLL_FLOAT][LINCOLL_MAX] = LC_RS_FN(f32, MAX);
    tab[LINCOLL_DOUBLE][LINCOLL_SUM] = LC_RS_FN(f64, SUM);
    tab[LINCOLL_DOUBLE][LINCOLL_PROD] = LC_RS_FN(f64, PROD);
    tab[LINCOLL_DOUBLE][LINCOLL_MIN] = LC_RS_FN(f64, MIN);
    tab[LINCOLL_DOUBLE][LINCOLL_MAX] = LC_RS_FN(f64, MAX);
    /* GF(2^8) addition: bytes XOR like uint8. */
    tab[LINCOLL_BYTE][LINCOLL_BXOR] = LC_RS_FN(u8, BXOR);
}
