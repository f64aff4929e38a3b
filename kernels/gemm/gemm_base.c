/*
 * kernels/gemm/gemm_base.c: argument checks and the reference GEMM.
 *
 * What: lc_gemm_check() (shared by every entry point) and lincoll_gemm_base(),
 *       C := alpha * op(A) * op(B) + beta * C by plain dot products.
 * Reference: the BLAS dgemm/sgemm argument rules (xerbla order: trans, sizes,
 *       leading dimensions); a row-major call is the column-major call on the
 *       transposes with A and B swapped.
 * Cost: 2 m n k flops, no blocking: a test oracle, not a fast path.
 * Restrictions: float and double only; C must not overlap A or B.
 */
#include "gemm_kernels.h"

#include <stddef.h>

static int64_t lc_max1(int64_t x)
{
    return x > 1 ? x : 1;
}

lincoll_status_t lc_gemm_check(lincoll_layout_t layout, lincoll_trans_t ta, lincoll_trans_t tb,
                               int64_t m, int64_t n, int64_t k, lincoll_dtype_t dtype, double alpha,
                               const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                               const void *c, int64_t ldc)
{
    (void)beta;
    if (layout != LINCOLL_COL_MAJOR && layout != LINCOLL_ROW_MAJOR) {
        lc_kerror("gemm: layout %d is not LINCOLL_COL_MAJOR or LINCOLL_ROW_MAJOR", (int)layout);
        return LINCOLL_ERR_INVALID;
    }
    if (ta != LINCOLL_NO_TRANS && ta != LINCOLL_TRANS) {
        lc_kerror("gemm: transa %d is not LINCOLL_NO_TRANS or LINCOLL_TRANS", (int)ta);
        return LINCOLL_ERR_INVALID;
    }
    if (tb != LINCOLL_NO_TRANS && tb != LINCOLL_TRANS) {
        lc_kerror("gemm: transb %d is not LINCOLL_NO_TRANS or LINCOLL_TRANS", (int)tb);
        return LINCOLL_ERR_INVALID;
    }
    if (m < 0 || n < 0 || k < 0) {
        lc_kerror("gemm: negative size m=%lld n=%lld k=%lld", (long long)m, (long long)n,
                  (long long)k);
        return LINCOLL_ERR_INVALID;
    }
    if ((int)dtype < 0 || dtype >= LINCOLL_DTYPE_LAST) {
        lc_kerror("gemm: unknown dtype %d", (int)dtype);
        return LINCOLL_ERR_INVALID;
    }
    if (dtype != LINCOLL_FLOAT && dtype != LINCOLL_DOUBLE) {
        lc_kerror("gemm: dtype %s is not float or double", lc_kdtype_name(dtype));
        return LINCOLL_ERR_UNSUPPORTED;
    }
    /* Rows of each operand as stored in column-major terms (columns for row-major). */
    int col = layout == LINCOLL_COL_MAJOR;
    int64_t a_rows = (ta == LINCOLL_NO_TRANS) ? m : k, a_cols = (ta == LINCOLL_NO_TRANS) ? k : m;
    int64_t b_rows = (tb == LINCOLL_NO_TRANS) ? k : n, b_cols = (tb == LINCOLL_NO_TRANS) ? n : k;
    int64_t need_a = lc_max1(col ? a_rows : a_cols);
    int64_t need_b = lc_max1(col ? b_rows : b_cols);
    int64_t need_c = lc_max1(col ? m : n);
    if (lda < need_a) {
        lc_kerror("gemm: lda=%lld < %lld", (long long)lda, (long long)need_a);
        return LINCOLL_ERR_INVALID;
    }
    if (ldb < need_b) {
        lc_kerror("gemm: ldb=%lld < %lld", (long long)ldb, (long long)need_b);
        return LINCOLL_ERR_INVALID;
    }
    if (ldc < need_c) {
        lc_kerror("gemm: ldc=%lld < %lld", (long long)ldc, (long long)need_c);
        return LINCOLL_ERR_INVALID;
    }
    int reads_ab = m > 0 && n > 0 && k > 0 && alpha != 0.0;
    if (reads_ab && a == NULL) {
        lc_kerror("gemm: a is NULL");
        return LINCOLL_ERR_INVALID;
    }
    if (reads_ab && b == NULL) {
        lc_kerror("gemm: b is NULL");
        return LINCOLL_ERR_INVALID;
    }
    if (m > 0 && n > 0 && c == NULL) {
        lc_kerror("gemm: c is NULL");
        return LINCOLL_ERR_INVALID;
    }
    return LINCOLL_OK;
}

/* Column-major reference: c(i,j) = alpha * sum_p opA(i,p) opB(p,j) + beta * c(i,j). */
#define LC_GEMM_BASE_DEFINE(T, NAME)                                                               \
    static void NAME(lincoll_trans_t ta, lincoll_trans_t tb, int64_t m, int64_t n, int64_t k,      \
                     T alpha, const T *a, int64_t lda, const T *b, int64_t ldb, T beta, T *c,      \
                     int64_t ldc)                                                                  \
    {                                                                                              \
        int64_t ais = ta == LINCOLL_NO_TRANS ? 1 : lda, aps = ta == LINCOLL_NO_TRANS ? lda : 1;    \
        int64_t bps = tb == LINCOLL_NO_TRANS ? 1 : ldb, bjs = tb == LINCOLL_NO_TRANS ? ldb : 1;    \
        for (int64_t j = 0; j < n; j++) {                                                          \
            for (int64_t i = 0; i < m; i++) {                                                      \
                T s = 0;                                                                           \
                if (alpha != 0) {                                                                  \
                    for (int64_t p = 0; p < k; p++) {                                              \
                        s += a[i * ais + p * aps] * b[p * bps + j * bjs];                          \
                    }                                                                              \
                }                                                                                  \
                T *cij = &c[i + j * ldc];                                                          \
                *cij = (beta == 0) ? alpha * s : alpha * s + beta * *cij;                          \
            }                                                                                      \
        }                                                                                          \
    }

LC_GEMM_BASE_DEFINE(double, lc_dgemm_ref)
LC_GEMM_BASE_DEFINE(float, lc_sgemm_ref)

LINCOLL_API lincoll_status_t lincoll_gemm_base(lincoll_layout_t layout, lincoll_trans_t transa,
                                               lincoll_trans_t transb, int64_t m, int64_t n,
                                               int64_t k, lincoll_dtype_t dtype, double alpha,
                                               const void *a, int64_t lda, const void *b,
                                               int64_t ldb, double beta, void *c, int64_t ldc)
{
    lincoll_status_t st =
        lc_gemm_check(layout, transa, transb, m, n, k, dtype, alpha, a, lda, b, ldb, beta, c, ldc);
    if (st != LINCOLL_OK || m == 0 || n == 0) {
        return st;
    }
    if (layout == LINCOLL_ROW_MAJOR) {
        /* C^T = op(B)^T op(A)^T, all column-major views of the same memory. */
        const void *t = a;
        a = b;
        b = t;
        int64_t tl = lda;
        lda = ldb;
        ldb = tl;
        lincoll_trans_t tt = transa;
        transa = transb;
        transb = tt;
        int64_t tm = m;
        m = n;
        n = tm;
    }
    if (dtype == LINCOLL_DOUBLE) {
        lc_dgemm_ref(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    } else {
        lc_sgemm_ref(transa, transb, m, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c, ldc);
    }
    return LINCOLL_OK;
}
