/*
 * transports/ucx/ep.c: endpoints of the UCX transport: the peers' addresses
 * (connect), endpoints created on first use, a peer's failure (UCX's error
 * callback; alive.c finds a process gone from /proc), disconnect, and
 * describe.
 */
#include "internal.h"

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

/* Create the endpoint of peer on worker from its address there; *arg_p
 * keeps the error callback's argument until fini. */
static lincoll_status_t lc_ucx_ep_create(lc_tl_t *tl, ucp_worker_h worker, const void *addr,
                                         int peer, unsigned lane, ucp_ep_h *ep_p, void **arg_p)
{
    /* the error callback needs (tl, peer); keep them in a small static-lifetime pair */
    void **arg = malloc(2 * sizeof(void *));
    if (arg == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    arg[0] = tl;
    arg[1] = (void *)(intptr_t)peer;
    ucp_ep_params_t ep_params = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
        .address = addr,
    };
    if (tl->err_mode_peer) {
        ep_params.field_mask |=
            UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
        ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        ep_params.err_handler.cb = lc_ucx_ep_error_cb;
        ep_params.err_handler.arg = arg;
    }
    ucs_status_t s = ucp_ep_create(worker, &ep_params, ep_p);
    if (s != UCS_OK) {
        free(arg);
        *ep_p = NULL;
        /* the peer published this address at init: failing to reach it
         * now means it is gone (e.g. its shared-memory FIFO vanished) */
        lc_tl_error("ucx: cannot connect to peer %d on lane %u (%s): treating it as failed", peer,
                    lane, ucs_status_string(s));
        tl->failed[peer] = 1;
        return LINCOLL_ERR_PEER_FAILED;
    }
    *arg_p = arg;
    return LINCOLL_OK;
}

/* The first message to a peer: check it, create its endpoint.  Kept out of
 * line so the per-message lookup (lc_ucx_ep) stays a few instructions.  A
 * peer argument with a lane lands here too (it is never below tl->size). */
__attribute__((noinline, cold)) lincoll_status_t lc_ucx_ep_slow(lc_tl_t *tl, int peer,
                                                                ucp_ep_h *ep_p)
{
    if (peer >= 0 && LC_TL_PEER_CODE(peer) != 0) {
        return lc_ucx_lane_ep(tl, peer, ep_p, NULL);
    }
    if (peer < 0 || peer >= tl->size || tl->peer_addrs == NULL) {
        lc_tl_error("ucx: peer %d out of range [0, %d) or transport not connected", peer, tl->size);
        return LINCOLL_ERR_INVALID;
    }
    if (tl->failed[peer]) {
        return LINCOLL_ERR_PEER_FAILED;
    }
    if (tl->eps[peer] == NULL) {
        /* the error-callback argument is stashed after the address copies */
        lincoll_status_t st = lc_ucx_ep_create(tl, tl->worker, tl->peer_addrs[peer], peer, 0,
                                               &tl->eps[peer], &tl->peer_addrs[peer + tl->size]);
        if (st != LINCOLL_OK) {
            return st;
        }
    }
    *ep_p = tl->eps[peer];
    return LINCOLL_OK;
}

lincoll_status_t lc_ucx_lane_ep(lc_tl_t *tl, int peer, ucp_ep_h *ep_p, unsigned *lane_p)
{
    unsigned code = LC_TL_PEER_CODE(peer);
    int rank = LC_TL_PEER_RANKOF(peer);
    if (rank < 0 || rank >= tl->size || tl->peer_addrs == NULL) {
        lc_tl_error("ucx: peer %d (lane code %u) out of range [0, %d) or transport not connected",
                    rank, code, tl->size);
        return LINCOLL_ERR_INVALID;
    }
    unsigned lane = 0;
    if (code != 0 && code != LC_TL_LANE_ANY_CODE) {
        lane = (code - 1) % (unsigned)lc_ucx_shared_lanes(tl, rank);
    }
    if (lane_p != NULL) {
        *lane_p = lane;
    }
    if (lane == 0) {
        return lc_ucx_ep(tl, rank, ep_p);
    }
    if (tl->failed[rank]) {
        return LINCOLL_ERR_PEER_FAILED;
    }
    lc_ucx_lane_t *L = &tl->lane[lane];
    if (L->eps[rank] == NULL) {
        lincoll_status_t st = lc_ucx_ep_create(tl, L->worker, L->peer_addrs[rank], rank, lane,
                                               &L->eps[rank], &L->err_args[rank]);
        if (st != LINCOLL_OK) {
            return st;
        }
    }
    *ep_p = L->eps[rank];
    return LINCOLL_OK;
}

/* A copy of n bytes at src (NULL on failure). */
static void *lc_ucx_dup(const void *src, size_t n)
{
    void *d = malloc(n);
    if (d != NULL) {
        memcpy(d, src, n);
    }
    return d;
}

/* One rank's blob (lc_ucx_blob in init.c): its identity, then its lane-0
 * worker address; with several lanes the identity's magic says so and a
 * lane table (count, then each lane's address length) comes before the
 * addresses. */
static lincoll_status_t lc_ucx_parse_blob(lc_tl_t *tl, int i, const void *blob, size_t blen)
{
    lc_ucx_ident_t *id = &tl->idents[i];
    int ok = blob != NULL && blen > sizeof(*id);
    if (ok) {
        memcpy(id, blob, sizeof(*id));
        ok = id->magic == LC_UCX_IDENT_MAGIC || id->magic == LC_UCX_IDENT_MAGIC_LANES;
    }
    if (!ok) {
        lc_tl_error("ucx: rank %d published no lincoll ucx address (%zu bytes)", i,
                    blob == NULL ? (size_t)0 : blen);
        return LINCOLL_ERR_INVALID;
    }
    const char *p = (const char *)blob + sizeof(*id), *end = (const char *)blob + blen;
    uint64_t lens[LC_TL_MAX_LANES] = {(uint64_t)(end - p)};
    uint32_t n = 1;
    if (id->magic == LC_UCX_IDENT_MAGIC_LANES) {
        id->magic = LC_UCX_IDENT_MAGIC; /* the identity itself, as with one lane */
        uint64_t sum = 0;
        ok = end - p >= 8;
        if (ok) {
            memcpy(&n, p, 4);
            ok = n >= 1 && n <= LC_TL_MAX_LANES && (size_t)(end - p) >= 8 + 8 * (size_t)n;
        }
        for (uint32_t l = 0; ok && l < n; l++) {
            memcpy(&lens[l], p + 8 + 8 * l, 8);
            ok = lens[l] > 0 && lens[l] <= (uint64_t)(end - p);
            sum += lens[l];
        }
        if (ok) {
            p += 8 + 8 * (size_t)n;
            ok = sum == (uint64_t)(end - p);
        }
        if (!ok) {
            lc_tl_error("ucx: rank %d published a malformed lane table (%zu bytes)", i, blen);
            return LINCOLL_ERR_INVALID;
        }
    }
    tl->peer_lanes[i] = (unsigned char)n;
    for (uint32_t l = 0; l < n; l++) {
        if (l == 0) {
            tl->peer_addrs[i] = lc_ucx_dup(p, lens[0]);
            if (tl->peer_addrs[i] == NULL) {
                return LINCOLL_ERR_NOMEM;
            }
        } else if ((int)l < tl->nlanes) {
            tl->lane[l].peer_addrs[i] = lc_ucx_dup(p, lens[l]);
            if (tl->lane[l].peer_addrs[i] == NULL) {
                return LINCOLL_ERR_NOMEM;
            }
        }
        p += lens[l];
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_ucx_connect(lc_tl_t *tl, const void *const *addrs, const size_t *lens)
{
    /* slots [0, size) hold address copies, [size, 2*size) the error-callback args */
    tl->peer_addrs = calloc(2 * (size_t)tl->size, sizeof(void *));
    tl->idents = calloc((size_t)tl->size, sizeof(*tl->idents));
    tl->probe_ns = calloc((size_t)tl->size, sizeof(*tl->probe_ns));
    tl->peer_lanes = calloc((size_t)tl->size, 1);
    if (tl->peer_addrs == NULL || tl->idents == NULL || tl->probe_ns == NULL ||
        tl->peer_lanes == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    for (int l = 1; l < tl->nlanes; l++) {
        lc_ucx_lane_t *L = &tl->lane[l];
        L->eps = calloc((size_t)tl->size, sizeof(*L->eps));
        L->err_args = calloc((size_t)tl->size, sizeof(void *));
        L->peer_addrs = calloc((size_t)tl->size, sizeof(void *));
        if (L->eps == NULL || L->err_args == NULL || L->peer_addrs == NULL) {
            return LINCOLL_ERR_NOMEM;
        }
    }
    for (int i = 0; i < tl->size; i++) {
        /* the blobs sit wherever the bootstrap put them: copy, then read */
        lincoll_status_t st = lc_ucx_parse_blob(tl, i, addrs[i], lens[i]);
        if (st != LINCOLL_OK) {
            return st;
        }
    }
    lc_ucx_pidfds_open(tl);
    return LINCOLL_OK;
}

/* Free what lanes 1.. hold per peer (their workers are gone already). */
void lc_ucx_lanes_free(lc_tl_t *tl)
{
    for (int l = 1; l < tl->nlanes; l++) {
        lc_ucx_lane_t *L = &tl->lane[l];
        for (int i = 0; i < tl->size; i++) {
            if (L->err_args != NULL) free(L->err_args[i]);
            if (L->peer_addrs != NULL) free(L->peer_addrs[i]);
        }
        free(L->eps);
        free(L->err_args);
        free(L->peer_addrs);
        L->eps = NULL;
        L->err_args = L->peer_addrs = NULL;
    }
    free(tl->peer_lanes);
    tl->peer_lanes = NULL;
}

/* Close every endpoint at once and progress until all closes finish or 10 s
 * pass.  The context calls this after a barrier: every rank has completed
 * its operations, so nothing that anyone waits for is still in flight.  With
 * error handling the close is forced (local, needs no answer from the peer,
 * which may already be closing too); without it UCX only allows flush mode. */
void lc_ucx_disconnect(lc_tl_t *tl)
{
    tl->closing = 1;
    /* every lane's endpoints: nlanes x size close requests */
    size_t n = (size_t)tl->nlanes * (size_t)tl->size;
    ucs_status_ptr_t *reqs = calloc(n ? n : 1, sizeof(*reqs));
    if (reqs == NULL) {
        return;
    }
    for (int l = 0; l < tl->nlanes; l++) {
        ucp_ep_h *eps = l == 0 ? tl->eps : tl->lane[l].eps;
        for (int i = 0; eps != NULL && i < tl->size; i++) {
            if (eps[i] == NULL) {
                continue;
            }
            ucp_request_param_t cp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                      .flags = tl->err_mode_peer ? UCP_EP_CLOSE_FLAG_FORCE : 0};
            reqs[(size_t)l * (size_t)tl->size + (size_t)i] = ucp_ep_close_nbx(eps[i], &cp);
            eps[i] = NULL; /* the error-callback argument lives until fini */
        }
    }
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int busy = 0;
        for (size_t i = 0; i < n; i++) {
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
        for (int l = 0; l < tl->nlanes; l++) {
            ucp_worker_progress(lc_ucx_lane_worker(tl, (unsigned)l));
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) > 10.0) {
            lc_tl_debug("ucx: endpoints still closing after 10 s; destroying the worker anyway");
            for (size_t i = 0; i < n; i++) {
                if (reqs[i] != NULL && !UCS_PTR_IS_ERR(reqs[i])) {
                    ucp_request_free(reqs[i]);
                }
            }
            break;
        }
    }
    free(reqs);
}

void lc_ucx_describe(lc_tl_t *tl, int peer, char *buf, size_t len)
{
    if (len == 0) {
        return;
    }
    buf[0] = '\0';
    int rank = LC_TL_PEER_RANKOF(peer);
    FILE *f = fmemopen(buf, len, "w");
    if (f == NULL) {
        return;
    }
    int nl =
        rank >= 0 && rank < tl->size && tl->peer_lanes != NULL ? lc_ucx_shared_lanes(tl, rank) : 1;
    for (int l = 0; l < nl; l++) {
        ucp_ep_h ep;
        lincoll_status_t st =
            l == 0 ? lc_ucx_ep(tl, rank, &ep) : lc_ucx_lane_ep(tl, LC_TL_PEER(rank, l), &ep, NULL);
        if (nl > 1) {
            fprintf(f, "lane %d of %d (device %s):\n", l, nl, tl->lane_dev[l]);
        }
        if (st != LINCOLL_OK) {
            fprintf(f, "no endpoint to %d\n", rank);
        } else {
            ucp_ep_print_info(ep, f);
        }
    }
    fclose(f);
}
