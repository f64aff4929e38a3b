/*
 * core/exec/steps_gf.c: the executor's GF(q) compute steps.
 *
 * LC_STEP_GF_LINCOMB: dst_j = sum_i a_ji src_i (j < r, i < k), one call of
 *   the dispatched kernel lc_gf_lincomb() over len bytes.
 * LC_STEP_GF_MAD:     dst_j += a_j,col src_0, one call of lc_gf_mad() (the
 *   shape that folds a packet into partial results as soon as it arrives).
 *
 * Operands live in step->ext, an lc_gf_step_ext_t (core/plan/plan_steps.h):
 * the coefficient tables (owned by the plan's priv, not by the step), the
 * column for MAD, the byte length, and nsrc + ndst buffer references that
 * are resolved against the plan's slots at run time (scratch is allocated at
 * finalize, after the steps are built).  The plan frees ext with free().
 * No argument checks on the hot path: lc_plan_gf_step() (core/plan) checks
 * the buffer ranges once when the plan is built.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/plan/plan_steps.h"
#include "core/exec/steps.h"

#define LC_GF_STEP_STACK 64

lincoll_status_t lc_step_gf_run(lincoll_plan_t *plan, const lc_step_t *step)
{
    const lc_gf_step_ext_t *e = step->ext;
    if (e == NULL || e->len == 0) {
        return LINCOLL_OK;
    }
    const void *sstack[LC_GF_STEP_STACK];
    void *dstack[LC_GF_STEP_STACK];
    const void **src = sstack;
    void **dst = dstack;
    if (e->nsrc > LC_GF_STEP_STACK || e->ndst > LC_GF_STEP_STACK) {
        src = malloc(sizeof(*src) * (size_t)e->nsrc);
        dst = malloc(sizeof(*dst) * (size_t)e->ndst);
        if (src == NULL || dst == NULL) {
            free((void *)src);
            free(dst);
            lc_error("plan %s: no memory for a GF step", plan->ir->algorithm);
            return LINCOLL_ERR_NOMEM;
        }
    }
    for (int i = 0; i < e->nsrc; i++) {
        src[i] = lc_exec_ptr(plan, e->refs[i]);
    }
    for (int j = 0; j < e->ndst; j++) {
        dst[j] = lc_exec_ptr(plan, e->refs[e->nsrc + j]);
    }
    if (step->kind == LC_STEP_GF_MAD) {
        lc_gf_mad(e->coeffs, e->len, e->col, src[0], (void *const *)dst);
    } else {
        lc_gf_lincomb(e->coeffs, e->len, (const void *const *)src, (void *const *)dst);
    }
    if (src != sstack) {
        free((void *)src);
        free(dst);
    }
    return LINCOLL_OK;
}
