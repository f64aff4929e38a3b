/*
 * test/matmul/test_matmul_sim.c: ring, SUMMA (tree and bucket), Cannon and
 * 2.5D on K virtual ranks of the sim transport.
 *
 * For every case: A, B, C are scattered from rank 0 by a scatter plan, the
 * matmul plan runs, C is gathered back by a gather plan and checked against
 * a serial lincoll_gemm_base with the residual bound
 * |C - C_ref| <= 2 (k + 2) eps (|alpha| sum|a||b| + |beta| |c|).
 * The words and messages each rank sends and receives, as *measured* by the
 * sim, must equal each algorithm's closed form (written out independently
 * here, uneven blocks included) and the plan's own stats; the busiest rank
 * never moves fewer words than the Irony-Toledo-Tiskin bound for its memory,
 * and for 2D-memory algorithms never fewer than the seed's
 * n^2/(2 sqrt P) - n^2/P (square case).  test_transposes repeats the checks
 * with op(A) = A^T and/or op(B) = B^T (local blocks stored transposed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lincoll/matmul.h>

#include "common/sim_harness.h"
#include "core/plan/plan.h"

typedef struct {
    int P, pr, pc, c;
    int64_t m, n, k;
    lincoll_matmul_algo_t algo;
    lincoll_matmul_bcast_t bcast;
    int64_t panel;
    int64_t cyc; /* 0: block distribution; else mb = nb = cyc (block-cyclic) */
    lincoll_dtype_t dt;
    lincoll_layout_t layout;
    int pad;    /* lld = tight + pad on every rank */
    int ta, tb; /* local arrays of A / B hold the transpose of their op() block */
} mm_case_t;

static int64_t numroc(int64_t n, int64_t nb, int ip, int isrc, int np)
{
    int d = (np + ip - isrc) % np;
    int64_t nbk = n / nb, r = (nbk / np) * nb, extra = nbk % np;
    if (d < extra)
        r += nb;
    else if (d == extra)
        r += n % nb;
    return r;
}

static int hibit(int v)
{
    int b = -1;
    while (v > 0)
        v >>= 1, b++;
    return b;
}

static int children(int v, int q)
{
    int n = 0;
    for (int t = v == 0 ? 0 : hibit(v) + 1; (1 << t) < q; t++)
        n += v + (1 << t) < q;
    return n;
}

typedef struct {
    uint64_t ws, wr, ms, mr;
} mm_expect_t;

static void add(mm_expect_t *e, int send, int64_t words)
{
    if (words <= 0) return;
    if (send)
        e->ws += (uint64_t)words, e->ms++;
    else
        e->wr += (uint64_t)words, e->mr++;
}

/* Cannon steps t0 .. t0+ns-1 on one layer, rank (i,j), blocks of k of size kl(l) */
static void cannon_expect(mm_expect_t *e, int q, int i, int j, int t0, int ns, int64_t mi,
                          int64_t nj, const int64_t *kl)
{
    int l0 = (i + j + t0) % q;
    if (l0 != j) add(e, 1, mi * kl[j]), add(e, 0, mi * kl[l0]);
    if (l0 != i) add(e, 1, kl[i] * nj), add(e, 0, kl[l0] * nj);
    for (int s = 0; s + 1 < ns; s++) {
        int l = (l0 + s) % q, ln = (l + 1) % q;
        add(e, 1, mi * kl[l]), add(e, 0, mi * kl[ln]);
        add(e, 1, kl[l] * nj), add(e, 0, kl[ln] * nj);
    }
}

/* The closed form of each algorithm for rank r. */
static mm_expect_t expect(const mm_case_t *t, const lincoll_matdesc_t *da,
                          const lincoll_matdesc_t *db, const lincoll_matdesc_t *dc, int r,
                          lincoll_matmul_bcast_t bcast, int64_t panel)
{
    mm_expect_t e = {0, 0, 0, 0};
    const int pr = dc->pr, pc = dc->pc;
    const int i = (r / pc) % pr, j = r % pc, l = r / (pr * pc);
    const int64_t mi = numroc(t->m, dc->mb, i, 0, pr), nj = numroc(t->n, dc->nb, j, 0, pc);
    switch (t->algo) {
    case LINCOLL_MATMUL_RING: {
        const int P = t->P;
        for (int L = 0; L + 1 < P; L++) {
            add(&e, 1, t->n * numroc(t->k, db->mb, (r + L) % P, 0, P));
            add(&e, 0, t->n * numroc(t->k, db->mb, (r + L + 1) % P, 0, P));
        }
        break;
    }
    case LINCOLL_MATMUL_SUMMA: {
        /* uniform panels only (messages); words hold for any panel cut */
        for (int o = 0; o < pc && pc > 1; o++) {
            int64_t ko = numroc(t->k, da->nb, o, 0, pc);
            int v = (j - o + pc) % pc;
            int nsend = bcast == LINCOLL_MATMUL_BCAST_TREE ? children(v, pc) : v + 1 < pc;
            for (int64_t x = 0; x < ko; x += panel) {
                int64_t w = ko - x < panel ? ko - x : panel;
                for (int y = 0; y < nsend; y++)
                    add(&e, 1, mi * w);
                if (v != 0) add(&e, 0, mi * w);
            }
        }
        for (int o = 0; o < pr && pr > 1; o++) {
            int64_t ko = numroc(t->k, db->mb, o, 0, pr);
            int v = (i - o + pr) % pr;
            int nsend = bcast == LINCOLL_MATMUL_BCAST_TREE ? children(v, pr) : v + 1 < pr;
            for (int64_t x = 0; x < ko; x += panel) {
                int64_t w = ko - x < panel ? ko - x : panel;
                for (int y = 0; y < nsend; y++)
                    add(&e, 1, w * nj);
                if (v != 0) add(&e, 0, w * nj);
            }
        }
        break;
    }
    case LINCOLL_MATMUL_CANNON:
    case LINCOLL_MATMUL_25D: {
        const int q = pr, c = dc->layers;
        int64_t kl[64];
        for (int x = 0; x < q; x++)
            kl[x] = numroc(t->k, da->nb, x, 0, q);
        int64_t asz = mi * kl[j], bsz = kl[i] * nj, csz = mi * nj;
        if (c > 1) {
            if (l > 0) add(&e, 0, asz), add(&e, 0, bsz);
            for (int y = 0; y < children(l, c); y++)
                add(&e, 1, asz), add(&e, 1, bsz);
        }
        cannon_expect(&e, q, i, j, l * q / c, (l + 1) * q / c - l * q / c, mi, nj, kl);
        for (int tt = 0; (1 << tt) < c; tt++) {
            if (l % (1 << (tt + 1)) == (1 << tt)) {
                add(&e, 1, csz);
                break;
            }
            if (l + (1 << tt) < c) add(&e, 0, csz);
        }
        break;
    }
    default:
        break;
    }
    return e;
}

static double urand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
}

static void fill(void *p, size_t n, lincoll_dtype_t dt, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        double v = urand(&seed);
        if (dt == LINCOLL_FLOAT)
            ((float *)p)[i] = (float)v;
        else
            ((double *)p)[i] = v;
    }
}

static double get(const void *p, size_t i, lincoll_dtype_t dt)
{
    return dt == LINCOLL_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
}

static void run_plans(lc_simh_t *h, lincoll_plan_t **plans)
{
    assert_int_equal(lc_simh_run(h, plans), LINCOLL_OK);
    for (int r = 0; r < h->K; r++)
        lincoll_plan_free(plans[r]), plans[r] = NULL;
}

static void desc_of(const mm_case_t *t, lincoll_matdesc_t *d, int64_t m, int64_t n)
{
    if (t->cyc > 0) {
        assert_int_equal(
            lincoll_matdesc_init(d, m, n, t->cyc, t->cyc, t->pr, t->pc, t->c, t->layout),
            LINCOLL_OK);
    } else {
        assert_int_equal(lincoll_matdesc_block(d, m, n, t->pr, t->pc, t->c, t->layout), LINCOLL_OK);
    }
    if (t->algo == LINCOLL_MATMUL_RING) { /* P x 1: the whole k or n stays local */
        d->nb = n > 0 ? n : 1;
    }
}

static int verbose_cases;

/* a rows x cols local array (ld) -> its transpose, cols x rows with leading dimension ldt */
static void *transpose_local(const void *src, int64_t rows, int64_t cols, int64_t ld, int64_t ldt,
                             int rowm, size_t es)
{
    size_t sz =
        rows && cols ? (size_t)(((rowm ? cols : rows) - 1) * ldt + (rowm ? rows : cols)) : 0;
    char *d = calloc(sz + 1, es);
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t j = 0; j < cols; j++) {
            int64_t s = rowm ? i * ld + j : j * ld + i;   /* (i, j) of the block */
            int64_t t = rowm ? j * ldt + i : i * ldt + j; /* (j, i) of the transpose */
            memcpy(d + (size_t)t * es, (const char *)src + (size_t)s * es, es);
        }
    }
    return d;
}

static void run_case(const mm_case_t *t)
{
    const int P = t->P;
    const size_t es = lincoll_dtype_size(t->dt);
    const double alpha = 1.5, beta = -0.5;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    lincoll_matdesc_t da, db, dc;
    desc_of(t, &da, t->m, t->k);
    desc_of(t, &db, t->k, t->n);
    desc_of(t, &dc, t->m, t->n);
    if (t->pad)
        da.lld = db.lld = dc.lld =
            (t->layout == LINCOLL_ROW_MAJOR ? t->k + t->n : t->m + t->k) + t->pad;
    /* global matrices on rank 0, in the descriptor layout, tight */
    int rowm = t->layout == LINCOLL_ROW_MAJOR;
    int64_t lda = rowm ? t->k : t->m, ldb = rowm ? t->n : t->k, ldc = rowm ? t->n : t->m;
    if (lda < 1) lda = 1;
    if (ldb < 1) ldb = 1;
    if (ldc < 1) ldc = 1;
    size_t na = (size_t)(t->m * t->k), nbn = (size_t)(t->k * t->n), nc = (size_t)(t->m * t->n);
    void *GA = malloc(na * es + es), *GB = malloc(nbn * es + es), *GC = malloc(nc * es + es);
    void *REF = malloc(nc * es + es), *OUT = malloc(nc * es + es);
    fill(GA, na, t->dt, 1 + (uint64_t)t->m);
    fill(GB, nbn, t->dt, 2 + (uint64_t)t->n);
    fill(GC, nc, t->dt, 3 + (uint64_t)t->k);
    memcpy(REF, GC, nc * es);
    assert_int_equal(lincoll_gemm_base(t->layout, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, t->m, t->n,
                                       t->k, t->dt, alpha, GA, lda, GB, ldb, beta, REF, ldc),
                     LINCOLL_OK);
    void **LA = calloc((size_t)P, sizeof(void *)), **LB = calloc((size_t)P, sizeof(void *));
    void **LC = calloc((size_t)P, sizeof(void *));
    lincoll_plan_t **plans = calloc((size_t)P, sizeof(*plans));
    const lincoll_matdesc_t *ds[3] = {&da, &db, &dc};
    void **locs[3] = {LA, LB, LC};
    void *globs[3] = {GA, GB, GC};
    int64_t lds[3] = {lda, ldb, ldc};
    for (int x = 0; x < 3; x++) {
        for (int r = 0; r < P; r++) {
            int64_t rows, cols, ld;
            assert_int_equal(lincoll_matdesc_local(ds[x], r, &rows, &cols, &ld), LINCOLL_OK);
            size_t sz =
                rows && cols ? (size_t)(((rowm ? rows : cols) - 1) * ld + (rowm ? cols : rows)) : 0;
            locs[x][r] = calloc(sz + 1, es);
            assert_int_equal(lincoll_matrix_scatter_init(h.comm[r], 0, r == 0 ? globs[x] : NULL,
                                                         lds[x], t->dt, ds[x], locs[x][r],
                                                         &plans[r]),
                             LINCOLL_OK);
        }
        run_plans(&h, plans);
    }
    /* transposed operands: each rank keeps the transpose of its op() block */
    for (int x = 0; x < 2; x++) {
        if (!(x == 0 ? t->ta : t->tb)) continue;
        for (int r = 0; r < P; r++) {
            int64_t rows, cols, ld;
            assert_int_equal(lincoll_matdesc_local(ds[x], r, &rows, &cols, &ld), LINCOLL_OK);
            int64_t ldt = ds[x]->lld > 0 ? ds[x]->lld : (rowm ? rows : cols);
            void *tr = transpose_local(locs[x][r], rows, cols, ld, ldt > 1 ? ldt : 1, rowm, es);
            free(locs[x][r]);
            locs[x][r] = tr;
        }
    }
    lincoll_matmul_opts_t opts = {.algo = t->algo,
                                  .bcast = t->bcast,
                                  .panel = t->panel,
                                  .transa = t->ta ? LINCOLL_TRANS : LINCOLL_NO_TRANS,
                                  .transb = t->tb ? LINCOLL_TRANS : LINCOLL_NO_TRANS};
    for (int r = 0; r < P; r++) {
        assert_int_equal(lincoll_matmul_init(h.comm[r], t->dt, alpha, LA[r], &da, LB[r], &db, beta,
                                             LC[r], &dc, &opts, &plans[r]),
                         LINCOLL_OK);
    }
    if (verbose_cases)
        printf("case %s P=%d %dx%dx%d m=%lld n=%lld k=%lld cyc=%lld s=%lld bc=%d\n",
               lincoll_matmul_algo_name(t->algo), P, t->pr, t->pc, t->c, (long long)t->m,
               (long long)t->n, (long long)t->k, (long long)t->cyc, (long long)t->panel,
               (int)t->bcast);
    lincoll_matmul_info_t info0;
    assert_int_equal(lincoll_matmul_info(plans[0], &info0), LINCOLL_OK);
    assert_int_equal(info0.algo, t->algo);
    lc_sim_world_reset_stats(h.world);
    if (getenv("MM_DUMP") && atoi(getenv("MM_DUMP")) == P && t->pr == 1 &&
        t->bcast == LINCOLL_MATMUL_BCAST_TREE) {
        static char dump[1 << 20];
        for (int r = 0; r < P; r++) {
            char fn[64];
            snprintf(fn, sizeof(fn), "/tmp/mmdump%d.txt", r);
            FILE *f = fopen(fn, "w");
            lincoll_plan_dump(plans[r], dump, sizeof(dump));
            fputs(dump, f);
            fclose(f);
        }
    }
    assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
    /* measured words and messages == closed form == plan stats */
    uint64_t maxw = 0, maxmem = 0;
    for (int r = 0; r < P; r++) {
        uint64_t ms, bs, mr, br;
        lc_sim_world_rank_stats(h.world, r, &ms, &bs, &mr, &br);
        lincoll_matmul_info_t in;
        assert_int_equal(lincoll_matmul_info(plans[r], &in), LINCOLL_OK);
        mm_expect_t e = expect(t, &da, &db, &dc, r, in.bcast, in.panel);
        if (verbose_cases && r == P - 1)
            printf("  %-6s P=%-3d %dx%dx%d m=%lld n=%lld k=%lld s=%lld %s: rank %d words sent "
                   "%llu (formula %llu) recvd %llu (%llu) msgs %llu/%llu\n",
                   lincoll_matmul_algo_name(t->algo), P, dc.pr, dc.pc, dc.layers, (long long)t->m,
                   (long long)t->n, (long long)t->k, (long long)in.panel,
                   t->algo == LINCOLL_MATMUL_SUMMA
                       ? (in.bcast == LINCOLL_MATMUL_BCAST_TREE ? "tree" : "ring")
                       : "",
                   r, (unsigned long long)(bs / es), (unsigned long long)e.ws,
                   (unsigned long long)(br / es), (unsigned long long)e.wr, (unsigned long long)ms,
                   (unsigned long long)mr);
        assert_int_equal(bs / es, e.ws);
        assert_int_equal(br / es, e.wr);
        assert_int_equal(bs % es, 0);
        assert_int_equal(in.words_sent, e.ws);
        assert_int_equal(in.words_recvd, e.wr);
        int uniform = t->algo != LINCOLL_MATMUL_SUMMA ||
                      (t->cyc == 0 && (t->pr == 1 || t->pc == 1 || t->pr == t->pc));
        if (uniform) {
            assert_int_equal(ms, e.ms);
            assert_int_equal(mr, e.mr);
        }
        assert_int_equal(ms, in.msgs_sent);
        assert_int_equal(mr, in.msgs_recvd);
        if (bs / es + br / es > maxw) maxw = bs / es + br / es;
        if (in.memory_bytes > maxmem) maxmem = in.memory_bytes;
    }
    /* the lower bounds are never beaten */
    double M = (double)maxmem / (double)es, vol = (double)t->m * t->n * t->k;
    double itt = vol / (2.0 * sqrt(2.0) * P * sqrt(M)) - M;
    assert_true((double)maxw >= itt);
    if (t->c == 1 && t->m == t->n && t->n == t->k && P > 1) {
        double n2 = (double)t->n * t->n, seed = n2 / (2.0 * sqrt((double)P)) - n2 / P;
        assert_true((double)maxw >= seed);
    }
    for (int r = 0; r < P; r++)
        lincoll_plan_free(plans[r]), plans[r] = NULL;
    /* gather C and check the residual */
    memset(OUT, 0, nc * es);
    for (int r = 0; r < P; r++) {
        assert_int_equal(lincoll_matrix_gather_init(h.comm[r], 0, r == 0 ? OUT : NULL, ldc, t->dt,
                                                    &dc, LC[r], &plans[r]),
                         LINCOLL_OK);
    }
    run_plans(&h, plans);
    double eps = t->dt == LINCOLL_FLOAT ? FLT_EPSILON : DBL_EPSILON;
    double bound = 2.0 * (double)(t->k + 2) * eps * (fabs(alpha) * (double)t->k + fabs(beta));
    size_t bad = 0;
    for (size_t x = 0; x < nc; x++)
        bad += !(fabs(get(OUT, x, t->dt) - get(REF, x, t->dt)) <= bound);
    if (bad) {
        fprintf(stderr,
                "case %s P=%d %dx%dx%d m=%lld n=%lld k=%lld cyc=%lld layout=%d: %zu wrong\n",
                lincoll_matmul_algo_name(t->algo), P, t->pr, t->pc, t->c, (long long)t->m,
                (long long)t->n, (long long)t->k, (long long)t->cyc, (int)t->layout, bad);
    }
    assert_int_equal(bad, 0);
    for (int r = 0; r < P; r++)
        free(LA[r]), free(LB[r]), free(LC[r]);
    free(LA), free(LB), free(LC), free(plans);
    free(GA), free(GB), free(GC), free(REF), free(OUT);
    lc_simh_destroy(&h);
}

static const int Ps[] = {1, 2, 3, 4, 6, 8, 9, 12, 16, 64};
static const int64_t shapes[][3] = {{24, 24, 24}, {37, 29, 41}, {16, 40, 9}};

static void near_square(int P, int *pr, int *pc)
{
    int r = 1;
    for (int x = 1; x * x <= P; x++)
        if (P % x == 0) r = x;
    *pr = r, *pc = P / r;
}

static void test_ring(void **state)
{
    (void)state;
    for (unsigned pi = 0; pi < sizeof(Ps) / sizeof(Ps[0]); pi++) {
        for (unsigned s = 0; s < 3; s++) {
            mm_case_t t = {.P = Ps[pi],
                           .pr = Ps[pi],
                           .pc = 1,
                           .c = 1,
                           .m = shapes[s][0],
                           .n = shapes[s][1],
                           .k = shapes[s][2],
                           .algo = LINCOLL_MATMUL_RING,
                           .dt = s == 1 ? LINCOLL_FLOAT : LINCOLL_DOUBLE,
                           .layout = s == 2 ? LINCOLL_ROW_MAJOR : LINCOLL_COL_MAJOR,
                           .cyc = s == 1 ? 3 : 0,
                           .pad = s == 0 ? 3 : 0};
            if (t.cyc) t.pc = 1;
            run_case(&t);
        }
    }
}

static void test_summa(void **state)
{
    (void)state;
    for (unsigned pi = 0; pi < sizeof(Ps) / sizeof(Ps[0]); pi++) {
        int pr, pc;
        near_square(Ps[pi], &pr, &pc);
        for (unsigned s = 0; s < 3; s++) {
            for (int bc = LINCOLL_MATMUL_BCAST_TREE; bc <= LINCOLL_MATMUL_BCAST_RING; bc++) {
                mm_case_t t = {.P = Ps[pi],
                               .pr = s == 2 ? pc : pr,
                               .pc = s == 2 ? pr : pc,
                               .c = 1,
                               .m = shapes[s][0],
                               .n = shapes[s][1],
                               .k = shapes[s][2],
                               .algo = LINCOLL_MATMUL_SUMMA,
                               .bcast = (lincoll_matmul_bcast_t)bc,
                               .panel = s == 0 ? 4 : (s == 1 ? 3 : 0),
                               .dt =
                                   bc == LINCOLL_MATMUL_BCAST_TREE ? LINCOLL_DOUBLE : LINCOLL_FLOAT,
                               .layout = s == 1 ? LINCOLL_ROW_MAJOR : LINCOLL_COL_MAJOR,
                               .cyc = s == 1 ? 5 : 0,
                               .pad = s == 2 ? 2 : 0};
                run_case(&t);
            }
        }
        /* 1D grids: P x 1 and 1 x P */
        mm_case_t t1 = {.P = Ps[pi],
                        .pr = Ps[pi],
                        .pc = 1,
                        .c = 1,
                        .m = 30,
                        .n = 20,
                        .k = 33,
                        .algo = LINCOLL_MATMUL_SUMMA,
                        .bcast = LINCOLL_MATMUL_BCAST_RING,
                        .panel = 5,
                        .dt = LINCOLL_DOUBLE,
                        .layout = LINCOLL_COL_MAJOR};
        run_case(&t1);
        t1.pr = 1, t1.pc = Ps[pi], t1.bcast = LINCOLL_MATMUL_BCAST_TREE;
        run_case(&t1);
    }
}

static void test_cannon(void **state)
{
    (void)state;
    const int qs[] = {1, 2, 3, 4, 8};
    for (unsigned x = 0; x < sizeof(qs) / sizeof(qs[0]); x++) {
        for (unsigned s = 0; s < 3; s++) {
            int q = qs[x];
            mm_case_t t = {.P = q * q,
                           .pr = q,
                           .pc = q,
                           .c = 1,
                           .m = shapes[s][0],
                           .n = shapes[s][1],
                           .k = shapes[s][2],
                           .algo = LINCOLL_MATMUL_CANNON,
                           .dt = s == 1 ? LINCOLL_FLOAT : LINCOLL_DOUBLE,
                           .layout = s == 2 ? LINCOLL_ROW_MAJOR : LINCOLL_COL_MAJOR,
                           .pad = s == 1 ? 4 : 0};
            run_case(&t);
        }
    }
}

static void test_25d(void **state)
{
    (void)state;
    const int qc[][2] = {{1, 1}, {2, 1}, {2, 2}, {3, 2}, {3, 3}, {4, 2}, {4, 4}};
    for (unsigned x = 0; x < sizeof(qc) / sizeof(qc[0]); x++) {
        for (unsigned s = 0; s < 2; s++) {
            int q = qc[x][0], c = qc[x][1];
            mm_case_t t = {.P = q * q * c,
                           .pr = q,
                           .pc = q,
                           .c = c,
                           .m = shapes[s][0],
                           .n = shapes[s][1],
                           .k = shapes[s][2],
                           .algo = LINCOLL_MATMUL_25D,
                           .dt = s == 1 ? LINCOLL_FLOAT : LINCOLL_DOUBLE,
                           .layout = s == 1 ? LINCOLL_ROW_MAJOR : LINCOLL_COL_MAJOR,
                           .pad = s == 1 ? 2 : 0};
            run_case(&t);
        }
    }
}

/* 2.5D: replicated layers cut the words of the busiest rank.  At P = 4096,
 * n = 1024, c = 4 layers of 32 x 32 move ~1.7x fewer words than Cannon on
 * 64 x 64 (plans only: lincoll_matmul_init is local, nothing runs). */
static void test_25d_words_fall(void **state)
{
    (void)state;
    const int P = 4096;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    double *buf = calloc(3 * 32 * 32, sizeof(double));
    uint64_t best[2] = {0, 0};
    for (int x = 0; x < 2; x++) {
        int c = x == 0 ? 1 : 4, q = x == 0 ? 64 : 32;
        lincoll_matdesc_t d;
        assert_int_equal(lincoll_matdesc_block(&d, 1024, 1024, q, q, c, LINCOLL_COL_MAJOR),
                         LINCOLL_OK);
        lincoll_matmul_opts_t o = {.algo = LINCOLL_MATMUL_25D, .flags = LINCOLL_MATMUL_COMM_ONLY};
        const int ranks[] = {0, 1, q + 1, q * q - 1, P - 1};
        for (int y = 0; y < 5; y++) {
            int r = ranks[y];
            lincoll_plan_t *p;
            int on0 = r < q * q;
            assert_int_equal(lincoll_matmul_init(h.comm[r], LINCOLL_DOUBLE, 1, on0 ? buf : NULL, &d,
                                                 on0 ? buf + 1024 : NULL, &d, 0,
                                                 on0 ? buf + 2048 : NULL, &d, &o, &p),
                             LINCOLL_OK);
            lincoll_matmul_info_t in;
            assert_int_equal(lincoll_matmul_info(p, &in), LINCOLL_OK);
            uint64_t w = in.words_sent + in.words_recvd;
            if (w > best[x]) best[x] = w;
            lincoll_plan_free(p);
        }
        printf("  25d P=4096 n=1024 c=%d: busiest rank moves %llu words (n^2/sqrt(cP) = %.0f)\n", c,
               (unsigned long long)best[x], 1024.0 * 1024 / sqrt(c * 4096.0));
    }
    assert_true((double)best[1] * 1.5 < (double)best[0]);
    free(buf);
    lc_simh_destroy(&h);
}

/* op(A) op(B) with transposed local blocks: every algorithm, NT, TN and TT,
 * uneven and block-cyclic shapes, both layouts; words and messages are the
 * same closed forms as without transposes */
static void test_transposes(void **state)
{
    (void)state;
    const struct {
        lincoll_matmul_algo_t algo;
        int P, pr, pc, c;
        int64_t cyc;
    } g[] = {
        {LINCOLL_MATMUL_RING, 1, 1, 1, 1, 0},   {LINCOLL_MATMUL_RING, 3, 3, 1, 1, 0},
        {LINCOLL_MATMUL_RING, 4, 4, 1, 1, 3},   {LINCOLL_MATMUL_SUMMA, 2, 1, 2, 1, 0},
        {LINCOLL_MATMUL_SUMMA, 6, 2, 3, 1, 5},  {LINCOLL_MATMUL_SUMMA, 4, 2, 2, 1, 0},
        {LINCOLL_MATMUL_CANNON, 4, 2, 2, 1, 0}, {LINCOLL_MATMUL_CANNON, 9, 3, 3, 1, 0},
        {LINCOLL_MATMUL_25D, 8, 2, 2, 2, 0},
    };
    for (unsigned x = 0; x < sizeof(g) / sizeof(g[0]); x++) {
        for (int tt = 1; tt < 4; tt++) {
            for (unsigned s = 0; s < 3; s++) {
                mm_case_t t = {.P = g[x].P,
                               .pr = g[x].pr,
                               .pc = g[x].pc,
                               .c = g[x].c,
                               .m = shapes[s][0],
                               .n = shapes[s][1],
                               .k = shapes[s][2],
                               .algo = g[x].algo,
                               .bcast =
                                   s == 1 ? LINCOLL_MATMUL_BCAST_RING : LINCOLL_MATMUL_BCAST_TREE,
                               .panel = s == 0 ? 4 : 0,
                               .cyc = g[x].cyc,
                               .dt = s == 1 ? LINCOLL_FLOAT : LINCOLL_DOUBLE,
                               .layout = s == 2 ? LINCOLL_ROW_MAJOR : LINCOLL_COL_MAJOR,
                               .pad = s == 0 ? 3 : 0,
                               .ta = tt & 1,
                               .tb = (tt >> 1) & 1};
                run_case(&t);
            }
        }
    }
}

/* GEMMs that overlap transfers sit in their round's DURING list: ring and
 * Cannon multiply while shifting (the last block after its round), SUMMA
 * multiplies panel t during panel t+1's round.  (LC_STEP_DURING steps were
 * once filed under POST, which silently removed every overlap.) */
static void count_gemms(lincoll_plan_t *plan, unsigned *during, unsigned *post,
                        unsigned *during_xfer)
{
    const lc_plan_t *p = lc_plan_of(plan);
    *during = *post = *during_xfer = 0;
    for (unsigned r = 0; r < p->nrounds; r++) {
        const lc_round_t *R = &p->rounds[r];
        for (unsigned i = 0; i < R->nduring; i++) {
            if (R->during[i].kind != LC_STEP_GEMM) continue;
            (*during)++;
            *during_xfer += R->nxfers > 0;
        }
        for (unsigned i = 0; i < R->npost; i++)
            *post += R->post[i].kind == LC_STEP_GEMM;
    }
}

static void test_overlap_structure(void **state)
{
    (void)state;
    const struct {
        lincoll_matmul_algo_t algo;
        int P, pr, pc;
        unsigned during, post; /* GEMM steps of rank 0 */
    } g[] = {
        {LINCOLL_MATMUL_RING, 3, 3, 1, 2, 1},   /* 3 blocks: 2 during the shifts, the last after */
        {LINCOLL_MATMUL_SUMMA, 2, 1, 2, 5, 1},  /* k = 24, panels of 4: 6 GEMMs */
        {LINCOLL_MATMUL_CANNON, 4, 2, 2, 1, 1}, /* q = 2: one during the shift, one after */
    };
    static double buf[3][24 * 24];
    for (unsigned x = 0; x < sizeof(g) / sizeof(g[0]); x++) {
        lc_simh_t h;
        assert_int_equal(lc_simh_create(&h, g[x].P, 1), 0);
        lincoll_matdesc_t d;
        assert_int_equal(lincoll_matdesc_block(&d, 24, 24, g[x].pr, g[x].pc, 1, LINCOLL_COL_MAJOR),
                         LINCOLL_OK);
        lincoll_matmul_opts_t o = {
            .algo = g[x].algo, .panel = 4, .bcast = LINCOLL_MATMUL_BCAST_TREE};
        lincoll_plan_t *p;
        assert_int_equal(lincoll_matmul_init(h.comm[0], LINCOLL_DOUBLE, 1, buf[0], &d, buf[1], &d,
                                             0, buf[2], &d, &o, &p),
                         LINCOLL_OK);
        unsigned during, post, during_xfer;
        count_gemms(p, &during, &post, &during_xfer);
        assert_int_equal(during, g[x].during);
        assert_int_equal(post, g[x].post);
        assert_int_equal(during_xfer, during); /* each one overlaps transfers */
        lincoll_plan_free(p);
        lc_simh_destroy(&h);
    }
}

static void test_p256(void **state)
{
    (void)state;
    mm_case_t t = {.P = 256,
                   .pr = 16,
                   .pc = 16,
                   .c = 1,
                   .m = 64,
                   .n = 64,
                   .k = 64,
                   .algo = LINCOLL_MATMUL_CANNON,
                   .dt = LINCOLL_DOUBLE,
                   .layout = LINCOLL_COL_MAJOR};
    run_case(&t);
    t.algo = LINCOLL_MATMUL_SUMMA, t.bcast = LINCOLL_MATMUL_BCAST_TREE, t.panel = 2;
    run_case(&t);
    t.bcast = LINCOLL_MATMUL_BCAST_RING;
    run_case(&t);
}

int main(void)
{
    verbose_cases = getenv("MM_VERBOSE") != NULL;
    setvbuf(stdout, NULL, _IONBF, 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring),           cmocka_unit_test(test_summa),
        cmocka_unit_test(test_cannon),         cmocka_unit_test(test_25d),
        cmocka_unit_test(test_25d_words_fall), cmocka_unit_test(test_p256),
        cmocka_unit_test(test_transposes),     cmocka_unit_test(test_overlap_structure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
