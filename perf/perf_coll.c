/*
 * perf/perf_coll.c: lincoll_perf -t allreduce|reduce_scatter|allgather|bcast|reduce.
 *
 * `size` is the bytes of the whole vector, as in the Open MPI anchor
 * (perf/anchors/mpi_coll.c): allreduce, bcast and reduce move size bytes
 * per rank; reduce-scatter and allgather use blocks of size/P bytes (at least
 * one element), so the vector is P blocks.  Out of place (bcast: one
 * buffer), root 0, element type from -d (default float), operator sum.
 * -A NAME forces the operation's algorithm NAME (rhd, ring, binomial,
 * zcopy, ...; lincoll_info -a) through lincoll_coll_opts_t::algo, the same
 * on every rank; without -A, LINCOLL_<OP>_ALGO or the cost model chooses.  Buffers come from
 * lincoll_mem_alloc unless -m host.  The plan is built once and started warmup + iters times.
 * Public headers only.
 */
#include <lincoll/coll.h>
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_local.h"

static const char *const coll_tests[] = {"allreduce", "reduce_scatter", "allgather", "bcast",
                                         "reduce"};

static int parse_dtype(const char *name, lincoll_dtype_t *dt)
{
    if (name == NULL) {
        *dt = LINCOLL_FLOAT;
        return 0;
    }
    for (int i = 0; i < LINCOLL_DTYPE_LAST; i++) {
        if (strcmp(name, lincoll_dtype_name((lincoll_dtype_t)i)) == 0) {
            *dt = (lincoll_dtype_t)i;
            return 0;
        }
    }
    fprintf(stderr, "lincoll_perf: unknown -d %s (float, double, int32, ...)\n", name);
    return -1;
}

int lc_perf_coll(lincoll_context_t *ctx, lincoll_comm_t *comm, const perf_opts_t *o, size_t size,
                 long warmup, long iters, perf_result_t *r)
{
    int which = -1, P = lincoll_comm_size(comm);
    for (int i = 0; i < 5; i++) {
        if (strcmp(o->test, coll_tests[i]) == 0) which = i;
    }
    lincoll_dtype_t dt;
    if (which < 0 || which >= 5 || parse_dtype(o->dtype, &dt) != 0) return -1;
    const lincoll_coll_opts_t copts = {.algo = o->algo}; /* NULL: LINCOLL_<OP>_ALGO or the model */
    size_t es = lincoll_dtype_size(dt), n = size / es;
    size_t blk = n / (size_t)P ? n / (size_t)P : 1;
    size_t abytes = (which == 1 || which == 2) ? blk * (size_t)P * es : n * es;
    int rc = 0;
    lc_perf_bufs_t bf;
    if (lc_perf_bufs_alloc(&bf, ctx, abytes + es, o->host_mem) != 0) return -1;
    void *a = bf.a, *b = bf.b;
    memset(a, 0, abytes + es);
    memset(b, 0, abytes + es);
    lincoll_plan_t *plan = NULL;
    lincoll_status_t st = LINCOLL_ERR_INVALID;
    switch (which) {
    case 0:
        st = lincoll_allreduce_init_opts(comm, a, b, n, dt, LINCOLL_SUM, &copts, &plan);
        break;
    case 1:
        st = lincoll_reduce_scatter_init_opts(comm, a, b, blk, dt, LINCOLL_SUM, &copts, &plan);
        break;
    case 2:
        st = lincoll_allgather_init_opts(comm, a, b, blk, dt, &copts, &plan);
        break;
    case 3:
        st = lincoll_bcast_init_opts(comm, a, n, dt, 0, &copts, &plan);
        break;
    case 4:
        st = lincoll_reduce_init_opts(comm, a, b, n, dt, LINCOLL_SUM, 0, &copts, &plan);
        break;
    }
    if (st != LINCOLL_OK) {
        fprintf(stderr, "lincoll_perf: %s init: %s\n", o->test, lincoll_strerror(st));
        rc = -1;
    }
    double *samples = malloc(sizeof(double) * (size_t)iters);
    if (rc == 0 && samples != NULL) {
        lincoll_plan_stats_t s;
        lincoll_plan_stats(plan, &s);
        snprintf(r->algo, sizeof(r->algo), "%s", s.algorithm);
        r->predicted_us = s.predicted_us;
        rc = lc_perf_run_plan(plan, warmup, iters, samples);
        if (rc == 0) lc_perf_summarize(samples, iters, 1.0, abytes, 1.0, r);
    }
    free(samples);
    lincoll_plan_free(plan);
    if (lincoll_barrier(comm) != LINCOLL_OK) rc = -1;
    lc_perf_bufs_free(&bf);
    return rc;
}
