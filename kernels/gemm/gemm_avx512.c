/*
 * kernels/gemm/gemm_avx512.c: AVX-512 GEMM micro-kernels and their block sizes.
 *
 * What: lc_dgemm_ukr_avx512_24x8 and lc_sgemm_ukr_avx512_48x8 (column tiles of
 *       3 zmm x 8 columns), registered with their MC/KC/NC below.
 * Reference: BLIS KernelsHowTo.md contract; register shape as AOCL-BLAS
 *       zen4/zen5 (8x24 row-preferred = 24x8 column-preferred).
 * Cost: 24 FMAs per k step per tile; peak-bound for k >= ~64.
 * Restrictions: needs AVX-512F (+ FMA); built with -mavx512f -mavx512dq
 *       -mavx512bw -mavx512vl -mfma.
 *
 * Block sizes (Zen 5: 48 KiB L1d, 1 MiB L2, 32 MiB L3 per CCD):
 *   double 24x8: kc*8*8 B of Bp (24 KiB at kc=384) stays in L1, mc*kc*8 B of
 *                Ap (~ 0.5 MiB) in L2, kc*nc*8 B of Bp in L3.
 *   float  48x8: same byte footprints with twice the elements.
 */
#include "kernels/gemm/gemm_kernels.h"

#include <immintrin.h>

/* Prefetch distance for the A stream, in elements (a few k steps ahead). */
#define LC_PF_A_STEPS 8

/* ---- double: 3 x 8 doubles x 8 columns = 24 x 8 ---- */
#define LC_T                    double
#define LC_V                    __m512d
#define LC_VL                   8
#define LC_MASK_T               __mmask8
#define LC_ZERO()               _mm512_setzero_pd()
#define LC_SET1(x)              _mm512_set1_pd(x)
#define LC_LOAD(p)              _mm512_load_pd(p)
#define LC_LOADU(p)             _mm512_loadu_pd(p)
#define LC_STORE(p, x)          _mm512_store_pd(p, x)
#define LC_STOREU(p, x)         _mm512_storeu_pd(p, x)
#define LC_BCAST(p)             _mm512_set1_pd(*(p))
#define LC_FMA(x, y, z)         _mm512_fmadd_pd(x, y, z)
#define LC_MUL(x, y)            _mm512_mul_pd(x, y)
#define LC_MASKZ_LOADU(k, p)    _mm512_maskz_loadu_pd(k, p)
#define LC_MASK_STOREU(p, k, x) _mm512_mask_storeu_pd(p, k, x)
#define LC_PF_A                 (LC_PF_A_STEPS * 24)
#define LC_UKR_NAME             lc_dgemm_ukr_avx512_24x8
#include "kernels/gemm/gemm_ukr_tmpl.h"
#undef LC_T
#undef LC_V
#undef LC_VL
#undef LC_MASK_T
#undef LC_ZERO
#undef LC_SET1
#undef LC_LOAD
#undef LC_LOADU
#undef LC_STORE
#undef LC_STOREU
#undef LC_BCAST
#undef LC_FMA
#undef LC_MUL
#undef LC_MASKZ_LOADU
#undef LC_MASK_STOREU
#undef LC_PF_A
#undef LC_UKR_NAME

/* ---- float: 3 x 16 floats x 8 columns = 48 x 8 ---- */
#define LC_T                    float
#define LC_V                    __m512
#define LC_VL                   16
#define LC_MASK_T               __mmask16
#define LC_ZERO()               _mm512_setzero_ps()
#define LC_SET1(x)              _mm512_set1_ps(x)
#define LC_LOAD(p)              _mm512_load_ps(p)
#define LC_LOADU(p)             _mm512_loadu_ps(p)
#define LC_STORE(p, x)          _mm512_store_ps(p, x)
#define LC_STOREU(p, x)         _mm512_storeu_ps(p, x)
#define LC_BCAST(p)             _mm512_set1_ps(*(p))
#define LC_FMA(x, y, z)         _mm512_fmadd_ps(x, y, z)
#define LC_MUL(x, y)            _mm512_mul_ps(x, y)
#define LC_MASKZ_LOADU(k, p)    _mm512_maskz_loadu_ps(k, p)
#define LC_MASK_STOREU(p, k, x) _mm512_mask_storeu_ps(p, k, x)
#define LC_PF_A                 (LC_PF_A_STEPS * 48)
#define LC_UKR_NAME             lc_sgemm_ukr_avx512_48x8
#include "kernels/gemm/gemm_ukr_tmpl.h"

/* Registration: {double, float}; mc % mr == 0, nc % nr == 0. */
const lc_gemm_kernel_t lc_gemm_kernels_avx512[2] = {
    {"avx512 24x8", LINCOLL_DOUBLE, 24, 8, 144, 384, 4032, lc_dgemm_ukr_avx512_24x8},
    {"avx512 48x8", LINCOLL_FLOAT, 48, 8, 240, 512, 4032, lc_sgemm_ukr_avx512_48x8},
};
