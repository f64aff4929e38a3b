/*
 * transports/sim/progress.c: progress of the sim transport: delayed
 * messages and puts delivered by their destination's progress() once due,
 * then the triggered sends that completed receives owe.  There is nothing to
 * block on: event_fd() is -1 and arm() is unsupported.
 */
#include "internal.h"

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

int lc_sim_event_fd(lc_tl_t *tl)
{
    (void)tl;
    return -1;
}

lincoll_status_t lc_sim_arm(lc_tl_t *tl)
{
    (void)tl;
    return LINCOLL_ERR_UNSUPPORTED;
}
