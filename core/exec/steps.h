/*
 * core/exec/steps.h: run one typed compute step of a plan.
 */
#ifndef LC_STEPS_H
#define LC_STEPS_H

#include "core/plan/plan.h"

lincoll_status_t lc_step_run(lincoll_plan_t *plan, const lc_step_t *step);

#endif
