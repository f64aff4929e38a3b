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
#include "../transport.h"
#include "tl_ucx_alive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucp/api/ucp.h>

/* A RECV completes through a UCX callback that records status and length
 * and frees the UCX request (ucx_perftest's way: testing it then calls
 * nothing); a SEND that UCX could not finish inside the call is polled
 * (ucp_request_check_status); PUT (data + signal) and FLUSH count their UCX
 * operations through callbacks. */
enum { LC_UCX_REQ_SEND, LC_UCX_REQ_RECV, LC_UCX_REQ_PUT, LC_UCX_REQ_FLUSH };

struct lc_tl_req {
    struct lc_tl_req *next_free;
    struct lc_tl_req *all_next; /* every request this transport allocated */
    lc_tl_t *tl;
    lincoll_status_t status;
    int kind;
    int orphaned;
    int pending;       /* UCX requests still outstanding (put + signal = 2) */
    unsigned done_ops; /* UCX requests completed so far */
    void *ucx_req[2];
    size_t length;
    uint64_t one; /* operand of the signal atomic */
    /* a put whose signal waits for the data's remote completion (flush) */
    int sig_stage;
    ucp_ep_h sig_ep;
    ucp_rkey_h sig_rkey;
    uint64_t sig_raddr;
    /* a receive with a triggered send (recv_chain_nb): posted length */
    lc_tl_chain_t *chain;
    size_t cap;
};

/* A registered region.  Registrations of user memory are shared: a second
 * mem_reg() of a range that an existing registration covers takes a
 * reference on it instead of registering again (the registration cache), so
 * persistent plans and windows over the same buffers register it once. */
struct lc_tl_mem {
    struct lc_tl_mem *next; /* registration cache (user memory only) */
    ucp_mem_h memh;
    void *addr;
    size_t len;
    int allocated;
    unsigned refs;
};

struct lc_tl_rkey {
    ucp_rkey_h rkey;
    int allocated; /* the region is UCX-allocated memory */
    uint64_t base;
    uint64_t len;
    int peer;
    void *mapped; /* local address of base when UCX maps the region here (shm), else NULL */
};

struct lc_tl {
    ucp_context_h context;
    ucp_worker_h worker;
    ucp_address_t *address;
    size_t address_len;
    int rank;
    int size;
    int err_mode_peer;
    ucp_ep_h *eps;         /* lazily created */
    void **peer_addrs;     /* copies of every rank's worker address */
    unsigned char *failed; /* peer known dead */
    void *blob;            /* what address() publishes: self, then the worker address */
    size_t blob_len;
    lc_ucx_ident_t self;    /* this process (pid, start time, host key) */
    lc_ucx_ident_t *idents; /* every rank's, from connect() */
    unsigned *probe_calls;  /* per peer: peer_status calls; a probe every LC_UCX_PROBE_EVERY */
    lc_tl_req_t *free_reqs;
    lc_tl_req_t *all_reqs;
    lc_tl_mem_t *reg_cache; /* registrations of user memory, by reference */
    int efd;
    int closing; /* disconnect started: peers' errors are expected */
    lc_tl_counters_t counters;
};

/* ---- status mapping (only here does ucs_status_t exist) ---------------- */

static lincoll_status_t lc_ucx_status(ucs_status_t s)
{
    switch (s) {
    case UCS_OK:
        return LINCOLL_OK;
    case UCS_INPROGRESS:
        return LINCOLL_INPROGRESS;
    case UCS_ERR_NO_MEMORY:
        return LINCOLL_ERR_NOMEM;
    case UCS_ERR_INVALID_PARAM:
        return LINCOLL_ERR_INVALID;
    case UCS_ERR_UNSUPPORTED:
        return LINCOLL_ERR_UNSUPPORTED;
    case UCS_ERR_MESSAGE_TRUNCATED:
        return LINCOLL_ERR_TRUNCATED;
    case UCS_ERR_CANCELED:
        return LINCOLL_ERR_CANCELED;
    case UCS_ERR_TIMED_OUT:
        return LINCOLL_ERR_TIMEOUT;
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_REJECTED:
    case UCS_ERR_NOT_CONNECTED:
    case UCS_ERR_SHMEM_SEGMENT: /* a dead peer's shared-memory segment went away */
        return LINCOLL_ERR_PEER_FAILED;
    default:
        return LINCOLL_ERR_TRANSPORT;
    }
}

/* ---- requests ------------------------------------------------------------ */

static lc_tl_req_t *lc_ucx_req_get(lc_tl_t *tl, int kind)
{
    lc_tl_req_t *r = tl->free_reqs;
    if (r != NULL) {
        tl->free_reqs = r->next_free;
    } else {
        r = malloc(sizeof(*r));
        if (r == NULL) {
            return NULL;
        }
        r->all_next = tl->all_reqs;
        tl->all_reqs = r;
    }
    r->tl = tl;
    r->kind = kind;
    r->status = LINCOLL_INPROGRESS;
    r->orphaned = 0;
    r->pending = 0;
    r->done_ops = 0;
    r->ucx_req[0] = r->ucx_req[1] = NULL;
    r->length = 0;
    r->sig_stage = 0;
    r->chain = NULL;
    return r;
}

static void lc_ucx_req_put_back(lc_tl_req_t *r)
{
    lc_tl_t *tl = r->tl;
    r->next_free = tl->free_reqs;
    tl->free_reqs = r;
}

/* One of the request's UCX operations finished. */
static void lc_ucx_req_done(lc_tl_req_t *r, ucs_status_t s)
{
    r->done_ops++;
    if (s != UCS_OK && (r->status == LINCOLL_INPROGRESS || r->status == LINCOLL_OK)) {
        r->status = lc_ucx_status(s);
    }
    if (--r->pending > 0) {
        return;
    }
    if (r->status == LINCOLL_INPROGRESS) {
        r->status = LINCOLL_OK;
    }
    if (r->orphaned) {
        lc_ucx_req_put_back(r);
    }
}

static void lc_ucx_send_cb(void *request, ucs_status_t status, void *user_data)
{
    lc_ucx_req_done(user_data, status);
    ucp_request_free(request);
}

/* Record an nbx result: immediate completion, error, or a pending request.
 * r->pending was raised before the call, because UCX may run the callback
 * inside the call (it does for receives with NO_IMM_CMPL in 1.13). */
static void lc_ucx_track(lc_tl_req_t *r, unsigned done_before, ucs_status_ptr_t p)
{
    if (p == NULL) {
        lc_ucx_req_done(r, UCS_OK);
    } else if (UCS_PTR_IS_ERR(p)) {
        lc_ucx_req_done(r, UCS_PTR_STATUS(p));
    } else if (r->done_ops == done_before) {
        /* still in flight: keep the handle for cancel */
        r->ucx_req[r->ucx_req[0] != NULL ? 1 : 0] = p;
    }
}

#define LC_UCX_POST(_r, _call)                                                                     \
    do {                                                                                           \
        unsigned _before = (_r)->done_ops;                                                         \
        (_r)->pending++;                                                                           \
        lc_ucx_track((_r), _before, (_call));                                                      \
    } while (0)

/* ---- endpoints ------------------------------------------------------------ */

static void lc_ucx_ep_error_cb(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    lc_tl_t *tl = ((void **)arg)[0];
    int peer = (int)(intptr_t)((void **)arg)[1];
    (void)ep;
    if (!tl->failed[peer] && !tl->closing) {
        lc_tl_warn("ucx: peer %d failed: %s", peer, ucs_status_string(status));
        tl->failed[peer] = 1;
    }
}

/* The first message to a peer: check it, create its endpoint.  Kept out of
 * line so the per-message lookup (lc_ucx_ep) stays a few instructions. */
static __attribute__((noinline, cold)) lincoll_status_t lc_ucx_ep_slow(lc_tl_t *tl, int peer,
                                                                       ucp_ep_h *ep_p)
{
    if (peer < 0 || peer >= tl->size || tl->peer_addrs == NULL) {
        lc_tl_error("ucx: peer %d out of range [0, %d) or transport not connected", peer, tl->size);
        return LINCOLL_ERR_INVALID;
    }
    if (tl->failed[peer]) {
        return LINCOLL_ERR_PEER_FAILED;
    }
    if (tl->eps[peer] == NULL) {
        /* the error callback needs (tl, peer); keep them in a small static-lifetime pair */
        void **arg = malloc(2 * sizeof(void *));
        if (arg == NULL) {
            return LINCOLL_ERR_NOMEM;
        }
        arg[0] = tl;
        arg[1] = (void *)(intptr_t)peer;
        ucp_ep_params_t ep_params = {
            .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
            .address = tl->peer_addrs[peer],
        };
        if (tl->err_mode_peer) {
            ep_params.field_mask |=
                UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
            ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
            ep_params.err_handler.cb = lc_ucx_ep_error_cb;
            ep_params.err_handler.arg = arg;
        }
        ucs_status_t s = ucp_ep_create(tl->worker, &ep_params, &tl->eps[peer]);
        if (s != UCS_OK) {
            free(arg);
            /* the peer published this address at init: failing to reach it
             * now means it is gone (e.g. its shared-memory FIFO vanished) */
            lc_tl_error("ucx: cannot connect to peer %d (%s): treating it as failed", peer,
                        ucs_status_string(s));
            tl->failed[peer] = 1;
            return LINCOLL_ERR_PEER_FAILED;
        }
        /* remember arg for fini: stash it after the address copy */
        ((void **)tl->peer_addrs)[peer + tl->size] = arg;
    }
    *ep_p = tl->eps[peer];
    return LINCOLL_OK;
}

static inline lincoll_status_t lc_ucx_ep(lc_tl_t *tl, int peer, ucp_ep_h *ep_p)
{
    /* eps[] is allocated at init; a failed peer keeps its endpoint, so
     * failed[] is checked too (the slow path reports it) */
    if (__builtin_expect((unsigned)peer < (unsigned)tl->size, 1)) {
        ucp_ep_h ep = tl->eps[peer];
        if (__builtin_expect(ep != NULL && !tl->failed[peer], 1)) {
            *ep_p = ep;
            return LINCOLL_OK;
        }
    }
    return lc_ucx_ep_slow(tl, peer, ep_p);
}

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

/* Close every endpoint at once and progress until all closes finish or 10 s
 * pass.  The context calls this after a barrier: every rank has completed
 * its operations, so nothing that anyone waits for is still in flight.  With
 * error handling the close is forced (local, needs no answer from the peer,
 * which may already be closing too); without it UCX only allows flush mode. */
static void lc_ucx_disconnect(lc_tl_t *tl)
{
    tl->closing = 1;
    ucs_status_ptr_t *reqs = calloc((size_t)tl->size, sizeof(*reqs));
    if (reqs == NULL) {
        return;
    }
    for (int i = 0; i < tl->size; i++) {
        if (tl->eps[i] == NULL) {
            continue;
        }
        ucp_request_param_t cp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                  .flags = tl->err_mode_peer ? UCP_EP_CLOSE_FLAG_FORCE : 0};
        reqs[i] = ucp_ep_close_nbx(tl->eps[i], &cp);
        tl->eps[i] = NULL; /* the error-callback argument lives until fini */
    }
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int busy = 0;
        for (int i = 0; i < tl->size; i++) {
            if (reqs[i] == NULL || UCS_PTR_IS_ERR(reqs[i])) {
                continue;
            }
            if (ucp_request_check_status(reqs[i]) == UCS_INPROGRESS) {
                busy = 1;
            } else {
                ucp_request_free(reqs[i]);
                reqs[i] = NULL;
            }
        }
        if (!busy) {
            break;
        }
        ucp_worker_progress(tl->worker);
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) > 10.0) {
            lc_tl_debug("ucx: endpoints still closing after 10 s; destroying the worker anyway");
            for (int i = 0; i < tl->size; i++) {
                if (reqs[i] != NULL && !UCS_PTR_IS_ERR(reqs[i])) {
                    ucp_request_free(reqs[i]);
                }
            }
            break;
        }
    }
    free(reqs);
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

static lincoll_status_t lc_ucx_connect(lc_tl_t *tl, const void *const *addrs, const size_t *lens)
{
    /* slots [0, size) hold address copies, [size, 2*size) the error-callback args */
    tl->peer_addrs = calloc(2 * (size_t)tl->size, sizeof(void *));
    tl->idents = calloc((size_t)tl->size, sizeof(*tl->idents));
    tl->probe_calls = calloc((size_t)tl->size, sizeof(*tl->probe_calls));
    if (tl->peer_addrs == NULL || tl->idents == NULL || tl->probe_calls == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    for (int i = 0; i < tl->size; i++) {
        /* the blobs sit wherever the bootstrap put them: copy, then read */
        lc_ucx_ident_t *id = &tl->idents[i];
        int ok = addrs[i] != NULL && lens[i] > sizeof(*id);
        if (ok) {
            memcpy(id, addrs[i], sizeof(*id));
            ok = id->magic == LC_UCX_IDENT_MAGIC;
        }
        if (!ok) {
            lc_tl_error("ucx: rank %d published no lincoll ucx address (%zu bytes)", i,
                        addrs[i] == NULL ? (size_t)0 : lens[i]);
            return LINCOLL_ERR_INVALID;
        }
        size_t len = lens[i] - sizeof(*id);
        tl->peer_addrs[i] = malloc(len);
        if (tl->peer_addrs[i] == NULL) {
            return LINCOLL_ERR_NOMEM;
        }
        memcpy(tl->peer_addrs[i], (const char *)addrs[i] + sizeof(*id), len);
    }
    return LINCOLL_OK;
}

/* ---- memory ---------------------------------------------------------------- */

static lincoll_status_t lc_ucx_map(lc_tl_t *tl, void *addr, size_t len, int allocate,
                                   lc_tl_mem_t **mem_p)
{
    lc_tl_mem_t *m = calloc(1, sizeof(*m));
    if (m == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                      UCP_MEM_MAP_PARAM_FIELD_FLAGS,
        .address = addr,
        .length = len,
        .flags = allocate ? UCP_MEM_MAP_ALLOCATE : 0,
    };
    ucs_status_t s = ucp_mem_map(tl->context, &mp, &m->memh);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_mem_map of %zu bytes failed: %s", len, ucs_status_string(s));
        free(m);
        return lc_ucx_status(s);
    }
    ucp_mem_attr_t attr = {.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH};
    s = ucp_mem_query(m->memh, &attr);
    if (s != UCS_OK) {
        ucp_mem_unmap(tl->context, m->memh);
        free(m);
        return lc_ucx_status(s);
    }
    m->addr = attr.address;
    m->len = attr.length;
    m->allocated = allocate;
    tl->counters.mem_registered += m->len;
    *mem_p = m;
    return LINCOLL_OK;
}

static lincoll_status_t lc_ucx_mem_alloc(lc_tl_t *tl, size_t len, lc_tl_mem_t **mem_p,
                                         void **addr_p)
{
    lincoll_status_t st = lc_ucx_map(tl, NULL, len, 1, mem_p);
    if (st == LINCOLL_OK) {
        *addr_p = (*mem_p)->addr;
    }
    return st;
}

static lincoll_status_t lc_ucx_mem_reg(lc_tl_t *tl, void *addr, size_t len, lc_tl_mem_t **mem_p)
{
    const char *a = addr;
    for (lc_tl_mem_t *m = tl->reg_cache; m != NULL; m = m->next) {
        const char *b = m->addr;
        if (a >= b && len <= m->len && (size_t)(a - b) <= m->len - len) {
            m->refs++;
            tl->counters.reg_cache_hits++;
            *mem_p = m;
            return LINCOLL_OK;
        }
    }
    lincoll_status_t st = lc_ucx_map(tl, addr, len, 0, mem_p);
    if (st == LINCOLL_OK) {
        (*mem_p)->refs = 1;
        (*mem_p)->next = tl->reg_cache;
        tl->reg_cache = *mem_p;
    }
    return st;
}

static void lc_ucx_mem_dereg(lc_tl_t *tl, lc_tl_mem_t *mem)
{
    if (mem == NULL) {
        return;
    }
    if (!mem->allocated) {
        if (--mem->refs > 0) {
            return;
        }
        for (lc_tl_mem_t **pp = &tl->reg_cache; *pp != NULL; pp = &(*pp)->next) {
            if (*pp == mem) {
                *pp = mem->next;
                break;
            }
        }
    }
    tl->counters.mem_registered -= mem->len;
    ucp_mem_unmap(tl->context, mem->memh);
    free(mem);
}

/* Packed remote key: [u64 base][u64 len][UCX packed rkey]. */
static lincoll_status_t lc_ucx_rkey_pack(lc_tl_t *tl, lc_tl_mem_t *mem, void **buf_p, size_t *len_p)
{
    void *kb;
    size_t kl;
    ucs_status_t s = ucp_rkey_pack(tl->context, mem->memh, &kb, &kl);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_rkey_pack failed: %s", ucs_status_string(s));
        return lc_ucx_status(s);
    }
    unsigned char *out = malloc(16 + kl);
    if (out == NULL) {
        ucp_rkey_buffer_release(kb);
        return LINCOLL_ERR_NOMEM;
    }
    /* bit 63 of the length: UCX allocated the region (true one-sided access) */
    uint64_t base = (uint64_t)(uintptr_t)mem->addr,
             len = mem->len | ((uint64_t)(mem->allocated != 0) << 63);
    memcpy(out, &base, 8);
    memcpy(out + 8, &len, 8);
    memcpy(out + 16, kb, kl);
    ucp_rkey_buffer_release(kb);
    *buf_p = out;
    *len_p = 16 + kl;
    return LINCOLL_OK;
}

/* Remember where a peer's UCX-allocated region is mapped here (posix/sysv
 * shared memory): puts into it become stores (lc_ucx_put_mapped). */
static void lc_ucx_rkey_map(lc_tl_rkey_t *k)
{
    k->mapped = NULL;
    if (k->allocated && ucp_rkey_ptr(k->rkey, k->base, &k->mapped) != UCS_OK) {
        k->mapped = NULL;
    }
}

static lincoll_status_t lc_ucx_rkey_unpack(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                           lc_tl_rkey_t **rkey_p)
{
    if (buf == NULL || len <= 16) {
        lc_tl_error("ucx: packed remote key from peer %d is %zu bytes, too short", peer, len);
        return LINCOLL_ERR_INVALID;
    }
    ucp_ep_h ep;
    lincoll_status_t st = lc_ucx_ep(tl, peer, &ep);
    if (st != LINCOLL_OK) {
        return st;
    }
    lc_tl_rkey_t *k = calloc(1, sizeof(*k));
    if (k == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    memcpy(&k->base, buf, 8);
    memcpy(&k->len, (const char *)buf + 8, 8);
    k->allocated = (int)(k->len >> 63);
    k->len &= ~(UINT64_C(1) << 63);
    k->peer = peer;
    ucs_status_t s = ucp_ep_rkey_unpack(ep, (const char *)buf + 16, &k->rkey);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_ep_rkey_unpack from peer %d failed: %s", peer, ucs_status_string(s));
        free(k);
        return lc_ucx_status(s);
    }
    lc_ucx_rkey_map(k);
    *rkey_p = k;
    return LINCOLL_OK;
}

static void lc_ucx_rkey_destroy(lc_tl_t *tl, lc_tl_rkey_t *k)
{
    (void)tl;
    if (k != NULL) {
        ucp_rkey_destroy(k->rkey);
        free(k);
    }
}

static void *lc_ucx_rkey_ptr(lc_tl_t *tl, lc_tl_rkey_t *k, uint64_t raddr)
{
    (void)tl;
    void *p = NULL;
    if (k == NULL || ucp_rkey_ptr(k->rkey, raddr, &p) != UCS_OK) {
        return NULL;
    }
    return p;
}

/* ---- communication --------------------------------------------------------- */

/* The signal of a put: 64-bit atomic add of 1 at the target's counter. */
static void lc_ucx_post_signal(lc_tl_req_t *r)
{
    r->one = 1;
    ucp_request_param_t ap = {
        .op_attr_mask =
            UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE,
        .cb.send = lc_ucx_send_cb,
        .user_data = r,
        .datatype = ucp_dt_make_contig(sizeof(uint64_t)),
    };
    LC_UCX_POST(r, ucp_atomic_op_nbx(r->sig_ep, UCP_ATOMIC_OP_ADD, &r->one, 1, r->sig_raddr,
                                     r->sig_rkey, &ap));
}

static void lc_ucx_release(lc_tl_t *tl, lc_tl_req_t *r);

/* After posting: an error returns no request (the request is released or,
 * while UCX still holds part of it, orphaned); a finished send/put returns
 * none either; everything else returns the request to test. */
static lincoll_status_t lc_ucx_finish_post(lc_tl_req_t *r, lc_tl_req_t **req_p)
{
    lincoll_status_t st = r->status;
    if (LINCOLL_IS_ERR(st)) {
        *req_p = NULL;
        lc_ucx_release(r->tl, r);
        return st;
    }
    if (r->pending == 0 && r->kind != LC_UCX_REQ_RECV && !r->sig_stage) {
        lc_ucx_req_put_back(r);
        *req_p = NULL;
        return LINCOLL_OK;
    }
    *req_p = r;
    return LINCOLL_OK;
}

static lincoll_status_t lc_ucx_send_nb(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                       uint64_t tag, lc_tl_req_t **req_p)
{
    ucp_ep_h ep;
    lincoll_status_t st = lc_ucx_ep(tl, peer, &ep);
    if (st != LINCOLL_OK) {
        return st;
    }
    /* built once: nothing to fill in per message */
    static const ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
        .datatype = ucp_dt_make_contig(1),
    };
    tl->counters.msgs_sent++;
    tl->counters.bytes_sent += len;
    ucs_status_ptr_t up = ucp_tag_send_nbx(ep, buf, len, tag, &p);
    if (up == NULL) {
        *req_p = NULL;
        return LINCOLL_OK;
    }
    if (UCS_PTR_IS_ERR(up)) {
        *req_p = NULL;
        return lc_ucx_status(UCS_PTR_STATUS(up));
    }
    lc_tl_req_t *r = lc_ucx_req_get(tl, LC_UCX_REQ_SEND);
    if (r == NULL) {
        ucp_request_free(up); /* UCX releases it when the send completes */
        return LINCOLL_ERR_NOMEM;
    }
    r->ucx_req[0] = up;
    *req_p = r;
    return LINCOLL_OK;
}

/* A receive completed (or was canceled): UCX calls this from progress, or
 * from inside ucp_tag_recv_nbx when the message had already arrived
 * (NO_IMM_CMPL), or from ucp_request_cancel.  The UCX request is freed here,
 * so testing a receive reads two fields and calls nothing. */
static void lc_ucx_recv_cb(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                           void *user_data)
{
    lc_tl_req_t *r = user_data;
    if (r->orphaned) {
        /* released while in flight: nobody will test it, nothing fires */
        ucp_request_free(request);
        lc_ucx_req_put_back(r);
        return;
    }
    lc_tl_chain_t *c = r->chain;
    if (c != NULL && status == UCS_OK && info->length == r->cap) {
        /* the triggered send leaves first, before UCX finishes this
         * progress call (UCX allows posting from a callback; the endpoint
         * exists since recv_chain_nb) */
        c->fired = 1;
        c->status = lc_ucx_send_nb(r->tl, c->peer, c->buf, c->len, c->tag, &c->req);
    }
    ucp_request_free(request);
    r->ucx_req[0] = NULL;
    if (status == UCS_OK) {
        r->length = info->length;
        r->status = LINCOLL_OK;
    } else {
        r->status = lc_ucx_status(status);
    }
}

static inline __attribute__((always_inline)) lincoll_status_t
lc_ucx_recv_post(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag, lc_tl_chain_t *then,
                 lc_tl_req_t **req_p)
{
    ucp_ep_h ep;
    /* an endpoint to the sender lets UCX report its failure to us */
    lincoll_status_t st = lc_ucx_ep(tl, peer, &ep);
    if (st != LINCOLL_OK) {
        return st;
    }
    lc_tl_req_t *r = tl->free_reqs;
    if (__builtin_expect(r != NULL, 1)) {
        /* a receive needs only these fields (lc_ucx_req_get sets them all) */
        tl->free_reqs = r->next_free;
        r->kind = LC_UCX_REQ_RECV;
        r->status = LINCOLL_INPROGRESS;
        r->orphaned = 0;
        r->length = 0;
    } else if ((r = lc_ucx_req_get(tl, LC_UCX_REQ_RECV)) == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    r->chain = then;
    r->cap = len;
    /* UCX 1.13 does not report the length of a receive that completes inside
     * the call: NO_IMM_CMPL makes it run the callback instead */
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_CALLBACK |
                     UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
    p.datatype = ucp_dt_make_contig(1);
    p.cb.recv = lc_ucx_recv_cb;
    p.user_data = r;
    ucs_status_ptr_t up = ucp_tag_recv_nbx(tl->worker, buf, len, tag, ~UINT64_C(0), &p);
    if (__builtin_expect(UCS_PTR_IS_ERR(up) || up == NULL, 0)) {
        lc_ucx_req_put_back(r);
        *req_p = NULL;
        return up == NULL ? LINCOLL_ERR_INTERNAL : lc_ucx_status(UCS_PTR_STATUS(up));
    }
    /* the callback may have run (and freed up) inside the call */
    r->ucx_req[0] = r->status == LINCOLL_INPROGRESS ? up : NULL;
    *req_p = r;
    return LINCOLL_OK;
}

static lincoll_status_t lc_ucx_recv_nb(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                       lc_tl_req_t **req_p)
{
    return lc_ucx_recv_post(tl, peer, buf, len, tag, NULL, req_p);
}

static lincoll_status_t lc_ucx_recv_chain_nb(lc_tl_t *tl, int peer, void *buf, size_t len,
                                             uint64_t tag, lc_tl_chain_t *then, lc_tl_req_t **req_p)
{
    ucp_ep_h ep;
    /* the send's endpoint is made here, not inside the receive's callback */
    lincoll_status_t st = lc_ucx_ep(tl, then->peer, &ep);
    if (st != LINCOLL_OK) {
        return st;
    }
    then->fired = 0;
    then->status = LINCOLL_OK;
    then->req = NULL;
    return lc_ucx_recv_post(tl, peer, buf, len, tag, then, req_p);
}

/* A put into a region mapped here (and its signal, when that is mapped too):
 * copy with the CPU, then a release fence and an atomic add on the counter,
 * so the target sees the counter only after the data.  Completes at once. */
static lincoll_status_t lc_ucx_put_mapped(lc_tl_t *tl, const void *buf, size_t len,
                                          lc_tl_rkey_t *rkey, uint64_t raddr,
                                          lc_tl_rkey_t *sig_rkey, uint64_t sig_raddr)
{
    if (len > 0) {
        memcpy((char *)rkey->mapped + (raddr - rkey->base), buf, len);
    }
    if (sig_rkey != NULL) {
        uint64_t *sig =
            (uint64_t *)(void *)((char *)sig_rkey->mapped + (sig_raddr - sig_rkey->base));
        __atomic_fetch_add(sig, 1, __ATOMIC_RELEASE);
    }
    tl->counters.puts++;
    tl->counters.bytes_put += len;
    return LINCOLL_OK;
}

static lincoll_status_t lc_ucx_put_nb(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                      lc_tl_rkey_t *rkey, uint64_t raddr, lc_tl_rkey_t *sig_rkey,
                                      uint64_t sig_raddr, uint64_t tag, lc_tl_req_t **req_p)
{
    (void)tag;
    ucp_ep_h ep;
    lincoll_status_t st = lc_ucx_ep(tl, peer, &ep);
    if (st != LINCOLL_OK) {
        return st;
    }
    if (rkey == NULL || raddr < rkey->base || raddr - rkey->base > rkey->len ||
        len > rkey->len - (raddr - rkey->base)) {
        lc_tl_error("ucx: put of %zu bytes at 0x%llx is outside peer %d's window", len,
                    (unsigned long long)raddr, peer);
        return LINCOLL_ERR_INVALID;
    }
    if (rkey->mapped != NULL &&
        (sig_rkey == NULL || (sig_rkey->mapped != NULL && sig_raddr >= sig_rkey->base &&
                              sig_raddr + 8 <= sig_rkey->base + sig_rkey->len))) {
        *req_p = NULL;
        return lc_ucx_put_mapped(tl, buf, len, rkey, raddr, sig_rkey, sig_raddr);
    }
    lc_tl_req_t *r = lc_ucx_req_get(tl, LC_UCX_REQ_PUT);
    if (r == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = lc_ucx_send_cb,
        .user_data = r,
    };
    tl->counters.puts++;
    tl->counters.bytes_put += len;
    LC_UCX_POST(r, ucp_put_nbx(ep, buf, len, raddr, rkey->rkey, &p));
    if (sig_rkey != NULL) {
        r->sig_ep = ep;
        r->sig_rkey = sig_rkey->rkey;
        r->sig_raddr = sig_raddr;
        if (rkey->allocated) {
            /* one-sided shared memory: a fence orders data before the signal */
            ucp_worker_fence(tl->worker);
            lc_ucx_post_signal(r);
        } else {
            /* emulated put (target progresses it): the fence does not order it
             * against the atomic in UCX 1.13, so flush first and send the
             * signal from test() once the data is remotely complete */
            LC_UCX_POST(r, ucp_ep_flush_nbx(ep, &p));
            r->sig_stage = 1;
        }
    }
    return lc_ucx_finish_post(r, req_p);
}

static lincoll_status_t lc_ucx_flush_nb(lc_tl_t *tl, int peer, lc_tl_req_t **req_p)
{
    lc_tl_req_t *r = lc_ucx_req_get(tl, LC_UCX_REQ_FLUSH);
    if (r == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = lc_ucx_send_cb,
        .user_data = r,
    };
    if (peer < 0) {
        LC_UCX_POST(r, ucp_worker_flush_nbx(tl->worker, &p));
    } else {
        ucp_ep_h ep;
        lincoll_status_t st = lc_ucx_ep(tl, peer, &ep);
        if (st != LINCOLL_OK) {
            lc_ucx_req_put_back(r);
            return st;
        }
        LC_UCX_POST(r, ucp_ep_flush_nbx(ep, &p));
    }
    return lc_ucx_finish_post(r, req_p);
}

static int lc_ucx_progress(lc_tl_t *tl)
{
    return (int)ucp_worker_progress(tl->worker);
}

static lincoll_status_t lc_ucx_test(lc_tl_t *tl, lc_tl_req_t *r, size_t *len_p)
{
    (void)tl;
    if (__builtin_expect(r->kind == LC_UCX_REQ_RECV, 1)) {
        /* lc_ucx_recv_cb wrote the outcome */
        if (r->status != LINCOLL_INPROGRESS && len_p != NULL) {
            *len_p = r->length;
        }
        return r->status;
    }
    if (r->kind == LC_UCX_REQ_SEND) {
        /* a send UCX could not finish inside the call: polled */
        void *up = r->ucx_req[0];
        if (up != NULL) {
            ucs_status_t s = ucp_request_check_status(up);
            if (s == UCS_INPROGRESS) {
                return LINCOLL_INPROGRESS;
            }
            ucp_request_free(up);
            r->ucx_req[0] = NULL;
            r->status = s == UCS_OK ? LINCOLL_OK : lc_ucx_status(s);
        }
        if (len_p != NULL) {
            *len_p = r->length;
        }
        return r->status;
    }
    if (r->pending > 0) {
        return LINCOLL_INPROGRESS;
    }
    if (r->sig_stage && !LINCOLL_IS_ERR(r->status)) {
        /* the data is remotely complete: now the signal */
        r->sig_stage = 0;
        r->status = LINCOLL_INPROGRESS;
        lc_ucx_post_signal(r);
        if (r->pending > 0) {
            return LINCOLL_INPROGRESS;
        }
    }
    if (len_p != NULL) {
        *len_p = r->length;
    }
    return r->status == LINCOLL_INPROGRESS ? LINCOLL_OK : r->status;
}

static void lc_ucx_release(lc_tl_t *tl, lc_tl_req_t *r)
{
    if (r == NULL) {
        return;
    }
    if (r->kind == LC_UCX_REQ_RECV) {
        if (r->ucx_req[0] != NULL) {
            /* still in flight: cancel it; its callback (now, inside the
             * cancel, or from a later progress) gives the request back */
            r->orphaned = 1;
            ucp_request_cancel(tl->worker, r->ucx_req[0]);
            return;
        }
        lc_ucx_req_put_back(r);
        return;
    }
    if (r->kind == LC_UCX_REQ_SEND) {
        if (r->ucx_req[0] != NULL) {
            /* still in flight: UCX frees the request itself when it completes */
            ucp_request_free(r->ucx_req[0]);
        }
        lc_ucx_req_put_back(r);
        return;
    }
    if (r->pending > 0) {
        r->orphaned = 1;
        return;
    }
    lc_ucx_req_put_back(r);
}

static lincoll_status_t lc_ucx_test_release(lc_tl_t *tl, lc_tl_req_t *r, size_t *len_p)
{
    if (__builtin_expect(r->kind == LC_UCX_REQ_RECV, 1)) {
        /* lc_ucx_recv_cb wrote the outcome and freed the UCX request */
        lincoll_status_t st = r->status;
        if (st == LINCOLL_INPROGRESS) {
            return st;
        }
        if (len_p != NULL) {
            *len_p = r->length;
        }
        lc_ucx_req_put_back(r);
        return st;
    }
    lincoll_status_t st = lc_ucx_test(tl, r, len_p);
    if (st != LINCOLL_INPROGRESS) {
        lc_ucx_release(tl, r);
    }
    return st;
}

/* The executor asks while a wait is stuck (after a batch of idle progress
 * calls, every microsecond or so): look in /proc every LC_UCX_PROBE_EVERY-th
 * time, a few milliseconds apart, each a few microseconds. */
#define LC_UCX_PROBE_EVERY 2048u

static lincoll_status_t lc_ucx_peer_status(lc_tl_t *tl, int peer)
{
    if (peer < 0 || peer >= tl->size) {
        return LINCOLL_ERR_INVALID;
    }
    if (!tl->failed[peer] && peer != tl->rank && tl->idents != NULL &&
        ++tl->probe_calls[peer] % LC_UCX_PROBE_EVERY == 0 &&
        lc_ucx_ident_probeable(&tl->self, &tl->idents[peer]) &&
        !lc_ucx_ident_alive(&tl->idents[peer]) && !tl->closing) {
        lc_tl_warn("ucx: peer %d (pid %d on this host) has exited", peer,
                   (int)tl->idents[peer].pid);
        tl->failed[peer] = 1;
    }
    return tl->failed[peer] ? LINCOLL_ERR_PEER_FAILED : LINCOLL_OK;
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

static void lc_ucx_counters(lc_tl_t *tl, lc_tl_counters_t *out)
{
    *out = tl->counters;
}

static void lc_ucx_describe(lc_tl_t *tl, int peer, char *buf, size_t len)
{
    ucp_ep_h ep;
    if (len == 0) {
        return;
    }
    buf[0] = '\0';
    if (lc_ucx_ep(tl, peer, &ep) != LINCOLL_OK) {
        snprintf(buf, len, "no endpoint to %d", peer);
        return;
    }
    FILE *f = fmemopen(buf, len, "w");
    if (f != NULL) {
        ucp_ep_print_info(ep, f);
        fclose(f);
    }
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
    .describe = lc_ucx_describe,
};
