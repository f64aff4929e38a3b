/*
 * transports/sim/config.c: the sim transport's configuration rows (internal.h
 * lists its files), nested in core's configuration table like every
 * transport's.  None: a sim world is set up by its creator
 * (lc_sim_world_create, the fault hook), not by the environment.
 */
#include "api.h"

const lc_tl_config_t lc_tl_sim_config = {
    .transport = "sim",
    .rows = NULL,
    .n_rows = LC_TL_SIM_CONFIG_NROWS,
};
