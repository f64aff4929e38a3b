/*
 * transports/ucx/tl_ucx.c: the UCX (UCP) transport.
 *
 * One ucp context and one worker per process (thread mode SINGLE), the
 * worker address exchanged through the bootstrap, endpoints created lazily on
 * first use.  Tag send/recv with the exact 64-bit tag of transport.h (mask
 * ~0), RMA with ucp_put_nbx into registered windows, and a remote signal made
 * of ucp_worker_fence + 64-bit atomic add so the target sees the counter only
 * after the data (UCX defines fence ordering per endpoint).
 *
 * Error handling: endpoints use UCP_ERR_HANDLING_MODE_PEER so a dead peer
 * fails its requests instead of hanging; UCX 1.13 then drops shared memory
 * unless UCX_MM_ERROR_HANDLING=y.  That and the other UCX variables lincoll
 * sets (keepalive off, sysv-only shared memory, tcp segment size, eager
 * lanes, NIC) come from core's table through lc_tl_params_t.ucx_vars, each
 * unless the user set it.
 *
 * Requests: each operation gets an lc_tl_req_t from a free list; UCX
 * callbacks write its status.  release() of an in-flight request cancels a
 * receive and marks the request orphaned; the callback then frees it, so no
 * UCX callback ever writes into memory the caller has given back.
 */
#include "tl_ucx_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- init / fini ---------------------------------------------------------- */

/* The UCX variables core's table asks for (lc_tl_params_t.ucx_vars, each
 * left alone when the environment sets it; why each: core/base/config.c,
 * lincoll_info -c): the environment ones before ucp_config_read, since
 * ucp_config_modify does not reach transport options. */
static void lc_ucx_setenv_vars(const lc_tl_params_t *params)
{
    for (unsigned i = 0; i < params->n_ucx_vars && i < LC_TL_UCX_MAX_VARS; i++) {
        const lc_tl_ucx_var_t *v = &params->ucx_vars[i];
        if (v->in_env && v->value != NULL) {
            setenv(v->name, v->value, 0);
        }
    }
}

/* ... and the others on the UCP configuration read from it. */
static void lc_ucx_modify_vars(const lc_tl_params_t *params, ucp_config_t *cfg)
{
    for (unsigned i = 0; i < params->n_ucx_vars && i < LC_TL_UCX_MAX_VARS; i++) {
        const lc_tl_ucx_var_t *v = &params->ucx_vars[i];
        if (v->in_env || strncmp(v->name, "UCX_", 4) != 0) {
            continue;
        }
        /* no value: the topology's NIC choice, made only when the
         * environment sets no UCX_NET_DEVICES */
        const char *val = v->value != NULL ? v->value : params->net_devices;
        if (val != NULL && *val != '\0' && (v->value == NULL || getenv(v->name) == NULL)) {
            ucp_config_modify(cfg, v->name + 4, val);
        }
    }
}

static lincoll_status_t lc_ucx_init(const lc_tl_params_t *params, lc_tl_t **tl_p)
{
    lc_ucx_setenv_vars(params);
    lc_tl_t *tl = calloc(1, sizeof(*tl));
    if (tl == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    tl->rank = params->rank;
    tl->size = params->size;
    tl->err_mode_peer = params->err_mode_peer;
    tl->efd = -1;
    tl->eps = calloc((size_t)params->size, sizeof(*tl->eps));
    tl->failed = calloc((size_t)params->size, 1);
    if (tl->eps == NULL || tl->failed == NULL) {
        goto err_nomem;
    }
    ucp_config_t *cfg;
    ucs_status_t s = ucp_config_read(NULL, NULL, &cfg);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_config_read failed: %s", ucs_status_string(s));
        goto err_status;
    }
    lc_ucx_modify_vars(params, cfg);
    ucp_params_t up = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_TAG_SENDER_MASK |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_NAME,
        .features = UCP_FEATURE_TAG | UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP,
        .tag_sender_mask = LC_TAG_MASK(LC_TAG_SRC_BITS) << LC_TAG_SRC_SHIFT,
        .estimated_num_eps = (size_t)params->size,
        .name = "lincoll",
    };
    s = ucp_init(&up, cfg, &tl->context);
    ucp_config_release(cfg);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_init failed: %s", ucs_status_string(s));
        goto err_status;
    }
    ucp_worker_params_t wp = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_SINGLE,
    };
    s = ucp_worker_create(tl->context, &wp, &tl->worker);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_worker_create failed: %s", ucs_status_string(s));
        ucp_cleanup(tl->context);
        goto err_status;
    }
    s = ucp_worker_get_address(tl->worker, &tl->address, &tl->address_len);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_worker_get_address failed: %s", ucs_status_string(s));
        ucp_worker_destroy(tl->worker);
        ucp_cleanup(tl->context);
        goto err_status;
    }
    lc_ucx_ident_self(&tl->self);
    tl->blob_len = sizeof(tl->self) + tl->address_len;
    tl->blob = malloc(tl->blob_len);
    if (tl->blob == NULL) {
        ucp_worker_release_address(tl->worker, tl->address);
        ucp_worker_destroy(tl->worker);
        ucp_cleanup(tl->context);
        goto err_nomem;
    }
    memcpy(tl->blob, &tl->self, sizeof(tl->self));
    memcpy((char *)tl->blob + sizeof(tl->self), tl->address, tl->address_len);
    *tl_p = tl;
    return LINCOLL_OK;

err_status:
    free(tl->eps);
    free(tl->failed);
    free(tl);
    return LINCOLL_ERR_TRANSPORT;
err_nomem:
    free(tl->eps);
    free(tl->failed);
    free(tl);
    return LINCOLL_ERR_NOMEM;
}

static void lc_ucx_fini(lc_tl_t *tl)
{
    if (tl == NULL) {
        return;
    }
    lc_ucx_disconnect(tl); /* no-op when the context already disconnected */
    ucp_worker_release_address(tl->worker, tl->address);
    ucp_worker_destroy(tl->worker);
    ucp_cleanup(tl->context);
    free(tl->blob);
    free(tl->idents);
    free(tl->probe_calls);
    /* no callback runs any more: free every request, pooled or orphaned */
    while (tl->all_reqs != NULL) {
        lc_tl_req_t *n = tl->all_reqs->all_next;
        free(tl->all_reqs);
        tl->all_reqs = n;
    }
    if (tl->peer_addrs != NULL) {
        for (int i = 0; i < 2 * tl->size; i++) {
            free(tl->peer_addrs[i]);
        }
        free(tl->peer_addrs);
    }
    free(tl->eps);
    free(tl->failed);
    free(tl);
}

static lincoll_status_t lc_ucx_address(lc_tl_t *tl, const void **addr_p, size_t *len_p)
{
    *addr_p = tl->blob;
    *len_p = tl->blob_len;
    return LINCOLL_OK;
}

/* ---- progress and wakeup ---------------------------------------------------- */

static int lc_ucx_progress(lc_tl_t *tl)
{
    return (int)ucp_worker_progress(tl->worker);
}

static int lc_ucx_event_fd(lc_tl_t *tl)
{
    if (tl->efd < 0 && ucp_worker_get_efd(tl->worker, &tl->efd) != UCS_OK) {
        tl->efd = -1;
    }
    return tl->efd;
}

static lincoll_status_t lc_ucx_arm(lc_tl_t *tl)
{
    ucs_status_t s = ucp_worker_arm(tl->worker);
    return s == UCS_ERR_BUSY ? LINCOLL_ERR_BUSY : lc_ucx_status(s);
}

/* The memory types UCX takes (a UCX built with CUDA lists UCS_MEMORY_TYPE_CUDA). */
static unsigned lc_ucx_mem_types(lc_tl_t *tl)
{
    ucp_context_attr_t a = {.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES};
    if (ucp_context_query(tl->context, &a) != UCS_OK) return LC_TL_MEM_TYPE_HOST;
    unsigned m = LC_TL_MEM_TYPE_HOST;
    if (a.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) m |= LC_TL_MEM_TYPE_CUDA;
    return m;
}

static void lc_ucx_counters(lc_tl_t *tl, lc_tl_counters_t *out)
{
    *out = tl->counters;
}

const lc_tl_ops_t lc_tl_ucx_ops = {
    .name = "ucx",
    .init = lc_ucx_init,
    .fini = lc_ucx_fini,
    .disconnect = lc_ucx_disconnect,
    .address = lc_ucx_address,
    .connect = lc_ucx_connect,
    .mem_alloc = lc_ucx_mem_alloc,
    .mem_reg = lc_ucx_mem_reg,
    .mem_dereg = lc_ucx_mem_dereg,
    .rkey_pack = lc_ucx_rkey_pack,
    .rkey_unpack = lc_ucx_rkey_unpack,
    .rkey_destroy = lc_ucx_rkey_destroy,
    .rkey_ptr = lc_ucx_rkey_ptr,
    .mapped_put_is_store = 1,
    .send_nb = lc_ucx_send_nb,
    .recv_nb = lc_ucx_recv_nb,
    .recv_chain_nb = lc_ucx_recv_chain_nb,
    .put_nb = lc_ucx_put_nb,
    .flush_nb = lc_ucx_flush_nb,
    .progress = lc_ucx_progress,
    .test = lc_ucx_test,
    .release = lc_ucx_release,
    .test_release = lc_ucx_test_release,
    .peer_status = lc_ucx_peer_status,
    .event_fd = lc_ucx_event_fd,
    .arm = lc_ucx_arm,
    .counters = lc_ucx_counters,
    .mem_types = lc_ucx_mem_types,
    .describe = lc_ucx_describe,
};
