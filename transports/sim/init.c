/*
 * transports/sim/init.c: the in-process simulated transport ("sim"): init,
 * fini and the ops table (internal.h lists its files).
 *
 * K virtual ranks share one lc_sim_world_t in one process; each virtual rank
 * has its own lc_tl_t (init with the world in its own parameters, lc_tl_sim_params_t, and
 * params->rank).  There
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
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ops -------------------------------------------------------------- */

static lincoll_status_t sim_init(const lc_tl_params_t *params, lc_tl_t **tl_p)
{
    const lc_tl_sim_params_t *own = params != NULL ? params->ext : NULL;
    if (!params || !tl_p || !own || !own->world) {
        lc_tl_error("sim: init needs params->ext, a lc_tl_sim_params_t with the world "
                    "(lc_sim_world_create)");
        return LINCOLL_ERR_INVALID;
    }
    lc_sim_world_t *w = own->world;
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

static void sim_fini(lc_tl_t *tl)
{
    if (!tl) {
        return;
    }
    lc_sim_world_t *w = tl->w;
    while (tl->live) {
        lc_tl_req_t *r = tl->live;
        if (r->kind == SIM_REQ_RECV) {
            lc_sim_recv_unlink(w, r);
        } else if (r->kind == SIM_REQ_PUT && r->msg) {
            r->msg->req = NULL; /* the put still lands; nobody waits for it */
        }
        lc_sim_req_free(r);
    }
    for (uint32_t s = 0; s < w->nregions; s++) {
        if (w->regions[s].used && w->regions[s].owner == tl->rank) {
            lc_sim_mem_dereg(tl, w->regions[s].mem);
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
    .mem_alloc = lc_sim_mem_alloc,
    .mem_reg = lc_sim_mem_reg,
    .mem_dereg = lc_sim_mem_dereg,
    .rkey_pack = lc_sim_rkey_pack,
    .rkey_unpack = lc_sim_rkey_unpack,
    .rkey_destroy = lc_sim_rkey_destroy,
    .rkey_ptr = lc_sim_rkey_ptr,
    .send_nb = lc_sim_send_nb,
    .recv_nb = lc_sim_recv_nb,
    .recv_chain_nb = lc_sim_recv_chain_nb,
    .put_nb = lc_sim_put_nb,
    .flush_nb = lc_sim_flush_nb,
    .progress = lc_sim_progress,
    .test = lc_sim_test,
    .release = lc_sim_release,
    .test_release = lc_sim_test_release,
    .peer_status = lc_sim_peer_status,
    .event_fd = lc_sim_event_fd,
    .arm = lc_sim_arm,
    .counters = sim_counters,
    .describe = sim_describe,
};
