/*
 * kernels/gemm/gemm_blocked_tmpl.h: packing and the loop nest for one element
 * type.  Included by gemm_blocked.c once per type with LC_T (element type)
 * and LC_FN(name) (name suffixing) defined.  See gemm_blocked.c for the
 * assumptions and the loop structure.
 */

/*
 * Copy an mm x kb block of op(A) into one MR-row micro-panel:
 * ap[p * MR + i] = op(A)(i, p), rows mm..MR-1 zero.  MR is a constant at
 * every call site (the switch in LC_FN(pack_a)), so the copies vectorise.
 */
static inline __attribute__((always_inline)) void
LC_FN(pack_a_panel)(int MR, lincoll_trans_t ta, int64_t mm, int64_t kb, const LC_T *a, int64_t lda,
                    LC_T *restrict ap, lc_gemm_pack8_t pack8)
{
    if (ta == LINCOLL_NO_TRANS) {
        if (mm == MR) {
            for (int64_t p = 0; p < kb; p++) {
                const LC_T *src = a + p * lda;
                LC_T *dst = ap + p * MR;
                for (int i = 0; i < MR; i++)
                    dst[i] = src[i];
            }
        } else {
            for (int64_t p = 0; p < kb; p++) {
                const LC_T *src = a + p * lda;
                LC_T *dst = ap + p * MR;
                for (int i = 0; i < MR; i++)
                    dst[i] = i < mm ? src[i] : (LC_T)0;
            }
        }
    } else {
        /* op(A)(i,p) = a[p + i*lda]: 8 rows at a time, reads contiguous along p. */
        int64_t i = 0;
        if (pack8 != NULL) {
            for (; i + 8 <= mm; i += 8)
                pack8(kb, a + i * lda, lda, ap + i, MR);
        }
        for (; i + 8 <= mm; i += 8) {
            const LC_T *s0 = a + i * lda;
            for (int64_t p = 0; p < kb; p++) {
                LC_T *dst = ap + p * MR + i;
                for (int r = 0; r < 8; r++)
                    dst[r] = s0[r * lda + p];
            }
        }
        for (; i < mm; i++) {
            const LC_T *src = a + i * lda;
            for (int64_t p = 0; p < kb; p++)
                ap[p * MR + i] = src[p];
        }
        if (mm < MR) {
            for (int64_t p = 0; p < kb; p++) {
                for (int r = (int)mm; r < MR; r++)
                    ap[p * MR + r] = 0;
            }
        }
    }
}

/* Pack the mb x kb block of op(A) at a into ceil(mb/MR) micro-panels. */
static void LC_FN(pack_a)(int mr, lincoll_trans_t ta, int64_t mb, int64_t kb, const LC_T *a,
                          int64_t lda, LC_T *restrict ap, lc_gemm_pack8_t pack8)
{
    /* Address of op(A)(i, 0) for the panel starting at row i. */
    int64_t is = ta == LINCOLL_NO_TRANS ? 1 : lda;
    for (int64_t i = 0; i < mb; i += mr) {
        int64_t mm = mb - i < mr ? mb - i : mr;
        LC_T *dst = ap + i * kb;
        const LC_T *src = a + i * is;
        switch (mr) {
        case 4:
            LC_FN(pack_a_panel)(4, ta, mm, kb, src, lda, dst, pack8);
            break;
        case 8:
            LC_FN(pack_a_panel)(8, ta, mm, kb, src, lda, dst, pack8);
            break;
        case 16:
            LC_FN(pack_a_panel)(16, ta, mm, kb, src, lda, dst, pack8);
            break;
        case 24:
            LC_FN(pack_a_panel)(24, ta, mm, kb, src, lda, dst, pack8);
            break;
        case 32:
            LC_FN(pack_a_panel)(32, ta, mm, kb, src, lda, dst, pack8);
            break;
        case 48:
            LC_FN(pack_a_panel)(48, ta, mm, kb, src, lda, dst, pack8);
            break;
        default:
            LC_FN(pack_a_panel)(mr, ta, mm, kb, src, lda, dst, pack8);
            break;
        }
    }
}

/*
 * Copy a kb x nn block of op(B) into one NR-column micro-panel:
 * bp[p * NR + j] = op(B)(p, j), columns nn..NR-1 zero.
 */
static inline __attribute__((always_inline)) void
LC_FN(pack_b_panel)(int NR, lincoll_trans_t tb, int64_t kb, int64_t nn, const LC_T *b, int64_t ldb,
                    LC_T *restrict bp, lc_gemm_pack8_t pack8)
{
    if (tb == LINCOLL_TRANS) {
        /* op(B)(p,j) = b[j + p*ldb]: rows of the panel are contiguous. */
        for (int64_t p = 0; p < kb; p++) {
            const LC_T *src = b + p * ldb;
            LC_T *dst = bp + p * NR;
            if (nn == NR) {
                for (int j = 0; j < NR; j++)
                    dst[j] = src[j];
            } else {
                for (int j = 0; j < NR; j++)
                    dst[j] = j < nn ? src[j] : (LC_T)0;
            }
        }
    } else if (nn == NR && NR == 8 && pack8 != NULL) {
        pack8(kb, b, ldb, bp, 8);
    } else if (nn == NR) {
        /* op(B)(p,j) = b[p + j*ldb]: gather one element from each column per row. */
        for (int64_t p = 0; p < kb; p++) {
            LC_T *dst = bp + p * NR;
            for (int j = 0; j < NR; j++)
                dst[j] = b[p + j * ldb];
        }
    } else {
        for (int64_t p = 0; p < kb; p++) {
            LC_T *dst = bp + p * NR;
            for (int j = 0; j < NR; j++)
                dst[j] = j < nn ? b[p + j * ldb] : (LC_T)0;
        }
    }
}

/* Pack the kb x nb block of op(B) at b into ceil(nb/NR) micro-panels. */
static void LC_FN(pack_b)(int nr, lincoll_trans_t tb, int64_t kb, int64_t nb, const LC_T *b,
                          int64_t ldb, LC_T *restrict bp, lc_gemm_pack8_t pack8)
{
    int64_t js = tb == LINCOLL_NO_TRANS ? ldb : 1;
    for (int64_t j = 0; j < nb; j += nr) {
        int64_t nn = nb - j < nr ? nb - j : nr;
        LC_T *dst = bp + j * kb;
        const LC_T *src = b + j * js;
        switch (nr) {
        case 4:
            LC_FN(pack_b_panel)(4, tb, kb, nn, src, ldb, dst, pack8);
            break;
        case 6:
            LC_FN(pack_b_panel)(6, tb, kb, nn, src, ldb, dst, pack8);
            break;
        case 8:
            LC_FN(pack_b_panel)(8, tb, kb, nn, src, ldb, dst, pack8);
            break;
        case 12:
            LC_FN(pack_b_panel)(12, tb, kb, nn, src, ldb, dst, pack8);
            break;
        default:
            LC_FN(pack_b_panel)(nr, tb, kb, nn, src, ldb, dst, pack8);
            break;
        }
    }
}

/* C := beta * C for an m x n column-major block; beta == 0 writes zeros without reading. */
static void LC_FN(scale_c)(int64_t m, int64_t n, LC_T beta, LC_T *c, int64_t ldc)
{
    for (int64_t j = 0; j < n; j++) {
        LC_T *cj = c + j * ldc;
        if (beta == 0) {
            for (int64_t i = 0; i < m; i++)
                cj[i] = 0;
        } else if (beta != 1) {
            for (int64_t i = 0; i < m; i++)
                cj[i] *= beta;
        }
    }
}

/* The five loops for one thread's share of C (see the Assumptions block in gemm_blocked.c). */
static lincoll_status_t LC_FN(gemm_st)(const lc_gemm_kernel_t *kr, lincoll_trans_t ta,
                                       lincoll_trans_t tb, int64_t m, int64_t n, int64_t k,
                                       LC_T alpha, const LC_T *a, int64_t lda, const LC_T *b,
                                       int64_t ldb, LC_T beta, LC_T *c, int64_t ldc)
{
    if (m == 0 || n == 0) return LINCOLL_OK;
    if (k == 0 || alpha == 0) {
        LC_FN(scale_c)(m, n, beta, c, ldc);
        return LINCOLL_OK;
    }
    const int mr = kr->mr, nr = kr->nr;
    const int64_t mc = kr->mc, kc = kr->kc, nc = kr->nc;
    int64_t mcx = (m < mc ? m : mc), kcx = (k < kc ? k : kc), ncx = (n < nc ? n : nc);
    mcx = (mcx + mr - 1) / mr * mr;
    ncx = (ncx + nr - 1) / nr * nr;
    size_t a_elems = (size_t)(mcx * kcx), b_elems = (size_t)(kcx * ncx);
    LC_T *buf = lc_gemm_buffer((a_elems + b_elems) * sizeof(LC_T) + 128);
    if (buf == NULL) return LINCOLL_ERR_NOMEM;
    LC_T *ap = buf;
    LC_T *bp = buf + (a_elems + 15) / 16 * 16;
    /* Strides of op(A)(i,p) / op(B)(p,j) in storage. */
    int64_t a_is = ta == LINCOLL_NO_TRANS ? 1 : lda, a_ps = ta == LINCOLL_NO_TRANS ? lda : 1;
    int64_t b_ps = tb == LINCOLL_NO_TRANS ? 1 : ldb, b_js = tb == LINCOLL_NO_TRANS ? ldb : 1;

    for (int64_t jc = 0; jc < n; jc += nc) { /* 5th loop: nc columns of C and B */
        int64_t nb = n - jc < nc ? n - jc : nc;
        for (int64_t pc = 0; pc < k; pc += kc) { /* 4th loop: kc-deep rank update */
            int64_t kb = k - pc < kc ? k - pc : kc;
            LC_T beta_p = pc == 0 ? beta : (LC_T)1;
            LC_FN(pack_b)(nr, tb, kb, nb, b + pc * b_ps + jc * b_js, ldb, bp, kr->pack8);
            for (int64_t ic = 0; ic < m; ic += mc) { /* 3rd loop: mc rows of C and A */
                int64_t mb = m - ic < mc ? m - ic : mc;
                LC_FN(pack_a)(mr, ta, mb, kb, a + ic * a_is + pc * a_ps, lda, ap, kr->pack8);
                for (int64_t jr = 0; jr < nb; jr += nr) { /* 2nd loop: one B micro-panel */
                    int64_t nn = nb - jr < nr ? nb - jr : nr;
                    const LC_T *bpj = bp + jr * kb;
                    LC_T *cj = c + ic + (jc + jr) * ldc;
                    for (int64_t ir = 0; ir < mb; ir += mr) { /* 1st loop: one A micro-panel */
                        int64_t mm = mb - ir < mr ? mb - ir : mr;
                        kr->ukr(mm, nn, kb, &alpha, ap + ir * kb, bpj, &beta_p, cj + ir, ldc);
                    }
                }
                if (lc_gemm_hook_fn != NULL) lc_gemm_hook_fn(lc_gemm_hook_arg);
            }
        }
    }
    return LINCOLL_OK;
}
