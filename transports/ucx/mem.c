/*
 * transports/ucx/mem.c: memory of the UCX transport: ucp_mem_map of allocated
 * or user memory (user registrations shared through a cache, by reference),
 * packed remote keys, and the local mapping of a peer's window (shared
 * memory) that turns puts into stores.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static lincoll_status_t lc_ucx_map(lc_tl_t *tl, void *addr, size_t len, int allocate,
                                   lc_tl_mem_t **mem_p)
{
    lc_tl_mem_t *m = calloc(1, sizeof(*m));
    if (m == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                      UCP_MEM_MAP_PARAM_FIELD_FLAGS,
        .address = addr,
        .length = len,
        .flags = allocate ? UCP_MEM_MAP_ALLOCATE : 0,
    };
    ucs_status_t s = ucp_mem_map(tl->context, &mp, &m->memh);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_mem_map of %zu bytes failed: %s", len, ucs_status_string(s));
        free(m);
        return lc_ucx_status(s);
    }
    ucp_mem_attr_t attr = {.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH};
    s = ucp_mem_query(m->memh, &attr);
    if (s != UCS_OK) {
        ucp_mem_unmap(tl->context, m->memh);
        free(m);
        return lc_ucx_status(s);
    }
    m->addr = attr.address;
    m->len = attr.length;
    m->allocated = allocate;
    tl->counters.mem_registered += m->len;
    *mem_p = m;
    return LINCOLL_OK;
}

lincoll_status_t lc_ucx_mem_alloc(lc_tl_t *tl, size_t len, lc_tl_mem_t **mem_p, void **addr_p)
{
    lincoll_status_t st = lc_ucx_map(tl, NULL, len, 1, mem_p);
    if (st == LINCOLL_OK) {
        *addr_p = (*mem_p)->addr;
    }
    return st;
}

lincoll_status_t lc_ucx_mem_reg(lc_tl_t *tl, void *addr, size_t len, lc_tl_mem_t **mem_p)
{
    const char *a = addr;
    for (lc_tl_mem_t *m = tl->reg_cache; m != NULL; m = m->next) {
        const char *b = m->addr;
        if (a >= b && len <= m->len && (size_t)(a - b) <= m->len - len) {
            m->refs++;
            tl->counters.reg_cache_hits++;
            *mem_p = m;
            return LINCOLL_OK;
        }
    }
    lincoll_status_t st = lc_ucx_map(tl, addr, len, 0, mem_p);
    if (st == LINCOLL_OK) {
        (*mem_p)->refs = 1;
        (*mem_p)->next = tl->reg_cache;
        tl->reg_cache = *mem_p;
    }
    return st;
}

void lc_ucx_mem_dereg(lc_tl_t *tl, lc_tl_mem_t *mem)
{
    if (mem == NULL) {
        return;
    }
    if (!mem->allocated) {
        if (--mem->refs > 0) {
            return;
        }
        for (lc_tl_mem_t **pp = &tl->reg_cache; *pp != NULL; pp = &(*pp)->next) {
            if (*pp == mem) {
                *pp = mem->next;
                break;
            }
        }
    }
    tl->counters.mem_registered -= mem->len;
    ucp_mem_unmap(tl->context, mem->memh);
    free(mem);
}

/* Packed remote key: [u64 base][u64 len][UCX packed rkey]. */
lincoll_status_t lc_ucx_rkey_pack(lc_tl_t *tl, lc_tl_mem_t *mem, void **buf_p, size_t *len_p)
{
    void *kb;
    size_t kl;
    ucs_status_t s = ucp_rkey_pack(tl->context, mem->memh, &kb, &kl);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_rkey_pack failed: %s", ucs_status_string(s));
        return lc_ucx_status(s);
    }
    unsigned char *out = malloc(16 + kl);
    if (out == NULL) {
        ucp_rkey_buffer_release(kb);
        return LINCOLL_ERR_NOMEM;
    }
    /* bit 63 of the length: UCX allocated the region (true one-sided access) */
    uint64_t base = (uint64_t)(uintptr_t)mem->addr,
             len = mem->len | ((uint64_t)(mem->allocated != 0) << 63);
    memcpy(out, &base, 8);
    memcpy(out + 8, &len, 8);
    memcpy(out + 16, kb, kl);
    ucp_rkey_buffer_release(kb);
    *buf_p = out;
    *len_p = 16 + kl;
    return LINCOLL_OK;
}

/* Remember where a peer's UCX-allocated region is mapped here (posix/sysv
 * shared memory): puts into it become stores (lc_ucx_put_mapped). */
static void lc_ucx_rkey_map(lc_tl_rkey_t *k)
{
    k->mapped = NULL;
    if (k->allocated && ucp_rkey_ptr(k->rkey, k->base, &k->mapped) != UCS_OK) {
        k->mapped = NULL;
    }
}

lincoll_status_t lc_ucx_rkey_unpack(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                    lc_tl_rkey_t **rkey_p)
{
    if (buf == NULL || len <= 16) {
        lc_tl_error("ucx: packed remote key from peer %d is %zu bytes, too short", peer, len);
        return LINCOLL_ERR_INVALID;
    }
    ucp_ep_h ep;
    peer = LC_TL_PEER_RANKOF(peer); /* remote keys belong to lane 0 */
    lincoll_status_t st = lc_ucx_ep(tl, peer, &ep);
    if (st != LINCOLL_OK) {
        return st;
    }
    lc_tl_rkey_t *k = calloc(1, sizeof(*k));
    if (k == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    memcpy(&k->base, buf, 8);
    memcpy(&k->len, (const char *)buf + 8, 8);
    k->allocated = (int)(k->len >> 63);
    k->len &= ~(UINT64_C(1) << 63);
    k->peer = peer;
    ucs_status_t s = ucp_ep_rkey_unpack(ep, (const char *)buf + 16, &k->rkey);
    if (s != UCS_OK) {
        lc_tl_error("ucx: ucp_ep_rkey_unpack from peer %d failed: %s", peer, ucs_status_string(s));
        free(k);
        return lc_ucx_status(s);
    }
    lc_ucx_rkey_map(k);
    *rkey_p = k;
    return LINCOLL_OK;
}

void lc_ucx_rkey_destroy(lc_tl_t *tl, lc_tl_rkey_t *k)
{
    (void)tl;
    if (k != NULL) {
        ucp_rkey_destroy(k->rkey);
        free(k);
    }
}

void *lc_ucx_rkey_ptr(lc_tl_t *tl, lc_tl_rkey_t *k, uint64_t raddr)
{
    (void)tl;
    void *p = NULL;
    if (k == NULL || ucp_rkey_ptr(k->rkey, raddr, &p) != UCS_OK) {
        return NULL;
    }
    return p;
}
