/*
 * core/exec/steps.h: run one typed compute step of a plan.
 */
#ifndef LC_STEPS_H
#define LC_STEPS_H

#include "core/plan/plan.h"

lincoll_status_t lc_step_run(lincoll_plan_t *plan, const lc_step_t *step);

/* GF steps (LC_STEP_GF_LINCOMB, LC_STEP_GF_MAD): core/exec/steps_gf.c defines
 * the layout of step->ext and runs them with the GF kernels.  GEMM steps:
 * core/exec/steps_gemm.c.  Weak: a build without them reports unsupported. */
lincoll_status_t lc_step_gf_run(lincoll_plan_t *plan, const lc_step_t *step) __attribute__((weak));
lincoll_status_t lc_step_gemm_run(lincoll_plan_t *plan, const lc_step_t *step)
    __attribute__((weak));
/* Checksum steps (LC_STEP_CRC_MAKE, LC_STEP_CRC_CHECK): core/exec/steps_crc.c. */
lincoll_status_t lc_step_crc_run(lincoll_plan_t *plan, const lc_step_t *step);

#endif
