/*
 * core/exec/steps_gemm.c: run an LC_STEP_GEMM step.
 *
 * step->ext is an lc_gemm_ext_t (core/plan/plan_steps.h): m, n, k, alpha, beta,
 * dtype, one layout for all three operands, op(A)/op(B), and A, B, C as
 * (slot, byte offset) references with leading dimensions in elements.  The
 * step calls the dispatched blocked kernel lincoll_gemm(); a step with
 * m == 0 or n == 0 does nothing, k == 0 scales C by beta.
 *
 * A step that runs during its round's transfers (ext->progress) progresses
 * the transport from inside the GEMM, between its mc x kc blocks (a hook of
 * kernels/gemm, a few hundred microseconds apart): without it a rendezvous
 * transfer (UCX shm/cma, tcp) would not move until the GEMM ended and the
 * overlap would be lost.  The arithmetic is unchanged.
 */
#include "core/exec/steps.h"

#include <lincoll/gemm.h>

#include "core/base/log.h"
#include "core/plan/plan_steps.h"
#include "kernels/gemm/gemm_kernels.h"

static void lc_gemm_progress(void *arg)
{
    lincoll_context_t *ctx = arg;
    ctx->tl_ops->progress(ctx->tl);
}

lincoll_status_t lc_step_gemm_run(lincoll_plan_t *p, const lc_step_t *s)
{
    const lc_gemm_ext_t *g = s->ext;
    if (g == NULL) {
        lc_error("plan %s: gemm step without operands", p->ir->algorithm);
        return LINCOLL_ERR_INTERNAL;
    }
    if (g->m == 0 || g->n == 0) {
        return LINCOLL_OK;
    }
    const char *a = g->k > 0 ? lc_exec_ptr(p, g->a) : NULL;
    const char *b = g->k > 0 ? lc_exec_ptr(p, g->b) : NULL;
    void *c = lc_exec_ptr(p, g->c);
    if (g->progress) lc_gemm_set_hook(lc_gemm_progress, p->ctx);
    lincoll_status_t st = lincoll_gemm(g->layout, g->ta, g->tb, g->m, g->n, g->k, g->dtype,
                                       g->alpha, a, g->lda, b, g->ldb, g->beta, c, g->ldc);
    if (g->progress) {
        lc_gemm_set_hook(NULL, NULL);
        p->ctx->tl_ops->progress(p->ctx->tl);
    }
    return st;
}
