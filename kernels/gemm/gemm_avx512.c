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
 *   double 24x8: kc*8*8 B of Bp (16 KiB at kc=256) stays in L1, mc*kc*8 B of
 *                Ap (240 KiB at mc=120) in L2, kc*nc*8 B of Bp in L3.
 *   float  48x8: kc=384, mc=144 (12 KiB of Bp, 216 KiB of Ap); measured here,
 *                kc=256 (double) and kc=384 (float) beat larger kc by 5-10 %.
 */
#include "gemm_kernels.h"

#include "gemm_pack_avx.h"

#include <immintrin.h>

/* 8 x 8 double transpose-pack (lc_gemm_pack8_t): unpack pairs, then two rounds
 * of 128-bit lane shuffles; remaining p copied one by one. */
static void lc_dpack8_avx512(int64_t kb, const void *src_, int64_t ld, void *dst_, int64_t ds)
{
    const double *src = src_;
    double *dst = dst_;
    int64_t p = 0;
    for (; p + 8 <= kb; p += 8) {
        __m512d r0 = _mm512_loadu_pd(src + 0 * ld + p), r1 = _mm512_loadu_pd(src + 1 * ld + p);
        __m512d r2 = _mm512_loadu_pd(src + 2 * ld + p), r3 = _mm512_loadu_pd(src + 3 * ld + p);
        __m512d r4 = _mm512_loadu_pd(src + 4 * ld + p), r5 = _mm512_loadu_pd(src + 5 * ld + p);
        __m512d r6 = _mm512_loadu_pd(src + 6 * ld + p), r7 = _mm512_loadu_pd(src + 7 * ld + p);
        __m512d t0 = _mm512_unpacklo_pd(r0, r1), t1 = _mm512_unpackhi_pd(r0, r1);
        __m512d t2 = _mm512_unpacklo_pd(r2, r3), t3 = _mm512_unpackhi_pd(r2, r3);
        __m512d t4 = _mm512_unpacklo_pd(r4, r5), t5 = _mm512_unpackhi_pd(r4, r5);
        __m512d t6 = _mm512_unpacklo_pd(r6, r7), t7 = _mm512_unpackhi_pd(r6, r7);
        /* Even q from t0/t2/t4/t6, odd q from t1/t3/t5/t7. */
        __m512d u0 = _mm512_shuffle_f64x2(t0, t2, 0x88), u1 = _mm512_shuffle_f64x2(t0, t2, 0xdd);
        __m512d v0 = _mm512_shuffle_f64x2(t4, t6, 0x88), v1 = _mm512_shuffle_f64x2(t4, t6, 0xdd);
        __m512d w0 = _mm512_shuffle_f64x2(t1, t3, 0x88), w1 = _mm512_shuffle_f64x2(t1, t3, 0xdd);
        __m512d x0 = _mm512_shuffle_f64x2(t5, t7, 0x88), x1 = _mm512_shuffle_f64x2(t5, t7, 0xdd);
        double *d = dst + p * ds;
        _mm512_storeu_pd(d + 0 * ds, _mm512_shuffle_f64x2(u0, v0, 0x88));
        _mm512_storeu_pd(d + 4 * ds, _mm512_shuffle_f64x2(u0, v0, 0xdd));
        _mm512_storeu_pd(d + 2 * ds, _mm512_shuffle_f64x2(u1, v1, 0x88));
        _mm512_storeu_pd(d + 6 * ds, _mm512_shuffle_f64x2(u1, v1, 0xdd));
        _mm512_storeu_pd(d + 1 * ds, _mm512_shuffle_f64x2(w0, x0, 0x88));
        _mm512_storeu_pd(d + 5 * ds, _mm512_shuffle_f64x2(w0, x0, 0xdd));
        _mm512_storeu_pd(d + 3 * ds, _mm512_shuffle_f64x2(w1, x1, 0x88));
        _mm512_storeu_pd(d + 7 * ds, _mm512_shuffle_f64x2(w1, x1, 0xdd));
    }
    for (; p < kb; p++) {
        for (int j = 0; j < 8; j++)
            dst[p * ds + j] = src[j * ld + p];
    }
}

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
#define LC_UKR_NARROW           lc_dgemm_ukr_avx512_narrow
#include "gemm_ukr_tmpl.h"
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
#undef LC_UKR_NARROW

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
#define LC_UKR_NARROW           lc_sgemm_ukr_avx512_narrow
#include "gemm_ukr_tmpl.h"

/* Registration: {double, float}; mc % mr == 0, nc % nr == 0. */
const lc_gemm_kernel_t lc_gemm_kernels_avx512[2] = {
    {"avx512 24x8", LINCOLL_DOUBLE, 24, 8, 120, 256, 4032, lc_dgemm_ukr_avx512_24x8,
     lc_dpack8_avx512},
    {"avx512 48x8", LINCOLL_FLOAT, 48, 8, 144, 384, 4032, lc_sgemm_ukr_avx512_48x8, lc_spack8_avx},
};
