/*
 * transports/sim/tl_sim.c: the in-process simulated transport ("sim").
 *
 * K virtual ranks share one lc_sim_world_t in one process; each virtual rank
 * has its own lc_tl_t (init with params->sim_world and params->rank).  There
 * are no threads: everything happens inside the calls, deterministically.
 *
 * Point to point: send_nb copies the payload at once, straight into a posted
 * receive when one matches, else into a queued (unexpected) message, so a send
 * always completes immediately (*req_p = NULL).  recv_nb always returns a
 * request (completed at once when a queued message matched) so that test()
 * can report the received length.  Matching is exact on (destination,
 * source, tag) through one hash table in the world, FIFO per key, which keeps
 * the posting order per sender like UCX.  recv_chain_nb: the triggered send
 * is posted when the receive completes, before the outermost send, receive or
 * progress call returns (queued, not recursive, so chains through K ranks
 * need no deep stack).
 *
 * RMA: regions live in a world table; a packed rkey names a table slot, its
 * generation (a deregistered region is never hit through a stale key) and the
 * owner.  put_nb copies into the target at once and then adds 1 to the signal
 * counter; rkey_ptr returns the target address itself (one address space).
 *
 * Accounting: every send and put is recorded under LC_TAG_FIELD(tag, ROUND),
 * so rounds (C1), the largest message per round (C2) and bytes per rank are
 * measured, not predicted.  Faults (drop, corrupt, delay, duplicate) are chosen
 * per message or put by a hook; a delayed one lands after `delay` further
 * progress() calls of its destination rank.  lc_sim_world_kill() marks a rank
 * dead: its peers get LINCOLL_ERR_PEER_FAILED from peer_status(), from new
 * operations towards it and from pending receives from it.
 *
 * Cost: send, receive, put and test are O(1) expected (plus the copy), so K =
 * 4096 ranks with millions of messages run in seconds.  progress() is O(1)
 * unless delayed messages are pending for that rank.
 *
 * Restrictions: single-threaded; one lc_tl_t per virtual rank at a time;
 * fini() of a rank frees the requests it still holds and the regions it still
 * has registered; fini every rank before lc_sim_world_destroy().  event_fd()
 * is -1 and arm() is unsupported: there is nothing to block on.
 */
#include "../transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIM_ADDR_MAGIC 0x4c4353494d414444ULL /* "LCSIMADD" */
#define SIM_RKEY_MAGIC 0x4c43524bu           /* "LCRK" */

typedef struct sim_msg sim_msg_t;
typedef struct sim_mq sim_mq_t;

enum { SIM_MSG_SEND, SIM_MSG_PUT };
enum { SIM_REQ_SEND, SIM_REQ_RECV, SIM_REQ_PUT, SIM_REQ_FLUSH };

/* A message or put on its way: queued unexpected, or delayed by a fault. */
struct sim_msg {
    sim_msg_t *next;          /* match queue or delayed list */
    sim_msg_t *fprev, *fnext; /* put only: source rank's in-flight list */
    int kind;
    int src, dst;
    uint64_t tag;
    size_t len;
    uint64_t due; /* delayed: destination tick at which it lands */
    /* put only */
    uint32_t slot, gen, sig_slot, sig_gen;
    int has_sig;
    uint64_t raddr, sig_raddr;
    lc_tl_req_t *req; /* the put's request, NULL if completed/orphaned away */
    unsigned char data[];
};

/* Everything queued under one (dst, src, tag): at most one list is non-empty. */
struct sim_mq {
    sim_mq_t *hnext;
    int dst, src;
    uint64_t tag;
    sim_msg_t *mhead, *mtail;   /* unexpected messages */
    lc_tl_req_t *rhead, *rtail; /* posted receives */
};

struct lc_tl_req {
    lc_tl_req_t *prev, *next;   /* recv: in its match queue; free list */
    lc_tl_req_t *oprev, *onext; /* owner's list of live requests */
    lc_tl_t *tl;
    sim_mq_t *mq;   /* recv in flight: its queue */
    sim_msg_t *msg; /* put in flight: its delayed message */
    int kind;
    int peer;
    int released; /* put released while in flight */
    void *buf;
    size_t cap;
    size_t len;
    lincoll_status_t status;
    lc_tl_chain_t *chain; /* recv_chain_nb: the send to post on completion */
    lc_tl_req_t *cnext;   /* in the world's list of chains due to fire */
};

struct lc_tl_mem {
    uint32_t slot, gen;
    void *base;
    size_t len;
    int allocated;
};

struct lc_tl_rkey {
    uint32_t slot, gen;
    int owner;
    uint64_t base;
    uint64_t len;
};

/* starts with the base address, as transport.h requires of every packed key */
typedef struct sim_rkey_packed {
    uint64_t base;
    uint64_t len;
    uint32_t magic;
    uint32_t slot;
    uint32_t gen;
    int32_t owner;
} sim_rkey_packed_t;

typedef struct sim_region {
    unsigned char *base;
    size_t len;
    int owner;
    uint32_t gen;
    int used;
    int allocated;
    lc_tl_mem_t *mem;
} sim_region_t;

typedef struct sim_rank {
    lc_tl_t *tl;
    int alive;
    uint64_t ticks;           /* progress() calls of this rank */
    sim_msg_t *dhead, *dtail; /* delayed messages/puts towards this rank */
    sim_msg_t *inflight;      /* delayed puts from this rank */
    uint64_t msgs_sent, bytes_sent, msgs_recvd, bytes_recvd;
} sim_rank_t;

struct lc_sim_world {
    int nranks;
    sim_rank_t *rk;
    /* match table */
    sim_mq_t **buckets;
    size_t nbuckets;
    size_t nmq;
    sim_mq_t *mq_free;
    lc_tl_req_t *req_free;
    /* regions */
    sim_region_t *regions;
    uint32_t nregions, cap_regions;
    uint32_t *free_slots;
    uint32_t nfree_slots;
    /* rounds */
    lc_sim_round_stat_t *rstat;
    unsigned rcap;
    unsigned nrounds;
    /* faults */
    lc_sim_fault_fn_t fault_fn;
    void *fault_arg;
    unsigned delay;
    /* receives whose triggered send is due, fired before the outermost
     * send/receive/progress call returns (no recursion through arrivals) */
    lc_tl_req_t *chain_head, *chain_tail;
    int firing;
};

struct lc_tl {
    lc_sim_world_t *w;
    int rank;
    uint64_t addr[2];
    lc_tl_req_t *live; /* requests handed out and not released */
    lc_tl_counters_t cnt;
};

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

static lc_tl_req_t *sim_req_new(lc_tl_t *tl, int kind, int peer)
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

static void sim_req_free(lc_tl_req_t *r)
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
static void sim_recv_unlink(lc_sim_world_t *w, lc_tl_req_t *r)
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
static lincoll_status_t sim_arrive(lc_sim_world_t *w, int src, int dst, uint64_t tag,
                                   const void *data, size_t len, sim_msg_t *msg)
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

static sim_region_t *sim_region_get(lc_sim_world_t *w, uint32_t slot, uint32_t gen)
{
    if (slot >= w->nregions || !w->regions[slot].used || w->regions[slot].gen != gen) {
        return NULL;
    }
    return &w->regions[slot];
}

/* Check that [raddr, raddr+len) lies in the region an rkey names. */
static unsigned char *sim_region_addr(lc_sim_world_t *w, uint32_t slot, uint32_t gen,
                                      uint64_t raddr, size_t len)
{
    sim_region_t *g = sim_region_get(w, slot, gen);
    if (!g) {
        return NULL;
    }
    uint64_t base = (uint64_t)(uintptr_t)g->base;
    if (raddr < base || raddr - base > g->len || len > g->len - (raddr - base)) {
        return NULL;
    }
    return (unsigned char *)(uintptr_t)raddr;
}

/* Land a put: copy (corrupting one byte if asked), then signal. */
static lincoll_status_t sim_put_land(lc_sim_world_t *w, int dst, const void *data, size_t len,
                                     uint32_t slot, uint32_t gen, uint64_t raddr, int has_sig,
                                     uint32_t sig_slot, uint32_t sig_gen, uint64_t sig_raddr,
                                     int corrupt)
{
    unsigned char *d = sim_region_addr(w, slot, gen, raddr, len);
    uint64_t *s = NULL;
    if (!d) {
        lc_tl_error("sim: put of %zu bytes to rank %d: target region gone", len, dst);
        return LINCOLL_ERR_INVALID;
    }
    if (has_sig) {
        s = (uint64_t *)sim_region_addr(w, sig_slot, sig_gen, sig_raddr, sizeof(uint64_t));
        if (!s) {
            lc_tl_error("sim: put signal to rank %d: target region gone", dst);
            return LINCOLL_ERR_INVALID;
        }
    }
    if (len) {
        memmove(d, data, len);
        if (corrupt) {
            d[len / 2] ^= 0xff;
        }
    }
    if (s) {
        (*s)++;
    }
    w->rk[dst].msgs_recvd++;
    w->rk[dst].bytes_recvd += len;
    return LINCOLL_OK;
}

static void sim_inflight_unlink(lc_sim_world_t *w, sim_msg_t *m)
{
    if (m->fprev) {
        m->fprev->fnext = m->fnext;
    } else {
        w->rk[m->src].inflight = m->fnext;
    }
    if (m->fnext) {
        m->fnext->fprev = m->fprev;
    }
    m->fprev = m->fnext = NULL;
}

/* Finish a delayed put's request after it landed or failed. */
static void sim_put_finish(lc_sim_world_t *w, sim_msg_t *m, lincoll_status_t st)
{
    sim_inflight_unlink(w, m);
    lc_tl_req_t *r = m->req;
    if (r) {
        r->msg = NULL;
        r->status = st;
        if (r->released) {
            sim_req_free(r);
        }
    }
    free(m);
}

static void sim_delayed_remove(lc_sim_world_t *w, sim_msg_t *m)
{
    sim_rank_t *d = &w->rk[m->dst];
    sim_msg_t *prev = NULL;
    for (sim_msg_t *x = d->dhead; x; prev = x, x = x->next) {
        if (x == m) {
            if (prev) {
                prev->next = x->next;
            } else {
                d->dhead = x->next;
            }
            if (d->dtail == x) {
                d->dtail = prev;
            }
            return;
        }
    }
}

static void sim_delay(lc_sim_world_t *w, sim_msg_t *m)
{
    sim_rank_t *d = &w->rk[m->dst];
    m->due = d->ticks + w->delay;
    m->next = NULL;
    if (d->dtail) {
        d->dtail->next = m;
    } else {
        d->dhead = m;
    }
    d->dtail = m;
}

static void sim_record(lc_sim_world_t *w, int src, uint64_t tag, size_t len)
{
    unsigned r = LC_TAG_FIELD(tag, ROUND);
    if (r >= w->rcap) {
        unsigned nc = w->rcap ? w->rcap : 64;
        while (nc <= r) {
            nc *= 2;
        }
        lc_sim_round_stat_t *n = realloc(w->rstat, nc * sizeof(*n));
        if (!n) {
            lc_tl_error("sim: no memory for round statistics (round %u)", r);
            return;
        }
        memset(n + w->rcap, 0, (nc - w->rcap) * sizeof(*n));
        w->rstat = n;
        w->rcap = nc;
    }
    lc_sim_round_stat_t *s = &w->rstat[r];
    s->msgs++;
    s->bytes += len;
    if (len > s->max_bytes) {
        s->max_bytes = len;
    }
    if (r + 1 > w->nrounds) {
        w->nrounds = r + 1;
    }
    w->rk[src].msgs_sent++;
    w->rk[src].bytes_sent += len;
}

static lc_sim_fault_t sim_fault(lc_sim_world_t *w, int src, int dst, uint64_t tag, size_t len)
{
    if (!w->fault_fn) {
        return LC_SIM_FAULT_NONE;
    }
    return w->fault_fn(w->fault_arg, src, dst, LC_TAG_FIELD(tag, ROUND), len);
}

/* ---- world ------------------------------------------------------------ */

lincoll_status_t lc_sim_world_create(int nranks, lc_sim_world_t **world_p)
{
    if (!world_p || nranks <= 0 || (uint64_t)nranks > LC_TAG_MAX_SRC + 1) {
        lc_tl_error("sim: invalid world size %d", nranks);
        return LINCOLL_ERR_INVALID;
    }
    lc_sim_world_t *w = calloc(1, sizeof(*w));
    if (!w) {
        return LINCOLL_ERR_NOMEM;
    }
    w->nranks = nranks;
    w->rk = calloc((size_t)nranks, sizeof(*w->rk));
    w->nbuckets = 1024;
    while (w->nbuckets < (size_t)nranks * 4) {
        w->nbuckets *= 2;
    }
    w->buckets = calloc(w->nbuckets, sizeof(*w->buckets));
    if (!w->rk || !w->buckets) {
        free(w->rk);
        free(w->buckets);
        free(w);
        return LINCOLL_ERR_NOMEM;
    }
    for (int i = 0; i < nranks; i++) {
        w->rk[i].alive = 1;
    }
    *world_p = w;
    return LINCOLL_OK;
}

static void sim_free_list(sim_msg_t *m)
{
    while (m) {
        sim_msg_t *n = m->next;
        free(m);
        m = n;
    }
}

void lc_sim_world_destroy(lc_sim_world_t *w)
{
    if (!w) {
        return;
    }
    for (int i = 0; i < w->nranks; i++) {
        if (w->rk[i].tl) {
            lc_tl_warn("sim: world destroyed while rank %d is still initialized", i);
            lc_tl_sim_ops.fini(w->rk[i].tl);
        }
    }
    for (int i = 0; i < w->nranks; i++) {
        sim_free_list(w->rk[i].dhead);
    }
    for (size_t b = 0; b < w->nbuckets; b++) {
        sim_mq_t *q = w->buckets[b];
        while (q) {
            sim_mq_t *n = q->hnext;
            sim_free_list(q->mhead);
            free(q);
            q = n;
        }
    }
    while (w->mq_free) {
        sim_mq_t *n = w->mq_free->hnext;
        free(w->mq_free);
        w->mq_free = n;
    }
    while (w->req_free) {
        lc_tl_req_t *n = w->req_free->next;
        free(w->req_free);
        w->req_free = n;
    }
    for (uint32_t s = 0; s < w->nregions; s++) {
        if (w->regions[s].used && w->regions[s].allocated) {
            free(w->regions[s].base);
        }
        if (w->regions[s].used) {
            free(w->regions[s].mem);
        }
    }
    free(w->regions);
    free(w->free_slots);
    free(w->rstat);
    free(w->buckets);
    free(w->rk);
    free(w);
}

void lc_sim_world_reset_stats(lc_sim_world_t *w)
{
    if (w->rstat) {
        memset(w->rstat, 0, w->rcap * sizeof(*w->rstat));
    }
    w->nrounds = 0;
    for (int i = 0; i < w->nranks; i++) {
        w->rk[i].msgs_sent = w->rk[i].bytes_sent = 0;
        w->rk[i].msgs_recvd = w->rk[i].bytes_recvd = 0;
    }
}

unsigned lc_sim_world_rounds(lc_sim_world_t *w)
{
    return w->nrounds;
}

lc_sim_round_stat_t lc_sim_world_round(lc_sim_world_t *w, unsigned r)
{
    lc_sim_round_stat_t z = {0, 0, 0};
    if (r >= w->nrounds || r >= w->rcap) {
        return z;
    }
    return w->rstat[r];
}

void lc_sim_world_rank_stats(lc_sim_world_t *w, int rank, uint64_t *msgs_sent, uint64_t *bytes_sent,
                             uint64_t *msgs_recvd, uint64_t *bytes_recvd)
{
    int ok = rank >= 0 && rank < w->nranks;
    if (msgs_sent) {
        *msgs_sent = ok ? w->rk[rank].msgs_sent : 0;
    }
    if (bytes_sent) {
        *bytes_sent = ok ? w->rk[rank].bytes_sent : 0;
    }
    if (msgs_recvd) {
        *msgs_recvd = ok ? w->rk[rank].msgs_recvd : 0;
    }
    if (bytes_recvd) {
        *bytes_recvd = ok ? w->rk[rank].bytes_recvd : 0;
    }
}

void lc_sim_world_set_fault(lc_sim_world_t *w, lc_sim_fault_fn_t fn, void *arg, unsigned delay)
{
    w->fault_fn = fn;
    w->fault_arg = arg;
    w->delay = delay;
}

void lc_sim_world_kill(lc_sim_world_t *w, int rank)
{
    if (rank >= 0 && rank < w->nranks) {
        w->rk[rank].alive = 0;
    }
}

/* ---- ops -------------------------------------------------------------- */

static lincoll_status_t sim_init(const lc_tl_params_t *params, lc_tl_t **tl_p)
{
    if (!params || !tl_p || !params->sim_world) {
        lc_tl_error("sim: init needs params->sim_world (lc_sim_world_create)");
        return LINCOLL_ERR_INVALID;
    }
    lc_sim_world_t *w = params->sim_world;
    if (params->rank < 0 || params->rank >= w->nranks ||
        (params->size > 0 && params->size != w->nranks)) {
        lc_tl_error("sim: rank %d / size %d does not fit a world of %d", params->rank, params->size,
                    w->nranks);
        return LINCOLL_ERR_INVALID;
    }
    if (w->rk[params->rank].tl) {
        lc_tl_error("sim: virtual rank %d is already initialized", params->rank);
        return LINCOLL_ERR_BUSY;
    }
    lc_tl_t *tl = calloc(1, sizeof(*tl));
    if (!tl) {
        return LINCOLL_ERR_NOMEM;
    }
    tl->w = w;
    tl->rank = params->rank;
    tl->addr[0] = SIM_ADDR_MAGIC;
    tl->addr[1] = (uint64_t)params->rank;
    w->rk[params->rank].tl = tl;
    *tl_p = tl;
    return LINCOLL_OK;
}

static void sim_mem_dereg(lc_tl_t *tl, lc_tl_mem_t *mem);

static void sim_fini(lc_tl_t *tl)
{
    if (!tl) {
        return;
    }
    lc_sim_world_t *w = tl->w;
    while (tl->live) {
        lc_tl_req_t *r = tl->live;
        if (r->kind == SIM_REQ_RECV) {
            sim_recv_unlink(w, r);
        } else if (r->kind == SIM_REQ_PUT && r->msg) {
            r->msg->req = NULL; /* the put still lands; nobody waits for it */
        }
        sim_req_free(r);
    }
    for (uint32_t s = 0; s < w->nregions; s++) {
        if (w->regions[s].used && w->regions[s].owner == tl->rank) {
            sim_mem_dereg(tl, w->regions[s].mem);
        }
    }
    w->rk[tl->rank].tl = NULL;
    free(tl);
}

static lincoll_status_t sim_address(lc_tl_t *tl, const void **addr_p, size_t *len_p)
{
    *addr_p = tl->addr;
    *len_p = sizeof(tl->addr);
    return LINCOLL_OK;
}

static lincoll_status_t sim_connect(lc_tl_t *tl, const void *const *addrs, const size_t *lens)
{
    for (int i = 0; i < tl->w->nranks; i++) {
        uint64_t a[2];
        if (!addrs[i] || lens[i] != sizeof(a)) {
            lc_tl_error("sim: address of rank %d is missing or has %zu bytes", i, lens[i]);
            return LINCOLL_ERR_INVALID;
        }
        memcpy(a, addrs[i], sizeof(a));
        if (a[0] != SIM_ADDR_MAGIC || a[1] != (uint64_t)i) {
            lc_tl_error("sim: address %d does not name virtual rank %d", i, i);
            return LINCOLL_ERR_INVALID;
        }
    }
    return LINCOLL_OK;
}

static lincoll_status_t sim_region_add(lc_tl_t *tl, void *base, size_t len, int allocated,
                                       lc_tl_mem_t **mem_p)
{
    lc_sim_world_t *w = tl->w;
    lc_tl_mem_t *mem = calloc(1, sizeof(*mem));
    if (!mem) {
        return LINCOLL_ERR_NOMEM;
    }
    uint32_t slot;
    if (w->nfree_slots) {
        slot = w->free_slots[--w->nfree_slots];
    } else {
        if (w->nregions == w->cap_regions) {
            uint32_t nc = w->cap_regions ? w->cap_regions * 2 : 64;
            sim_region_t *g = realloc(w->regions, nc * sizeof(*g));
            uint32_t *f = g ? realloc(w->free_slots, nc * sizeof(*f)) : NULL;
            if (g) {
                w->regions = g;
            }
            if (!g || !f) {
                free(mem);
                return LINCOLL_ERR_NOMEM;
            }
            w->free_slots = f;
            w->cap_regions = nc;
        }
        slot = w->nregions++;
        w->regions[slot].gen = 0;
    }
    sim_region_t *g = &w->regions[slot];
    g->base = base;
    g->len = len;
    g->owner = tl->rank;
    g->gen++;
    g->used = 1;
    g->allocated = allocated;
    g->mem = mem;
    mem->slot = slot;
    mem->gen = g->gen;
    mem->base = base;
    mem->len = len;
    mem->allocated = allocated;
    tl->cnt.mem_registered += len;
    *mem_p = mem;
    return LINCOLL_OK;
}

static lincoll_status_t sim_mem_alloc(lc_tl_t *tl, size_t len, lc_tl_mem_t **mem_p, void **addr_p)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, len ? len : 64) != 0) {
        lc_tl_error("sim: cannot allocate %zu bytes", len);
        return LINCOLL_ERR_NOMEM;
    }
    memset(p, 0, len ? len : 64);
    lincoll_status_t st = sim_region_add(tl, p, len, 1, mem_p);
    if (st != LINCOLL_OK) {
        free(p);
        return st;
    }
    *addr_p = p;
    return LINCOLL_OK;
}

static lincoll_status_t sim_mem_reg(lc_tl_t *tl, void *addr, size_t len, lc_tl_mem_t **mem_p)
{
    if (!addr && len) {
        return LINCOLL_ERR_INVALID;
    }
    return sim_region_add(tl, addr, len, 0, mem_p);
}

static void sim_mem_dereg(lc_tl_t *tl, lc_tl_mem_t *mem)
{
    if (!mem) {
        return;
    }
    lc_sim_world_t *w = tl->w;
    sim_region_t *g = sim_region_get(w, mem->slot, mem->gen);
    if (!g) {
        lc_tl_error("sim: deregistering an unknown region");
        return;
    }
    if (g->allocated) {
        free(g->base);
    }
    tl->cnt.mem_registered -= g->len;
    g->used = 0;
    g->gen++;
    g->base = NULL;
    g->mem = NULL;
    w->free_slots[w->nfree_slots++] = mem->slot;
    free(mem);
}

static lincoll_status_t sim_rkey_pack(lc_tl_t *tl, lc_tl_mem_t *mem, void **buf_p, size_t *len_p)
{
    sim_rkey_packed_t *k = malloc(sizeof(*k));
    if (!k) {
        return LINCOLL_ERR_NOMEM;
    }
    memset(k, 0, sizeof(*k));
    k->magic = SIM_RKEY_MAGIC;
    k->slot = mem->slot;
    k->gen = mem->gen;
    k->owner = tl->rank;
    k->base = (uint64_t)(uintptr_t)mem->base;
    k->len = mem->len;
    *buf_p = k;
    *len_p = sizeof(*k);
    return LINCOLL_OK;
}

static lincoll_status_t sim_rkey_unpack(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                        lc_tl_rkey_t **rkey_p)
{
    sim_rkey_packed_t k;
    if (!buf || len != sizeof(k)) {
        lc_tl_error("sim: packed rkey of %zu bytes (expected %zu)", len, sizeof(k));
        return LINCOLL_ERR_INVALID;
    }
    memcpy(&k, buf, sizeof(k));
    if (k.magic != SIM_RKEY_MAGIC || k.owner != peer || !sim_region_get(tl->w, k.slot, k.gen)) {
        lc_tl_error("sim: rkey from rank %d is not a live region of that rank", peer);
        return LINCOLL_ERR_INVALID;
    }
    lc_tl_rkey_t *r = malloc(sizeof(*r));
    if (!r) {
        return LINCOLL_ERR_NOMEM;
    }
    r->slot = k.slot;
    r->gen = k.gen;
    r->owner = k.owner;
    r->base = k.base;
    r->len = k.len;
    *rkey_p = r;
    return LINCOLL_OK;
}

static void sim_rkey_destroy(lc_tl_t *tl, lc_tl_rkey_t *rkey)
{
    (void)tl;
    free(rkey);
}

static void *sim_rkey_ptr(lc_tl_t *tl, lc_tl_rkey_t *rkey, uint64_t raddr)
{
    sim_region_t *g = sim_region_get(tl->w, rkey->slot, rkey->gen);
    if (!g) {
        return NULL;
    }
    uint64_t base = (uint64_t)(uintptr_t)g->base;
    if (raddr < base || raddr - base >= g->len) {
        return NULL;
    }
    return (void *)(uintptr_t)raddr;
}

static lincoll_status_t sim_check_peer(lc_tl_t *tl, int peer)
{
    if (peer < 0 || peer >= tl->w->nranks) {
        lc_tl_error("sim: rank %d: peer %d out of range [0, %d)", tl->rank, peer, tl->w->nranks);
        return LINCOLL_ERR_INVALID;
    }
    if (!tl->w->rk[peer].alive || !tl->w->rk[tl->rank].alive) {
        return LINCOLL_ERR_PEER_FAILED;
    }
    return LINCOLL_OK;
}

static lincoll_status_t sim_send_post(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                      uint64_t tag, lc_tl_req_t **req_p)
{
    lc_sim_world_t *w = tl->w;
    lincoll_status_t st = sim_check_peer(tl, peer);
    *req_p = NULL;
    if (st != LINCOLL_OK) {
        return st;
    }
    if (!buf && len) {
        return LINCOLL_ERR_INVALID;
    }
    sim_record(w, tl->rank, tag, len);
    tl->cnt.msgs_sent++;
    tl->cnt.bytes_sent += len;
    lc_sim_fault_t f = sim_fault(w, tl->rank, peer, tag, len);
    if (f == LC_SIM_FAULT_NONE) {
        return sim_arrive(w, tl->rank, peer, tag, buf, len, NULL);
    }
    if (f == LC_SIM_FAULT_DROP) {
        return LINCOLL_OK;
    }
    if (f == LC_SIM_FAULT_DUPLICATE) {
        st = sim_arrive(w, tl->rank, peer, tag, buf, len, NULL);
        return st != LINCOLL_OK ? st : sim_arrive(w, tl->rank, peer, tag, buf, len, NULL);
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
        return sim_arrive(w, tl->rank, peer, tag, m->data, len, m);
    }
    sim_delay(w, m); /* LC_SIM_FAULT_DELAY */
    return LINCOLL_OK;
}

/* Post the triggered sends of receives that completed, in completion order;
 * a send that completes more receives appends to the list. */
static void sim_fire_chains(lc_sim_world_t *w)
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

static lincoll_status_t sim_send_nb(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                    uint64_t tag, lc_tl_req_t **req_p)
{
    lincoll_status_t st = sim_send_post(tl, peer, buf, len, tag, req_p);
    sim_fire_chains(tl->w);
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
    lc_tl_req_t *r = sim_req_new(tl, SIM_REQ_RECV, peer);
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
                sim_req_free(r);
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

static lincoll_status_t sim_recv_nb(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                    lc_tl_req_t **req_p)
{
    return sim_recv_post(tl, peer, buf, len, tag, NULL, req_p);
}

static lincoll_status_t sim_recv_chain_nb(lc_tl_t *tl, int peer, void *buf, size_t len,
                                          uint64_t tag, lc_tl_chain_t *then, lc_tl_req_t **req_p)
{
    then->fired = 0;
    then->status = LINCOLL_OK;
    then->req = NULL;
    lincoll_status_t st = sim_recv_post(tl, peer, buf, len, tag, then, req_p);
    sim_fire_chains(tl->w); /* a queued message may have completed it */
    return st;
}

static lincoll_status_t sim_put_nb(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                   lc_tl_rkey_t *rkey, uint64_t raddr, lc_tl_rkey_t *sig_rkey,
                                   uint64_t sig_raddr, uint64_t tag, lc_tl_req_t **req_p)
{
    lc_sim_world_t *w = tl->w;
    lincoll_status_t st = sim_check_peer(tl, peer);
    *req_p = NULL;
    if (st != LINCOLL_OK) {
        return st;
    }
    if (!rkey || rkey->owner != peer || (!buf && len) || (sig_rkey && sig_rkey->owner != peer)) {
        lc_tl_error("sim: put from rank %d to %d: rkey of another rank or no buffer", tl->rank,
                    peer);
        return LINCOLL_ERR_INVALID;
    }
    if (!sim_region_addr(w, rkey->slot, rkey->gen, raddr, len)) {
        lc_tl_error("sim: put of %zu bytes at 0x%llx outside the region of rank %d", len,
                    (unsigned long long)raddr, peer);
        return LINCOLL_ERR_INVALID;
    }
    if (sig_rkey && ((sig_raddr & 7) != 0 || !sim_region_addr(w, sig_rkey->slot, sig_rkey->gen,
                                                              sig_raddr, sizeof(uint64_t)))) {
        lc_tl_error("sim: put signal at 0x%llx is unaligned or outside the region of rank %d",
                    (unsigned long long)sig_raddr, peer);
        return LINCOLL_ERR_INVALID;
    }
    sim_record(w, tl->rank, tag, len);
    tl->cnt.puts++;
    tl->cnt.bytes_put += len;
    uint32_t ss = sig_rkey ? sig_rkey->slot : 0, sg = sig_rkey ? sig_rkey->gen : 0;
    int hs = sig_rkey != NULL;
    lc_sim_fault_t f = sim_fault(w, tl->rank, peer, tag, len);
    switch (f) {
    case LC_SIM_FAULT_DROP:
        return LINCOLL_OK;
    case LC_SIM_FAULT_DELAY:
        break;
    case LC_SIM_FAULT_DUPLICATE:
        st =
            sim_put_land(w, peer, buf, len, rkey->slot, rkey->gen, raddr, hs, ss, sg, sig_raddr, 0);
        if (st != LINCOLL_OK) {
            return st;
        }
        /* fall through */
    default:
        return sim_put_land(w, peer, buf, len, rkey->slot, rkey->gen, raddr, hs, ss, sg, sig_raddr,
                            f == LC_SIM_FAULT_CORRUPT);
    }
    sim_msg_t *m = malloc(sizeof(*m) + len);
    lc_tl_req_t *r = sim_req_new(tl, SIM_REQ_PUT, peer);
    if (!m || !r) {
        free(m);
        if (r) {
            sim_req_free(r);
        }
        return LINCOLL_ERR_NOMEM;
    }
    memset(m, 0, sizeof(*m));
    m->kind = SIM_MSG_PUT;
    m->src = tl->rank;
    m->dst = peer;
    m->tag = tag;
    m->len = len;
    m->slot = rkey->slot;
    m->gen = rkey->gen;
    m->raddr = raddr;
    m->has_sig = hs;
    m->sig_slot = ss;
    m->sig_gen = sg;
    m->sig_raddr = sig_raddr;
    m->req = r;
    if (len) {
        memcpy(m->data, buf, len);
    }
    r->msg = m;
    r->len = len;
    sim_rank_t *me = &w->rk[tl->rank];
    m->fnext = me->inflight;
    if (me->inflight) {
        me->inflight->fprev = m;
    }
    me->inflight = m;
    sim_delay(w, m);
    *req_p = r;
    return LINCOLL_OK;
}

/* In-flight delayed puts of @p rank towards @p peer (< 0: any); fails those
 * towards dead ranks. */
static int sim_puts_pending(lc_sim_world_t *w, int rank, int peer, int *dead)
{
    int n = 0;
    for (sim_msg_t *m = w->rk[rank].inflight; m; m = m->fnext) {
        if (peer < 0 || m->dst == peer) {
            n++;
            if (!w->rk[m->dst].alive) {
                *dead = 1;
            }
        }
    }
    return n;
}

static lincoll_status_t sim_flush_nb(lc_tl_t *tl, int peer, lc_tl_req_t **req_p)
{
    *req_p = NULL;
    if (peer >= tl->w->nranks) {
        return LINCOLL_ERR_INVALID;
    }
    if (peer >= 0 && !tl->w->rk[peer].alive) {
        return LINCOLL_ERR_PEER_FAILED;
    }
    int dead = 0;
    if (!sim_puts_pending(tl->w, tl->rank, peer, &dead)) {
        return LINCOLL_OK;
    }
    lc_tl_req_t *r = sim_req_new(tl, SIM_REQ_FLUSH, peer);
    if (!r) {
        return LINCOLL_ERR_NOMEM;
    }
    *req_p = r;
    return LINCOLL_OK;
}

static int sim_deliver_due(lc_tl_t *tl);

static int sim_progress(lc_tl_t *tl)
{
    int events = sim_deliver_due(tl);
    sim_fire_chains(tl->w);
    return events;
}

/* Deliver the delayed messages and puts towards this rank that are due. */
static int sim_deliver_due(lc_tl_t *tl)
{
    lc_sim_world_t *w = tl->w;
    sim_rank_t *d = &w->rk[tl->rank];
    d->ticks++;
    if (!d->dhead) {
        return 0;
    }
    /* Detach the due messages first, in order, then deliver them: delivery
     * never appends to this list, but keep it simple and safe. */
    sim_msg_t *due = NULL, **dt = &due, *prev = NULL;
    for (sim_msg_t *m = d->dhead; m;) {
        sim_msg_t *n = m->next;
        if (m->due <= d->ticks) {
            if (prev) {
                prev->next = n;
            } else {
                d->dhead = n;
            }
            if (d->dtail == m) {
                d->dtail = prev;
            }
            m->next = NULL;
            *dt = m;
            dt = &m->next;
        } else {
            prev = m;
        }
        m = n;
    }
    int events = 0;
    while (due) {
        sim_msg_t *m = due;
        due = m->next;
        events++;
        if (m->kind == SIM_MSG_SEND) {
            if (sim_arrive(w, m->src, m->dst, m->tag, m->data, m->len, m) != LINCOLL_OK) {
                lc_tl_error("sim: no memory to deliver a delayed message to rank %d", m->dst);
            }
        } else {
            lincoll_status_t st =
                sim_put_land(w, m->dst, m->data, m->len, m->slot, m->gen, m->raddr, m->has_sig,
                             m->sig_slot, m->sig_gen, m->sig_raddr, 0);
            sim_put_finish(w, m, st);
        }
    }
    return events;
}

static lincoll_status_t sim_test(lc_tl_t *tl, lc_tl_req_t *req, size_t *len_p)
{
    lc_sim_world_t *w = tl->w;
    if (req->status == LINCOLL_INPROGRESS) {
        if (req->kind == SIM_REQ_RECV && !w->rk[req->peer].alive) {
            sim_recv_unlink(w, req);
            req->status = LINCOLL_ERR_PEER_FAILED;
        } else if (req->kind == SIM_REQ_PUT && !w->rk[req->peer].alive && req->msg) {
            sim_msg_t *m = req->msg;
            sim_delayed_remove(w, m);
            sim_put_finish(w, m, LINCOLL_ERR_PEER_FAILED);
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

static void sim_release(lc_tl_t *tl, lc_tl_req_t *req)
{
    if (!req) {
        return;
    }
    if (req->status == LINCOLL_INPROGRESS) {
        if (req->kind == SIM_REQ_RECV) {
            sim_recv_unlink(tl->w, req);
        } else if (req->kind == SIM_REQ_PUT && req->msg) {
            req->released = 1; /* freed when the put lands */
            return;
        }
    }
    sim_req_free(req);
}

static lincoll_status_t sim_test_release(lc_tl_t *tl, lc_tl_req_t *req, size_t *len_p)
{
    lincoll_status_t st = sim_test(tl, req, len_p);
    if (st != LINCOLL_INPROGRESS) {
        sim_release(tl, req);
    }
    return st;
}

static lincoll_status_t sim_peer_status(lc_tl_t *tl, int peer)
{
    if (peer < 0 || peer >= tl->w->nranks) {
        return LINCOLL_ERR_INVALID;
    }
    return tl->w->rk[peer].alive ? LINCOLL_OK : LINCOLL_ERR_PEER_FAILED;
}

static int sim_event_fd(lc_tl_t *tl)
{
    (void)tl;
    return -1;
}

static lincoll_status_t sim_arm(lc_tl_t *tl)
{
    (void)tl;
    return LINCOLL_ERR_UNSUPPORTED;
}

static void sim_counters(lc_tl_t *tl, lc_tl_counters_t *out)
{
    *out = tl->cnt;
}

static void sim_describe(lc_tl_t *tl, int peer, char *buf, size_t len)
{
    snprintf(buf, len, "sim: virtual rank %d -> %d of %d (in-process copy)", tl->rank, peer,
             tl->w->nranks);
}

const lc_tl_ops_t lc_tl_sim_ops = {
    .name = "sim",
    .init = sim_init,
    .fini = sim_fini,
    .address = sim_address,
    .connect = sim_connect,
    .mem_alloc = sim_mem_alloc,
    .mem_reg = sim_mem_reg,
    .mem_dereg = sim_mem_dereg,
    .rkey_pack = sim_rkey_pack,
    .rkey_unpack = sim_rkey_unpack,
    .rkey_destroy = sim_rkey_destroy,
    .rkey_ptr = sim_rkey_ptr,
    .send_nb = sim_send_nb,
    .recv_nb = sim_recv_nb,
    .recv_chain_nb = sim_recv_chain_nb,
    .put_nb = sim_put_nb,
    .flush_nb = sim_flush_nb,
    .progress = sim_progress,
    .test = sim_test,
    .release = sim_release,
    .test_release = sim_test_release,
    .peer_status = sim_peer_status,
    .event_fd = sim_event_fd,
    .arm = sim_arm,
    .counters = sim_counters,
    .describe = sim_describe,
};
