/*
 * core/exec/steps_gemm.c: run an LC_STEP_GEMM step.
 *
 * step->ext is an lc_gemm_ext_t (core/matmul/mm_int.h): m, n, k, alpha, beta,
 * dtype, one layout for all three operands, op(A)/op(B), and A, B, C as
 * (slot, byte offset) references with leading dimensions in elements.  The
 * step calls the dispatched blocked kernel lincoll_gemm(); a step with
 * m == 0 or n == 0 does nothing, k == 0 scales C by beta.
 *
 * A step that runs during its round's transfers (ext->progress) is cut
 * along k into chunks of whole cache blocks (KC: the blocked kernel packs
 * each operand element once either way and adds into C once per KC block, so
 * the chunks do the same arithmetic in the same order), and the transport is
 * progressed between chunks: without it a rendezvous transfer (UCX shm/cma,
 * tcp) would not move until the GEMM ended, and the overlap would be lost.
 */
#include "core/exec/steps.h"

#include <lincoll/gemm.h>

#include "core/base/log.h"
#include "core/matmul/mm_int.h"

/* k per chunk: a multiple of the kernels' KC (double 256, float 384) and at
 * least ~1e8 flops, i.e. about a millisecond of GEMM between two progress calls */
static int64_t lc_gemm_chunk_k(const lc_gemm_ext_t *g)
{
    const int64_t kc = g->dtype == LINCOLL_FLOAT ? 384 : 256;
    double per_k = 2.0 * (double)g->m * (double)g->n;
    int64_t want = per_k > 0 ? (int64_t)(1e8 / per_k) : g->k;
    int64_t blocks = (want + kc - 1) / kc;
    return (blocks > 1 ? blocks : 1) * kc;
}

lincoll_status_t lc_step_gemm_run(lincoll_plan_t *p, const lc_step_t *s)
{
    const lc_gemm_ext_t *g = s->ext;
    if (g == NULL) {
        lc_error("plan %s: gemm step without operands", p->algorithm);
        return LINCOLL_ERR_INTERNAL;
    }
    if (g->m == 0 || g->n == 0) {
        return LINCOLL_OK;
    }
    const char *a = g->k > 0 ? lc_plan_ptr(p, g->a) : NULL;
    const char *b = g->k > 0 ? lc_plan_ptr(p, g->b) : NULL;
    void *c = lc_plan_ptr(p, g->c);
    int64_t kstep = g->progress ? lc_gemm_chunk_k(g) : g->k;
    if (kstep >= g->k) {
        return lincoll_gemm(g->layout, g->ta, g->tb, g->m, g->n, g->k, g->dtype, g->alpha, a,
                            g->lda, b, g->ldb, g->beta, c, g->ldc);
    }
    /* element offset of op(A)(:, k0) and op(B)(k0, :) */
    const size_t es = lincoll_dtype_size(g->dtype);
    const int col = g->layout == LINCOLL_COL_MAJOR;
    const int a_ld = col != (g->ta == LINCOLL_TRANS); /* op(A) columns are strided by lda */
    const int b_ld = col == (g->tb == LINCOLL_TRANS); /* op(B) rows are strided by ldb */
    lincoll_context_t *ctx = p->ctx;
    lincoll_status_t st = LINCOLL_OK;
    for (int64_t k0 = 0; k0 < g->k && st == LINCOLL_OK; k0 += kstep) {
        int64_t kb = g->k - k0 < kstep ? g->k - k0 : kstep;
        const char *ak = a + (size_t)(a_ld ? k0 * g->lda : k0) * es;
        const char *bk = b + (size_t)(b_ld ? k0 * g->ldb : k0) * es;
        st = lincoll_gemm(g->layout, g->ta, g->tb, g->m, g->n, kb, g->dtype, g->alpha, ak, g->lda,
                          bk, g->ldb, k0 == 0 ? g->beta : 1.0, c, g->ldc);
        ctx->tl_ops->progress(ctx->tl);
    }
    return st;
}

/* Builders call this to wrap their operands in a step; it also makes sure a
 * static link pulls this file in (lc_step_gemm_run is only weakly referenced). */
lc_step_t lc_step_gemm_make(lc_gemm_ext_t *g)
{
    lc_step_t s = {.kind = LC_STEP_GEMM,
                   .dst = g->c,
                   .len = (size_t)(g->m * g->n),
                   .dtype = g->dtype,
                   .ext = g};
    return s;
}
