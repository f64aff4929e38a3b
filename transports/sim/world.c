/*
 * transports/sim/world.c: faults and accounting of the sim transport: every
 * send and put recorded under its round (C1, C2, bytes per rank), the fault
 * hook, delayed messages and puts delivered by their destination's
 * progress(), dead ranks, and the world's statistics.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

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
            if (lc_sim_arrive(w, m->src, m->dst, m->tag, m->data, m->len, m) != LINCOLL_OK) {
                lc_tl_error("sim: no memory to deliver a delayed message to rank %d", m->dst);
            }
        } else {
            lincoll_status_t st =
                lc_sim_put_land(w, m->dst, m->data, m->len, m->slot, m->gen, m->raddr, m->has_sig,
                                m->sig_slot, m->sig_gen, m->sig_raddr, 0);
            lc_sim_put_finish(w, m, st);
        }
    }
    return events;
}

int lc_sim_progress(lc_tl_t *tl)
{
    int events = sim_deliver_due(tl);
    lc_sim_fire_chains(tl->w);
    return events;
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

void lc_sim_world_kill(lc_sim_world_t *w, int rank)
{
    if (rank >= 0 && rank < w->nranks) {
        w->rk[rank].alive = 0;
    }
}
