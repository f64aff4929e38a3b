/*
 * transports/ucx/tl_ucx_ep.c: endpoints of the UCX transport: the peers' addresses
 * (connect), endpoints created on first use, a peer's failure (UCX's error
 * callback, or its process gone from /proc: tl_ucx_alive.c), disconnect, and
 * describe.
 */
#include "tl_ucx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
__attribute__((noinline, cold)) lincoll_status_t lc_ucx_ep_slow(lc_tl_t *tl, int peer,
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

lincoll_status_t lc_ucx_connect(lc_tl_t *tl, const void *const *addrs, const size_t *lens)
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

/* Close every endpoint at once and progress until all closes finish or 10 s
 * pass.  The context calls this after a barrier: every rank has completed
 * its operations, so nothing that anyone waits for is still in flight.  With
 * error handling the close is forced (local, needs no answer from the peer,
 * which may already be closing too); without it UCX only allows flush mode. */
void lc_ucx_disconnect(lc_tl_t *tl)
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

/* The executor asks while a wait is stuck (after a batch of idle progress
 * calls, every microsecond or so): look in /proc every LC_UCX_PROBE_EVERY-th
 * time, a few milliseconds apart, each a few microseconds. */
#define LC_UCX_PROBE_EVERY 2048u

lincoll_status_t lc_ucx_peer_status(lc_tl_t *tl, int peer)
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

void lc_ucx_describe(lc_tl_t *tl, int peer, char *buf, size_t len)
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
