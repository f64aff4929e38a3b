/*
 * core/exec/steps.c: compute steps between rounds, dispatched to kernels/.
 *
 * COPY is memmove (operands may overlap when an algorithm shifts in place);
 * REDUCE calls the dispatched reduction kernel (dst = a op b); GF and GEMM
 * steps call the GF and GEMM kernels with the operands the algorithm stored
 * in step->ext.  Steps the device pass marked run on the device
 * (core/exec/exec_dev.c).
 */
#include "core/exec/steps.h"

#include <string.h>

#include "core/base/log.h"
#include "kernels/reduce/reduce_kernels.h"

lincoll_status_t lc_step_run(lincoll_plan_t *p, const lc_step_t *s)
{
    if (__builtin_expect(p->dev != NULL, 0)) { /* docs/accelerators.md */
        if (s->dev) return lc_exec_dev_step(p, s);
        lincoll_status_t st = lc_exec_dev_wait(p); /* a host step after device work */
        if (st != LINCOLL_OK) return st;
    }
    switch (s->kind) {
    case LC_STEP_COPY:
        if (s->len > 0) {
            memmove(lc_exec_ptr(p, s->dst), lc_exec_ptr(p, s->a), s->len);
        }
        return LINCOLL_OK;
    case LC_STEP_REDUCE:
        return lc_reduce3(lc_exec_ptr(p, s->dst), lc_exec_ptr(p, s->a), lc_exec_ptr(p, s->b),
                          s->len, s->dtype, s->op);
    case LC_STEP_GF_LINCOMB:
    case LC_STEP_GF_MAD:
        return lc_step_gf_run(p, s);
    case LC_STEP_GEMM:
        return lc_step_gemm_run(p, s);
    case LC_STEP_CRC_MAKE:
    case LC_STEP_CRC_CHECK:
        return lc_step_crc_run(p, s);
    }
    lc_error("plan %s: compute step kind %d is not supported", p->ir->algorithm, (int)s->kind);
    return LINCOLL_ERR_UNSUPPORTED;
}
