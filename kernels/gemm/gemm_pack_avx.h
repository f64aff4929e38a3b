/*
 * kernels/gemm/gemm_pack_avx.h: 8 x 8 float transpose-pack with ymm registers
 * (the lc_gemm_pack8_t contract in gemm_kernels.h), shared by the AVX2 and
 * AVX-512 files.  Eight source rows are read contiguously, eight p at a time,
 * transposed with unpack/shuffle/permute2f128, and stored as eight 8-float
 * rows of the packed panel.  Remaining p (kb % 8) are copied one by one.
 */
#ifndef LC_GEMM_PACK_AVX_H
#define LC_GEMM_PACK_AVX_H

#include <immintrin.h>
#include <stdint.h>

static void lc_spack8_avx(int64_t kb, const void *src_, int64_t ld, void *dst_, int64_t ds)
{
    const float *src = src_;
    float *dst = dst_;
    int64_t p = 0;
    for (; p + 8 <= kb; p += 8) {
        __m256 r0 = _mm256_loadu_ps(src + 0 * ld + p), r1 = _mm256_loadu_ps(src + 1 * ld + p);
        __m256 r2 = _mm256_loadu_ps(src + 2 * ld + p), r3 = _mm256_loadu_ps(src + 3 * ld + p);
        __m256 r4 = _mm256_loadu_ps(src + 4 * ld + p), r5 = _mm256_loadu_ps(src + 5 * ld + p);
        __m256 r6 = _mm256_loadu_ps(src + 6 * ld + p), r7 = _mm256_loadu_ps(src + 7 * ld + p);
        __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
        __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
        __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
        __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
        __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee);
        __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee);
        __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee);
        __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);
        float *d = dst + p * ds;
        _mm256_storeu_ps(d + 0 * ds, _mm256_permute2f128_ps(s0, s4, 0x20));
        _mm256_storeu_ps(d + 1 * ds, _mm256_permute2f128_ps(s1, s5, 0x20));
        _mm256_storeu_ps(d + 2 * ds, _mm256_permute2f128_ps(s2, s6, 0x20));
        _mm256_storeu_ps(d + 3 * ds, _mm256_permute2f128_ps(s3, s7, 0x20));
        _mm256_storeu_ps(d + 4 * ds, _mm256_permute2f128_ps(s0, s4, 0x31));
        _mm256_storeu_ps(d + 5 * ds, _mm256_permute2f128_ps(s1, s5, 0x31));
        _mm256_storeu_ps(d + 6 * ds, _mm256_permute2f128_ps(s2, s6, 0x31));
        _mm256_storeu_ps(d + 7 * ds, _mm256_permute2f128_ps(s3, s7, 0x31));
    }
    for (; p < kb; p++) {
        for (int j = 0; j < 8; j++)
            dst[p * ds + j] = src[j * ld + p];
    }
}

#endif
