/*
 * test/matmul/matmul_ucx.c: distributed matrix multiply over real UCX, one
 * process per rank (lincoll-run or mpirun).
 *
 * Every rank builds the same global A, B, C from a seed, so it can check its
 * own block of the result without a gather.  For each algorithm that fits
 * the number of ranks (ring on P x 1; SUMMA tree and bucket on the most
 * square grid, block and block-cyclic; Cannon when P is a square; 2.5D when
 * P = q*q*c), float and double, square and rectangular shapes: the local C
 * must match a serial lincoll_gemm_base within the residual bound; some
 * cases keep A and/or B transposed (opts->transa/transb).  The
 * scatter and gather plans are checked by a round trip through rank 0.
 * Exits 0 only if every check passed; prints "matmul_ucx: rank R: N checks passed".
 */
#include <lincoll/lincoll.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures, me = -1;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "matmul_ucx: rank %d: FAILED %s:%d: ", me, __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static double val(uint64_t seed, int64_t i, int64_t j)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 1000003u + (uint64_t)j * 7919u;
    x ^= x >> 29, x *= 0xbf58476d1ce4e5b9ULL, x ^= x >> 32;
    return (double)(x % 2001) / 1000.0 - 1.0;
}

/* global matrix, column-major, m x n */
static void *global(uint64_t seed, int64_t m, int64_t n, lincoll_dtype_t dt)
{
    size_t es = lincoll_dtype_size(dt);
    void *g = malloc((size_t)(m * n) * es + es);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double v = val(seed, i, j);
            if (dt == LINCOLL_FLOAT)
                ((float *)g)[i + j * m] = (float)v;
            else
                ((double *)g)[i + j * m] = v;
        }
    return g;
}

/* my local array of global g (column-major, tight) */
static void *local_of(const void *g, const lincoll_matdesc_t *d, lincoll_dtype_t dt)
{
    size_t es = lincoll_dtype_size(dt);
    int64_t rows, cols, ld;
    int pi, pj, pl;
    lincoll_matdesc_local(d, me, &rows, &cols, &ld);
    lincoll_matdesc_coords(d, me, &pi, &pj, &pl);
    void *l = calloc((size_t)(ld * (cols > 0 ? cols : 1)) + 1, es);
    for (int64_t lj = 0; lj < cols; lj++) {
        int64_t gj = ((lj / d->nb) * d->pc + pj) * d->nb + lj % d->nb;
        for (int64_t li = 0; li < rows; li++) {
            int64_t gi = ((li / d->mb) * d->pr + pi) * d->mb + li % d->mb;
            memcpy((char *)l + (size_t)(li + lj * ld) * es,
                   (const char *)g + (size_t)(gi + gj * d->m) * es, es);
        }
    }
    return l;
}

/* the transpose of a rows x cols column-major local array (ld), tight: cols x rows, ld = cols */
static void *transposed(const void *l, const lincoll_matdesc_t *d, lincoll_dtype_t dt)
{
    size_t es = lincoll_dtype_size(dt);
    int64_t rows, cols, ld;
    lincoll_matdesc_local(d, me, &rows, &cols, &ld);
    char *t = calloc((size_t)(rows * cols) + 1, es);
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            memcpy(t + (size_t)(j + i * cols) * es, (const char *)l + (size_t)(i + j * ld) * es,
                   es);
    return t;
}

/* tr: bit 0 = op(A) = A^T, bit 1 = op(B) = B^T (local blocks stored transposed) */
static void run(lincoll_comm_t *comm, lincoll_matmul_algo_t algo, lincoll_matmul_bcast_t bc, int pr,
                int pc, int c, int64_t m, int64_t n, int64_t k, int64_t cyc, lincoll_dtype_t dt,
                int tr)
{
    const double alpha = 0.75, beta = 1.25;
    size_t es = lincoll_dtype_size(dt);
    lincoll_matdesc_t da, db, dc;
    if (cyc) {
        lincoll_matdesc_init(&da, m, k, cyc, cyc, pr, pc, c, LINCOLL_COL_MAJOR);
        lincoll_matdesc_init(&db, k, n, cyc, cyc, pr, pc, c, LINCOLL_COL_MAJOR);
        lincoll_matdesc_init(&dc, m, n, cyc, cyc, pr, pc, c, LINCOLL_COL_MAJOR);
    } else {
        lincoll_matdesc_block(&da, m, k, pr, pc, c, LINCOLL_COL_MAJOR);
        lincoll_matdesc_block(&db, k, n, pr, pc, c, LINCOLL_COL_MAJOR);
        lincoll_matdesc_block(&dc, m, n, pr, pc, c, LINCOLL_COL_MAJOR);
    }
    if (algo == LINCOLL_MATMUL_RING) da.nb = k, db.nb = n, dc.nb = n;
    void *GA = global(11, m, k, dt), *GB = global(22, k, n, dt), *GC = global(33, m, n, dt);
    void *A = local_of(GA, &da, dt), *B = local_of(GB, &db, dt), *C = local_of(GC, &dc, dt);
    void *REF = global(33, m, n, dt);
    lincoll_gemm_base(LINCOLL_COL_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, m, n, k, dt, alpha, GA,
                      m > 0 ? m : 1, GB, k > 0 ? k : 1, beta, REF, m > 0 ? m : 1);
    void *R = local_of(REF, &dc, dt);
    if (tr & 1) {
        void *t = transposed(A, &da, dt);
        free(A), A = t;
    }
    if (tr & 2) {
        void *t = transposed(B, &db, dt);
        free(B), B = t;
    }
    lincoll_matmul_opts_t o = {.algo = algo,
                               .bcast = bc,
                               .panel = cyc ? 0 : 7,
                               .transa = (tr & 1) ? LINCOLL_TRANS : LINCOLL_NO_TRANS,
                               .transb = (tr & 2) ? LINCOLL_TRANS : LINCOLL_NO_TRANS};
    lincoll_plan_t *p = NULL;
    lincoll_status_t st =
        lincoll_matmul_init(comm, dt, alpha, A, &da, B, &db, beta, C, &dc, &o, &p);
    CHECK(st == LINCOLL_OK, "%s init: %s", lincoll_matmul_algo_name(algo), lincoll_strerror(st));
    if (st == LINCOLL_OK) {
        /* twice: a persistent plan recomputes C := alpha A B + beta C from the new C */
        st = lincoll_start(p);
        if (st == LINCOLL_OK) st = lincoll_wait(p);
        CHECK(st == LINCOLL_OK, "%s run: %s", lincoll_matmul_algo_name(algo), lincoll_strerror(st));
        int64_t rows, cols, ld;
        lincoll_matdesc_local(&dc, me, &rows, &cols, &ld);
        double eps = dt == LINCOLL_FLOAT ? FLT_EPSILON : DBL_EPSILON;
        double bound = 2.0 * (double)(k + 2) * eps * (fabs(alpha) * (double)k + fabs(beta));
        size_t bad = 0;
        for (int64_t x = 0; x < rows * cols; x++) {
            double got = dt == LINCOLL_FLOAT ? ((float *)C)[x] : ((double *)C)[x];
            double want = dt == LINCOLL_FLOAT ? ((float *)R)[x] : ((double *)R)[x];
            bad += !(fabs(got - want) <= bound);
        }
        CHECK(bad == 0, "%s %dx%dx%d m=%lld n=%lld k=%lld cyc=%lld %s tr=%d: %zu wrong elements",
              lincoll_matmul_algo_name(algo), pr, pc, c, (long long)m, (long long)n, (long long)k,
              (long long)cyc, lincoll_dtype_name(dt), tr, bad);
        lincoll_plan_free(p);
    }
    /* scatter/gather round trip of C through rank 0 */
    void *back = calloc((size_t)(m * n) + 1, es);
    void *loc = calloc((size_t)(m * n) + 1, es);
    st = lincoll_matrix_scatter_init(comm, 0, me == 0 ? GC : NULL, m > 0 ? m : 1, dt, &dc, loc, &p);
    if (st == LINCOLL_OK) {
        st = lincoll_start(p);
        if (st == LINCOLL_OK) st = lincoll_wait(p);
        lincoll_plan_free(p);
    }
    CHECK(st == LINCOLL_OK, "scatter: %s", lincoll_strerror(st));
    st =
        lincoll_matrix_gather_init(comm, 0, me == 0 ? back : NULL, m > 0 ? m : 1, dt, &dc, loc, &p);
    if (st == LINCOLL_OK) {
        st = lincoll_start(p);
        if (st == LINCOLL_OK) st = lincoll_wait(p);
        lincoll_plan_free(p);
    }
    CHECK(st == LINCOLL_OK, "gather: %s", lincoll_strerror(st));
    if (me == 0) CHECK(memcmp(back, GC, (size_t)(m * n) * es) == 0, "scatter+gather round trip");
    free(back), free(loc);
    free(GA), free(GB), free(GC), free(A), free(B), free(C), free(REF), free(R);
}

int main(void)
{
    lincoll_context_t *ctx;
    lincoll_comm_t *world;
    if (lincoll_init(NULL, &ctx) != LINCOLL_OK || lincoll_comm_world(ctx, &world) != LINCOLL_OK) {
        fprintf(stderr, "matmul_ucx: init failed\n");
        return 1;
    }
    me = lincoll_comm_rank(world);
    const int P = lincoll_comm_size(world);
    int pr = 1;
    for (int x = 1; x * x <= P; x++)
        if (P % x == 0) pr = x;
    const int pc = P / pr;
    const int64_t shapes[][3] = {{67, 45, 53}, {128, 128, 128}};
    for (int s = 0; s < 2; s++) {
        int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        lincoll_dtype_t dt = s ? LINCOLL_DOUBLE : LINCOLL_FLOAT;
        run(world, LINCOLL_MATMUL_RING, 0, P, 1, 1, m, n, k, 0, dt, 0);
        run(world, LINCOLL_MATMUL_SUMMA, LINCOLL_MATMUL_BCAST_TREE, pr, pc, 1, m, n, k, 0, dt, 0);
        run(world, LINCOLL_MATMUL_SUMMA, LINCOLL_MATMUL_BCAST_RING, pr, pc, 1, m, n, k, 8, dt, 0);
        if (pr == pc) run(world, LINCOLL_MATMUL_CANNON, 0, pr, pc, 1, m, n, k, 0, dt, 0);
        if (pr == pc) run(world, LINCOLL_MATMUL_25D, 0, pr, pc, 1, m, n, k, 0, dt, 0);
        if (P == 8) run(world, LINCOLL_MATMUL_25D, 0, 2, 2, 2, m, n, k, 0, dt, 0);
        run(world, LINCOLL_MATMUL_AUTO, 0, pr, pc, 1, m, n, k, 0, dt, 0);
        /* transposes: ring TT, SUMMA TN (block-cyclic) and NT, Cannon TT */
        run(world, LINCOLL_MATMUL_RING, 0, P, 1, 1, m, n, k, 0, dt, 3);
        run(world, LINCOLL_MATMUL_SUMMA, LINCOLL_MATMUL_BCAST_RING, pr, pc, 1, m, n, k, 8, dt, 1);
        run(world, LINCOLL_MATMUL_SUMMA, LINCOLL_MATMUL_BCAST_TREE, pr, pc, 1, m, n, k, 0, dt, 2);
        if (pr == pc) run(world, LINCOLL_MATMUL_CANNON, 0, pr, pc, 1, m, n, k, 0, dt, 3);
    }
    /* large enough that rendezvous transfers overlap GEMMs that progress the
     * transport from inside (ring and SUMMA DURING steps) */
    run(world, LINCOLL_MATMUL_RING, 0, P, 1, 1, 300, 260, 1200, 0, LINCOLL_DOUBLE, 0);
    run(world, LINCOLL_MATMUL_SUMMA, LINCOLL_MATMUL_BCAST_TREE, pr, pc, 1, 300, 260, 1200, 0,
        LINCOLL_DOUBLE, 2);
    /* the split helpers (real transports only) */
    lincoll_matdesc_t d;
    lincoll_matdesc_block(&d, 10, 10, pr, pc, 1, LINCOLL_COL_MAJOR);
    lincoll_comm_t *row = NULL, *col = NULL;
    lincoll_status_t st = lincoll_matdesc_comms(world, &d, &row, &col, NULL);
    CHECK(st == LINCOLL_OK && row && col && lincoll_comm_size(row) == pc &&
              lincoll_comm_size(col) == pr && lincoll_comm_rank(row) == me % pc,
          "row/column communicators: %s", lincoll_strerror(st));
    if (row) lincoll_comm_free(row);
    if (col) lincoll_comm_free(col);
    lincoll_barrier(world);
    printf("matmul_ucx: rank %d: %d checks passed%s\n", me, checks - failures,
           failures ? " (FAILURES)" : "");
    lincoll_finalize(ctx);
    return failures ? 1 : 0;
}
