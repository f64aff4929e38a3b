/*
 * transports/sim/rma.c: RMA regions of the sim transport: a world table of
 * regions (a packed rkey names a slot, its generation and the owner, so a
 * stale key never hits a reused slot), mem_alloc/reg/dereg, remote keys, put
 * (copied into the target at once, or delayed by a fault) and flush.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

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

lincoll_status_t lc_sim_mem_alloc(lc_tl_t *tl, size_t len, lc_tl_mem_t **mem_p, void **addr_p)
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

lincoll_status_t lc_sim_mem_reg(lc_tl_t *tl, void *addr, size_t len, lc_tl_mem_t **mem_p)
{
    if (!addr && len) {
        return LINCOLL_ERR_INVALID;
    }
    return sim_region_add(tl, addr, len, 0, mem_p);
}

void lc_sim_mem_dereg(lc_tl_t *tl, lc_tl_mem_t *mem)
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

lincoll_status_t lc_sim_rkey_pack(lc_tl_t *tl, lc_tl_mem_t *mem, void **buf_p, size_t *len_p)
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

lincoll_status_t lc_sim_rkey_unpack(lc_tl_t *tl, int peer, const void *buf, size_t len,
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

void lc_sim_rkey_destroy(lc_tl_t *tl, lc_tl_rkey_t *rkey)
{
    (void)tl;
    free(rkey);
}

void *lc_sim_rkey_ptr(lc_tl_t *tl, lc_tl_rkey_t *rkey, uint64_t raddr)
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
