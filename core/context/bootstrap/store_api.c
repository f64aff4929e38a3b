/*
 * core/context/bootstrap/store_api.c: lincoll_store_start/port/stop, the
 * public face of the TCP store server (store.c) for groups of long-running
 * processes: a multi-job store (size 0) or a one-job store, served from a
 * background thread.
 */
#include <lincoll/context.h>

#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/context/bootstrap/store.h"

struct lincoll_store {
    lc_store_server_t *server;
};

lincoll_status_t lincoll_store_start(const lincoll_store_params_t *params,
                                     lincoll_store_t **store_p)
{
    LC_CHECK_ARG(store_p != NULL, "lincoll_store_start: store_p must not be NULL");
    LC_CHECK_ARG(params != NULL, "lincoll_store_start: params must not be NULL");
    LC_CHECK_ARG(params->secret != NULL && params->secret[0] != '\0' &&
                     strlen(params->secret) <= LC_STORE_MAX_SECRET,
                 "lincoll_store_start: params->secret must have 1 to %u bytes",
                 LC_STORE_MAX_SECRET);
    LC_CHECK_ARG(params->size >= 0 && (uint32_t)params->size <= LC_STORE_MAX_SIZE,
                 "lincoll_store_start: params->size=%d must be 0 (named jobs) or 1 .. %u",
                 params->size, LC_STORE_MAX_SIZE);
    LC_CHECK_ARG(params->port >= 0 && params->port <= 65535,
                 "lincoll_store_start: params->port=%d is outside [0, 65535]", params->port);
    LC_CHECK_ARG(params->idle_timeout >= 0,
                 "lincoll_store_start: params->idle_timeout=%g must be >= 0", params->idle_timeout);
    lincoll_store_t *st = calloc(1, sizeof(*st));
    if (st == NULL) return LINCOLL_ERR_NOMEM;
    lc_store_params_t p = {.host = params->host,
                           .port = params->port,
                           .size = params->size,
                           .secret = params->secret,
                           .idle_timeout = params->idle_timeout,
                           .multi_job = params->size == 0};
    lincoll_status_t s = lc_store_server_create(&p, &st->server);
    if (s == LINCOLL_OK) {
        s = lc_store_server_start(st->server);
        if (s != LINCOLL_OK) lc_store_server_destroy(st->server);
    }
    if (s != LINCOLL_OK) {
        free(st);
        return s;
    }
    lc_info("store: serving %s on %s:%d", params->size ? "one job" : "named jobs",
            params->host && *params->host ? params->host : "*", lc_store_server_port(st->server));
    *store_p = st;
    return LINCOLL_OK;
}

int lincoll_store_port(const lincoll_store_t *store)
{
    return store != NULL ? lc_store_server_port(store->server) : -1;
}

lincoll_status_t lincoll_store_stop(lincoll_store_t *store)
{
    if (store != NULL) {
        lc_store_server_destroy(store->server);
        free(store);
    }
    return LINCOLL_OK;
}
