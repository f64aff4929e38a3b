/*
 * transports/sim/alive.c: liveness of the sim transport's virtual ranks: a
 * rank lc_sim_world_kill() marked dead fails its peers' peer_status() and
 * every new operation towards it.
 */
#include "internal.h"

lincoll_status_t lc_sim_check_peer(lc_tl_t *tl, int peer)
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

lincoll_status_t lc_sim_peer_status(lc_tl_t *tl, int peer)
{
    if (peer < 0 || peer >= tl->w->nranks) {
        return LINCOLL_ERR_INVALID;
    }
    return tl->w->rk[peer].alive ? LINCOLL_OK : LINCOLL_ERR_PEER_FAILED;
}

void lc_sim_world_kill(lc_sim_world_t *w, int rank)
{
    if (rank >= 0 && rank < w->nranks) {
        w->rk[rank].alive = 0;
    }
}
