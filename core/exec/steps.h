/*
 * core/exec/steps.h: run one typed compute step of a bound plan.
 */
#ifndef LC_STEPS_H
#define LC_STEPS_H

#include "core/exec/exec.h"

lincoll_status_t lc_step_run(lincoll_plan_t *plan, const lc_step_t *step);

/* GF steps (LC_STEP_GF_LINCOMB, LC_STEP_GF_MAD, core/exec/steps_gf.c), GEMM
 * steps (core/exec/steps_gemm.c), checksum steps (core/exec/steps_crc.c). */
lincoll_status_t lc_step_gf_run(lincoll_plan_t *plan, const lc_step_t *step);
lincoll_status_t lc_step_gemm_run(lincoll_plan_t *plan, const lc_step_t *step);
lincoll_status_t lc_step_crc_run(lincoll_plan_t *plan, const lc_step_t *step);

#endif
