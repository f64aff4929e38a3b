/*
 * transports/ucx/init.c: the UCX (UCP) transport: init, fini and the ops table
 * (internal.h lists its files).
 *
 * One ucp context and one worker per process (thread mode SINGLE), the
 * worker address exchanged through the bootstrap, endpoints created lazily on
 * first use.  With LINCOLL_UCX_LANES (lc_tl_ucx_params_t.lanes) every further lane is a
 * context and worker of its own restricted to one device, tags only; its
 * address goes into the same blob, and transfers whose peer argument names
 * a lane travel there (transport.h, "lanes"; tag.c).  Tag send/recv with the exact 64-bit
 * tag of transport.h (mask ~0), RMA with ucp_put_nbx into registered windows, and a remote signal
 * made of ucp_worker_fence + 64-bit atomic add so the target sees the counter only after the data
 * (UCX defines fence ordering per endpoint).
 *
 * Error handling: endpoints use UCP_ERR_HANDLING_MODE_PEER so a dead peer
 * fails its requests instead of hanging; UCX 1.13 then drops shared memory
 * unless UCX_MM_ERROR_HANDLING=y.  That and the other UCX variables lincoll
 * sets (keepalive off, sysv-only shared memory, tcp segment size, eager
 * lanes, NIC) are the transport's own table (config.c), passed in
 * lc_tl_ucx_params_t.vars (api.h) as they apply, each unless the user set it.
 *
 * Requests: each operation gets an lc_tl_req_t from a free list; UCX
 * callbacks write its status.  release() of an in-flight request cancels a
 * receive and marks the request orphaned; the callback then frees it, so no
 * UCX callback ever writes into memory the caller has given back.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- init / fini ---------------------------------------------------------- */

/* The UCX variables of the parameters (lc_tl_ucx_params_t.vars, each left
 * alone when the environment sets it; why each: config.c, lincoll_info -c):
 * the environment ones before ucp_config_read, since ucp_config_modify does
 * not reach transport options. */
static void lc_ucx_setenv_vars(const lc_tl_ucx_params_t *up)
{
    for (unsigned i = 0; i < up->n_vars && i < LC_TL_UCX_MAX_VARS; i++) {
        const lc_tl_ucx_var_t *v = &up->vars[i];
        if (v->in_env && v->value != NULL) {
            setenv(v->name, v->value, 0);
        }
    }
}

/* ... and the others on the UCP configuration read from it. */
static void lc_ucx_modify_vars(const lc_tl_ucx_params_t *up, ucp_config_t *cfg)
{
    for (unsigned i = 0; i < up->n_vars && i < LC_TL_UCX_MAX_VARS; i++) {
        const lc_tl_ucx_var_t *v = &up->vars[i];
        if (v->in_env || strncmp(v->name, "UCX_", 4) != 0) {
            continue;
        }
        /* no value: the topology's NIC choice, made only when the
         * environment sets no UCX_NET_DEVICES */
        const char *val = v->value != NULL ? v->value : up->net_devices;
        if (val != NULL && *val != '\0' && (v->value == NULL || getenv(v->name) == NULL)) {
            ucp_config_modify(cfg, v->name + 4, val);
        }
    }
}

/* LINCOLL_UCX_LANES (lc_tl_ucx_params_t.lanes): "dev0,dev1,...", one lane per device. */
static lincoll_status_t lc_ucx_parse_lanes(lc_tl_t *tl, const char *spec)
{
    tl->nlanes = 1;
    if (spec == NULL || *spec == '\0') {
        return LINCOLL_OK;
    }
    int n = 0;
    for (const char *p = spec;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= sizeof(tl->lane_dev[0]) || n >= LC_TL_MAX_LANES) {
            lc_tl_error("ucx: LINCOLL_UCX_LANES=%s: expected 1 to %d comma-separated device names "
                        "(one lane each, names under %zu characters)",
                        spec, LC_TL_MAX_LANES, sizeof(tl->lane_dev[0]));
            return LINCOLL_ERR_INVALID;
        }
        memcpy(tl->lane_dev[n], p, len);
        tl->lane_dev[n][len] = '\0';
        n++;
        if (comma == NULL) {
            break;
        }
        p = comma + 1;
    }
    tl->nlanes = n;
    return LINCOLL_OK;
}

/* One UCX context and worker with these features; dev != NULL restricts the
 * context to that network device (a lane). */
static lincoll_status_t lc_ucx_open(const lc_tl_params_t *params, const lc_tl_ucx_params_t *own,
                                    const char *dev, uint64_t features, const char *name,
                                    ucp_context_h *ctx_p, ucp_worker_h *worker_p,
                                    ucp_address_t **addr_p, size_t *addr_len_p)
{
    ucp_config_t *cfg;
    ucs_status_t s = ucp_config_read(NULL, NULL, &cfg);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_config_read failed: %s", ucs_status_string(s));
        return LINCOLL_ERR_TRANSPORT;
    }
    lc_ucx_modify_vars(own, cfg);
    if (dev != NULL && (s = ucp_config_modify(cfg, "NET_DEVICES", dev)) != UCS_OK) {
        lc_tl_error("ucx: lane device %s (LINCOLL_UCX_LANES): %s", dev, ucs_status_string(s));
        ucp_config_release(cfg);
        return LINCOLL_ERR_INVALID;
    }
    ucp_params_t up = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_TAG_SENDER_MASK |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_NAME,
        .features = features,
        .tag_sender_mask = LC_TAG_MASK(LC_TAG_SRC_BITS) << LC_TAG_SRC_SHIFT,
        .estimated_num_eps = (size_t)params->size,
        .name = name,
    };
    s = ucp_init(&up, cfg, ctx_p);
    ucp_config_release(cfg);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_init%s%s failed: %s", dev ? " on device " : "", dev ? dev : "",
                    ucs_status_string(s));
        return LINCOLL_ERR_TRANSPORT;
    }
    ucp_worker_params_t wp = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_SINGLE,
    };
    s = ucp_worker_create(*ctx_p, &wp, worker_p);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_worker_create failed: %s", ucs_status_string(s));
        ucp_cleanup(*ctx_p);
        return LINCOLL_ERR_TRANSPORT;
    }
    s = ucp_worker_get_address(*worker_p, addr_p, addr_len_p);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_worker_get_address failed: %s", ucs_status_string(s));
        ucp_worker_destroy(*worker_p);
        ucp_cleanup(*ctx_p);
        return LINCOLL_ERR_TRANSPORT;
    }
    return LINCOLL_OK;
}

static void lc_ucx_close(ucp_context_h ctx, ucp_worker_h worker, ucp_address_t *addr)
{
    ucp_worker_release_address(worker, addr);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
}

/* What address() publishes: the identity, then the lane-0 worker address;
 * with several lanes the identity's magic is LC_UCX_IDENT_MAGIC_LANES and a
 * lane table [u32 count][u32 0][u64 length per lane] precedes every lane's
 * address (ep.c parses it). */
static lincoll_status_t lc_ucx_blob(lc_tl_t *tl)
{
    size_t n = sizeof(tl->self) + tl->address_len;
    if (tl->nlanes > 1) {
        n += 8 + 8 * (size_t)tl->nlanes;
        for (int l = 1; l < tl->nlanes; l++) {
            n += tl->lane[l].address_len;
        }
    }
    char *b = malloc(n);
    if (b == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    lc_ucx_ident_t id = tl->self;
    char *p = b + sizeof(id);
    if (tl->nlanes > 1) {
        id.magic = LC_UCX_IDENT_MAGIC_LANES;
        uint32_t hdr[2] = {(uint32_t)tl->nlanes, 0};
        memcpy(p, hdr, 8);
        for (int l = 0; l < tl->nlanes; l++) {
            uint64_t len = l == 0 ? tl->address_len : tl->lane[l].address_len;
            memcpy(p + 8 + 8 * l, &len, 8);
        }
        p += 8 + 8 * (size_t)tl->nlanes;
    }
    memcpy(b, &id, sizeof(id));
    memcpy(p, tl->address, tl->address_len);
    p += tl->address_len;
    for (int l = 1; l < tl->nlanes; l++) {
        memcpy(p, tl->lane[l].address, tl->lane[l].address_len);
        p += tl->lane[l].address_len;
    }
    tl->blob = b;
    tl->blob_len = n;
    return LINCOLL_OK;
}

static void lc_ucx_close_lanes(lc_tl_t *tl)
{
    for (int l = 1; l < tl->nlanes; l++) {
        lc_ucx_lane_t *L = &tl->lane[l];
        if (L->worker != NULL) {
            lc_ucx_close(L->context, L->worker, L->address);
            L->worker = NULL;
        }
    }
}

static lincoll_status_t lc_ucx_init(const lc_tl_params_t *params, lc_tl_t **tl_p)
{
    static const lc_tl_ucx_params_t defaults;
    const lc_tl_ucx_params_t *own = params->ext != NULL ? params->ext : &defaults;
    lc_ucx_setenv_vars(own);
    lc_tl_t *tl = calloc(1, sizeof(*tl));
    if (tl == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    tl->rank = params->rank;
    tl->size = params->size;
    tl->err_mode_peer = own->err_mode_peer;
    tl->drain_timeout_s = own->drain_timeout_s;
    tl->efd = -1;
    tl->epfd = -1;
    tl->pidep = -1;
    lincoll_status_t st = lc_ucx_parse_lanes(tl, own->lanes);
    if (st != LINCOLL_OK) {
        free(tl);
        return st;
    }
    tl->eps = calloc((size_t)params->size, sizeof(*tl->eps));
    tl->failed = calloc((size_t)params->size, 1);
    if (tl->eps == NULL || tl->failed == NULL) {
        st = LINCOLL_ERR_NOMEM;
        goto err;
    }
    /* lane 0: tags, RMA and atomics; without lanes configured, UCX's (and the
     * topology's) device choice as ever */
    st = lc_ucx_open(params, own,
                     tl->nlanes > 1 || (own->lanes && *own->lanes) ? tl->lane_dev[0] : NULL,
                     UCP_FEATURE_TAG | UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP,
                     "lincoll", &tl->context, &tl->worker, &tl->address, &tl->address_len);
    if (st != LINCOLL_OK) {
        goto err;
    }
    /* lanes 1..: tag matching only, one device each */
    for (int l = 1; l < tl->nlanes; l++) {
        lc_ucx_lane_t *L = &tl->lane[l];
        L->efd = -1;
        st = lc_ucx_open(params, own, tl->lane_dev[l], UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP,
                         "lincoll-lane", &L->context, &L->worker, &L->address, &L->address_len);
        if (st != LINCOLL_OK) {
            L->worker = NULL;
            lc_ucx_close_lanes(tl);
            lc_ucx_close(tl->context, tl->worker, tl->address);
            goto err;
        }
    }
    lc_ucx_ident_self(&tl->self);
    st = lc_ucx_blob(tl);
    if (st != LINCOLL_OK) {
        lc_ucx_close_lanes(tl);
        lc_ucx_close(tl->context, tl->worker, tl->address);
        goto err;
    }
    if (tl->nlanes > 1) {
        lc_tl_info("ucx: %d lanes, devices %s", tl->nlanes, own->lanes);
    }
    *tl_p = tl;
    return LINCOLL_OK;

err:
    free(tl->eps);
    free(tl->failed);
    free(tl);
    return st == LINCOLL_ERR_NOMEM || st == LINCOLL_ERR_INVALID ? st : LINCOLL_ERR_TRANSPORT;
}

static void lc_ucx_fini(lc_tl_t *tl)
{
    if (tl == NULL) {
        return;
    }
    lc_ucx_disconnect(tl); /* no-op when the context already disconnected */
    if (tl->epfd >= 0) {
        close(tl->epfd);
    }
    lc_ucx_close_lanes(tl);
    lc_ucx_close(tl->context, tl->worker, tl->address);
    free(tl->blob);
    free(tl->idents);
    free(tl->probe_ns);
    lc_ucx_pidfds_close(tl);
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
    lc_ucx_lanes_free(tl);
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

static int lc_ucx_lanes(lc_tl_t *tl)
{
    return tl->nlanes;
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
    .lanes = lc_ucx_lanes,
};
