/*
 * transports/ucx/rma.c: RMA of the UCX transport: ucp_put_nbx into a peer's
 * window, then (with a signal) ucp_worker_fence + a 64-bit atomic add, or a
 * flush first where the put is emulated; stores when the window is mapped
 * here; flush.  Each put/flush request counts its UCX operations through
 * callbacks.
 */
#include "internal.h"

#include <string.h>

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

/* The signal of a put: 64-bit atomic add of 1 at the target's counter. */
void lc_ucx_post_signal(lc_tl_req_t *r)
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

/* After posting: an error returns no request (the request is released or,
 * while UCX still holds part of it, orphaned); a finished send/put returns
 * none either; everything else returns the request to test. */
static lincoll_status_t lc_ucx_finish_post(lc_tl_req_t *r, lc_tl_req_t **req_p)
{
    lincoll_status_t st = r->status;
    if (LINCOLL_IS_ERR(st)) {
        *req_p = NULL;
        (void)lc_ucx_release(r->tl, r);
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

lincoll_status_t lc_ucx_put_nb(lc_tl_t *tl, int peer, const void *buf, size_t len,
                               lc_tl_rkey_t *rkey, uint64_t raddr, lc_tl_rkey_t *sig_rkey,
                               uint64_t sig_raddr, uint64_t tag, lc_tl_req_t **req_p)
{
    (void)tag;
    ucp_ep_h ep;
    peer = LC_TL_PEER_RANKOF(peer); /* puts use lane 0 */
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

lincoll_status_t lc_ucx_flush_nb(lc_tl_t *tl, int peer, lc_tl_req_t **req_p)
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
        lincoll_status_t st = lc_ucx_ep(tl, LC_TL_PEER_RANKOF(peer), &ep);
        if (st != LINCOLL_OK) {
            lc_ucx_req_put_back(r);
            return st;
        }
        LC_UCX_POST(r, ucp_ep_flush_nbx(ep, &p));
    }
    return lc_ucx_finish_post(r, req_p);
}
