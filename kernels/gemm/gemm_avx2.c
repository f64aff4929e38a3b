/*
 * kernels/gemm/gemm_avx2.c: AVX2+FMA GEMM micro-kernels and their block sizes.
 *
 * What: lc_dgemm_ukr_avx2_8x6 and lc_sgemm_ukr_avx2_16x6 (column tiles of
 *       2 ymm x 6 columns: 12 accumulators + 2 A + 1 B of the 16 ymm).
 * Reference: BLIS kernels/haswell/3 (6x8 row-preferred = 8x6 column-preferred),
 *       block sizes from config/haswell (MC 72, KC 256, NC 4080 for double).
 * Cost: 12 FMAs per k step per tile.
 * Restrictions: needs AVX2 + FMA; built with -mavx2 -mfma.
 */
#include "gemm_kernels.h"

#include "gemm_pack_avx.h"

#include <immintrin.h>

/* 8-row double transpose-pack (lc_gemm_pack8_t) as two 4 x 4 ymm transposes
 * per 4 p; remaining p copied one by one. */
static void lc_dpack8_avx2(int64_t kb, const void *src_, int64_t ld, void *dst_, int64_t ds)
{
    const double *src = src_;
    double *dst = dst_;
    int64_t p = 0;
    for (; p + 4 <= kb; p += 4) {
        for (int h = 0; h < 8; h += 4) {
            const double *s = src + h * ld + p;
            __m256d r0 = _mm256_loadu_pd(s), r1 = _mm256_loadu_pd(s + ld);
            __m256d r2 = _mm256_loadu_pd(s + 2 * ld), r3 = _mm256_loadu_pd(s + 3 * ld);
            __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
            __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
            double *d = dst + p * ds + h;
            _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
            _mm256_storeu_pd(d + ds, _mm256_permute2f128_pd(t1, t3, 0x20));
            _mm256_storeu_pd(d + 2 * ds, _mm256_permute2f128_pd(t0, t2, 0x31));
            _mm256_storeu_pd(d + 3 * ds, _mm256_permute2f128_pd(t1, t3, 0x31));
        }
    }
    for (; p < kb; p++) {
        for (int j = 0; j < 8; j++)
            dst[p * ds + j] = src[j * ld + p];
    }
}

#define LC_UKR_AVX2_DEFINE(T, V, VL, ZERO, LOAD, BCAST, FMA, STORE, NAME)                          \
    static void NAME(int64_t m, int64_t n, int64_t k, const void *alpha_p, const void *ap,         \
                     const void *bp, const void *beta_p, void *c_, int64_t ldc)                    \
    {                                                                                              \
        enum { MR = 2 * (VL), NR = 6 };                                                            \
        const T *restrict a = ap;                                                                  \
        const T *restrict b = bp;                                                                  \
        T *c = c_;                                                                                 \
        const T alpha = *(const T *)alpha_p, beta = *(const T *)beta_p;                            \
        V c00 = ZERO(), c10 = ZERO(), c01 = ZERO(), c11 = ZERO(), c02 = ZERO(), c12 = ZERO();      \
        V c03 = ZERO(), c13 = ZERO(), c04 = ZERO(), c14 = ZERO(), c05 = ZERO(), c15 = ZERO();      \
        for (int64_t j = 0; j < n; j++) {                                                          \
            _mm_prefetch((const char *)(c + j * ldc), _MM_HINT_T0);                                \
            _mm_prefetch((const char *)(c + j * ldc + MR - 1), _MM_HINT_T0);                       \
        }                                                                                          \
        _Pragma("GCC unroll 4") for (int64_t p = 0; p < k; p++)                                    \
        {                                                                                          \
            V a0 = LOAD(a), a1 = LOAD(a + (VL)), bj;                                               \
            bj = BCAST(b + 0);                                                                     \
            c00 = FMA(a0, bj, c00);                                                                \
            c10 = FMA(a1, bj, c10);                                                                \
            bj = BCAST(b + 1);                                                                     \
            c01 = FMA(a0, bj, c01);                                                                \
            c11 = FMA(a1, bj, c11);                                                                \
            bj = BCAST(b + 2);                                                                     \
            c02 = FMA(a0, bj, c02);                                                                \
            c12 = FMA(a1, bj, c12);                                                                \
            bj = BCAST(b + 3);                                                                     \
            c03 = FMA(a0, bj, c03);                                                                \
            c13 = FMA(a1, bj, c13);                                                                \
            bj = BCAST(b + 4);                                                                     \
            c04 = FMA(a0, bj, c04);                                                                \
            c14 = FMA(a1, bj, c14);                                                                \
            bj = BCAST(b + 5);                                                                     \
            c05 = FMA(a0, bj, c05);                                                                \
            c15 = FMA(a1, bj, c15);                                                                \
            a += MR;                                                                               \
            b += NR;                                                                               \
        }                                                                                          \
        T t[NR * MR] __attribute__((aligned(32)));                                                 \
        STORE(t + 0 * MR, c00);                                                                    \
        STORE(t + 0 * MR + (VL), c10);                                                             \
        STORE(t + 1 * MR, c01);                                                                    \
        STORE(t + 1 * MR + (VL), c11);                                                             \
        STORE(t + 2 * MR, c02);                                                                    \
        STORE(t + 2 * MR + (VL), c12);                                                             \
        STORE(t + 3 * MR, c03);                                                                    \
        STORE(t + 3 * MR + (VL), c13);                                                             \
        STORE(t + 4 * MR, c04);                                                                    \
        STORE(t + 4 * MR + (VL), c14);                                                             \
        STORE(t + 5 * MR, c05);                                                                    \
        STORE(t + 5 * MR + (VL), c15);                                                             \
        /* Write-back loops: full tiles vectorise with the constant MR; edges stay scalar. */      \
        if (m == MR) {                                                                             \
            for (int64_t j = 0; j < n; j++) {                                                      \
                T *cj = c + j * ldc;                                                               \
                const T *tj = t + j * MR;                                                          \
                if (beta == 0) {                                                                   \
                    for (int i = 0; i < MR; i++)                                                   \
                        cj[i] = alpha * tj[i];                                                     \
                } else {                                                                           \
                    for (int i = 0; i < MR; i++)                                                   \
                        cj[i] = alpha * tj[i] + beta * cj[i];                                      \
                }                                                                                  \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < n; j++) {                                                          \
            T *cj = c + j * ldc;                                                                   \
            const T *tj = t + j * MR;                                                              \
            for (int64_t i = 0; i < m; i++) {                                                      \
                cj[i] = beta == 0 ? alpha * tj[i] : alpha * tj[i] + beta * cj[i];                  \
            }                                                                                      \
        }                                                                                          \
    }

LC_UKR_AVX2_DEFINE(double, __m256d, 4, _mm256_setzero_pd, _mm256_load_pd, _mm256_broadcast_sd,
                   _mm256_fmadd_pd, _mm256_store_pd, lc_dgemm_ukr_avx2_8x6)
LC_UKR_AVX2_DEFINE(float, __m256, 8, _mm256_setzero_ps, _mm256_load_ps, _mm256_broadcast_ss,
                   _mm256_fmadd_ps, _mm256_store_ps, lc_sgemm_ukr_avx2_16x6)

/* Registration: {double, float}; mc % mr == 0, nc % nr == 0. */
const lc_gemm_kernel_t lc_gemm_kernels_avx2[2] = {
    {"avx2 8x6", LINCOLL_DOUBLE, 8, 6, 72, 256, 4080, lc_dgemm_ukr_avx2_8x6, lc_dpack8_avx2},
    {"avx2 16x6", LINCOLL_FLOAT, 16, 6, 144, 256, 4080, lc_sgemm_ukr_avx2_16x6, lc_spack8_avx},
};
