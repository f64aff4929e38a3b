/*
 * core/plan/plan_steps.h: the operand blocks of the compute steps that need
 * more than dst/a/b (step->ext), and their builders.  The executor's steps
 * (core/exec/steps_*.c) read them.
 */
#ifndef LC_PLAN_STEPS_H
#define LC_PLAN_STEPS_H

#include <lincoll/gemm.h>

#include "core/plan/plan.h"
#include "kernels/gf/gf_kernels.h"

/* GF step operands: LC_STEP_GF_LINCOMB dst_j = sum_i a_ji src_i (j < r, i < k);
 * LC_STEP_GF_MAD dst_j += a_j,col src_0.  The coefficient tables are owned
 * by the plan's priv, not by the step. */
typedef struct lc_gf_step_ext {
    const lincoll_gf_coeffs_t *coeffs; /* r x k tables */
    int col;                           /* MAD: the source's column */
    int nsrc, ndst;                    /* LINCOMB: k and r; MAD: 1 and r */
    size_t len;                        /* bytes per buffer */
    lc_bufref_t refs[];                /* nsrc sources, then ndst destinations */
} lc_gf_step_ext_t;

/* Append a GF step (kind LC_STEP_GF_LINCOMB or LC_STEP_GF_MAD) to a round;
 * its work is len * nsrc * ndst coefficient-bytes. */
lincoll_status_t lc_plan_gf_step(lc_plan_t *plan, int round, int when, lc_step_kind_t kind,
                                 const lincoll_gf_coeffs_t *coeffs, int col, int nsrc,
                                 const lc_bufref_t *srcs, int ndst, const lc_bufref_t *dsts,
                                 size_t len);

/* GEMM step operands: C := alpha op(A) op(B) + beta C, all in one layout,
 * each a (slot, offset) with a leading dimension in elements. */
typedef struct lc_gemm_ext {
    int64_t m, n, k;
    double alpha, beta;
    lincoll_dtype_t dtype;
    lincoll_layout_t layout;
    lincoll_trans_t ta, tb;
    lc_bufref_t a, b, c;
    int64_t lda, ldb, ldc;
    /* a DURING step: progress the transport from inside the GEMM (a kernels/gemm
     * hook between blocks), so the round's rendezvous transfers move meanwhile */
    int progress;
} lc_gemm_ext_t;

/* The step that owns g (work: the bytes of C, flops: 2 m n k). */
lc_step_t lc_step_gemm_make(lc_gemm_ext_t *g);

#endif
