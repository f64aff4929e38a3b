/*
 * kernels/reduce/reduce_ops.h: the scalar definition of every (dtype, op),
 * shared by the reference and by the tails of the SIMD variants so that all
 * variants compute the same bits.  x is the dst/a element, y the src/b one.
 */
#ifndef LC_REDUCE_OPS_H
#define LC_REDUCE_OPS_H

#include <stdint.h>

/* X(DTYPE, suffix, T, UW): integer types; UW is the unsigned type arithmetic
 * wraps in (at least unsigned int, so no signed overflow after promotion). */
#define LC_REDUCE_INT_TYPES(X)                                                                     \
    X(INT8, i8, int8_t, unsigned)                                                                  \
    X(INT16, i16, int16_t, unsigned)                                                               \
    X(INT32, i32, int32_t, uint32_t)                                                               \
    X(INT64, i64, int64_t, uint64_t)                                                               \
    X(UINT8, u8, uint8_t, unsigned)                                                                \
    X(UINT16, u16, uint16_t, unsigned)                                                             \
    X(UINT32, u32, uint32_t, uint32_t)                                                             \
    X(UINT64, u64, uint64_t, uint64_t)

#define LC_OP_SUM(T, UW, x, y)  ((T)((UW)(x) + (UW)(y)))
#define LC_OP_PROD(T, UW, x, y) ((T)((UW)(x) * (UW)(y)))
#define LC_OP_MIN(T, UW, x, y)  ((y) < (x) ? (y) : (x))
#define LC_OP_MAX(T, UW, x, y)  ((y) > (x) ? (y) : (x))
#define LC_OP_BXOR(T, UW, x, y) ((T)((x) ^ (y)))

#define LC_FOP_SUM(x, y)  ((x) + (y))
#define LC_FOP_PROD(x, y) ((x) * (y))
#define LC_FOP_MIN(x, y)  ((y) < (x) ? (y) : (x))
#define LC_FOP_MAX(x, y)  ((y) > (x) ? (y) : (x))

#endif
