/*
 * test/gpu/gpu_bench.c: device kernel throughput against the device's own
 * copy bandwidth, and matmul with cuBLAS steps against cuBLAS alone, in one
 * run (docs/accelerators.md, "Measurements").
 *
 *   gpu_bench CSV [MiB]
 *   gpu_bench --probe       exit 0 and one line when a GPU is usable, else 77
 * Every figure is the median of 7 timed calls after 2 warm-ups, each from
 * its enqueue to the end of a stream synchronize (one stream).  Bytes count what the kernel reads
 * and writes, as the anchor does: the anchor is cudaMemcpyAsync device to device of MiB-MiB
 * buffers, 2 x MiB per copy (about 4.3 TB/s on an H200).
 *  - gf8_10+4, gf16_10+4: lincomb of 10 sources into 4 outputs of MiB/4 MiB
 *    each, (10 + 4) x len bytes: goal >= 0.6 of the copy;
 *  - reduce_<dtype>_sum: dst = a + b over MiB MiB, 3 x MiB bytes: goal >= 0.8;
 *  - matmul_P1: lincoll_matmul_init on device operands in one process (its
 *    GEMM step through cuBLAS, plus the plan's start and wait) against
 *    cublas*gemm on the same operands (lc_cuda_gemm), float and double
 *    n = 8192 / 4096.
 * Rows: name,variant,metric,value,anchor,ratio,goal.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lincoll/lincoll.h>

#include "kernels/cuda/cuda_kernels.h"

#define REPS 7

static FILE *csv;
static lc_cuda_stream_t *S;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void (*work_fn)(void *arg);

/* median seconds of one call of fn (enqueued on S) */
static double timed(work_fn fn, void *arg)
{
    double t[REPS];
    for (int i = 0; i < 2; i++)
        fn(arg);
    lc_cuda_sync(S);
    for (int i = 0; i < REPS; i++) {
        double w0 = 0;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        w0 = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
        fn(arg);
        lc_cuda_sync(S);
        clock_gettime(CLOCK_MONOTONIC, &ts);
        t[i] = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - w0;
    }
    qsort(t, REPS, sizeof(double), cmp_d);
    return t[REPS / 2];
}

static void row(const char *name, const char *variant, const char *metric, double v, double anchor,
                const char *goal)
{
    printf("%-22s %-16s %-10s %10.2f  anchor %10.2f  ratio %.3f  goal %s\n", name, variant, metric,
           v, anchor, anchor > 0 ? v / anchor : 0, goal);
    fprintf(csv, "%s,%s,%s,%.3f,%.3f,%.4f,%s\n", name, variant, metric, v, anchor,
            anchor > 0 ? v / anchor : 0, goal);
    fflush(csv);
}

typedef struct copy_arg {
    void *d, *s;
    size_t n;
} copy_arg_t;

static void do_copy(void *a)
{
    copy_arg_t *c = a;
    lc_cuda_copy(S, c->d, c->s, c->n);
}

typedef struct gf_arg {
    lc_cuda_gf_tab_t *t;
    size_t len;
    const void *src[10];
    void *dst[4];
} gf_arg_t;

static void do_gf(void *a)
{
    gf_arg_t *g = a;
    lc_cuda_gf_run(S, g->t, g->len, g->src, g->dst);
}

typedef struct red_arg {
    void *d, *a, *b;
    size_t n;
    lincoll_dtype_t dt;
} red_arg_t;

static void do_red(void *a)
{
    red_arg_t *r = a;
    lc_cuda_reduce(S, r->d, r->a, r->b, r->n, r->dt, LINCOLL_SUM);
}

typedef struct gemm_arg {
    int64_t n;
    lincoll_dtype_t dt;
    void *a, *b, *c;
    lincoll_plan_t *plan;
} gemm_arg_t;

static void do_cublas(void *a)
{
    gemm_arg_t *g = a;
    lc_cuda_gemm(S, LINCOLL_COL_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, g->n, g->n, g->n, g->dt,
                 1.0, g->a, g->n, g->b, g->n, 0.0, g->c, g->n);
}

static void do_plan(void *a)
{
    gemm_arg_t *g = a;
    lincoll_start(g->plan);
    lincoll_wait(g->plan); /* the plan waits for its own stream */
}

static void *dmalloc(size_t n)
{
    void *p = NULL;
    if (lc_cuda_malloc(n, &p) != LINCOLL_OK) {
        fprintf(stderr, "gpu_bench: cudaMalloc of %zu bytes failed\n", n);
        exit(1);
    }
    lc_cuda_memset(S, p, 0x5b, n);
    return p;
}

int main(int argc, char **argv)
{
    const char *why = NULL;
    const int probe = argc > 1 && strcmp(argv[1], "--probe") == 0;
    if (!lc_cuda_usable(&why)) {
        if (probe)
            printf("%s\n", why);
        else
            printf("SKIP gpu_bench: %s\n", why);
        return 77;
    }
    if (probe) { /* test/gpu/run.sh: is there a GPU? */
        printf("cuda: %s; %s\n", why, lc_cuda_blas_status());
        return 0;
    }
    csv = fopen(argc > 1 ? argv[1] : "gpu.csv", "a");
    const size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 1024, bytes = mib << 20;
    if (csv == NULL || lc_cuda_stream_create(&S) != LINCOLL_OK) return 1;
    printf("gpu_bench: %s, buffers of %zu MiB\n", why, mib);
    /* the anchor */
    copy_arg_t c = {dmalloc(bytes), dmalloc(bytes), bytes};
    const double copy_bw = 2.0 * (double)bytes / timed(do_copy, &c) / 1e9;
    row("copy_d2d", "cudaMemcpyAsync", "GBps", copy_bw, 0, "anchor");
    /* GF 10+4 */
    for (int w = 0; w < 2; w++) {
        const uint64_t q = w ? 65536 : 256;
        uint64_t m[40];
        for (int i = 0; i < 40; i++)
            m[i] = (uint64_t)(i * 37 + 11) % q;
        gf_arg_t g = {.len = (bytes / 4) & ~(size_t)63};
        if (lc_cuda_gf_tab_create(q, 4, 10, m, -1, &g.t) != LINCOLL_OK) return 1;
        char *pool = dmalloc(14 * g.len);
        for (int i = 0; i < 10; i++)
            g.src[i] = pool + (size_t)i * g.len;
        for (int j = 0; j < 4; j++)
            g.dst[j] = pool + (size_t)(10 + j) * g.len;
        const double bw = 14.0 * (double)g.len / timed(do_gf, &g) / 1e9;
        row(w ? "gf16_10+4_lincomb" : "gf8_10+4_lincomb", "packed tables", "GBps", bw, copy_bw,
            w ? "report" : ">=0.6");
        lc_cuda_free(pool);
        lc_cuda_gf_tab_destroy(g.t);
    }
    /* reductions */
    const lincoll_dtype_t dts[] = {LINCOLL_FLOAT,    LINCOLL_DOUBLE, LINCOLL_FLOAT16,
                                   LINCOLL_BFLOAT16, LINCOLL_INT32,  LINCOLL_INT8};
    for (size_t i = 0; i < sizeof(dts) / sizeof(dts[0]); i++) {
        red_arg_t r = {c.d, c.s, NULL, bytes / lincoll_dtype_size(dts[i]), dts[i]};
        r.b = dmalloc(bytes);
        const double bw = 3.0 * (double)bytes / timed(do_red, &r) / 1e9;
        char name[48];
        snprintf(name, sizeof(name), "reduce_%s_sum", lincoll_dtype_name(dts[i]));
        row(name, "dst=a+b", "GBps", bw, copy_bw, ">=0.8");
        lc_cuda_free(r.b);
    }
    lc_cuda_free(c.d);
    lc_cuda_free(c.s);
    /* matmul at P = 1: cuBLAS steps in a plan against cuBLAS alone */
    lincoll_context_t *ctx = NULL;
    lincoll_comm_t *w = NULL;
    if (lincoll_init(NULL, &ctx) != LINCOLL_OK || lincoll_comm_world(ctx, &w) != LINCOLL_OK) {
        fprintf(stderr, "gpu_bench: lincoll_init failed\n");
        return 1;
    }
    for (int d = 0; d < 2; d++) {
        gemm_arg_t g = {.n = d ? 4096 : 8192, .dt = d ? LINCOLL_DOUBLE : LINCOLL_FLOAT};
        const size_t es = d ? 8 : 4, nb = (size_t)(g.n * g.n) * es;
        g.a = dmalloc(nb), g.b = dmalloc(nb), g.c = dmalloc(nb);
        lincoll_matdesc_t desc;
        lincoll_matdesc_init(&desc, g.n, g.n, g.n, g.n, 1, 1, 1, LINCOLL_COL_MAJOR);
        if (lincoll_matmul_init(w, g.dt, 1.0, g.a, &desc, g.b, &desc, 0.0, g.c, &desc, NULL,
                                &g.plan) != LINCOLL_OK) {
            fprintf(stderr, "gpu_bench: matmul init failed\n");
            return 1;
        }
        const double fl = 2.0 * (double)g.n * (double)g.n * (double)g.n;
        const double alone = fl / timed(do_cublas, &g) / 1e12;
        const double plan = fl / timed(do_plan, &g) / 1e12;
        char name[48];
        snprintf(name, sizeof(name), "matmul_P1_%s_n%lld", d ? "double" : "float", (long long)g.n);
        row(name, "cublas steps", "TFLOPs", plan, alone, "~1 (cuBLAS alone)");
        lincoll_plan_free(g.plan);
        lc_cuda_free(g.a), lc_cuda_free(g.b), lc_cuda_free(g.c);
    }
    lincoll_finalize(ctx);
    lc_cuda_stream_destroy(S);
    fclose(csv);
    return 0;
}
