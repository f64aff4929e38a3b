/*
 * transports/sim/tag.c: matching of the sim transport: exact (destination,
 * source, tag) queues in one hash table of the world, FIFO per key; requests;
 * send (copied at once into a posted receive or a queued message), receive,
 * the triggered sends of recv_chain_nb, and test/release of every request.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- match table ------------------------------------------------------ */

static inline uint64_t sim_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

static inline size_t sim_hash(const lc_sim_world_t *w, int dst, int src, uint64_t tag)
{
    uint64_t h = sim_mix(tag ^ sim_mix(((uint64_t)(uint32_t)dst << 32) | (uint32_t)src));
    return (size_t)h & (w->nbuckets - 1);
}

static int sim_table_grow(lc_sim_world_t *w)
{
    size_t nb = w->nbuckets * 2;
    sim_mq_t **b = calloc(nb, sizeof(*b));
    if (!b) {
        return -1; /* keep the old table: longer chains, still correct */
    }
    size_t old = w->nbuckets;
    sim_mq_t **ob = w->buckets;
    w->buckets = b;
    w->nbuckets = nb;
    for (size_t i = 0; i < old; i++) {
        sim_mq_t *q = ob[i];
        while (q) {
            sim_mq_t *n = q->hnext;
            size_t h = sim_hash(w, q->dst, q->src, q->tag);
            q->hnext = b[h];
            b[h] = q;
            q = n;
        }
    }
    free(ob);
    return 0;
}

static sim_mq_t *sim_mq_find(lc_sim_world_t *w, int dst, int src, uint64_t tag, int create)
{
    size_t h = sim_hash(w, dst, src, tag);
    for (sim_mq_t *q = w->buckets[h]; q; q = q->hnext) {
        if (q->tag == tag && q->src == src && q->dst == dst) {
            return q;
        }
    }
    if (!create) {
        return NULL;
    }
    sim_mq_t *q = w->mq_free;
    if (q) {
        w->mq_free = q->hnext;
    } else {
        q = malloc(sizeof(*q));
        if (!q) {
            return NULL;
        }
    }
    memset(q, 0, sizeof(*q));
    q->dst = dst;
    q->src = src;
    q->tag = tag;
    if (w->nmq + 1 > w->nbuckets && sim_table_grow(w) == 0) {
        h = sim_hash(w, dst, src, tag);
    }
    q->hnext = w->buckets[h];
    w->buckets[h] = q;
    w->nmq++;
    return q;
}

/* Return an empty queue to the free list. */
static void sim_mq_maybe_free(lc_sim_world_t *w, sim_mq_t *q)
{
    if (q->mhead || q->rhead) {
        return;
    }
    sim_mq_t **pp = &w->buckets[sim_hash(w, q->dst, q->src, q->tag)];
    while (*pp && *pp != q) {
        pp = &(*pp)->hnext;
    }
    if (*pp) {
        *pp = q->hnext;
    }
    w->nmq--;
    q->hnext = w->mq_free;
    w->mq_free = q;
}

/* ---- requests --------------------------------------------------------- */

lc_tl_req_t *lc_sim_req_new(lc_tl_t *tl, int kind, int peer)
{
    lc_sim_world_t *w = tl->w;
    lc_tl_req_t *r = w->req_free;
    if (r) {
        w->req_free = r->next;
    } else {
        r = malloc(sizeof(*r));
        if (!r) {
            return NULL;
        }
    }
    memset(r, 0, sizeof(*r));
    r->tl = tl;
    r->kind = kind;
    r->peer = peer;
    r->status = LINCOLL_INPROGRESS;
    r->onext = tl->live;
    if (tl->live) {
        tl->live->oprev = r;
    }
    tl->live = r;
    return r;
}

void lc_sim_req_free(lc_tl_req_t *r)
{
    lc_tl_t *tl = r->tl;
    if (r->oprev) {
        r->oprev->onext = r->onext;
    } else {
        tl->live = r->onext;
    }
    if (r->onext) {
        r->onext->oprev = r->oprev;
    }
    r->next = tl->w->req_free;
    tl->w->req_free = r;
}

/* Unlink a posted receive from its match queue. */
void lc_sim_recv_unlink(lc_sim_world_t *w, lc_tl_req_t *r)
{
    sim_mq_t *q = r->mq;
    if (!q) {
        return;
    }
    if (r->prev) {
        r->prev->next = r->next;
    } else {
        q->rhead = r->next;
    }
    if (r->next) {
        r->next->prev = r->prev;
    } else {
        q->rtail = r->prev;
    }
    r->mq = NULL;
    r->prev = r->next = NULL;
    sim_mq_maybe_free(w, q);
}

/* Copy a message into a receive and complete it. */
static void sim_recv_complete(lc_tl_req_t *r, const void *data, size_t len)
{
    size_t n = len <= r->cap ? len : r->cap;
    if (n) {
        memcpy(r->buf, data, n);
    }
    r->len = n;
    r->status = len <= r->cap ? LINCOLL_OK : LINCOLL_ERR_TRUNCATED;
    if (r->chain != NULL && len == r->cap) {
        lc_sim_world_t *w = r->tl->w;
        r->cnext = NULL;
        if (w->chain_tail) {
            w->chain_tail->cnext = r;
        } else {
            w->chain_head = r;
        }
        w->chain_tail = r;
    }
}

/* ---- delivery --------------------------------------------------------- */

/* A message arrives at its destination: fill the oldest matching receive, or
 * queue it (taking @p msg, or copying @p data into a new one). */
lincoll_status_t lc_sim_arrive(lc_sim_world_t *w, int src, int dst, uint64_t tag, const void *data,
                               size_t len, sim_msg_t *msg)
{
    sim_mq_t *q = sim_mq_find(w, dst, src, tag, 1);
    if (!q) {
        free(msg);
        return LINCOLL_ERR_NOMEM;
    }
    w->rk[dst].msgs_recvd++;
    w->rk[dst].bytes_recvd += len;
    lc_tl_req_t *r = q->rhead;
    if (r) {
        q->rhead = r->next;
        if (q->rhead) {
            q->rhead->prev = NULL;
        } else {
            q->rtail = NULL;
        }
        r->mq = NULL;
        r->prev = r->next = NULL;
        sim_recv_complete(r, data, len);
        sim_mq_maybe_free(w, q);
        free(msg);
        return LINCOLL_OK;
    }
    if (!msg) {
        msg = malloc(sizeof(*msg) + len);
        if (!msg) {
            sim_mq_maybe_free(w, q);
            return LINCOLL_ERR_NOMEM;
        }
        memset(msg, 0, sizeof(*msg));
        msg->kind = SIM_MSG_SEND;
        msg->src = src;
        msg->dst = dst;
        msg->tag = tag;
        msg->len = len;
        if (len) {
            memcpy(msg->data, data, len);
        }
    }
    msg->next = NULL;
    if (q->mtail) {
        q->mtail->next = msg;
    } else {
        q->mhead = msg;
    }
    q->mtail = msg;
    return LINCOLL_OK;
}

static lincoll_status_t sim_send_post(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                      uint64_t tag, lc_tl_req_t **req_p)
{
    lc_sim_world_t *w = tl->w;
    lincoll_status_t st = lc_sim_check_peer(tl, peer);
    *req_p = NULL;
    if (st != LINCOLL_OK) {
        return st;
    }
    if (!buf && len) {
        return LINCOLL_ERR_INVALID;
    }
    lc_sim_record(w, tl->rank, tag, len);
    tl->cnt.msgs_sent++;
    tl->cnt.bytes_sent += len;
    lc_sim_fault_t f = sim_fault(w, tl->rank, peer, tag, len);
    if (f == LC_SIM_FAULT_NONE) {
        return lc_sim_arrive(w, tl->rank, peer, tag, buf, len, NULL);
    }
    if (f == LC_SIM_FAULT_DROP) {
        return LINCOLL_OK;
    }
    if (f == LC_SIM_FAULT_DUPLICATE) {
        st = lc_sim_arrive(w, tl->rank, peer, tag, buf, len, NULL);
        return st != LINCOLL_OK ? st : lc_sim_arrive(w, tl->rank, peer, tag, buf, len, NULL);
    }
    sim_msg_t *m = malloc(sizeof(*m) + len);
    if (!m) {
        return LINCOLL_ERR_NOMEM;
    }
    memset(m, 0, sizeof(*m));
    m->kind = SIM_MSG_SEND;
    m->src = tl->rank;
    m->dst = peer;
    m->tag = tag;
    m->len = len;
    if (len) {
        memcpy(m->data, buf, len);
    }
    if (f == LC_SIM_FAULT_CORRUPT) {
        if (len) {
            m->data[len / 2] ^= 0xff;
        }
        return lc_sim_arrive(w, tl->rank, peer, tag, m->data, len, m);
    }
    sim_delay(w, m); /* LC_SIM_FAULT_DELAY */
    return LINCOLL_OK;
}

/* Post the triggered sends of receives that completed, in completion order;
 * a send that completes more receives appends to the list. */
void lc_sim_fire_chains(lc_sim_world_t *w)
{
    if (w->firing) {
        return;
    }
    w->firing = 1;
    while (w->chain_head) {
        lc_tl_req_t *r = w->chain_head;
        w->chain_head = r->cnext;
        if (!w->chain_head) {
            w->chain_tail = NULL;
        }
        lc_tl_chain_t *c = r->chain;
        r->chain = NULL;
        c->fired = 1;
        c->status = sim_send_post(r->tl, c->peer, c->buf, c->len, c->tag, &c->req);
    }
    w->firing = 0;
}

lincoll_status_t lc_sim_send_nb(lc_tl_t *tl, int peer, const void *buf, size_t len, uint64_t tag,
                                lc_tl_req_t **req_p)
{
    lincoll_status_t st = sim_send_post(tl, peer, buf, len, tag, req_p);
    lc_sim_fire_chains(tl->w);
    return st;
}

static lincoll_status_t sim_recv_post(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                      lc_tl_chain_t *then, lc_tl_req_t **req_p)
{
    lc_sim_world_t *w = tl->w;
    *req_p = NULL;
    if (peer < 0 || peer >= w->nranks) {
        lc_tl_error("sim: rank %d: receive from peer %d out of range", tl->rank, peer);
        return LINCOLL_ERR_INVALID;
    }
    if (!buf && len) {
        return LINCOLL_ERR_INVALID;
    }
    sim_mq_t *q = sim_mq_find(w, tl->rank, peer, tag, 0);
    if (!(q && q->mhead) && !w->rk[peer].alive) {
        return LINCOLL_ERR_PEER_FAILED;
    }
    lc_tl_req_t *r = lc_sim_req_new(tl, SIM_REQ_RECV, peer);
    if (!r) {
        return LINCOLL_ERR_NOMEM;
    }
    r->buf = buf;
    r->cap = len;
    r->chain = then;
    if (q && q->mhead) {
        sim_msg_t *m = q->mhead;
        q->mhead = m->next;
        if (!q->mhead) {
            q->mtail = NULL;
        }
        sim_recv_complete(r, m->data, m->len);
        free(m);
        sim_mq_maybe_free(w, q);
    } else {
        if (!q) {
            q = sim_mq_find(w, tl->rank, peer, tag, 1);
            if (!q) {
                lc_sim_req_free(r);
                return LINCOLL_ERR_NOMEM;
            }
        }
        r->mq = q;
        r->prev = q->rtail;
        r->next = NULL;
        if (q->rtail) {
            q->rtail->next = r;
        } else {
            q->rhead = r;
        }
        q->rtail = r;
    }
    *req_p = r;
    return LINCOLL_OK;
}

lincoll_status_t lc_sim_recv_nb(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                lc_tl_req_t **req_p)
{
    return sim_recv_post(tl, peer, buf, len, tag, NULL, req_p);
}

lincoll_status_t lc_sim_recv_chain_nb(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                      lc_tl_chain_t *then, lc_tl_req_t **req_p)
{
    then->fired = 0;
    then->status = LINCOLL_OK;
    then->req = NULL;
    lincoll_status_t st = sim_recv_post(tl, peer, buf, len, tag, then, req_p);
    lc_sim_fire_chains(tl->w); /* a queued message may have completed it */
    return st;
}

/* ---- completion ------------------------------------------------------- */

lincoll_status_t lc_sim_test(lc_tl_t *tl, lc_tl_req_t *req, size_t *len_p)
{
    lc_sim_world_t *w = tl->w;
    if (req->status == LINCOLL_INPROGRESS) {
        if (req->kind == SIM_REQ_RECV && !w->rk[req->peer].alive) {
            lc_sim_recv_unlink(w, req);
            req->status = LINCOLL_ERR_PEER_FAILED;
        } else if (req->kind == SIM_REQ_PUT && !w->rk[req->peer].alive && req->msg) {
            sim_msg_t *m = req->msg;
            sim_delayed_remove(w, m);
            lc_sim_put_finish(w, m, LINCOLL_ERR_PEER_FAILED);
        } else if (req->kind == SIM_REQ_FLUSH) {
            int dead = 0;
            if (!sim_puts_pending(w, tl->rank, req->peer, &dead)) {
                req->status = LINCOLL_OK;
            } else if (dead) {
                req->status = LINCOLL_ERR_PEER_FAILED;
            }
        }
    }
    if (len_p) {
        *len_p = req->status == LINCOLL_INPROGRESS ? 0 : req->len;
    }
    return req->status;
}

int lc_sim_release(lc_tl_t *tl, lc_tl_req_t *req)
{
    if (!req) {
        return 0;
    }
    if (req->status == LINCOLL_INPROGRESS) {
        if (req->kind == SIM_REQ_RECV) {
            lc_sim_recv_unlink(tl->w, req); /* nothing lands in it any more */
        } else if (req->kind == SIM_REQ_PUT && req->msg) {
            req->released = 1; /* freed when the put lands */
            return 0;
        }
    }
    lc_sim_req_free(req);
    return 0;
}

lincoll_status_t lc_sim_test_release(lc_tl_t *tl, lc_tl_req_t *req, size_t *len_p)
{
    lincoll_status_t st = lc_sim_test(tl, req, len_p);
    if (st != LINCOLL_INPROGRESS) {
        (void)lc_sim_release(tl, req);
    }
    return st;
}
