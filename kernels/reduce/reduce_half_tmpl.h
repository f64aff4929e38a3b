/*
 * kernels/reduce/reduce_half_tmpl.h: float16 and bfloat16 reductions widened
 * to float, one loop shared by every ISA file.  The including file defines
 *   LC_HF_VEC            the float vector type (__m256, __m512)
 *   LC_HF_LANES          floats per vector (8, 16)
 *   LC_HF_FN(SUF, OPN)   the name of the (dtype suffix, op) function
 *   LC_F_SUM/PROD/MIN/MAX(x, y)  the vector operations (MIN/MAX must pick
 *                        exactly as the scalar rule of reduce_ops.h)
 * and passes its own widening load / narrowing store to LC_HALF_ALL.  Two
 * vectors per iteration, then a scalar tail with the reference conversions;
 * every block loads before it stores, so dst may equal a or b.
 */
#include "reduce_ops.h"

#define LC_HALF_DEFINE(SUF, LOAD, STORE, TO, FROM, OPN)                                            \
    static void LC_HF_FN(SUF, OPN)(void *d_, const void *a_, const void *b_, size_t n)             \
    {                                                                                              \
        uint16_t *d = d_;                                                                          \
        const uint16_t *a = a_, *b = b_;                                                           \
        size_t i = 0;                                                                              \
        for (; i + 2 * LC_HF_LANES <= n; i += 2 * LC_HF_LANES) {                                   \
            LC_HF_VEC x0 = LOAD(a + i), x1 = LOAD(a + i + LC_HF_LANES);                            \
            LC_HF_VEC y0 = LOAD(b + i), y1 = LOAD(b + i + LC_HF_LANES);                            \
            LC_HF_VEC r0 = LC_F_##OPN(x0, y0), r1 = LC_F_##OPN(x1, y1);                            \
            STORE(d + i, r0);                                                                      \
            STORE(d + i + LC_HF_LANES, r1);                                                        \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            float x = TO(a[i]), y = TO(b[i]);                                                      \
            d[i] = FROM(LC_FOP_##OPN(x, y));                                                       \
        }                                                                                          \
    }

/* Defines the four float-valued ops for one 16-bit type. */
#define LC_HALF_ALL(SUF, LOAD, STORE, TO, FROM)                                                    \
    LC_HALF_DEFINE(SUF, LOAD, STORE, TO, FROM, SUM)                                                \
    LC_HALF_DEFINE(SUF, LOAD, STORE, TO, FROM, PROD)                                               \
    LC_HALF_DEFINE(SUF, LOAD, STORE, TO, FROM, MIN)                                                \
    LC_HALF_DEFINE(SUF, LOAD, STORE, TO, FROM, MAX)

/* Installs them in a dispatch table row. */
#define LC_HALF_INSTALL(TAB, DTYPE, SUF)                                                           \
    do {                                                                                           \
        (TAB)[DTYPE][LINCOLL_SUM] = LC_HF_FN(SUF, SUM);                                            \
        (TAB)[DTYPE][LINCOLL_PROD] = LC_HF_FN(SUF, PROD);                                          \
        (TAB)[DTYPE][LINCOLL_MIN] = LC_HF_FN(SUF, MIN);                                            \
        (TAB)[DTYPE][LINCOLL_MAX] = LC_HF_FN(SUF, MAX);                                            \
    } while (0)
