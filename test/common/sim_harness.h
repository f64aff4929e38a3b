/*
 * test/common/sim_harness.h: K virtual ranks over the sim transport in one
 * process, for exact round accounting and scale tests of plans.
 */
#ifndef LC_TEST_SIM_HARNESS_H
#define LC_TEST_SIM_HARNESS_H

#include <lincoll/lincoll.h>

#include "transports/sim/api.h"

typedef struct lc_simh {
    int K;
    lc_sim_world_t *world;
    lincoll_context_t **ctx;
    lincoll_comm_t **comm; /* world communicator of each virtual rank */
} lc_simh_t;

/* Create K virtual ranks (ports p per rank). Returns 0 on success. */
int lc_simh_create(lc_simh_t *h, int K, int ports);
void lc_simh_destroy(lc_simh_t *h);
/* Start plans[0..K-1] together and drive them all to completion.  Returns the
 * first error (or LINCOLL_OK). NULL entries are skipped. */
lincoll_status_t lc_simh_run(lc_simh_t *h, lincoll_plan_t **plans);

/* Bind one IR per virtual rank (irs[r] for rank r, taken; NULL: none) into
 * plans[r]; plans that declare windows exchange their bind records by hand
 * (the public inits cannot: one thread drives every rank).  Returns the
 * first error; on error no plan is returned. */
struct lc_plan;
lincoll_status_t lc_simh_bind(lc_simh_t *h, struct lc_plan **irs, lincoll_plan_t **plans);

#endif
