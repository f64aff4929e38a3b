/*
 * perf/perf_matmul.c: lincoll_perf -t matmul -s N [-A ring|summa|cannon|25d] [-d float|double].
 *
 * C := A B + 0 C with n x n matrices in Cannon/SUMMA block distribution
 * (column-major) on the grid the algorithm needs: ring P x 1, SUMMA the most
 * square Pr x Pc, Cannon sqrt P x sqrt P, 2.5D q x q x c with the largest
 * c <= q.  Without -A the library chooses (cost model).  The plan is built
 * once and started warmup + iters times (default: about 2 s of work, at
 * least 3).  Reports GFLOP/s = 2 n^3 / median time, and, from a second plan
 * built with LINCOLL_MATMUL_COMM_ONLY (same transfers, no GEMMs), the
 * measured communication time against the plan's alpha-beta prediction.
 * Public headers only.
 */
#include <lincoll/lincoll.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_local.h"

static int grid_for(const char *algo, int P, int *pr, int *pc, int *c)
{
    *c = 1;
    if (algo != NULL && strcmp(algo, "ring") == 0) {
        *pr = P, *pc = 1;
        return 0;
    }
    if (algo != NULL && strcmp(algo, "25d") == 0) {
        for (int cc = P; cc >= 1; cc--) {
            if (P % cc) continue;
            int q = (int)lround(sqrt((double)(P / cc)));
            if (q * q * cc == P && cc <= q) {
                *pr = *pc = q, *c = cc;
                return 0;
            }
        }
        return -1;
    }
    int r = 1;
    for (int x = 1; x * x <= P; x++)
        if (P % x == 0) r = x;
    *pr = r, *pc = P / r;
    if (algo != NULL && strcmp(algo, "cannon") == 0 && *pr != *pc) return -1;
    return 0;
}

static int parse_algo(const char *s, lincoll_matmul_algo_t *a)
{
    *a = LINCOLL_MATMUL_AUTO;
    if (s == NULL) return 0;
    for (int i = 0; i < LINCOLL_MATMUL_ALGO_LAST; i++) {
        if (strcmp(s, lincoll_matmul_algo_name((lincoll_matmul_algo_t)i)) == 0) {
            *a = (lincoll_matmul_algo_t)i;
            return 0;
        }
    }
    fprintf(stderr, "lincoll_perf: unknown -A %s (ring, summa, cannon, 25d)\n", s);
    return -1;
}

int lc_perf_matmul(lincoll_context_t *ctx, lincoll_comm_t *comm, const perf_opts_t *o, size_t size,
                   long warmup, long iters, perf_result_t *r)
{
    (void)ctx;
    const int P = lincoll_comm_size(comm), me = lincoll_comm_rank(comm);
    lincoll_dtype_t dt = LINCOLL_DOUBLE;
    if (o->dtype != NULL && strcmp(o->dtype, "float") == 0)
        dt = LINCOLL_FLOAT;
    else if (o->dtype != NULL && strcmp(o->dtype, "double") != 0) {
        fprintf(stderr, "lincoll_perf: matmul takes -d float or double\n");
        return -1;
    }
    lincoll_matmul_algo_t algo;
    int pr, pc, c;
    if (parse_algo(o->algo, &algo) != 0) return -1;
    if (grid_for(o->algo, P, &pr, &pc, &c) != 0) {
        fprintf(stderr, "lincoll_perf: -A %s cannot run on %d ranks (square grid needed)\n",
                o->algo, P);
        return -1;
    }
    const int64_t n = (int64_t)size;
    lincoll_matdesc_t d;
    if (lincoll_matdesc_block(&d, n, n, pr, pc, c, LINCOLL_COL_MAJOR) != LINCOLL_OK) return -1;
    int64_t rows, cols, ld;
    lincoll_matdesc_local(&d, me, &rows, &cols, &ld);
    size_t es = lincoll_dtype_size(dt), cnt = (size_t)(rows * cols);
    void *a = calloc(cnt + 1, es), *b = calloc(cnt + 1, es), *cm = calloc(cnt + 1, es);
    if (a == NULL || b == NULL || cm == NULL) {
        free(a), free(b), free(cm);
        return -1;
    }
    for (size_t i = 0; i < cnt; i++) {
        double v = (double)((i * 2654435761u + (size_t)me) % 1000) / 1000.0 - 0.5;
        if (dt == LINCOLL_FLOAT)
            ((float *)a)[i] = (float)v, ((float *)b)[i] = (float)-v;
        else
            ((double *)a)[i] = v, ((double *)b)[i] = -v;
    }
    lincoll_matmul_opts_t opts = {.algo = algo};
    lincoll_plan_t *plan = NULL, *cplan = NULL;
    int rc = -1;
    double flops = 2.0 * (double)n * (double)n * (double)n;
    if (o->iters <= 0) {
        iters = (long)(2e9 * (double)P / flops * 50.0);
        if (iters < 3) iters = 3;
        if (iters > 200) iters = 200;
        warmup = 1;
    }
    double *samples = calloc((size_t)iters, sizeof(double));
    lincoll_status_t st =
        lincoll_matmul_init(comm, dt, 1.0, a, &d, b, &d, 0.0, cm, &d, &opts, &plan);
    opts.flags = LINCOLL_MATMUL_COMM_ONLY;
    if (st == LINCOLL_OK)
        st = lincoll_matmul_init(comm, dt, 1.0, a, &d, b, &d, 0.0, cm, &d, &opts, &cplan);
    if (st != LINCOLL_OK || samples == NULL) {
        fprintf(stderr, "lincoll_perf: matmul_init: %s\n", lincoll_strerror(st));
        goto out;
    }
    lincoll_matmul_info_t info;
    lincoll_matmul_info(plan, &info);
    /* communication alone first (same transfers, no GEMMs) */
    if (lc_perf_run_plan(cplan, warmup, iters, samples) != 0) goto out;
    perf_result_t cr;
    memset(&cr, 0, sizeof(cr));
    lc_perf_summarize(samples, iters, 1.0, 0, 0, &cr);
    if (lc_perf_run_plan(plan, warmup, iters, samples) != 0) goto out;
    lc_perf_summarize(samples, iters, 1.0, (size_t)(info.words_sent * es), (double)info.msgs_sent,
                      r);
    snprintf(r->algo, sizeof(r->algo), "%s", lincoll_matmul_algo_name(info.algo));
    r->predicted_us = info.predicted_comm_us;
    if (me == 0) {
        printf("# matmul n=%lld %s P=%d grid %dx%dx%d algo %s: %.2f GFLOP/s (median %.1f us); "
               "words/rank sent %llu recvd %llu, msgs %llu, memory %.1f MiB; comm only: "
               "measured %.1f us, predicted %.1f us (ratio %.2f)\n",
               (long long)n, lincoll_dtype_name(dt), P, pr, pc, c,
               lincoll_matmul_algo_name(info.algo), flops / (r->p50_us * 1e3), r->p50_us,
               (unsigned long long)info.words_sent, (unsigned long long)info.words_recvd,
               (unsigned long long)info.msgs_sent, (double)info.memory_bytes / 1048576.0, cr.p50_us,
               info.predicted_comm_us,
               info.predicted_comm_us > 0 ? cr.p50_us / info.predicted_comm_us : 0.0);
        fflush(stdout);
    }
    rc = 0;
out:
    lincoll_plan_free(plan);
    lincoll_plan_free(cplan);
    free(samples), free(a), free(b), free(cm);
    return rc;
}
