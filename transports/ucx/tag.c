/*
 * transports/ucx/tag.c: tag messages of the UCX transport: send, receive
 * (and the receive with a triggered send), and test/release of every
 * request kind.  The per-message path lives in this one file so the
 * compiler inlines its helpers.
 */
#include "internal.h"

#include <stdlib.h>

/* ---- requests ------------------------------------------------------------ */

lc_tl_req_t *lc_ucx_req_get(lc_tl_t *tl, int kind)
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
    r->landed = NULL;
    r->pending = 0;
    r->done_ops = 0;
    r->ucx_req[0] = r->ucx_req[1] = NULL;
    r->length = 0;
    r->sig_stage = 0;
    r->chain = NULL;
    return r;
}

/* ---- send / receive ------------------------------------------------------ */

lincoll_status_t lc_ucx_send_nb(lc_tl_t *tl, int peer, const void *buf, size_t len, uint64_t tag,
                                lc_tl_req_t **req_p)
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
        if (r->landed != NULL) {
            *r->landed = 1;
            r->landed = NULL;
        }
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

/* Post a receive on worker (lane 0's, or a lane's whose endpoint to the
 * sender ep is). */
static inline __attribute__((always_inline)) lincoll_status_t
lc_ucx_recv_post_on(lc_tl_t *tl, ucp_worker_h worker, int peer, void *buf, size_t len, uint64_t tag,
                    lc_tl_chain_t *then, lc_tl_req_t **req_p)
{
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
    r->peer = peer;
    r->chain = then;
    r->cap = len;
    r->worker = worker; /* release() cancels there */
    /* UCX 1.13 does not report the length of a receive that completes inside
     * the call: NO_IMM_CMPL makes it run the callback instead */
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_CALLBACK |
                     UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
    p.datatype = ucp_dt_make_contig(1);
    p.cb.recv = lc_ucx_recv_cb;
    p.user_data = r;
    ucs_status_ptr_t up = ucp_tag_recv_nbx(worker, buf, len, tag, ~UINT64_C(0), &p);
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
    return lc_ucx_recv_post_on(tl, tl->worker, peer, buf, len, tag, then, req_p);
}

lincoll_status_t lc_ucx_recv_nb(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                lc_tl_req_t **req_p)
{
    if (__builtin_expect(LC_TL_PEER_CODE(peer) != 0, 0)) {
        return lc_ucx_recv_lane(tl, peer, buf, len, tag, NULL, req_p);
    }
    return lc_ucx_recv_post(tl, peer, buf, len, tag, NULL, req_p);
}

lincoll_status_t lc_ucx_recv_chain_nb(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                      lc_tl_chain_t *then, lc_tl_req_t **req_p)
{
    ucp_ep_h ep;
    /* the send's endpoint (on its lane) is made here, not inside the
     * receive's callback */
    lincoll_status_t st = lc_ucx_ep(tl, then->peer, &ep);
    if (st != LINCOLL_OK) {
        return st;
    }
    then->fired = 0;
    then->status = LINCOLL_OK;
    then->req = NULL;
    if (__builtin_expect(LC_TL_PEER_CODE(peer) != 0, 0)) {
        return lc_ucx_recv_lane(tl, peer, buf, len, tag, then, req_p);
    }
    return lc_ucx_recv_post(tl, peer, buf, len, tag, then, req_p);
}

/* ---- receives on lanes ------------------------------------------------------ */

/* A RECV_ANY request is done once none of its lanes' receives is in flight:
 * the winner's outcome, or CANCELED when it was released first. */
static void lc_ucx_any_settle(lc_tl_req_t *r)
{
    if (r->nlive > 0 || r->in_cb) {
        return;
    }
    if (r->orphaned) {
        if (r->landed != NULL) {
            *r->landed = 1;
            r->landed = NULL;
        }
        lc_ucx_req_put_back(r);
        return;
    }
    r->status = r->winner >= 0 ? r->outcome : LINCOLL_ERR_CANCELED;
}

/* Cancel every lane's receive still in flight (their callbacks run inside
 * the cancel, or from a later progress call). */
static void lc_ucx_any_cancel(lc_tl_req_t *r)
{
    lc_tl_t *tl = r->tl;
    int was = r->in_cb;
    r->in_cb = 1;
    for (unsigned l = 0; l < LC_TL_MAX_LANES; l++) {
        lc_ucx_sub_t *s = &r->sub[l];
        if (s->live && s->ureq != NULL) {
            ucp_request_cancel(lc_ucx_lane_worker(tl, l), s->ureq);
        }
    }
    r->in_cb = was;
}

static void lc_ucx_recv_any_cb(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                               void *user_data)
{
    lc_ucx_sub_t *s = user_data;
    lc_tl_req_t *r = s->r;
    ucp_request_free(request);
    s->live = 0;
    s->ureq = NULL;
    r->nlive--;
    if (status != UCS_ERR_CANCELED) {
        if (r->winner < 0) {
            r->winner = (int)s->lane;
            r->outcome = status == UCS_OK ? LINCOLL_OK : lc_ucx_status(status);
            r->length = status == UCS_OK ? info->length : 0;
            lc_tl_chain_t *c = r->chain;
            if (c != NULL && !r->orphaned && status == UCS_OK && info->length == r->cap) {
                c->fired = 1;
                c->status = lc_ucx_send_nb(r->tl, c->peer, c->buf, c->len, c->tag, &c->req);
            }
            lc_ucx_any_cancel(r); /* the other lanes' receives */
        } else {
            /* the sender put two messages with this tag on two lanes */
            lc_tl_error("ucx: a second message (lane %u) matched a receive that lane %d already "
                        "completed: the peers disagree on lanes",
                        s->lane, r->winner);
            r->outcome = LINCOLL_ERR_TRANSPORT;
        }
    }
    lc_ucx_any_settle(r);
}

/* A receive of a message the sender may put on any lane both have: one UCX
 * receive per lane, the first match wins, the others are canceled. */
static lincoll_status_t lc_ucx_recv_any(lc_tl_t *tl, int rank, int nl, void *buf, size_t len,
                                        uint64_t tag, lc_tl_chain_t *then, lc_tl_req_t **req_p)
{
    /* endpoints to the sender on every lane: UCX reports its failure on any */
    for (int l = 0; l < nl; l++) {
        ucp_ep_h ep;
        lincoll_status_t st = lc_ucx_lane_ep(tl, l == 0 ? rank : LC_TL_PEER(rank, l), &ep, NULL);
        if (st != LINCOLL_OK) {
            return st;
        }
    }
    lc_tl_req_t *r = lc_ucx_req_get(tl, LC_UCX_REQ_RECV_ANY);
    if (r == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    r->chain = then;
    r->cap = len;
    r->peer = rank;
    r->nlive = 0;
    r->winner = -1;
    r->in_cb = 1;
    r->outcome = LINCOLL_OK;
    for (unsigned l = 0; l < LC_TL_MAX_LANES; l++) {
        r->sub[l] = (lc_ucx_sub_t){.r = r, .lane = l};
    }
    lincoll_status_t st = LINCOLL_OK;
    for (int l = 0; l < nl && r->winner < 0; l++) {
        lc_ucx_sub_t *s = &r->sub[l];
        ucp_request_param_t p = {
            .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_CALLBACK |
                            UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
            .datatype = ucp_dt_make_contig(1),
            .cb.recv = lc_ucx_recv_any_cb,
            .user_data = s,
        };
        s->live = 1;
        r->nlive++;
        ucs_status_ptr_t up =
            ucp_tag_recv_nbx(lc_ucx_lane_worker(tl, (unsigned)l), buf, len, tag, ~UINT64_C(0), &p);
        if (UCS_PTR_IS_ERR(up) || up == NULL) {
            s->live = 0;
            r->nlive--;
            st = up == NULL ? LINCOLL_ERR_INTERNAL : lc_ucx_status(UCS_PTR_STATUS(up));
            break;
        }
        if (s->live) {
            s->ureq = up; /* the callback has not run inside the call */
        }
    }
    r->in_cb = 0;
    if (st != LINCOLL_OK && r->winner < 0) {
        /* nothing arrived: take back what was posted, report the error */
        r->orphaned = 1;
        lc_ucx_any_cancel(r);
        lc_ucx_any_settle(r);
        *req_p = NULL;
        return st;
    }
    lc_ucx_any_settle(r);
    *req_p = r;
    return LINCOLL_OK;
}

__attribute__((noinline)) lincoll_status_t lc_ucx_recv_lane(lc_tl_t *tl, int peer, void *buf,
                                                            size_t len, uint64_t tag,
                                                            lc_tl_chain_t *then,
                                                            lc_tl_req_t **req_p)
{
    int rank = LC_TL_PEER_RANKOF(peer);
    unsigned code = LC_TL_PEER_CODE(peer);
    if (rank < 0 || rank >= tl->size || tl->peer_addrs == NULL) {
        lc_tl_error("ucx: receive from peer %d (lane code %u): out of range [0, %d) or transport "
                    "not connected",
                    rank, code, tl->size);
        return LINCOLL_ERR_INVALID;
    }
    int nl = lc_ucx_shared_lanes(tl, rank);
    if (code == LC_TL_LANE_ANY_CODE && nl > 1) {
        return lc_ucx_recv_any(tl, rank, nl, buf, len, tag, then, req_p);
    }
    ucp_ep_h ep;
    unsigned lane;
    lincoll_status_t st = lc_ucx_lane_ep(tl, peer, &ep, &lane);
    if (st != LINCOLL_OK) {
        return st;
    }
    return lc_ucx_recv_post_on(tl, lc_ucx_lane_worker(tl, lane), rank, buf, len, tag, then, req_p);
}

/* ---- completion ------------------------------------------------------------ */

lincoll_status_t lc_ucx_test(lc_tl_t *tl, lc_tl_req_t *r, size_t *len_p)
{
    (void)tl;
    if (__builtin_expect(r->kind == LC_UCX_REQ_RECV, 1) || r->kind == LC_UCX_REQ_RECV_ANY) {
        /* lc_ucx_recv_cb (lc_ucx_any_settle) wrote the outcome */
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

/* A released receive that UCX could not cancel: it had matched a message
 * whose data is still arriving (a rendezvous), and UCX goes on writing into
 * the caller's buffer until it is done.  The contract says nothing writes
 * there after release(), so progress until the callback has run (*landed).
 * A sender that dies mid-message may leave the request for good: once the
 * peer is known dead, progress until nothing more happens (fragments
 * already here land now, not later), then stop waiting.  At most the
 * drain timeout in all.  1 when it stopped waiting before the receive
 * landed: UCX may still write its buffer. */
static __attribute__((noinline, cold)) int lc_ucx_release_drain(lc_tl_t *tl, lc_tl_req_t *r,
                                                                int *landed)
{
    const int peer = r->peer;
    const uint64_t start = lc_ucx_now_ns();
    const uint64_t limit = tl->drain_timeout_s > 0 ? (uint64_t)(tl->drain_timeout_s * 1e9) : 0;
    unsigned quiet = 0;
    for (unsigned i = 0; !*landed; i++) {
        int busy = lc_ucx_progress(tl);
        if (*landed || (i & 255u) != 255u) continue;
        uint64_t waited = lc_ucx_now_ns() - start;
        int dead = peer >= 0 && peer < tl->size && lc_ucx_peer_status(tl, peer) != LINCOLL_OK;
        quiet = busy ? 0 : quiet + 1;
        if (dead && quiet >= 64) {
            lc_tl_warn("ucx: a canceled receive from failed peer %d was still receiving; stopped "
                       "waiting for it",
                       peer);
            break;
        }
        if (limit > 0 && waited > limit) {
            lc_tl_error("ucx: a canceled receive from peer %d was still receiving after %.1f s "
                        "(the timeout); its buffer may still be written",
                        peer, (double)waited / 1e9);
            break;
        }
    }
    if (*landed) return 0;
    r->landed = NULL; /* still UCX's: its callback gives it back */
    return 1;
}

int lc_ucx_release(lc_tl_t *tl, lc_tl_req_t *r)
{
    if (r == NULL) {
        return 0;
    }
    if (r->kind == LC_UCX_REQ_RECV_ANY) {
        /* cancel the lanes' receives still in flight; the last callback (or
         * this call) gives the request back */
        int landed = 0;
        r->orphaned = 1;
        r->landed = &landed;
        lc_ucx_any_cancel(r);
        lc_ucx_any_settle(r);
        return landed ? 0 : lc_ucx_release_drain(tl, r, &landed);
    }
    if (r->kind == LC_UCX_REQ_RECV) {
        if (r->ucx_req[0] != NULL) {
            /* still in flight: cancel it; its callback (now, inside the
             * cancel, or from a later progress) gives the request back */
            int landed = 0;
            r->orphaned = 1;
            r->landed = &landed;
            ucp_request_cancel(r->worker, r->ucx_req[0]);
            return landed ? 0 : lc_ucx_release_drain(tl, r, &landed);
        }
        lc_ucx_req_put_back(r);
        return 0;
    }
    if (r->kind == LC_UCX_REQ_SEND) {
        if (r->ucx_req[0] != NULL) {
            /* still in flight: UCX frees the request itself when it completes */
            ucp_request_free(r->ucx_req[0]);
        }
        lc_ucx_req_put_back(r);
        return 0;
    }
    if (r->pending > 0) {
        r->orphaned = 1;
        return 0;
    }
    lc_ucx_req_put_back(r);
    return 0;
}

lincoll_status_t lc_ucx_test_release(lc_tl_t *tl, lc_tl_req_t *r, size_t *len_p)
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
        (void)lc_ucx_release(tl, r);
    }
    return st;
}
