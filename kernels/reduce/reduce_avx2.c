/*
 * kernels/reduce/reduce_avx2.c: AVX2 reductions.
 *
 * What: every (dtype, op) on 64-byte vectors (two ymm; reduce_simd_tmpl.h),
 *       float16 through F16C (vcvtph2ps / vcvtps2ph, round to nearest even;
 *       only when the CPU has F16C, else the reference is kept) and bfloat16
 *       (shift to widen, integer round-to-nearest-even to narrow).
 * Reference: reduce_base.c defines the results; this file must match it.
 * Cost: memory bound for large counts: 2 loads + 1 store per element.
 * Restrictions: AVX2 (+ F16C for float16); dst may equal a or b.
 */
#include "reduce_kernels.h"

#include <immintrin.h>

#define LC_RS_FN(SUF, OPN) lc_reduce_avx2_##SUF##_##OPN
#define LC_RS_FILL_GENERIC lc_reduce_fill_avx2_generic
#include "reduce_simd_tmpl.h"

#define LC_F_SUM(x, y)  _mm256_add_ps(x, y)
#define LC_F_PROD(x, y) _mm256_mul_ps(x, y)
#define LC_F_MIN(x, y)  _mm256_min_ps(y, x) /* y < x ? y : x */
#define LC_F_MAX(x, y)  _mm256_max_ps(y, x) /* y > x ? y : x */

static inline __m256 lc_bf16x8_load(const uint16_t *p)
{
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

static inline void lc_bf16x8_store(uint16_t *p, __m256 f)
{
    __m256i x = _mm256_castps_si256(f);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(x, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
    __m256i q = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x40));
    r = _mm256_blendv_epi8(r, q, nan);
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0xd8);
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(packed));
}

static inline __m256 lc_f16x8_load(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

static inline void lc_f16x8_store(uint16_t *p, __m256 f)
{
    _mm_storeu_si128((__m128i *)p,
                     _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

#define LC_HF_VEC          __m256
#define LC_HF_LANES        8
#define LC_HF_FN(SUF, OPN) lc_reduce_avx2_##SUF##_##OPN
#include "reduce_half_tmpl.h"

LC_HALF_ALL(f16, lc_f16x8_load, lc_f16x8_store, lc_f16_to_f32, lc_f32_to_f16)
LC_HALF_ALL(bf16, lc_bf16x8_load, lc_bf16x8_store, lc_bf16_to_f32, lc_f32_to_bf16)

void lc_reduce_fill_avx2(lc_reduce_table_t tab)
{
    lc_reduce_fill_avx2_generic(tab);
    if (lc_cpu_features() & LC_CPU_F16C) {
        LC_HALF_INSTALL(tab, LINCOLL_FLOAT16, f16);
    }
    LC_HALF_INSTALL(tab, LINCOLL_BFLOAT16, bf16);
}
