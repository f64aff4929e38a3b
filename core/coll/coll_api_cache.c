/*
 * core/coll/coll_api_cache.c: the blocking collectives reuse their plans.
 *
 * A blocking call (lincoll_allreduce, ...) used to compile a plan, run it
 * once and free it: for small messages the compile cost several times the
 * collective itself.  Now the last LC_CC_N plans of small blocking calls
 * (vector <= LC_CC_MAX_BYTES) stay compiled, keyed by everything the plan
 * depends on: context, communicator (pointer and id), operation, buffers,
 * count, dtype, operator, root and the forced-algorithm variable.  A hit
 * starts the cached plan; a miss compiles one (and may evict the least
 * recently used).  Only tag plans are cached: they need no communication to
 * compile, so one rank hitting while another misses is harmless.  Blocking
 * calls never take the zero-copy path, whose compilation is collective (its
 * windows would map peers' buffers that may have changed since).
 *
 * A plan that fails is dropped.  lincoll_comm_free and lincoll_finalize drop
 * the plans of that communicator / context (lc_coll_cache_flush).
 * Not thread safe across contexts used concurrently from several threads
 * (nor is the rest of the blocking API: a context is single threaded).
 */
#include <stdlib.h>
#include <string.h>

#include "core/coll/coll_int.h"
#include "core/exec/exec.h"

#define LC_CC_N         8
#define LC_CC_MAX_BYTES ((size_t)64 << 10)

typedef struct lc_cc_entry {
    lincoll_plan_t *plan; /* NULL: free */
    lincoll_context_t *ctx;
    lincoll_comm_t *comm;
    unsigned comm_id;
    int op, root, rop, dtype;
    const void *sbuf;
    void *rbuf;
    size_t count;
    char forced[32];
    unsigned long used;
} lc_cc_entry_t;

static lc_cc_entry_t lc_cc[LC_CC_N];
static unsigned long lc_cc_clock;

static void lc_cc_drop(lc_cc_entry_t *e)
{
    lincoll_plan_free(e->plan);
    memset(e, 0, sizeof(*e));
}

static void lc_coll_cache_flush(lincoll_context_t *ctx, lincoll_comm_t *comm)
{
    for (int i = 0; i < LC_CC_N; i++) {
        if (lc_cc[i].plan != NULL && lc_cc[i].ctx == ctx && (comm == NULL || lc_cc[i].comm == comm))
            lc_cc_drop(&lc_cc[i]);
    }
}

lincoll_status_t lc_coll_run_cached(lc_coll_op_t op, lincoll_comm_t *comm, const void *sbuf,
                                    void *rbuf, size_t count, lincoll_dtype_t dtype,
                                    lincoll_op_t rop, int root, lc_coll_init_fn_t init)
{
    lc_cc_entry_t key = {.ctx = comm != NULL ? comm->ctx : NULL,
                         .comm = comm,
                         .comm_id = comm != NULL ? comm->id : 0,
                         .op = (int)op,
                         .root = root,
                         .rop = (int)rop,
                         .dtype = (int)dtype,
                         .sbuf = sbuf,
                         .rbuf = rbuf,
                         .count = count};
    /* the forced algorithm is part of the key (reread like every *_init does) */
    const char *f = NULL;
    lc_config_t cfg;
    if (comm != NULL && (unsigned)op < LC_COLL_NOPS) {
        cfg = comm->ctx->cfg;
        if (lc_config_reread(lc_coll_op_var(op), &cfg) == LINCOLL_OK) {
            const char *v[LC_COLL_NOPS] = {cfg.algo_allreduce, cfg.algo_reduce_scatter,
                                           cfg.algo_allgather, cfg.algo_bcast, cfg.algo_reduce};
            f = v[op];
        }
    }
    size_t es = (unsigned)dtype < LINCOLL_DTYPE_LAST ? lincoll_dtype_size(dtype) : 0;
    int cacheable = comm != NULL && es > 0 && count <= LC_CC_MAX_BYTES / es &&
                    (f == NULL || strlen(f) < sizeof(key.forced));
    if (cacheable && f != NULL) memcpy(key.forced, f, strlen(f) + 1);
    lc_cc_entry_t *hit = NULL, *victim = &lc_cc[0];
    for (int i = 0; cacheable && i < LC_CC_N; i++) {
        lc_cc_entry_t *e = &lc_cc[i];
        if (e->plan != NULL && e->ctx == key.ctx && e->comm == comm && e->comm_id == key.comm_id &&
            e->op == key.op && e->root == root && e->rop == key.rop && e->dtype == key.dtype &&
            e->sbuf == sbuf && e->rbuf == rbuf && e->count == count &&
            strcmp(e->forced, key.forced) == 0) {
            hit = e;
            break;
        }
        if (e->plan == NULL || (victim->plan != NULL && e->used < victim->used)) victim = e;
    }
    lincoll_plan_t *plan = hit != NULL ? hit->plan : NULL;
    lincoll_status_t st = LINCOLL_OK;
    if (plan == NULL) {
        st = init(comm, sbuf, rbuf, count, dtype, rop, root, 1, &plan);
        if (st != LINCOLL_OK) return st;
        if (cacheable && plan->nwins == 0) {
            lc_context_on_flush(lc_coll_cache_flush);
            if (victim->plan != NULL) lc_cc_drop(victim);
            key.plan = plan;
            *victim = key;
            hit = victim;
        }
    }
    if (hit != NULL) hit->used = ++lc_cc_clock;
    st = lincoll_start(plan);
    if (st == LINCOLL_OK) st = lincoll_wait(plan);
    if (hit == NULL) {
        lincoll_plan_free(plan);
    } else if (st != LINCOLL_OK) {
        lc_cc_drop(hit); /* a failed plan's state is undefined: compile afresh next time */
    }
    return st;
}
