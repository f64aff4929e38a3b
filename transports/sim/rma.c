/*
 * transports/sim/rma.c: RMA of the sim transport: put (copied into the
 * target region at once, or delayed by a fault) with its signal, and flush.
 * The regions and remote keys are mem.c's.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

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
lincoll_status_t lc_sim_put_land(lc_sim_world_t *w, int dst, const void *data, size_t len,
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
void lc_sim_put_finish(lc_sim_world_t *w, sim_msg_t *m, lincoll_status_t st)
{
    sim_inflight_unlink(w, m);
    lc_tl_req_t *r = m->req;
    if (r) {
        r->msg = NULL;
        r->status = st;
        if (r->released) {
            lc_sim_req_free(r);
        }
    }
    free(m);
}

lincoll_status_t lc_sim_put_nb(lc_tl_t *tl, int peer, const void *buf, size_t len,
                               lc_tl_rkey_t *rkey, uint64_t raddr, lc_tl_rkey_t *sig_rkey,
                               uint64_t sig_raddr, uint64_t tag, lc_tl_req_t **req_p)
{
    lc_sim_world_t *w = tl->w;
    lincoll_status_t st = lc_sim_check_peer(tl, peer);
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
    lc_sim_record(w, tl->rank, tag, len);
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
        st = lc_sim_put_land(w, peer, buf, len, rkey->slot, rkey->gen, raddr, hs, ss, sg, sig_raddr,
                             0);
        if (st != LINCOLL_OK) {
            return st;
        }
        /* fall through */
    default:
        return lc_sim_put_land(w, peer, buf, len, rkey->slot, rkey->gen, raddr, hs, ss, sg,
                               sig_raddr, f == LC_SIM_FAULT_CORRUPT);
    }
    sim_msg_t *m = malloc(sizeof(*m) + len);
    lc_tl_req_t *r = lc_sim_req_new(tl, SIM_REQ_PUT, peer);
    if (!m || !r) {
        free(m);
        if (r) {
            lc_sim_req_free(r);
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

lincoll_status_t lc_sim_flush_nb(lc_tl_t *tl, int peer, lc_tl_req_t **req_p)
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
    lc_tl_req_t *r = lc_sim_req_new(tl, SIM_REQ_FLUSH, peer);
    if (!r) {
        return LINCOLL_ERR_NOMEM;
    }
    *req_p = r;
    return LINCOLL_OK;
}
