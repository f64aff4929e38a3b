/*
 * core/plan/plan_steps.c: builders of the GF and GEMM steps (plan_steps.h).
 * Operand ranges are checked once here, so the executor's steps do not.
 */
#include "core/plan/plan_steps.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"

lincoll_status_t lc_plan_gf_step(lc_plan_t *plan, int round, int when, lc_step_kind_t kind,
                                 const lincoll_gf_coeffs_t *coeffs, int col, int nsrc,
                                 const lc_bufref_t *srcs, int ndst, const lc_bufref_t *dsts,
                                 size_t len)
{
    if (coeffs == NULL || nsrc < 1 || ndst < 1 ||
        (kind != LC_STEP_GF_LINCOMB && kind != LC_STEP_GF_MAD) ||
        (kind == LC_STEP_GF_MAD && nsrc != 1)) {
        lc_error("plan %s: malformed GF step", plan->algorithm);
        return LINCOLL_ERR_INTERNAL;
    }
    for (int i = 0; i < nsrc + ndst; i++) {
        lc_bufref_t r = i < nsrc ? srcs[i] : dsts[i - nsrc];
        if (r.slot >= plan->nslots || r.off > plan->slots[r.slot].size ||
            len > plan->slots[r.slot].size - r.off) {
            lc_error("plan %s: GF operand of %zu bytes at slot %u offset %zu is outside the buffer",
                     plan->algorithm, len, r.slot, r.off);
            return LINCOLL_ERR_INTERNAL;
        }
    }
    size_t n = (size_t)(nsrc + ndst);
    lc_gf_step_ext_t *e = malloc(sizeof(*e) + n * sizeof(lc_bufref_t));
    if (e == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    e->coeffs = coeffs;
    e->col = col;
    e->nsrc = nsrc;
    e->ndst = ndst;
    e->len = len;
    memcpy(e->refs, srcs, (size_t)nsrc * sizeof(lc_bufref_t));
    memcpy(e->refs + nsrc, dsts, (size_t)ndst * sizeof(lc_bufref_t));
    lc_step_t s = {.kind = kind,
                   .dst = dsts[0],
                   .a = srcs[0],
                   .len = len * (size_t)ndst,
                   .work = (double)len * (double)nsrc * (double)ndst,
                   .ext = e};
    return lc_plan_step(plan, round, when, &s);
}

lc_step_t lc_step_gemm_make(lc_gemm_ext_t *g)
{
    lc_step_t s = {.kind = LC_STEP_GEMM,
                   .dst = g->c,
                   .len = (size_t)(g->m * g->n),
                   .dtype = g->dtype,
                   .flops = 2.0 * (double)g->m * (double)g->n * (double)g->k,
                   .ext = g};
    return s;
}
