/*
 * kernels/gemm/gemm_ukr_tmpl.h: body of the 3-vector x 8 SIMD micro-kernels
 * (MR = 3 vectors of LC_VL elements, NR = 8).  Included by gemm_avx512.c
 * once per element type with the LC_* vector macros defined; follows the
 * contract in gemm_kernels.h.
 *
 * Per k step: 3 vector loads of Ap, 8 broadcasts of Bp, 24 FMAs into 24
 * accumulators (24 + 3 + 1 of the 32 vector registers).  Two FMA pipes with
 * latency 4 need >= 8 independent chains; 24 keep both pipes busy and leave
 * the load ports at 11 per 12 cycles.
 */
/*
 * Short edge tiles (m <= NV vectors, NV = 1 or 2): the same product on NV
 * vectors only, so a 16-row remainder of a 48-row tile costs a third.  The
 * packed Ap keeps its MR stride; rows past m are zero there.
 */
static inline __attribute__((always_inline)) void
LC_UKR_NARROW(int NV, int64_t m, int64_t n, int64_t k, LC_T alpha, const LC_T *restrict a,
              const LC_T *restrict b, LC_T beta, LC_T *c, int64_t ldc)
{
    enum { VL = LC_VL, MR = 3 * LC_VL, NR = 8 };
    LC_V acc[2][NR];
#pragma GCC unroll 2
    for (int v = 0; v < NV; v++) {
#pragma GCC unroll 8
        for (int j = 0; j < NR; j++)
            acc[v][j] = LC_ZERO();
    }
    for (int64_t p = 0; p < k; p++) {
        LC_V av[2];
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++)
            av[v] = LC_LOAD(a + v * VL);
#pragma GCC unroll 8
        for (int j = 0; j < NR; j++) {
            LC_V bj = LC_BCAST(b + j);
#pragma GCC unroll 2
            for (int v = 0; v < NV; v++)
                acc[v][j] = LC_FMA(av[v], bj, acc[v][j]);
        }
        a += MR;
        b += NR;
    }
    LC_T t[NR * 2 * LC_VL] __attribute__((aligned(64)));
#pragma GCC unroll 8
    for (int j = 0; j < NR; j++) {
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++)
            LC_STORE(t + j * 2 * VL + v * VL, acc[v][j]);
    }
    const LC_V va = LC_SET1(alpha), vb = LC_SET1(beta);
    for (int v = 0; v < NV; v++) {
        int64_t rows = m - v * VL;
        if (rows <= 0) break;
        LC_MASK_T mk = rows >= VL ? (LC_MASK_T) ~(LC_MASK_T)0 : (LC_MASK_T)((1u << rows) - 1u);
        for (int64_t j = 0; j < n; j++) {
            LC_T *cj = c + j * ldc + v * VL;
            LC_V x = LC_MUL(va, LC_LOAD(t + j * 2 * VL + v * VL));
            if (beta != 0) x = LC_FMA(vb, LC_MASKZ_LOADU(mk, cj), x);
            LC_MASK_STOREU(cj, mk, x);
        }
    }
}

static void LC_UKR_NAME(int64_t m, int64_t n, int64_t k, const void *alpha_p, const void *ap,
                        const void *bp, const void *beta_p, void *c_, int64_t ldc)
{
    const LC_T *restrict a = ap;
    const LC_T *restrict b = bp;
    LC_T *c = c_;
    const LC_T alpha = *(const LC_T *)alpha_p, beta = *(const LC_T *)beta_p;
    enum { VL = LC_VL, MR = 3 * LC_VL, NR = 8 };
    if (m <= VL) {
        LC_UKR_NARROW(1, m, n, k, alpha, a, b, beta, c, ldc);
        return;
    }
    if (m <= 2 * VL) {
        LC_UKR_NARROW(2, m, n, k, alpha, a, b, beta, c, ldc);
        return;
    }

#define LC_ACC(j) LC_V c0##j = LC_ZERO(), c1##j = LC_ZERO(), c2##j = LC_ZERO()
    LC_ACC(0);
    LC_ACC(1);
    LC_ACC(2);
    LC_ACC(3);
    LC_ACC(4);
    LC_ACC(5);
    LC_ACC(6);
    LC_ACC(7);
#undef LC_ACC

    /* Bring this C tile towards L1 while the k loop runs. */
    for (int64_t j = 0; j < n; j++) {
        const char *cj = (const char *)(c + j * ldc);
        _mm_prefetch(cj, _MM_HINT_T0);
        _mm_prefetch(cj + 64, _MM_HINT_T0);
        _mm_prefetch(cj + 128, _MM_HINT_T0);
        _mm_prefetch(cj + 191, _MM_HINT_T0);
    }

#define LC_STEP(j)                                                                                 \
    do {                                                                                           \
        LC_V bj = LC_BCAST(b + (j));                                                               \
        c0##j = LC_FMA(a0, bj, c0##j);                                                             \
        c1##j = LC_FMA(a1, bj, c1##j);                                                             \
        c2##j = LC_FMA(a2, bj, c2##j);                                                             \
    } while (0)
#pragma GCC unroll 4
    for (int64_t p = 0; p < k; p++) {
        LC_V a0 = LC_LOAD(a), a1 = LC_LOAD(a + VL), a2 = LC_LOAD(a + 2 * VL);
        _mm_prefetch((const char *)(a + LC_PF_A), _MM_HINT_T0);
        LC_STEP(0);
        LC_STEP(1);
        LC_STEP(2);
        LC_STEP(3);
        LC_STEP(4);
        LC_STEP(5);
        LC_STEP(6);
        LC_STEP(7);
        a += MR;
        b += NR;
    }
#undef LC_STEP

    const LC_V va = LC_SET1(alpha), vb = LC_SET1(beta);
    if (m == MR && n == NR) {
        /* Full tile: unmasked, straight from the registers. */
#define LC_WB(j, OP)                                                                               \
    do {                                                                                           \
        LC_T *cj = c + (j)*ldc;                                                                    \
        OP(cj, c0##j);                                                                             \
        OP(cj + VL, c1##j);                                                                        \
        OP(cj + 2 * VL, c2##j);                                                                    \
    } while (0)
#define LC_WB_ALL(OP)                                                                              \
    do {                                                                                           \
        LC_WB(0, OP);                                                                              \
        LC_WB(1, OP);                                                                              \
        LC_WB(2, OP);                                                                              \
        LC_WB(3, OP);                                                                              \
        LC_WB(4, OP);                                                                              \
        LC_WB(5, OP);                                                                              \
        LC_WB(6, OP);                                                                              \
        LC_WB(7, OP);                                                                              \
    } while (0)
#define LC_OP_B0(p, x) LC_STOREU(p, LC_MUL(va, x))
#define LC_OP_B1(p, x) LC_STOREU(p, LC_FMA(va, x, LC_LOADU(p)))
#define LC_OP_BN(p, x) LC_STOREU(p, LC_FMA(vb, LC_LOADU(p), LC_MUL(va, x)))
        if (beta == 0) {
            LC_WB_ALL(LC_OP_B0);
        } else if (beta == 1) {
            LC_WB_ALL(LC_OP_B1);
        } else {
            LC_WB_ALL(LC_OP_BN);
        }
#undef LC_OP_B0
#undef LC_OP_B1
#undef LC_OP_BN
#undef LC_WB_ALL
#undef LC_WB
        return;
    }

    /* Edge tile: spill the accumulators, then masked rows and only n columns. */
    LC_T t[NR * MR] __attribute__((aligned(64)));
#define LC_SPILL(j)                                                                                \
    do {                                                                                           \
        LC_STORE(t + (j)*MR, c0##j);                                                               \
        LC_STORE(t + (j)*MR + VL, c1##j);                                                          \
        LC_STORE(t + (j)*MR + 2 * VL, c2##j);                                                      \
    } while (0)
    LC_SPILL(0);
    LC_SPILL(1);
    LC_SPILL(2);
    LC_SPILL(3);
    LC_SPILL(4);
    LC_SPILL(5);
    LC_SPILL(6);
    LC_SPILL(7);
#undef LC_SPILL
    LC_MASK_T mk[3];
    for (int v = 0; v < 3; v++) {
        int64_t rows = m - v * VL;
        mk[v] = rows >= VL  ? (LC_MASK_T) ~(LC_MASK_T)0
                : rows <= 0 ? (LC_MASK_T)0
                            : (LC_MASK_T)((1u << rows) - 1u);
    }
    for (int64_t j = 0; j < n; j++) {
        LC_T *cj = c + j * ldc;
        for (int v = 0; v < 3; v++) {
            if (mk[v] == 0) break;
            LC_V x = LC_MUL(va, LC_LOAD(t + j * MR + v * VL));
            if (beta != 0) x = LC_FMA(vb, LC_MASKZ_LOADU(mk[v], cj + v * VL), x);
            LC_MASK_STOREU(cj + v * VL, mk[v], x);
        }
    }
}
