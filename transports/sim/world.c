/*
 * transports/sim/world.c: the sim transport's world, shared by every virtual
 * rank of one process (sim only): create/destroy, every send and put
 * recorded under its round (C1, C2, bytes per rank), the fault hook, and the
 * world's statistics.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

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

void lc_sim_record(lc_sim_world_t *w, int src, uint64_t tag, size_t len)
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

/* ---- world statistics and faults ------------------------------------------- */

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
