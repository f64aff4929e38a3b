/*
 * transports/ucx/api.h: what a user of the ucx transport needs beyond the
 * contract (transport.h): its ops table and its own parameters, which
 * lc_tl_params_t.ext points to.
 */
#ifndef LC_TL_UCX_API_H
#define LC_TL_UCX_API_H

#include "../transport.h"

extern const lc_tl_ops_t lc_tl_ucx_ops;

/** A UCX variable the ucx transport sets before it starts UCX, unless the
 *  environment already sets it.  Which ones, and why, is core's
 *  configuration table (core/base/config.c; lincoll_info -c prints it). */
typedef struct lc_tl_ucx_var {
    const char *name;  /* full name, "UCX_..." */
    const char *value; /* NULL: net_devices (the topology's NIC choice, which
                          already leaves a UCX_NET_DEVICES of the environment alone) */
    int in_env;        /* 1: setenv() before ucp_config_read (UCX reads transport
                          options only from the environment); 0: ucp_config_modify */
} lc_tl_ucx_var_t;

#define LC_TL_UCX_MAX_VARS 8

/** The ucx transport's own parameters (lc_tl_params_t.ext; NULL: all zero). */
typedef struct lc_tl_ucx_params {
    int err_mode_peer;       /* endpoints with UCP_ERR_HANDLING_MODE_PEER */
    const char *net_devices; /* UCX_NET_DEVICES override, or NULL */
    const char *lanes;       /* one lane per device of this comma-separated list (each
                                lane its own UCX context restricted to that device), or
                                NULL / "": one lane, as UCX chooses (LINCOLL_UCX_LANES) */
    unsigned n_vars;         /* UCX variables to set, in this order */
    lc_tl_ucx_var_t vars[LC_TL_UCX_MAX_VARS];
} lc_tl_ucx_params_t;

#endif
