/*
 * kernels/gemm/gemm_ukr_base.c: portable C micro-kernels (LINCOLL_KERNEL_ISA=base).
 *
 * What: lc_dgemm_ukr_base_8x4 and lc_sgemm_ukr_base_8x4, plain C under the
 *       contract of gemm_kernels.h, registered with their block sizes.  They
 *       keep the blocked path (packing, edges, beta handling) testable on any
 *       CPU and give a baseline for the SIMD kernels.
 * Reference: BLIS ref_kernels/3/bli_gemm_ref.c.
 * Cost: whatever the compiler makes of 32 scalar accumulators (SSE2 at best).
 * Restrictions: none.
 */
#include "gemm_kernels.h"

#define LC_UKR_BASE_DEFINE(T, NAME)                                                                \
    static void NAME(int64_t m, int64_t n, int64_t k, const void *alpha_p, const void *ap,         \
                     const void *bp, const void *beta_p, void *c_, int64_t ldc)                    \
    {                                                                                              \
        enum { MR = 8, NR = 4 };                                                                   \
        const T *restrict a = ap;                                                                  \
        const T *restrict b = bp;                                                                  \
        T *c = c_;                                                                                 \
        const T alpha = *(const T *)alpha_p, beta = *(const T *)beta_p;                            \
        T acc[NR][MR] = {{0}};                                                                     \
        for (int64_t p = 0; p < k; p++) {                                                          \
            for (int j = 0; j < NR; j++) {                                                         \
                for (int i = 0; i < MR; i++)                                                       \
                    acc[j][i] += a[p * MR + i] * b[p * NR + j];                                    \
            }                                                                                      \
        }                                                                                          \
        for (int64_t j = 0; j < n; j++) {                                                          \
            for (int64_t i = 0; i < m; i++) {                                                      \
                T *cij = c + i + j * ldc;                                                          \
                *cij = beta == 0 ? alpha * acc[j][i] : alpha * acc[j][i] + beta * *cij;            \
            }                                                                                      \
        }                                                                                          \
    }

LC_UKR_BASE_DEFINE(double, lc_dgemm_ukr_base_8x4)
LC_UKR_BASE_DEFINE(float, lc_sgemm_ukr_base_8x4)

/* Registration: {double, float}. */
const lc_gemm_kernel_t lc_gemm_kernels_base[2] = {
    {"base 8x4", LINCOLL_DOUBLE, 8, 4, 64, 256, 2048, lc_dgemm_ukr_base_8x4, NULL},
    {"base 8x4", LINCOLL_FLOAT, 8, 4, 128, 256, 2048, lc_sgemm_ukr_base_8x4, NULL},
};
