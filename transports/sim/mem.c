/*
 * transports/sim/mem.c: memory of the sim transport: a world table of
 * regions (a packed rkey names a slot, its generation and the owner, so a
 * stale key never hits a reused slot), mem_alloc/reg/dereg and remote keys.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

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
