/*
 * mpi/lcm_cache.c: persistent plans of repeated calls (docs/mpi.md,
 * "Plan cache").
 *
 * A call with the same communicator, buffers, count, type, operator and root
 * as an earlier one starts that call's plan again.  The cache is a least
 * recently used list bounded in plans (LINCOLL_MPI_CACHE) and in the scratch
 * memory they hold (LINCOLL_MPI_CACHE_BYTES).  Plans are compiled with
 * lincoll_coll_opts_t::local_init: their init needs no communication, so a
 * rank that hits while another misses (its buffers moved) is harmless, and
 * they map and register no memory: a plan holds the buffers' addresses only,
 * so a buffer freed and reallocated at the same address is served correctly
 * (there is no registration to be stale).  A plan in use by a nonblocking
 * call is not shared: a second call with its key gets a plan of its own.
 */
#include "lcm.h"

#include <stdlib.h>
#include <string.h>

typedef struct lcm_entry {
    lcm_key_t key;
    size_t *counts; /* the key's counts, owned */
    lincoll_plan_t *plan;
    size_t bytes; /* scratch the plan holds */
    int busy;
    unsigned long used;
    struct lcm_entry *next;
} lcm_entry_t;

static lcm_entry_t *lcm_entries;
static size_t lcm_n, lcm_bytes_held;
static unsigned long lcm_clock;

static int lcm_key_eq(const lcm_key_t *a, const lcm_key_t *b)
{
    if (a->op != b->op || a->comm != b->comm || a->comm_id != b->comm_id || a->sbuf != b->sbuf ||
        a->rbuf != b->rbuf || a->count != b->count || a->dtype != b->dtype || a->rop != b->rop ||
        a->root != b->root)
        return 0;
    if ((a->counts == NULL) != (b->counts == NULL)) return 0;
    return a->counts == NULL ||
           memcmp(a->counts, b->counts, (size_t)a->comm->size * sizeof(size_t)) == 0;
}

static void lcm_entry_free(lcm_entry_t *e)
{
    lincoll_plan_free(e->plan);
    lcm_bytes_held -= e->bytes;
    lcm_n--;
    free(e->counts);
    free(e);
}

/* Unlink and free the least recently used idle entry; 0 if none. */
static int lcm_evict(void)
{
    lcm_entry_t **victim = NULL;
    for (lcm_entry_t **pp = &lcm_entries; *pp != NULL; pp = &(*pp)->next)
        if (!(*pp)->busy && (victim == NULL || (*pp)->used < (*victim)->used)) victim = pp;
    if (victim == NULL) return 0;
    lcm_entry_t *e = *victim;
    *victim = e->next;
    lcm_entry_free(e);
    return 1;
}

static lincoll_status_t lcm_compile(const lcm_key_t *k, lincoll_plan_t **plan_p)
{
    const lincoll_coll_opts_t o = {.local_init = 1};
    lincoll_comm_t *c = k->comm->lc;
    const lincoll_dtype_t d = (lincoll_dtype_t)k->dtype;
    const lincoll_op_t r = (lincoll_op_t)k->rop;
    switch (k->op) {
    case LCM_ALLREDUCE:
        return lincoll_allreduce_init_opts(c, k->sbuf, k->rbuf, k->count, d, r, &o, plan_p);
    case LCM_REDUCE:
        return lincoll_reduce_init_opts(c, k->sbuf, k->rbuf, k->count, d, r, k->root, &o, plan_p);
    case LCM_BCAST:
        return lincoll_bcast_init_opts(c, k->rbuf, k->count, d, k->root, &o, plan_p);
    case LCM_ALLGATHER:
        return lincoll_allgather_init_opts(c, k->sbuf, k->rbuf, k->count, d, &o, plan_p);
    case LCM_REDUCE_SCATTER_BLOCK:
        return lincoll_reduce_scatter_init_opts(c, k->sbuf, k->rbuf, k->count, d, r, &o, plan_p);
    case LCM_REDUCE_SCATTER:
        return lincoll_reduce_scatterv_init_opts(c, k->sbuf, k->rbuf, k->counts, d, r, &o, plan_p);
    case LCM_BARRIER:
        return lincoll_allreduce_init_opts(c, k->sbuf, k->rbuf, 1, d, r, &o, plan_p);
    default:
        return LINCOLL_ERR_INVALID;
    }
}

lincoll_status_t lcm_cache_get(const lcm_key_t *key, lincoll_plan_t **plan_p, int *cached_p)
{
    *cached_p = 0;
    lcm_lock();
    for (lcm_entry_t *e = lcm_entries; e != NULL; e = e->next) {
        if (!e->busy && lcm_key_eq(&e->key, key)) {
            e->busy = 1;
            e->used = ++lcm_clock;
            *plan_p = e->plan;
            *cached_p = 1;
            lcm_unlock();
            return LINCOLL_OK;
        }
    }
    lincoll_plan_t *plan = NULL;
    lincoll_status_t st = lcm_compile(key, &plan);
    if (st != LINCOLL_OK || lcm.cache_max == 0) {
        lcm_unlock();
        *plan_p = plan;
        return st;
    }
    lincoll_plan_stats_t ps;
    size_t bytes = lincoll_plan_stats(plan, &ps) == LINCOLL_OK ? (size_t)ps.scratch_bytes : 0;
    while (lcm_n > 0 && ((long)lcm_n >= lcm.cache_max || lcm_bytes_held + bytes > lcm.cache_bytes))
        if (!lcm_evict()) break;
    lcm_entry_t *e = NULL;
    if ((long)lcm_n < lcm.cache_max && lcm_bytes_held + bytes <= lcm.cache_bytes)
        e = calloc(1, sizeof(*e));
    const size_t nc = key->counts != NULL ? (size_t)key->comm->size : 0;
    if (e != NULL && nc > 0 && (e->counts = malloc(nc * sizeof(size_t))) == NULL) {
        free(e);
        e = NULL;
    }
    if (e != NULL) {
        e->key = *key;
        if (nc > 0) {
            memcpy(e->counts, key->counts, nc * sizeof(size_t));
            e->key.counts = e->counts;
        }
        e->plan = plan;
        e->bytes = bytes;
        e->busy = 1;
        e->used = ++lcm_clock;
        e->next = lcm_entries;
        lcm_entries = e;
        lcm_n++;
        lcm_bytes_held += bytes;
        *cached_p = 1;
    }
    lcm_unlock();
    *plan_p = plan;
    return LINCOLL_OK;
}

void lcm_cache_put(lincoll_plan_t *plan, int cached, int failed)
{
    lcm_lock();
    if (!cached) {
        lincoll_plan_free(plan);
        lcm_unlock();
        return;
    }
    for (lcm_entry_t **pp = &lcm_entries; *pp != NULL; pp = &(*pp)->next) {
        lcm_entry_t *e = *pp;
        if (e->plan != plan) continue;
        e->busy = 0;
        if (failed) {
            *pp = e->next;
            lcm_entry_free(e);
        }
        break;
    }
    lcm_unlock();
}

void lcm_cache_flush(const lcm_comm_t *comm)
{
    lcm_lock();
    for (lcm_entry_t **pp = &lcm_entries; *pp != NULL;) {
        lcm_entry_t *e = *pp;
        if (comm == NULL || e->key.comm == comm) {
            *pp = e->next;
            lcm_entry_free(e);
        } else {
            pp = &e->next;
        }
    }
    lcm_unlock();
}
