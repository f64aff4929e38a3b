/*
 * core/coll/coll_api.c: the public reduction/gather collectives
 * (include/lincoll/coll.h): argument checks, then coll_api_select.c compiles the plan
 * (the *_init_opts inits pass their lincoll_coll_opts_t along).
 *
 * Every check logs one line naming the argument and returns
 * LINCOLL_ERR_INVALID (LINCOLL_ERR_UNSUPPORTED for a dtype/op pair without
 * meaning).  Sizes are checked for overflow before any buffer is bound.
 * Blocking calls run a cached plan (coll_api_cache.c) or compile, run and free one.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/base/log.h"
#include "core/coll/coll_int.h"
#include "core/exec/exec.h"
#include "kernels/reduce/reduce_kernels.h"

#define LC_MAX_BYTES ((size_t)1 << 46)

static int lc_overlap(const void *x, size_t xn, const void *y, size_t yn)
{
    if (xn == 0 || yn == 0) return 0;
    uintptr_t a = (uintptr_t)x, b = (uintptr_t)y;
    return a < b + yn && b < a + xn;
}

static lincoll_status_t lc_check_dtype(const char *fn, lincoll_dtype_t dtype)
{
    LC_CHECK_ARG((unsigned)dtype < LINCOLL_DTYPE_LAST, "%s: dtype=%d is not a lincoll_dtype_t", fn,
                 (int)dtype);
    return LINCOLL_OK;
}

static lincoll_status_t lc_check_op(const char *fn, lincoll_dtype_t dtype, lincoll_op_t op)
{
    lincoll_status_t st = lc_check_dtype(fn, dtype);
    if (st != LINCOLL_OK) return st;
    LC_CHECK_ARG((unsigned)op < LINCOLL_OP_LAST, "%s: op=%d is not a lincoll_op_t", fn, (int)op);
    if (lc_reduce_fn(LC_ISA_BASE, dtype, op) == NULL) {
        lc_error("%s: op %s is not defined on dtype %s", fn, lincoll_op_name(op),
                 lincoll_dtype_name(dtype));
        return LINCOLL_ERR_UNSUPPORTED;
    }
    return LINCOLL_OK;
}

static lincoll_status_t lc_check_common(const char *fn, lincoll_comm_t *comm,
                                        lincoll_plan_t **plan_p)
{
    LC_CHECK_ARG(comm != NULL, "%s: comm must not be NULL", fn);
    LC_CHECK_ARG(plan_p != NULL, "%s: plan_p must not be NULL", fn);
    return LINCOLL_OK; /* *plan_p is set only on success */
}

static lincoll_status_t lc_check_count(const char *fn, const char *what, size_t count, size_t es)
{
    LC_CHECK_ARG(count <= LC_MAX_BYTES / es, "%s: %s=%zu elements of %zu bytes is too large", fn,
                 what, count, es);
    return LINCOLL_OK;
}

#define LC_TRY(_expr)                                                                              \
    do {                                                                                           \
        lincoll_status_t _st = (_expr);                                                            \
        if (_st != LINCOLL_OK) return _st;                                                         \
    } while (0)

static lincoll_status_t lc_run_once(lincoll_status_t st, lincoll_plan_t *plan)
{
    if (st != LINCOLL_OK) return st;
    st = lincoll_start(plan);
    if (st == LINCOLL_OK) st = lincoll_wait(plan);
    lincoll_plan_free(plan);
    return st;
}

/* The inits, each with fn (the public function, for log lines), opts (the
 * call's options; NULL: defaults) and blocking (non-zero: a blocking call
 * compiles the plan, which then takes no zero-copy path; lc_coll_plan).
 * The public *_init calls pass NULL and 0, the *_init_opts calls their
 * opts and 0; the plan cache of the blocking calls (coll_api_cache.c) calls
 * them through uniform signatures with NULL and 1. */
static lincoll_status_t lc_allreduce_init(const char *fn, lincoll_comm_t *comm, const void *sbuf,
                                          void *rbuf, size_t count, lincoll_dtype_t dtype,
                                          lincoll_op_t op, const lincoll_coll_opts_t *opts,
                                          int blocking, lincoll_plan_t **plan_p);
static lincoll_status_t lc_reduce_scatter_init(const char *fn, lincoll_comm_t *comm,
                                               const void *sbuf, void *rbuf, size_t count,
                                               lincoll_dtype_t dtype, lincoll_op_t op,
                                               const lincoll_coll_opts_t *opts, int blocking,
                                               lincoll_plan_t **plan_p);
static lincoll_status_t lc_allgather_init(const char *fn, lincoll_comm_t *comm, const void *sbuf,
                                          void *rbuf, size_t count, lincoll_dtype_t dtype,
                                          const lincoll_coll_opts_t *opts, int blocking,
                                          lincoll_plan_t **plan_p);
static lincoll_status_t lc_bcast_init(const char *fn, lincoll_comm_t *comm, void *buf, size_t count,
                                      lincoll_dtype_t dtype, int root,
                                      const lincoll_coll_opts_t *opts, int blocking,
                                      lincoll_plan_t **plan_p);
static lincoll_status_t lc_reduce_init(const char *fn, lincoll_comm_t *comm, const void *sbuf,
                                       void *rbuf, size_t count, lincoll_dtype_t dtype,
                                       lincoll_op_t op, int root, const lincoll_coll_opts_t *opts,
                                       int blocking, lincoll_plan_t **plan_p);

static lincoll_status_t lc_ar_init(lincoll_comm_t *c, const void *s, void *r, size_t n,
                                   lincoll_dtype_t d, lincoll_op_t o, int root, int blocking,
                                   lincoll_plan_t **p)
{
    (void)root;
    return lc_allreduce_init("lincoll_allreduce_init", c, s, r, n, d, o, NULL, blocking, p);
}
static lincoll_status_t lc_rsb_init(lincoll_comm_t *c, const void *s, void *r, size_t n,
                                    lincoll_dtype_t d, lincoll_op_t o, int root, int blocking,
                                    lincoll_plan_t **p)
{
    (void)root;
    return lc_reduce_scatter_init("lincoll_reduce_scatter_init", c, s, r, n, d, o, NULL, blocking,
                                  p);
}
static lincoll_status_t lc_agb_init(lincoll_comm_t *c, const void *s, void *r, size_t n,
                                    lincoll_dtype_t d, lincoll_op_t o, int root, int blocking,
                                    lincoll_plan_t **p)
{
    (void)o;
    (void)root;
    return lc_allgather_init("lincoll_allgather_init", c, s, r, n, d, NULL, blocking, p);
}
static lincoll_status_t lc_bc_init(lincoll_comm_t *c, const void *s, void *r, size_t n,
                                   lincoll_dtype_t d, lincoll_op_t o, int root, int blocking,
                                   lincoll_plan_t **p)
{
    (void)s;
    (void)o;
    return lc_bcast_init("lincoll_bcast_init", c, r, n, d, root, NULL, blocking, p);
}
static lincoll_status_t lc_rd_init(lincoll_comm_t *c, const void *s, void *r, size_t n,
                                   lincoll_dtype_t d, lincoll_op_t o, int root, int blocking,
                                   lincoll_plan_t **p)
{
    return lc_reduce_init("lincoll_reduce_init", c, s, r, n, d, o, root, NULL, blocking, p);
}

/* ---- allreduce ------------------------------------------------------------------ */

static lincoll_status_t lc_allreduce_init(const char *fn, lincoll_comm_t *comm, const void *sbuf,
                                          void *rbuf, size_t count, lincoll_dtype_t dtype,
                                          lincoll_op_t op, const lincoll_coll_opts_t *opts,
                                          int blocking, lincoll_plan_t **plan_p)
{
    LC_TRY(lc_check_common(fn, comm, plan_p));
    LC_TRY(lc_check_op(fn, dtype, op));
    size_t es = lincoll_dtype_size(dtype);
    LC_TRY(lc_check_count(fn, "count", count, es));
    int inplace = sbuf == LINCOLL_IN_PLACE || sbuf == rbuf;
    LC_CHECK_ARG(count == 0 || rbuf != NULL, "%s: rbuf must not be NULL (count %zu)", fn, count);
    LC_CHECK_ARG(count == 0 || inplace || sbuf != NULL, "%s: sbuf must not be NULL (count %zu)", fn,
                 count);
    LC_CHECK_ARG(inplace || !lc_overlap(sbuf, count * es, rbuf, count * es),
                 "%s: sbuf and rbuf overlap (use LINCOLL_IN_PLACE)", fn);
    lc_coll_args_t a = {.op = LC_COLL_ALLREDUCE,
                        .sbuf = inplace ? NULL : sbuf,
                        .rbuf = rbuf,
                        .count = count,
                        .total = count,
                        .dtype = dtype,
                        .rop = op,
                        .inplace = inplace,
                        .es = es};
    return lc_coll_plan(comm, &a, fn, opts, blocking, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_allreduce_init(lincoll_comm_t *comm, const void *sbuf,
                                                    void *rbuf, size_t count, lincoll_dtype_t dtype,
                                                    lincoll_op_t op, lincoll_plan_t **plan_p)
{
    return lc_allreduce_init("lincoll_allreduce_init", comm, sbuf, rbuf, count, dtype, op, NULL, 0,
                             plan_p);
}

LINCOLL_API lincoll_status_t lincoll_allreduce_init_opts(lincoll_comm_t *comm, const void *sbuf,
                                                         void *rbuf, size_t count,
                                                         lincoll_dtype_t dtype, lincoll_op_t op,
                                                         const lincoll_coll_opts_t *opts,
                                                         lincoll_plan_t **plan_p)
{
    return lc_allreduce_init("lincoll_allreduce_init_opts", comm, sbuf, rbuf, count, dtype, op,
                             opts, 0, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_allreduce(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                               size_t count, lincoll_dtype_t dtype, lincoll_op_t op)
{
    return lc_coll_run_cached(LC_COLL_ALLREDUCE, comm, sbuf, rbuf, count, dtype, op, 0, lc_ar_init);
}

/* ---- reduce-scatter and allgather (counts[]) ------------------------------------ */

/* counts[] -> displs[] and total, with overflow checks; *displs_p is malloc'ed. */
static lincoll_status_t lc_prefix(const char *fn, int P, const size_t *counts, size_t es,
                                  size_t **displs_p, size_t *total_p)
{
    size_t *d = malloc((size_t)P * sizeof(*d));
    if (d == NULL) return LINCOLL_ERR_NOMEM;
    size_t t = 0;
    for (int i = 0; i < P; i++) {
        d[i] = t;
        if (counts[i] > LC_MAX_BYTES / es - t) {
            lc_error("%s: counts[%d]=%zu makes the total too large", fn, i, counts[i]);
            free(d);
            return LINCOLL_ERR_INVALID;
        }
        t += counts[i];
    }
    *displs_p = d;
    *total_p = t;
    return LINCOLL_OK;
}

static lincoll_status_t lc_rs_init(const char *fn, lincoll_comm_t *comm, const void *sbuf,
                                   void *rbuf, const size_t *counts, lincoll_dtype_t dtype,
                                   lincoll_op_t op, const lincoll_coll_opts_t *opts, int blocking,
                                   lincoll_plan_t **plan_p)
{
    LC_TRY(lc_check_common(fn, comm, plan_p));
    LC_TRY(lc_check_op(fn, dtype, op));
    LC_CHECK_ARG(counts != NULL, "%s: counts must not be NULL", fn);
    size_t es = lincoll_dtype_size(dtype), total, *displs;
    LC_TRY(lc_prefix(fn, comm->size, counts, es, &displs, &total));
    int inplace = sbuf == LINCOLL_IN_PLACE || sbuf == rbuf;
    size_t mine = counts[comm->rank], rlen = inplace ? total : mine;
    lincoll_status_t st = LINCOLL_OK;
    if (rlen > 0 && rbuf == NULL) {
        lc_error("%s: rbuf must not be NULL (%zu elements)", fn, rlen);
        st = LINCOLL_ERR_INVALID;
    } else if (!inplace && total > 0 && sbuf == NULL) {
        lc_error("%s: sbuf must not be NULL (%zu elements)", fn, total);
        st = LINCOLL_ERR_INVALID;
    } else if (!inplace && lc_overlap(sbuf, total * es, rbuf, mine * es)) {
        lc_error("%s: sbuf and rbuf overlap (use LINCOLL_IN_PLACE)", fn);
        st = LINCOLL_ERR_INVALID;
    }
    if (st == LINCOLL_OK) {
        lc_coll_args_t a = {.op = LC_COLL_REDUCE_SCATTER,
                            .sbuf = inplace ? NULL : sbuf,
                            .rbuf = rbuf,
                            .counts = counts,
                            .displs = displs,
                            .total = total,
                            .dtype = dtype,
                            .rop = op,
                            .inplace = inplace,
                            .es = es};
        st = lc_coll_plan(comm, &a, fn, opts, blocking, plan_p);
    }
    free(displs);
    return st;
}

LINCOLL_API lincoll_status_t lincoll_reduce_scatterv_init(lincoll_comm_t *comm, const void *sbuf,
                                                          void *rbuf, const size_t *counts,
                                                          lincoll_dtype_t dtype, lincoll_op_t op,
                                                          lincoll_plan_t **plan_p)
{
    return lc_rs_init("lincoll_reduce_scatterv_init", comm, sbuf, rbuf, counts, dtype, op, NULL, 0,
                      plan_p);
}

LINCOLL_API lincoll_status_t lincoll_reduce_scatterv_init_opts(
    lincoll_comm_t *comm, const void *sbuf, void *rbuf, const size_t *counts, lincoll_dtype_t dtype,
    lincoll_op_t op, const lincoll_coll_opts_t *opts, lincoll_plan_t **plan_p)
{
    return lc_rs_init("lincoll_reduce_scatterv_init_opts", comm, sbuf, rbuf, counts, dtype, op,
                      opts, 0, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_reduce_scatterv(lincoll_comm_t *comm, const void *sbuf,
                                                     void *rbuf, const size_t *counts,
                                                     lincoll_dtype_t dtype, lincoll_op_t op)
{
    lincoll_plan_t *plan = NULL;
    lincoll_status_t st = lincoll_reduce_scatterv_init(comm, sbuf, rbuf, counts, dtype, op, &plan);
    return lc_run_once(st, plan);
}

/* P copies of count, or NULL (logged) */
static size_t *lc_block_counts(const char *fn, lincoll_comm_t *comm, size_t count)
{
    if (comm == NULL) return NULL;
    size_t *c = malloc((size_t)comm->size * sizeof(*c));
    if (c == NULL) {
        lc_error("%s: out of memory for %d counts", fn, comm->size);
        return NULL;
    }
    for (int i = 0; i < comm->size; i++)
        c[i] = count;
    return c;
}

static lincoll_status_t lc_reduce_scatter_init(const char *fn, lincoll_comm_t *comm,
                                               const void *sbuf, void *rbuf, size_t count,
                                               lincoll_dtype_t dtype, lincoll_op_t op,
                                               const lincoll_coll_opts_t *opts, int blocking,
                                               lincoll_plan_t **plan_p)
{
    LC_TRY(lc_check_common(fn, comm, plan_p));
    size_t *c = lc_block_counts(fn, comm, count);
    if (c == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_rs_init(fn, comm, sbuf, rbuf, c, dtype, op, opts, blocking, plan_p);
    free(c);
    return st;
}

LINCOLL_API lincoll_status_t lincoll_reduce_scatter_init(lincoll_comm_t *comm, const void *sbuf,
                                                         void *rbuf, size_t count,
                                                         lincoll_dtype_t dtype, lincoll_op_t op,
                                                         lincoll_plan_t **plan_p)
{
    return lc_reduce_scatter_init("lincoll_reduce_scatter_init", comm, sbuf, rbuf, count, dtype, op,
                                  NULL, 0, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_reduce_scatter_init_opts(
    lincoll_comm_t *comm, const void *sbuf, void *rbuf, size_t count, lincoll_dtype_t dtype,
    lincoll_op_t op, const lincoll_coll_opts_t *opts, lincoll_plan_t **plan_p)
{
    return lc_reduce_scatter_init("lincoll_reduce_scatter_init_opts", comm, sbuf, rbuf, count,
                                  dtype, op, opts, 0, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_reduce_scatter(lincoll_comm_t *comm, const void *sbuf,
                                                    void *rbuf, size_t count, lincoll_dtype_t dtype,
                                                    lincoll_op_t op)
{
    return lc_coll_run_cached(LC_COLL_REDUCE_SCATTER, comm, sbuf, rbuf, count, dtype, op, 0,
                              lc_rsb_init);
}

static lincoll_status_t lc_ag_init(const char *fn, lincoll_comm_t *comm, const void *sbuf,
                                   void *rbuf, const size_t *counts, lincoll_dtype_t dtype,
                                   const lincoll_coll_opts_t *opts, int blocking,
                                   lincoll_plan_t **plan_p)
{
    LC_TRY(lc_check_common(fn, comm, plan_p));
    LC_TRY(lc_check_dtype(fn, dtype));
    LC_CHECK_ARG(counts != NULL, "%s: counts must not be NULL", fn);
    size_t es = lincoll_dtype_size(dtype), total, *displs;
    LC_TRY(lc_prefix(fn, comm->size, counts, es, &displs, &total));
    size_t mine = counts[comm->rank];
    int inplace = sbuf == LINCOLL_IN_PLACE ||
                  (rbuf != NULL && sbuf == (const char *)rbuf + displs[comm->rank] * es);
    lincoll_status_t st = LINCOLL_OK;
    if (total > 0 && rbuf == NULL) {
        lc_error("%s: rbuf must not be NULL (%zu elements)", fn, total);
        st = LINCOLL_ERR_INVALID;
    } else if (!inplace && mine > 0 && sbuf == NULL) {
        lc_error("%s: sbuf must not be NULL (%zu elements)", fn, mine);
        st = LINCOLL_ERR_INVALID;
    } else if (!inplace && lc_overlap(sbuf, mine * es, rbuf, total * es)) {
        lc_error("%s: sbuf and rbuf overlap (use LINCOLL_IN_PLACE)", fn);
        st = LINCOLL_ERR_INVALID;
    }
    if (st == LINCOLL_OK) {
        lc_coll_args_t a = {.op = LC_COLL_ALLGATHER,
                            .sbuf = inplace ? NULL : sbuf,
                            .rbuf = rbuf,
                            .counts = counts,
                            .displs = displs,
                            .total = total,
                            .dtype = dtype,
                            .inplace = inplace,
                            .es = es};
        st = lc_coll_plan(comm, &a, fn, opts, blocking, plan_p);
    }
    free(displs);
    return st;
}

LINCOLL_API lincoll_status_t lincoll_allgatherv_init(lincoll_comm_t *comm, const void *sbuf,
                                                     void *rbuf, const size_t *counts,
                                                     lincoll_dtype_t dtype, lincoll_plan_t **plan_p)
{
    return lc_ag_init("lincoll_allgatherv_init", comm, sbuf, rbuf, counts, dtype, NULL, 0, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_allgatherv_init_opts(lincoll_comm_t *comm, const void *sbuf,
                                                          void *rbuf, const size_t *counts,
                                                          lincoll_dtype_t dtype,
                                                          const lincoll_coll_opts_t *opts,
                                                          lincoll_plan_t **plan_p)
{
    return lc_ag_init("lincoll_allgatherv_init_opts", comm, sbuf, rbuf, counts, dtype, opts, 0,
                      plan_p);
}

LINCOLL_API lincoll_status_t lincoll_allgatherv(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                                const size_t *counts, lincoll_dtype_t dtype)
{
    lincoll_plan_t *plan = NULL;
    lincoll_status_t st = lincoll_allgatherv_init(comm, sbuf, rbuf, counts, dtype, &plan);
    return lc_run_once(st, plan);
}

static lincoll_status_t lc_allgather_init(const char *fn, lincoll_comm_t *comm, const void *sbuf,
                                          void *rbuf, size_t count, lincoll_dtype_t dtype,
                                          const lincoll_coll_opts_t *opts, int blocking,
                                          lincoll_plan_t **plan_p)
{
    LC_TRY(lc_check_common(fn, comm, plan_p));
    size_t *c = lc_block_counts(fn, comm, count);
    if (c == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_ag_init(fn, comm, sbuf, rbuf, c, dtype, opts, blocking, plan_p);
    free(c);
    return st;
}

LINCOLL_API lincoll_status_t lincoll_allgather_init(lincoll_comm_t *comm, const void *sbuf,
                                                    void *rbuf, size_t count, lincoll_dtype_t dtype,
                                                    lincoll_plan_t **plan_p)
{
    return lc_allgather_init("lincoll_allgather_init", comm, sbuf, rbuf, count, dtype, NULL, 0,
                             plan_p);
}

LINCOLL_API lincoll_status_t lincoll_allgather_init_opts(lincoll_comm_t *comm, const void *sbuf,
                                                         void *rbuf, size_t count,
                                                         lincoll_dtype_t dtype,
                                                         const lincoll_coll_opts_t *opts,
                                                         lincoll_plan_t **plan_p)
{
    return lc_allgather_init("lincoll_allgather_init_opts", comm, sbuf, rbuf, count, dtype, opts, 0,
                             plan_p);
}

LINCOLL_API lincoll_status_t lincoll_allgather(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                               size_t count, lincoll_dtype_t dtype)
{
    return lc_coll_run_cached(LC_COLL_ALLGATHER, comm, sbuf, rbuf, count, dtype, LINCOLL_SUM, 0,
                              lc_agb_init);
}

/* ---- broadcast and reduce -------------------------------------------------------- */

static lincoll_status_t lc_bcast_init(const char *fn, lincoll_comm_t *comm, void *buf, size_t count,
                                      lincoll_dtype_t dtype, int root,
                                      const lincoll_coll_opts_t *opts, int blocking,
                                      lincoll_plan_t **plan_p)
{
    LC_TRY(lc_check_common(fn, comm, plan_p));
    LC_TRY(lc_check_dtype(fn, dtype));
    size_t es = lincoll_dtype_size(dtype);
    LC_TRY(lc_check_count(fn, "count", count, es));
    LC_CHECK_ARG(root >= 0 && root < comm->size, "%s: root=%d outside [0, %d)", fn, root,
                 comm->size);
    LC_CHECK_ARG(count == 0 || buf != NULL, "%s: buf must not be NULL (count %zu)", fn, count);
    lc_coll_args_t a = {.op = LC_COLL_BCAST,
                        .rbuf = buf,
                        .count = count,
                        .total = count,
                        .dtype = dtype,
                        .root = root,
                        .inplace = 1,
                        .es = es};
    return lc_coll_plan(comm, &a, fn, opts, blocking, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_bcast_init(lincoll_comm_t *comm, void *buf, size_t count,
                                                lincoll_dtype_t dtype, int root,
                                                lincoll_plan_t **plan_p)
{
    return lc_bcast_init("lincoll_bcast_init", comm, buf, count, dtype, root, NULL, 0, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_bcast_init_opts(lincoll_comm_t *comm, void *buf, size_t count,
                                                     lincoll_dtype_t dtype, int root,
                                                     const lincoll_coll_opts_t *opts,
                                                     lincoll_plan_t **plan_p)
{
    return lc_bcast_init("lincoll_bcast_init_opts", comm, buf, count, dtype, root, opts, 0, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_bcast(lincoll_comm_t *comm, void *buf, size_t count,
                                           lincoll_dtype_t dtype, int root)
{
    return lc_coll_run_cached(LC_COLL_BCAST, comm, NULL, buf, count, dtype, LINCOLL_SUM, root,
                              lc_bc_init);
}

static lincoll_status_t lc_reduce_init(const char *fn, lincoll_comm_t *comm, const void *sbuf,
                                       void *rbuf, size_t count, lincoll_dtype_t dtype,
                                       lincoll_op_t op, int root, const lincoll_coll_opts_t *opts,
                                       int blocking, lincoll_plan_t **plan_p)
{
    LC_TRY(lc_check_common(fn, comm, plan_p));
    LC_TRY(lc_check_op(fn, dtype, op));
    size_t es = lincoll_dtype_size(dtype);
    LC_TRY(lc_check_count(fn, "count", count, es));
    LC_CHECK_ARG(root >= 0 && root < comm->size, "%s: root=%d outside [0, %d)", fn, root,
                 comm->size);
    int inplace = sbuf == LINCOLL_IN_PLACE || (sbuf == rbuf && rbuf != NULL);
    int is_root = comm->rank == root;
    LC_CHECK_ARG(count == 0 || !(is_root || inplace) || rbuf != NULL,
                 "%s: rbuf must not be NULL at the root (count %zu)", fn, count);
    LC_CHECK_ARG(count == 0 || inplace || sbuf != NULL, "%s: sbuf must not be NULL (count %zu)", fn,
                 count);
    LC_CHECK_ARG(inplace || !is_root || !lc_overlap(sbuf, count * es, rbuf, count * es),
                 "%s: sbuf and rbuf overlap (use LINCOLL_IN_PLACE)", fn);
    lc_coll_args_t a = {.op = LC_COLL_REDUCE,
                        .sbuf = inplace ? NULL : sbuf,
                        .rbuf = rbuf,
                        .count = count,
                        .total = count,
                        .dtype = dtype,
                        .rop = op,
                        .root = root,
                        .inplace = inplace,
                        .es = es};
    return lc_coll_plan(comm, &a, fn, opts, blocking, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_reduce_init(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                                 size_t count, lincoll_dtype_t dtype,
                                                 lincoll_op_t op, int root, lincoll_plan_t **plan_p)
{
    return lc_reduce_init("lincoll_reduce_init", comm, sbuf, rbuf, count, dtype, op, root, NULL, 0,
                          plan_p);
}

LINCOLL_API lincoll_status_t lincoll_reduce_init_opts(lincoll_comm_t *comm, const void *sbuf,
                                                      void *rbuf, size_t count,
                                                      lincoll_dtype_t dtype, lincoll_op_t op,
                                                      int root, const lincoll_coll_opts_t *opts,
                                                      lincoll_plan_t **plan_p)
{
    return lc_reduce_init("lincoll_reduce_init_opts", comm, sbuf, rbuf, count, dtype, op, root,
                          opts, 0, plan_p);
}

LINCOLL_API lincoll_status_t lincoll_reduce_coll(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                                 size_t count, lincoll_dtype_t dtype,
                                                 lincoll_op_t op, int root)
{
    return lc_coll_run_cached(LC_COLL_REDUCE, comm, sbuf, rbuf, count, dtype, op, root, lc_rd_init);
}
