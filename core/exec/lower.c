/*
 * core/exec/lower.c: lower a bound plan's rounds into ready-to-post
 * transfers (core/exec/low.h), once, at bind.
 *
 * Besides the flattening: triggered sends.  A round that is one receive,
 * followed by a round whose only outgoing transfer is one send, both running
 * on every start with no compute step between the receive and the send and
 * no rotating buffer, and whose receive is not posted early (while the round
 * before may still be running), posts its receive with the transport's recv_chain_nb
 * (if it has one), which posts the send from the transport's completion path
 * the moment the message lands: a ping-pong's reply or a pipeline's forward
 * leaves without waiting for the next test().
 *
 * Small rounds: a round of sends and receives only whose messages are all
 * at most LC_LX_SEND_FIRST_MAX bytes posts its sends first (low.h).
 *
 * And lanes: where the transport offers several (ops->lanes, e.g. one UCX
 * context per network link), a round's sends and receives get a lane in
 * their peer argument (transports/transport.h, "lanes"), so that the p
 * transfers of a round travel on p links.  A send takes the lane of its
 * port (the IR's port index of outgoing transfers); a receive takes
 * whichever lane the sender chose (ANY).  Where a round has several
 * messages with one tag, i.e. several to (or from) one peer, the k-th of
 * them takes lane k on both sides, which keeps their order.  Point-to-point
 * plans and tagged plans (lincoll_coll_opts_t::tag), whose equal tags may
 * repeat across plans and starts, stay on lane 0.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/exec/low.h"

void lc_lower_free(lc_low_t *low)
{
    if (low == NULL) return;
    free(low->r);
    free(low->xs);
    free(low->ring_slots);
    free(low);
}

static void lc_lower_xfer(lincoll_plan_t *p, unsigned round, const lc_xfer_t *x, lc_lx_t *o)
{
    const lc_plan_t *ir = p->ir;
    lincoll_comm_t *comm = p->comm;
    memset(o, 0, sizeof(*o));
    o->peer = x->peer;
    o->wpeer = comm->to_world[x->peer];
    o->len = x->len;
    o->ptr = x->len > 0 || x->kind != LC_XFER_WAIT ? p->sbase[x->buf.slot] + x->buf.off : NULL;
    o->ring = (uint16_t)(x->len > 0 || x->kind != LC_XFER_WAIT ? ir->slots[x->buf.slot].ring : 0);
    switch (x->kind) {
    case LC_XFER_SEND:
        o->kind = LC_LX_SEND;
        o->tag = lc_tag_make(comm->id, 0, (unsigned)comm->rank, round);
        break;
    case LC_XFER_RECV:
        o->kind = LC_LX_RECV;
        o->tag = lc_tag_make(comm->id, 0, (unsigned)x->peer, round);
        break;
    case LC_XFER_PUT: {
        lc_win_t *w = p->wins[x->win];
        o->kind = LC_LX_PUT;
        o->win = w;
        o->roff = x->roff;
        o->rring = (uint16_t)x->ring;
        o->tag = lc_tag_make(comm->id, 0, (unsigned)comm->rank, round);
        o->mdata = w->mdata[x->peer];
        o->msig = w->msig[x->peer];
        o->mapped = o->mdata != NULL && o->msig != NULL;
        o->dev = w->dev || ir->slots[x->buf.slot].mtype == LC_MEM_DEV;
        break;
    }
    case LC_XFER_WAIT: {
        lc_win_t *w = p->wins[x->win];
        o->kind = LC_LX_WAIT;
        o->win = w;
        o->sig = &w->sig[x->peer];
        o->consumed = &w->consumed[x->peer];
        o->count = x->count;
        /* signals from a mapped peer are stores into this memory */
        o->mapped = w->mdata[x->peer] != NULL || x->peer == comm->rank;
        break;
    }
    }
}

/* The peer argument of transfer i of round R (a send or a receive) for a
 * transport with nlanes > 1 lanes. */
static int lc_lower_lane_peer(const lc_round_t *R, unsigned i, int wpeer)
{
    const lc_xfer_t *x = &R->xfers[i];
    unsigned k = 0, n = 0;
    for (unsigned j = 0; j < R->nxfers; j++) {
        if (R->xfers[j].kind != x->kind || R->xfers[j].peer != x->peer) continue;
        if (j < i) k++;
        n++;
    }
    if (n > 1) return k == 0 ? wpeer : LC_TL_PEER(wpeer, k);
    if (x->kind == LC_XFER_RECV) return LC_TL_PEER_ANY(wpeer);
    return x->port == 0 ? wpeer : LC_TL_PEER(wpeer, x->port);
}

lincoll_status_t lc_lower(lincoll_plan_t *p)
{
    const lc_plan_t *ir = p->ir;
    unsigned total = 0, maxx = 0;
    for (unsigned r = 0; r < ir->nrounds; r++) {
        total += ir->rounds[r].nxfers;
        maxx = ir->rounds[r].nxfers > maxx ? ir->rounds[r].nxfers : maxx;
    }
    lc_low_t *L = calloc(1, sizeof(*L));
    if (L == NULL) return LINCOLL_ERR_NOMEM;
    L->r = calloc(ir->nrounds + 1, sizeof(*L->r));
    L->xs = calloc(total ? total : 1, sizeof(*L->xs));
    L->ring_slots = calloc(ir->nslots ? ir->nslots : 1, sizeof(unsigned));
    size_t nreq = maxx ? maxx : 1;
    p->ex.reqs = calloc(nreq, sizeof(*p->ex.reqs));
    p->ex.next = calloc(nreq, sizeof(*p->ex.next));
    p->ex.ringoff = calloc(ir->nrings ? ir->nrings : 1, sizeof(size_t));
    if (L->r == NULL || L->xs == NULL || L->ring_slots == NULL || p->ex.reqs == NULL ||
        p->ex.next == NULL || p->ex.ringoff == NULL) {
        lc_lower_free(L);
        return LINCOLL_ERR_NOMEM;
    }
    L->nrounds = ir->nrounds;
    L->maxx = maxx;
    for (unsigned i = 0; i < ir->nslots; i++) {
        if (ir->slots[i].ring != 0) L->ring_slots[L->nring_slots++] = i;
    }
    L->has_rings = ir->nrings > 1;
    const lc_tl_ops_t *ops = p->ctx->tl_ops;
    const int nlanes = ops->lanes != NULL && !ir->p2p && !p->tagged ? ops->lanes(p->ctx->tl) : 1;
    unsigned k = 0;
    for (unsigned r = 0; r < ir->nrounds; r++) {
        const lc_round_t *R = &ir->rounds[r];
        lc_lround_t *F = &L->r[r];
        F->x = L->xs + k;
        /* receives, then outgoing, then waits */
        static const int order[3][2] = {
            {LC_XFER_RECV, -1}, {LC_XFER_SEND, LC_XFER_PUT}, {LC_XFER_WAIT, -1}};
        for (int pass = 0; pass < 3; pass++) {
            for (unsigned i = 0; i < R->nxfers; i++) {
                int kind = (int)R->xfers[i].kind;
                if (kind != order[pass][0] && kind != order[pass][1]) continue;
                lc_lower_xfer(p, ir->tag_round0 + r, &R->xfers[i], &L->xs[k]);
                if (nlanes > 1 && (kind == LC_XFER_SEND || kind == LC_XFER_RECV))
                    L->xs[k].wpeer = lc_lower_lane_peer(R, i, L->xs[k].wpeer);
                k++;
            }
            if (pass == 0) F->nrecv = (unsigned)(L->xs + k - F->x);
            if (pass == 1) F->nout = (unsigned)(L->xs + k - F->x);
        }
        F->n = (unsigned)(L->xs + k - F->x);
        F->pre = R->pre;
        F->npre = R->npre;
        F->during = R->during;
        F->nduring = R->nduring;
        F->post = R->post;
        F->npost = R->npost;
        F->every = R->every ? R->every : 1;
        F->phase = R->phase;
        F->empty = F->n == 0 && F->npre == 0 && F->nduring == 0 && F->npost == 0;
        F->plain = !F->empty && F->npre == 0 && F->nduring == 0 && F->every == 1;
        F->prepost_next = r + 1 < ir->nrounds && ir->rounds[r + 1].prepost;
    }
    for (unsigned r = 0; r + 1 < ir->nrounds; r++) /* nothing to post early: no flag */
        L->r[r].prepost_next = L->r[r].prepost_next && L->r[r + 1].nrecv > 0;
    L->r[ir->nrounds].x = L->xs + k;
    L->r[ir->nrounds].empty = 1;
    L->r[ir->nrounds].every = 1;
    /* triggered sends (see the file comment) */
    for (unsigned r = 0; p->ctx->tl_ops->recv_chain_nb != NULL && r + 1 < ir->nrounds; r++) {
        lc_lround_t *F = &L->r[r], *N = &L->r[r + 1];
        if (F->n == 1 && F->nrecv == 1 && F->x[0].ring == 0 && F->npost == 0 && F->nduring == 0 &&
            F->every == 1 && N->every == 1 && N->npre == 0 && N->nout == N->nrecv + 1 &&
            N->n == N->nout && N->x[N->nrecv].kind == LC_LX_SEND && N->x[N->nrecv].ring == 0 &&
            /* a receive posted early may complete while the round before is
             * still running (its receives, its compute), which the send may
             * depend on: only a receive posted when its round starts */
            (r == 0 || !L->r[r - 1].prepost_next)) {
            const lc_lx_t *snd = &N->x[N->nrecv];
            F->chain = 1;
            F->then.peer = snd->wpeer;
            F->then.buf = snd->ptr;
            F->then.len = snd->len;
            N->sent_by_chain = 1;
        }
    }
    for (unsigned r = 0; r < ir->nrounds; r++) {
        lc_lround_t *F = &L->r[r];
        int msgs = F->plain && !F->chain && !F->sent_by_chain;
        for (unsigned i = 0; msgs && i < F->n; i++)
            msgs = (F->x[i].kind == LC_LX_SEND || F->x[i].kind == LC_LX_RECV) && F->x[i].ring == 0;
        F->msgs = msgs;
        int small = msgs && F->nrecv > 0 && F->n > F->nrecv;
        for (unsigned i = 0; small && i < F->n; i++)
            small = F->x[i].len <= LC_LX_SEND_FIRST_MAX;
        F->send_first = small;
    }
    p->ex.p2p = ir->p2p || p->tagged;
    p->ex.p2p_bits =
        (uint64_t)(ir->p2p_tag & LC_TAG_MASK(LC_TAG_SEQ_BITS)) << LC_TAG_SEQ_SHIFT | LC_TAG_P2P;
    if (p->tagged) p->ex.p2p_bits = lc_tag_optag_bits(p->optag); /* fixed, like p2p */
    p->low = L;
    return LINCOLL_OK;
}
