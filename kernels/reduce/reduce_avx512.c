/*
 * kernels/reduce/reduce_avx512.c: AVX-512 reductions.
 *
 * What: every (dtype, op) on 64-byte zmm vectors (reduce_simd_tmpl.h), and
 *       float16 (vcvtph2ps / vcvtps2ph, round to nearest even) and bfloat16
 *       (shift to widen; integer round-to-nearest-even to narrow, since
 *       vcvtneps2bf16 flushes subnormals) through float.
 * Reference: reduce_base.c defines the results; this file must match it.
 * Cost: memory bound for large counts: 2 loads + 1 store per element.
 * Restrictions: AVX-512 F/BW/VL/DQ; dst may equal a or b.
 */
#include "reduce_kernels.h"

#include <immintrin.h>

#define LC_RS_FN(SUF, OPN) lc_reduce_avx512_##SUF##_##OPN
#define LC_RS_FILL_GENERIC lc_reduce_fill_avx512_generic
#include "reduce_simd_tmpl.h"

#define LC_F_SUM(x, y)  _mm512_add_ps(x, y)
#define LC_F_PROD(x, y) _mm512_mul_ps(x, y)
#define LC_F_MIN(x, y)  _mm512_min_ps(y, x) /* y < x ? y : x */
#define LC_F_MAX(x, y)  _mm512_max_ps(y, x) /* y > x ? y : x */

static inline __m512 lc_bf16x16_load(const uint16_t *p)
{
    __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}

static inline void lc_bf16x16_store(uint16_t *p, __m512 f)
{
    __m512i x = _mm512_castps_si512(f);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(
        _mm512_add_epi32(x, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
    __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
    __m512i q = _mm512_or_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x40));
    r = _mm512_mask_blend_epi32(nan, r, q);
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(r));
}

static inline __m512 lc_f16x16_load(const uint16_t *p)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
}

static inline void lc_f16x16_store(uint16_t *p, __m512 f)
{
    _mm256_storeu_si256((__m256i *)p,
                        _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

#define LC_HF_VEC          __m512
#define LC_HF_LANES        16
#define LC_HF_FN(SUF, OPN) lc_reduce_avx512_##SUF##_##OPN
#include "reduce_half_tmpl.h"

LC_HALF_ALL(f16, lc_f16x16_load, lc_f16x16_store, lc_f16_to_f32, lc_f32_to_f16)
LC_HALF_ALL(bf16, lc_bf16x16_load, lc_bf16x16_store, lc_bf16_to_f32, lc_f32_to_bf16)

void lc_reduce_fill_avx512(lc_reduce_table_t tab)
{
    lc_reduce_fill_avx512_generic(tab);
    LC_HALF_INSTALL(tab, LINCOLL_FLOAT16, f16);
    LC_HALF_INSTALL(tab, LINCOLL_BFLOAT16, bf16);
}
