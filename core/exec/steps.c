/*
 * core/exec/steps.c: compute steps between rounds, dispatched to kernels/.
 *
 * COPY is memmove (operands may overlap when an algorithm shifts in place);
 * REDUCE calls the dispatched reduction kernel (dst = a op b); GF and GEMM
 * steps call the GF and GEMM kernels with the operands the algorithm stored
 * in step->ext.
 */
#include "core/exec/steps.h"

#include <string.h>

#include "core/base/log.h"
#include "kernels/reduce/reduce_kernels.h"

lincoll_status_t lc_step_run(lincoll_plan_t *p, const lc_step_t *s)
{
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
