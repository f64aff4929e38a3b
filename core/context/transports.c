/*
 * core/context/transports.c: the transport array.
 *
 * Every transport lincoll can start is one entry of lc_transports[], in
 * order of preference: its ops table (whose name is a value of
 * LINCOLL_TRANSPORT), a probe that says whether it can serve a launch
 * (lincoll_init's processes, or virtual ranks of one process sharing a sim
 * world), and a start hook that fills the transport's own parameters
 * (transports/<name>/api.h) from the context and calls its init().  Adding a
 * transport is one entry here and its directory under transports/; nothing
 * else in core/ names a transport.
 */
#include <stdio.h>
#include <string.h>

#include "core/base/config.h"
#include "core/base/log.h"
#include "core/context/context.h"
#include "transports/sim/api.h"
#include "transports/ucx/api.h"

/* ---- ucx: processes over a bootstrap ---------------------------------------- */

static int lc_ucx_probe(const lc_tl_launch_t *launch)
{
    return launch->world == NULL;
}

static lincoll_status_t lc_ucx_start(lincoll_context_t *ctx, const lc_tl_launch_t *launch)
{
    /* the LINCOLL_UCX_* settings core's table parsed (its ucx block), pushed
     * down: error mode, lanes and the UCX variables that apply */
    lc_tl_ucx_params_t up = {.net_devices = launch->nics};
    lc_tl_ucx_params_set(&up, &ctx->cfg.ucx);
    up.drain_timeout_s = ctx->timeout;
    lc_tl_params_t tp = {.rank = ctx->rank, .size = ctx->size, .ext = &up};
    return lc_tl_ucx_ops.init(&tp, &ctx->tl);
}

static const lc_transport_t lc_transport_ucx = {
    .ops = &lc_tl_ucx_ops,
    .serves = "processes over UCP tags and RMA",
    .probe = lc_ucx_probe,
    .start = lc_ucx_start,
};

/* ---- sim: virtual ranks of one process ---------------------------------------- */

static int lc_sim_probe(const lc_tl_launch_t *launch)
{
    return launch->world != NULL;
}

static lincoll_status_t lc_sim_start(lincoll_context_t *ctx, const lc_tl_launch_t *launch)
{
    lc_tl_sim_params_t sp = {.world = launch->world};
    lc_tl_params_t tp = {.rank = ctx->rank, .size = ctx->size, .ext = &sp};
    return lc_tl_sim_ops.init(&tp, &ctx->tl);
}

static const lc_transport_t lc_transport_sim = {
    .ops = &lc_tl_sim_ops,
    .serves = "virtual ranks inside one process (tests)",
    .probe = lc_sim_probe,
    .start = lc_sim_start,
};

/* ---- the array ------------------------------------------------------------------ */

const lc_transport_t *const lc_transports[] = {
    &lc_transport_ucx,
    &lc_transport_sim,
    NULL,
};

const char *lc_transport_configured(const lc_config_t *cfg, char *buf, size_t len)
{
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    const char *var = lc_config_name(LINCOLL_CONFIG_TRANSPORT);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(t[i].name, var) != 0) continue;
        /* the cfg->transport-th of the field's values "a|b|..." */
        const char *v = t[i].values;
        for (int k = 0; k < cfg->transport && v != NULL; k++) {
            v = strchr(v, '|');
            v = v != NULL ? v + 1 : NULL;
        }
        if (v == NULL) break;
        size_t l = strcspn(v, "|");
        if (l >= len) break;
        memcpy(buf, v, l);
        buf[l] = '\0';
        return buf;
    }
    return NULL;
}

const lc_transport_t *lc_transport_pick(const char *name, const lc_tl_launch_t *launch)
{
    const char *what = launch->world != NULL ? "virtual ranks of one process" : "lincoll_init";
    for (const lc_transport_t *const *t = lc_transports; *t != NULL; t++) {
        if (name != NULL && strcmp((*t)->ops->name, name) != 0) continue;
        if ((*t)->probe(launch)) return *t;
        if (name != NULL) {
            char fit[128] = "";
            for (const lc_transport_t *const *u = lc_transports; *u != NULL; u++) {
                if ((*u)->probe(launch)) {
                    size_t used = strlen(fit);
                    snprintf(fit + used, sizeof(fit) - used, "%s%s", used ? ", " : "",
                             (*u)->ops->name);
                }
            }
            lc_error("%s=%s: the %s transport runs %s; %s needs %s",
                     lc_config_name(LINCOLL_CONFIG_TRANSPORT), name, name, (*t)->serves, what,
                     fit[0] ? fit : "another transport");
            return NULL;
        }
    }
    if (name != NULL) {
        lc_error("%s=%s: no such transport in this build", lc_config_name(LINCOLL_CONFIG_TRANSPORT),
                 name);
    } else {
        lc_error("no transport serves %s", what);
    }
    return NULL;
}

lincoll_status_t lc_transport_start(lincoll_context_t *ctx, const lc_transport_t *t,
                                    const lc_tl_launch_t *launch)
{
    ctx->tl_ops = t->ops;
    return t->start(ctx, launch);
}
