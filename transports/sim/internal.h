/*
 * transports/sim/internal.h: what the files of the sim transport share.
 * The ucx transport has the same file names for the same concerns.
 *
 *   init.c       init, fini, addresses, counters, describe, the ops table
 *   progress.c   delayed delivery (progress), event descriptor, arm
 *   alive.c      dead virtual ranks: peer_status, kill
 *   tag.c        matching: the (dst, src, tag) table, requests, send,
 *                receive (+ triggered sends), test/release
 *   mem.c        regions: mem_alloc/reg, remote keys
 *   rma.c        put, flush
 *   config.c     its configuration rows (none), nested by core's table
 *   world.c      the world (create/destroy), per-round records, the fault
 *                hook, statistics (sim only)
 */
#ifndef LC_TL_SIM_INT_H
#define LC_TL_SIM_INT_H

#include "api.h"

#include <stdlib.h>

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

/* ---- the files' functions ------------------------------------------------ */

/* init.c: lc_tl_sim_ops */

/* progress.c */
int lc_sim_progress(lc_tl_t *tl);
int lc_sim_event_fd(lc_tl_t *tl);
lincoll_status_t lc_sim_arm(lc_tl_t *tl);

/* alive.c */
/* LINCOLL_OK when both this rank and peer are alive and peer is in range. */
lincoll_status_t lc_sim_check_peer(lc_tl_t *tl, int peer);
lincoll_status_t lc_sim_peer_status(lc_tl_t *tl, int peer);

/* tag.c */
lc_tl_req_t *lc_sim_req_new(lc_tl_t *tl, int kind, int peer);
void lc_sim_req_free(lc_tl_req_t *r);
/* Unlink a posted receive from its match queue. */
void lc_sim_recv_unlink(lc_sim_world_t *w, lc_tl_req_t *r);
/* A message arrives at its destination: fill the oldest matching receive, or
 * queue it (taking @p msg, or copying @p data into a new one). */
lincoll_status_t lc_sim_arrive(lc_sim_world_t *w, int src, int dst, uint64_t tag, const void *data,
                               size_t len, sim_msg_t *msg);
/* Post the triggered sends of receives that completed. */
void lc_sim_fire_chains(lc_sim_world_t *w);
lincoll_status_t lc_sim_send_nb(lc_tl_t *tl, int peer, const void *buf, size_t len, uint64_t tag,
                                lc_tl_req_t **req_p);
lincoll_status_t lc_sim_recv_nb(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                lc_tl_req_t **req_p);
lincoll_status_t lc_sim_recv_chain_nb(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                      lc_tl_chain_t *then, lc_tl_req_t **req_p);
lincoll_status_t lc_sim_test(lc_tl_t *tl, lc_tl_req_t *req, size_t *len_p);
int lc_sim_release(lc_tl_t *tl, lc_tl_req_t *req);
lincoll_status_t lc_sim_test_release(lc_tl_t *tl, lc_tl_req_t *req, size_t *len_p);

/* mem.c */
lincoll_status_t lc_sim_mem_alloc(lc_tl_t *tl, size_t len, lc_tl_mem_t **mem_p, void **addr_p);
lincoll_status_t lc_sim_mem_reg(lc_tl_t *tl, void *addr, size_t len, lc_tl_mem_t **mem_p);
void lc_sim_mem_dereg(lc_tl_t *tl, lc_tl_mem_t *mem);
lincoll_status_t lc_sim_rkey_pack(lc_tl_t *tl, lc_tl_mem_t *mem, void **buf_p, size_t *len_p);
lincoll_status_t lc_sim_rkey_unpack(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                    lc_tl_rkey_t **rkey_p);
void lc_sim_rkey_destroy(lc_tl_t *tl, lc_tl_rkey_t *rkey);
void *lc_sim_rkey_ptr(lc_tl_t *tl, lc_tl_rkey_t *rkey, uint64_t raddr);

/* rma.c */
/* Land a put: copy (corrupting one byte if asked), then signal. */
lincoll_status_t lc_sim_put_land(lc_sim_world_t *w, int dst, const void *data, size_t len,
                                 uint32_t slot, uint32_t gen, uint64_t raddr, int has_sig,
                                 uint32_t sig_slot, uint32_t sig_gen, uint64_t sig_raddr,
                                 int corrupt);
/* Finish a delayed put's request after it landed or failed. */
void lc_sim_put_finish(lc_sim_world_t *w, sim_msg_t *m, lincoll_status_t st);
lincoll_status_t lc_sim_put_nb(lc_tl_t *tl, int peer, const void *buf, size_t len,
                               lc_tl_rkey_t *rkey, uint64_t raddr, lc_tl_rkey_t *sig_rkey,
                               uint64_t sig_raddr, uint64_t tag, lc_tl_req_t **req_p);
lincoll_status_t lc_sim_flush_nb(lc_tl_t *tl, int peer, lc_tl_req_t **req_p);

/* world.c */
/* Record a send or put under its round (C1, C2, bytes per rank). */
void lc_sim_record(lc_sim_world_t *w, int src, uint64_t tag, size_t len);

/* ---- small helpers several files inline ---------------------------------- */

/* The region a key names (slot and generation), or NULL once it is gone. */
static inline sim_region_t *sim_region_get(lc_sim_world_t *w, uint32_t slot, uint32_t gen)
{
    if (slot >= w->nregions || !w->regions[slot].used || w->regions[slot].gen != gen) {
        return NULL;
    }
    return &w->regions[slot];
}

static inline lc_sim_fault_t sim_fault(lc_sim_world_t *w, int src, int dst, uint64_t tag,
                                       size_t len)
{
    if (!w->fault_fn) {
        return LC_SIM_FAULT_NONE;
    }
    return w->fault_fn(w->fault_arg, src, dst, LC_TAG_FIELD(tag, ROUND), len);
}

static inline void sim_delay(lc_sim_world_t *w, sim_msg_t *m)
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

static inline void sim_delayed_remove(lc_sim_world_t *w, sim_msg_t *m)
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

/* In-flight delayed puts of @p rank towards @p peer (< 0: any); fails those
 * towards dead ranks. */
static inline int sim_puts_pending(lc_sim_world_t *w, int rank, int peer, int *dead)
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

#endif
