/*
 * transports/ucx/api.h: what a user of the ucx transport needs beyond the
 * contract (transport.h): its ops table, its own parameters (which
 * lc_tl_params_t.ext points to), and its configuration (config.c): the
 * LINCOLL_UCX_* rows with the settings they fill, and the UCX variables it
 * sets.
 */
#ifndef LC_TL_UCX_API_H
#define LC_TL_UCX_API_H

#include "../transport.h"

extern const lc_tl_ops_t lc_tl_ucx_ops;

/* ---- configuration (config.c) ------------------------------------------ */

/** The ucx transport's settings: the values of its configuration rows
 *  (lc_tl_ucx_config), parsed and filled in by core's configuration table. */
typedef struct lc_tl_ucx_settings {
    int err_mode;    /* LINCOLL_UCX_ERR_MODE: LC_TL_UCX_ERR_PEER or LC_TL_UCX_ERR_NONE */
    char lanes[256]; /* LINCOLL_UCX_LANES: lane devices, "" = one lane */
} lc_tl_ucx_settings_t;

/* the values of LINCOLL_UCX_ERR_MODE ("peer|none"), by index */
enum { LC_TL_UCX_ERR_PEER = 0, LC_TL_UCX_ERR_NONE = 1 };

/* The rows of lc_tl_ucx_config, in order: core's table nests them as one
 * block, whose public ids (LINCOLL_CONFIG_UCX_ERR_MODE, ...) follow it. */
enum { LC_TL_UCX_CONFIG_ERR_MODE, LC_TL_UCX_CONFIG_LANES, LC_TL_UCX_CONFIG_NROWS };

/** The LINCOLL_UCX_* rows (lc_tl_ucx_settings_t). */
extern const lc_tl_config_t lc_tl_ucx_config;

/* Conditions of a UCX variable the transport sets (all must hold); 0: always. */
enum {
    LC_TL_UCX_WHEN_ALWAYS = 0,
    LC_TL_UCX_WHEN_ERR_PEER = 1 << 0, /* LINCOLL_UCX_ERR_MODE=peer */
    LC_TL_UCX_WHEN_SHM = 1 << 1,      /* UCX_TLS unset or naming shared memory */
    LC_TL_UCX_WHEN_NO_SHM = 1 << 2,   /* UCX_TLS set and naming no shared memory */
};

/** A UCX variable the ucx transport sets before it starts UCX, under its
 *  condition, unless the environment already sets it. */
typedef struct lc_tl_ucx_var_row {
    const char *name;  /* "UCX_..." */
    const char *value; /* what lincoll sets; NULL: the topology's NIC choice */
    unsigned when;     /* LC_TL_UCX_WHEN_* */
    int in_env;        /* set in the environment (else through ucp_config_modify) */
    const char *doc;   /* why lincoll sets it, and when (lincoll_info -c prints it) */
} lc_tl_ucx_var_row_t;

/** The UCX variables the transport sets, in the order it applies them. */
const lc_tl_ucx_var_row_t *lc_tl_ucx_var_table(size_t *count_p);

/** Does @p v apply under settings @p s and the UCX_TLS of the environment now? */
int lc_tl_ucx_var_applies(const lc_tl_ucx_var_row_t *v, const lc_tl_ucx_settings_t *s);

/* ---- parameters of init ------------------------------------------------ */

/** A UCX variable init sets (lc_tl_ucx_params_t.vars): an entry of the
 *  table above that applies. */
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
    double drain_timeout_s;  /* how long release() waits for a canceled receive whose
                                data is still arriving (LINCOLL_TIMEOUT; 0: while the
                                sender lives) */
    unsigned n_vars;         /* UCX variables to set, in this order */
    lc_tl_ucx_var_t vars[LC_TL_UCX_MAX_VARS];
} lc_tl_ucx_params_t;

/** Fill @p up from settings @p s: the error mode, the lanes (a pointer into
 *  @p s, which must outlive init) and the UCX variables that apply under
 *  @p s and the environment now.  net_devices is left as it is. */
void lc_tl_ucx_params_set(lc_tl_ucx_params_t *up, const lc_tl_ucx_settings_t *s);

#endif
