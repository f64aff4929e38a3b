/**
 * @file gemm.h
 * @brief Local dense matrix multiply: C := alpha * op(A) * op(B) + beta * C.
 *
 * The single-node GEMM under lincoll's distributed matrix multiply (ring,
 * SUMMA, Cannon, 2.5D).  lincoll_gemm() runs the blocked, packed algorithm
 * with the best micro-kernel this CPU supports (AVX-512, AVX2+FMA or portable
 * C; `LINCOLL_KERNEL_ISA=base|avx2|avx512` forces one).  lincoll_gemm_base() is
 * a plain triple loop kept as a reference oracle.
 *
 * Conventions follow the BLAS: op(A) is m x k, op(B) is k x n, C is m x n;
 * leading dimensions count elements between consecutive columns (column-major)
 * or rows (row-major).  When beta == 0, C is only written (it may hold NaN or
 * garbage); when alpha == 0 or k == 0, A and B are not read.
 *
 * Threads: `LINCOLL_GEMM_THREADS=N` (default 1) lets one large call split C
 * into N independent column or row bands, each computed by its own thread.
 */
#ifndef LINCOLL_GEMM_H
#define LINCOLL_GEMM_H

#include <stdint.h>
#include <lincoll/status.h>
#include <lincoll/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Storage order of all three matrices of one call. */
typedef enum lincoll_layout {
    LINCOLL_COL_MAJOR = 0, /**< element (i, j) at ptr[i + j * ld] (BLAS/Fortran order) */
    LINCOLL_ROW_MAJOR = 1  /**< element (i, j) at ptr[i * ld + j] (C order) */
} lincoll_layout_t;

/** Whether an operand is used as stored or transposed. */
typedef enum lincoll_trans {
    LINCOLL_NO_TRANS = 0, /**< op(X) = X */
    LINCOLL_TRANS = 1     /**< op(X) = X^T */
} lincoll_trans_t;

/**
 * @brief C := alpha * op(A) * op(B) + beta * C (blocked, SIMD, dispatched).
 *
 * @param [in]     layout  ::LINCOLL_COL_MAJOR or ::LINCOLL_ROW_MAJOR (all of A, B, C).
 * @param [in]     transa  op for A.
 * @param [in]     transb  op for B.
 * @param [in]     m       rows of op(A) and C (>= 0).
 * @param [in]     n       columns of op(B) and C (>= 0).
 * @param [in]     k       columns of op(A), rows of op(B) (>= 0).
 * @param [in]     dtype   ::LINCOLL_FLOAT or ::LINCOLL_DOUBLE.
 * @param [in]     alpha   scale of the product (rounded to float for ::LINCOLL_FLOAT).
 * @param [in]     a       matrix A; may be NULL when m, k or alpha is zero.
 * @param [in]     lda     leading dimension of A (>= max(1, rows of A as stored)).
 * @param [in]     b       matrix B; may be NULL when k, n or alpha is zero.
 * @param [in]     ldb     leading dimension of B (>= max(1, rows of B as stored)).
 * @param [in]     beta    scale of the old C (rounded to float for ::LINCOLL_FLOAT);
 *                         0 means C is not read.
 * @param [in,out] c       matrix C; may be NULL when m or n is zero.  Must not
 *                         overlap A or B.
 * @param [in]     ldc     leading dimension of C (>= max(1, rows of C as stored)).
 * @return ::LINCOLL_OK;
 *         ::LINCOLL_ERR_INVALID for a negative size, a leading dimension that
 *         is too small, a NULL matrix that would be accessed, or an unknown
 *         layout/trans value (the log names the argument);
 *         ::LINCOLL_ERR_UNSUPPORTED for a dtype other than float or double;
 *         ::LINCOLL_ERR_NOMEM when the packing buffers cannot be allocated.
 */
LINCOLL_API lincoll_status_t lincoll_gemm(lincoll_layout_t layout, lincoll_trans_t transa,
                                          lincoll_trans_t transb, int64_t m, int64_t n, int64_t k,
                                          lincoll_dtype_t dtype, double alpha, const void *a,
                                          int64_t lda, const void *b, int64_t ldb, double beta,
                                          void *c, int64_t ldc);

/**
 * @brief Reference C := alpha * op(A) * op(B) + beta * C: plain loops, no SIMD.
 *
 * Same arguments, checks and return values as lincoll_gemm() (it never
 * returns ::LINCOLL_ERR_NOMEM).  Accumulates each dot product in the element
 * type, in order of increasing k.  Meant as a test oracle: O(m n k) with no
 * cache blocking.
 *
 * @return see lincoll_gemm().
 */
LINCOLL_API lincoll_status_t lincoll_gemm_base(lincoll_layout_t layout, lincoll_trans_t transa,
                                               lincoll_trans_t transb, int64_t m, int64_t n,
                                               int64_t k, lincoll_dtype_t dtype, double alpha,
                                               const void *a, int64_t lda, const void *b,
                                               int64_t ldb, double beta, void *c, int64_t ldc);

/**
 * @brief Name of the micro-kernel lincoll_gemm() uses for @p dtype.
 * @param [in] dtype ::LINCOLL_FLOAT or ::LINCOLL_DOUBLE.
 * @return a static string, the ISA and the MR x NR register tile, such as
 *         "avx512 24x8"; "none" for another dtype.
 */
LINCOLL_API const char *lincoll_gemm_kernel_name(lincoll_dtype_t dtype);

#ifdef __cplusplus
}
#endif
#endif
