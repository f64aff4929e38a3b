/*
 * mpi/lcm_stage.c: large blocking calls staged through lincoll memory, so
 * that lincoll's zero-copy plans serve them (docs/mpi.md, "Staging").
 *
 * The plans of lcm_cache.c run on the user's buffers and so use only the tag
 * algorithms (local init, no windows: a user buffer freed and reallocated at
 * the same address must never meet a stale mapping).  From the agreed size
 * of its operation (lcm.table.stage[op]) on, a blocking call instead copies its input into buffers
 * from lincoll_mem_alloc, runs a persistent plan compiled over those
 * buffers with the default options (the cost model may take zero copy: the
 * peers map the staging buffers, which this layer owns and frees), and
 * copies the result out.  Two copies of the message against the zero-copy
 * plan's saving: worth it only for large messages, where the tag plans move
 * the message through UCX several times.
 *
 * The plan's init communicates (the windows' agreement), so every rank of
 * the communicator must compile, find and evict plans alike.  The staged
 * plans are kept per communicator (a list in its lcm_comm_t), keyed only by
 * what MPI makes equal on every rank (operation, count, type, operator,
 * root, counts; not the buffers, which are copied), in least recently used
 * order, bounded by the agreed LINCOLL_MPI_CACHE plans and
 * LINCOLL_MPI_CACHE_BYTES bytes (staging buffers and scratch): the calls on
 * one communicator come in one order on every rank, so every rank hits,
 * misses and evicts alike.  A miss agrees first (PMPI_Allreduce) that every
 * rank got its staging memory; otherwise every rank runs the call unstaged.
 * Only blocking calls are staged, and never under MPI_THREAD_MULTIPLE
 * (lcm_table.c turns staging off there): threads would reorder the calls.
 */
#include "lcm.h"

#include <stdlib.h>
#include <string.h>

typedef struct lcm_staged {
    lcm_key_t key;  /* buffers NULL */
    size_t *counts; /* reduce_scatter v: owned */
    void *s, *r;    /* staging buffers (lincoll memory) */
    size_t bytes;   /* staging and scratch held */
    lincoll_plan_t *plan;
    unsigned long used;
    struct lcm_staged *next;
} lcm_staged_t;

size_t lcm_call_bytes(const lcm_call_t *call)
{
    const lcm_key_t *k = &call->key;
    const size_t es = lincoll_dtype_size((lincoll_dtype_t)k->dtype);
    switch (call->op) {
    case LCM_REDUCE_SCATTER_BLOCK:
        return k->count * es * (size_t)k->comm->size;
    case LCM_REDUCE_SCATTER: {
        size_t n = 0;
        for (int i = 0; i < k->comm->size; i++)
            n += k->counts[i];
        return n * es;
    }
    case LCM_BARRIER:
        return 0;
    default:
        return k->count * es;
    }
}

static int lcm_staged_eq(const lcm_key_t *a, const lcm_key_t *b)
{
    if (a->op != b->op || a->count != b->count || a->dtype != b->dtype || a->rop != b->rop ||
        a->root != b->root || (a->counts == NULL) != (b->counts == NULL))
        return 0;
    return a->counts == NULL ||
           memcmp(a->counts, b->counts, (size_t)a->comm->size * sizeof(size_t)) == 0;
}

static void lcm_staged_free(lcm_staged_t *e)
{
    lincoll_plan_free(e->plan);
    lincoll_mem_free(lcm.ctx, e->s);
    lincoll_mem_free(lcm.ctx, e->r);
    free(e->counts);
    free(e);
}

/* Input and output bytes of the staged plan on this rank. */
static void lcm_staged_sizes(const lcm_key_t *k, size_t total, size_t *sb, size_t *rb)
{
    const size_t es = lincoll_dtype_size((lincoll_dtype_t)k->dtype);
    switch (k->op) {
    case LCM_BCAST:
        *sb = 0, *rb = total;
        break;
    case LCM_ALLGATHER:
        *sb = total, *rb = total * (size_t)k->comm->size;
        break;
    case LCM_REDUCE_SCATTER_BLOCK:
        *sb = total, *rb = k->count * es;
        break;
    case LCM_REDUCE_SCATTER:
        *sb = total, *rb = k->counts[k->comm->rank] * es;
        break;
    default:
        *sb = total, *rb = total;
    }
}

static lincoll_status_t lcm_staged_compile(lcm_staged_t *e)
{
    const lcm_key_t *k = &e->key;
    lincoll_comm_t *c = k->comm->lc;
    const lincoll_dtype_t d = (lincoll_dtype_t)k->dtype;
    const lincoll_op_t r = (lincoll_op_t)k->rop;
    switch (k->op) {
    case LCM_ALLREDUCE:
        return lincoll_allreduce_init(c, e->s, e->r, k->count, d, r, &e->plan);
    case LCM_REDUCE:
        return lincoll_reduce_init(c, e->s, e->r, k->count, d, r, k->root, &e->plan);
    case LCM_BCAST:
        return lincoll_bcast_init(c, e->r, k->count, d, k->root, &e->plan);
    case LCM_ALLGATHER:
        return lincoll_allgather_init(c, e->s, e->r, k->count, d, &e->plan);
    case LCM_REDUCE_SCATTER_BLOCK:
        return lincoll_reduce_scatter_init(c, e->s, e->r, k->count, d, r, &e->plan);
    case LCM_REDUCE_SCATTER:
        return lincoll_reduce_scatterv_init(c, e->s, e->r, e->counts, d, r, &e->plan);
    default:
        return LINCOLL_ERR_INVALID;
    }
}

/* Drop the least recently used plan of @p c; 0 if none. */
static int lcm_staged_evict(lcm_comm_t *c)
{
    lcm_staged_t **victim = NULL;
    for (lcm_staged_t **pp = (lcm_staged_t **)&c->staged; *pp != NULL; pp = &(*pp)->next)
        if (victim == NULL || (*pp)->used < (*victim)->used) victim = pp;
    if (victim == NULL) return 0;
    lcm_staged_t *e = *victim;
    *victim = e->next;
    c->staged_n--;
    c->staged_bytes -= e->bytes;
    lcm_staged_free(e);
    return 1;
}

/* A new entry for @p call, compiled (collective over the communicator: every
 * rank comes here alike); NULL where every rank goes unstaged.  *keep_p:
 * it is in the communicator's list. */
static lcm_staged_t *lcm_staged_new(lcm_call_t *call, size_t total, int *keep_p)
{
    lcm_comm_t *c = (lcm_comm_t *)call->key.comm;
    lcm_staged_t *e = calloc(1, sizeof(*e));
    size_t sb = 0, rb = 0;
    int ok = e != NULL;
    if (ok) {
        e->key = call->key;
        e->key.sbuf = e->key.rbuf = NULL;
        lcm_staged_sizes(&e->key, total, &sb, &rb);
        if (call->key.counts != NULL) {
            e->counts = malloc((size_t)c->size * sizeof(size_t));
            ok = e->counts != NULL;
            if (ok) memcpy(e->counts, call->key.counts, (size_t)c->size * sizeof(size_t));
            e->key.counts = e->counts;
        }
        if (ok && sb > 0) ok = lincoll_mem_alloc(lcm.ctx, sb, &e->s) == LINCOLL_OK;
        if (ok) ok = lincoll_mem_alloc(lcm.ctx, rb > 0 ? rb : 64, &e->r) == LINCOLL_OK;
    }
    int all = 0;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, call->comm) != MPI_SUCCESS) all = 0;
    if (!all || lcm_staged_compile(e) != LINCOLL_OK) { /* the init fails on every rank alike */
        if (e != NULL) lcm_staged_free(e);
        return NULL;
    }
    lincoll_plan_stats_t ps;
    e->bytes = sb + rb + (lincoll_plan_stats(e->plan, &ps) == LINCOLL_OK ? ps.scratch_bytes : 0);
    *keep_p = 0;
    if (lcm.cache_max == 0 || e->bytes > lcm.cache_bytes) return e; /* this call only */
    while (c->staged_n > 0 &&
           ((long)c->staged_n >= lcm.cache_max || c->staged_bytes + e->bytes > lcm.cache_bytes))
        if (!lcm_staged_evict(c)) break;
    e->next = c->staged;
    c->staged = e;
    c->staged_n++;
    c->staged_bytes += e->bytes;
    *keep_p = 1;
    return e;
}

int lcm_stage_run(lcm_call_t *call, int *rc_p)
{
    lcm_comm_t *c = (lcm_comm_t *)call->key.comm;
    const lcm_key_t *k = &call->key;
    const size_t total = lcm_call_bytes(call);
    lcm_staged_t *e = c->staged;
    while (e != NULL && !lcm_staged_eq(&e->key, k))
        e = e->next;
    int keep = 1;
    if (e == NULL && (e = lcm_staged_new(call, total, &keep)) == NULL) return 0;
    e->used = ++c->staged_clock;
    size_t sb, rb;
    lcm_staged_sizes(&e->key, total, &sb, &rb);
    const int me = c->rank, inplace = k->sbuf == LINCOLL_IN_PLACE;
    /* copy in: the input is the send buffer, or in place the receive buffer
     * (allgather: this rank's block of it) */
    switch (call->op) {
    case LCM_BCAST:
        if (me == k->root) memcpy(e->r, k->rbuf, rb);
        break;
    case LCM_ALLGATHER:
        memcpy(e->s, inplace ? (const char *)k->rbuf + (size_t)me * sb : k->sbuf, sb);
        break;
    default:
        memcpy(e->s, inplace ? k->rbuf : k->sbuf, sb);
    }
    lincoll_status_t st = lincoll_start(e->plan);
    if (st == LINCOLL_OK) {
        if (lcm_nb_busy()) {
            do {
                st = lincoll_test(e->plan);
                if (st == LINCOLL_INPROGRESS) lcm_nb_progress();
            } while (st == LINCOLL_INPROGRESS);
        } else {
            st = lincoll_wait(e->plan);
        }
    }
    if (st == LINCOLL_OK && k->rbuf != NULL && !(call->op == LCM_BCAST && me == k->root))
        memcpy(k->rbuf, e->r, rb);
    if (!keep || st != LINCOLL_OK) {
        if (keep) { /* a failed plan is not kept */
            for (lcm_staged_t **pp = (lcm_staged_t **)&c->staged; *pp != NULL; pp = &(*pp)->next)
                if (*pp == e) {
                    *pp = e->next;
                    c->staged_n--;
                    c->staged_bytes -= e->bytes;
                    break;
                }
        }
        lcm_staged_free(e);
    }
    call->plan = NULL;
    if (st == LINCOLL_OK) lcm_stat_staged(call->op);
    *rc_p = lcm_call_finish(call, st);
    return 1;
}

void lcm_stage_flush(lcm_comm_t *c)
{
    while (lcm_staged_evict(c))
        ;
}
