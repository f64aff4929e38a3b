/**
 * @file reduce.h
 * @brief Elementwise reduction kernels: dst = dst (+) src and dst = a (+) b.
 *
 * The local combine step of every reduction collective (reduce, allreduce,
 * reduce-scatter) and GF(2^n) addition (XOR) for the encode path.  The
 * dispatched functions use the best SIMD variant the CPU supports (AVX-512,
 * AVX2, or plain C; `LINCOLL_KERNEL_ISA=base|avx2|avx512` forces one, read
 * once); the `_base` twins are the plain-C reference.
 *
 * Operators per element type:
 *  - integers (int8..int64, uint8..uint64): ::LINCOLL_SUM and ::LINCOLL_PROD
 *    wrap modulo 2^bits (two's complement), ::LINCOLL_MIN / ::LINCOLL_MAX
 *    compare as signed or unsigned by type, ::LINCOLL_BXOR is bitwise XOR.
 *    All exact: every variant gives the same bits.
 *  - ::LINCOLL_FLOAT, ::LINCOLL_DOUBLE: SUM, PROD, MIN, MAX; one IEEE
 *    operation per element, round to nearest even, no reassociation and no
 *    FMA contraction, so every variant gives bitwise-identical results
 *    (NaN payloads excepted: a NaN result is a NaN in every variant).
 *    min(x, y) is `y < x ? y : x` and max(x, y) is `y > x ? y : x`, with x the
 *    dst (or a) element: when either is NaN, or for +0 / -0, x is returned.
 *  - ::LINCOLL_FLOAT16, ::LINCOLL_BFLOAT16: both operands are widened to
 *    float exactly, combined with one float operation, and rounded once to
 *    the 16-bit format (round to nearest even; overflow gives infinity, NaN
 *    stays a quiet NaN, subnormals are kept).  For sum and product of two
 *    values this equals the correctly rounded 16-bit result, since float has
 *    at least 2p + 2 significand bits (p = 11 for float16, 8 for bfloat16).
 *    Results are identical across variants (NaN payloads excepted).
 *  - ::LINCOLL_BYTE: ::LINCOLL_BXOR only.
 *
 * Floating-point results assume the default MXCSR (no flush-to-zero).
 */
#ifndef LINCOLL_REDUCE_H
#define LINCOLL_REDUCE_H

#include <stddef.h>
#include <lincoll/status.h>
#include <lincoll/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief dst[i] = dst[i] (+) src[i] for i < count (dispatched SIMD).
 *
 * @param [in,out] dst    count elements; may be NULL when count is 0.
 * @param [in]     src    count elements; may equal dst, must not partly overlap it.
 * @param [in]     count  number of elements (not bytes).
 * @param [in]     dtype  element type.
 * @param [in]     op     operator.
 * @return ::LINCOLL_OK;
 *         ::LINCOLL_ERR_INVALID for an unknown dtype or op, or a NULL buffer
 *         with count > 0;
 *         ::LINCOLL_ERR_UNSUPPORTED for a known pair that has no meaning
 *         (::LINCOLL_BXOR on floating types, arithmetic on ::LINCOLL_BYTE).
 */
LINCOLL_API lincoll_status_t lincoll_reduce(void *dst, const void *src, size_t count,
                                            lincoll_dtype_t dtype, lincoll_op_t op);

/**
 * @brief dst[i] = a[i] (+) b[i] for i < count (dispatched SIMD).
 *
 * @param [out] dst    count elements; may equal a or b (in place), must not
 *                     partly overlap either.
 * @param [in]  a      left operands (x in the min/max rule above).
 * @param [in]  b      right operands.
 * @param [in]  count  number of elements.
 * @param [in]  dtype  element type.
 * @param [in]  op     operator.
 * @return see lincoll_reduce().
 */
LINCOLL_API lincoll_status_t lincoll_reduce3(void *dst, const void *a, const void *b, size_t count,
                                             lincoll_dtype_t dtype, lincoll_op_t op);

/**
 * @brief Reference dst[i] = dst[i] (+) src[i] in plain C.
 * @return see lincoll_reduce().
 */
LINCOLL_API lincoll_status_t lincoll_reduce_base(void *dst, const void *src, size_t count,
                                                 lincoll_dtype_t dtype, lincoll_op_t op);

/**
 * @brief Reference dst[i] = a[i] (+) b[i] in plain C.
 * @return see lincoll_reduce().
 */
LINCOLL_API lincoll_status_t lincoll_reduce3_base(void *dst, const void *a, const void *b,
                                                  size_t count, lincoll_dtype_t dtype,
                                                  lincoll_op_t op);

/**
 * @brief Name of the variant lincoll_reduce() dispatches to ("avx512", "avx2", "base").
 * @return a static string.
 */
LINCOLL_API const char *lincoll_reduce_variant(void);

#ifdef __cplusplus
}
#endif
#endif
