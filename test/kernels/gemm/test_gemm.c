/*
 * test/kernels/gemm/test_gemm.c: GEMM kernels against the residual oracle.
 *
 * Every micro-kernel the CPU supports (base, avx2, avx512) runs through the
 * blocked driver over a size grid that hits every edge case (0, 1, MR +- 1,
 * NR +- 1, ...), all four transposes, both layouts, padded leading
 * dimensions and several (alpha, beta).  A second pass shrinks MC/KC/NC so
 * that moderately sized problems cross every cache-block boundary.  Each
 * result is checked with the residual method (BLIS test_gemm_ukr.c):
 *
 *     r = C t - (beta C0 t + alpha op(A) (op(B) t)),   t random,
 *     |r_i| <= 4 (k + 3) u (|alpha| (|A| |B| |t|)_i + |beta| (|C0| |t|)_i).
 *
 * Padding of A, B and C holds NaN or guard values: reading padding poisons
 * the residual, writing it fails the guard check.  beta == 0 runs on a C full
 * of NaN (C must not be read).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gemm/gemm_kernels.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double rnd(void) /* uniform in [-1, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

typedef struct mat {
    void *p;
    int64_t rows, cols, ld; /* as stored, in the layout's sense: ld >= rows (col) / cols (row) */
    size_t total;           /* elements allocated */
} mat_t;

static int g_row_major;
static lincoll_dtype_t g_dt;

static size_t esz(void)
{
    return g_dt == LINCOLL_DOUBLE ? 8 : 4;
}

static size_t idx(const mat_t *x, int64_t i, int64_t j)
{
    return g_row_major ? (size_t)(i * x->ld + j) : (size_t)(i + j * x->ld);
}

static double get(const mat_t *x, int64_t i, int64_t j)
{
    size_t o = idx(x, i, j);
    return g_dt == LINCOLL_DOUBLE ? ((double *)x->p)[o] : ((float *)x->p)[o];
}

static void set_raw(const mat_t *x, size_t o, double v)
{
    if (g_dt == LINCOLL_DOUBLE) {
        ((double *)x->p)[o] = v;
    } else {
        ((float *)x->p)[o] = (float)v;
    }
}

/* Allocate rows x cols with leading-dimension padding `pad`; fill with random values
 * and the padding with `padval`. */
static mat_t mat_new(int64_t rows, int64_t cols, int64_t pad, double padval)
{
    mat_t x = {NULL, rows, cols, 0, 0};
    int64_t inner = g_row_major ? cols : rows, outer = g_row_major ? rows : cols;
    x.ld = (inner > 1 ? inner : 1) + pad;
    x.total = (size_t)(x.ld * (outer > 0 ? outer : 1));
    x.p = malloc(x.total * esz() + 64);
    assert_non_null(x.p);
    for (size_t o = 0; o < x.total; o++)
        set_raw(&x, o, padval);
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t j = 0; j < cols; j++)
            set_raw(&x, idx(&x, i, j), rnd());
    }
    return x;
}

/* op(X)(i, j) */
static double getop(const mat_t *x, int trans, int64_t i, int64_t j)
{
    return trans ? get(x, j, i) : get(x, i, j);
}

static int g_checks;

/* Residual check of C against beta*C0 + alpha*op(A)*op(B); also checks C's padding. */
static void check_residual(const mat_t *a, int ta, const mat_t *b, int tb, const mat_t *c0,
                           const mat_t *c, int64_t m, int64_t n, int64_t k, double alpha,
                           double beta, const char *what)
{
    double u = g_dt == LINCOLL_DOUBLE ? 0x1p-53 : 0x1p-24;
    double *t = malloc(sizeof(double) * (size_t)(n + 1));
    double *bt = malloc(sizeof(double) * (size_t)(k + 1)), *bta = malloc(sizeof(double) * (k + 1));
    assert_non_null(t);
    assert_non_null(bt);
    assert_non_null(bta);
    for (int64_t j = 0; j < n; j++)
        t[j] = rnd();
    for (int64_t p = 0; p < k; p++) {
        long double s = 0, sa = 0;
        for (int64_t j = 0; j < n; j++) {
            s += (long double)getop(b, tb, p, j) * t[j];
            sa += fabsl((long double)getop(b, tb, p, j) * t[j]);
        }
        bt[p] = (double)s;
        bta[p] = (double)sa;
    }
    for (int64_t i = 0; i < m; i++) {
        long double ct = 0, ref = 0, mag = 0;
        for (int64_t j = 0; j < n; j++) {
            double cij = get(c, i, j);
            ct += (long double)cij * t[j];
            if (beta != 0) {
                ref += (long double)beta * get(c0, i, j) * t[j];
                mag += fabsl((long double)beta * get(c0, i, j) * t[j]);
            }
        }
        long double ab = 0, aba = 0;
        for (int64_t p = 0; p < k; p++) {
            ab += (long double)getop(a, ta, i, p) * bt[p];
            aba += fabsl((long double)getop(a, ta, i, p)) * bta[p];
        }
        ref += (long double)alpha * ab;
        mag += fabsl((long double)alpha) * aba;
        double r = (double)fabsl(ct - ref);
        double bound = 4.0 * (double)(k + 3) * u * (double)mag + 1e-300;
        if (!(r <= bound)) {
            fail_msg("%s: row %lld residual %g > bound %g (m=%lld n=%lld k=%lld alpha=%g "
                     "beta=%g)",
                     what, (long long)i, r, bound, (long long)m, (long long)n, (long long)k, alpha,
                     beta);
        }
    }
    /* Padding of C untouched. */
    int64_t inner = g_row_major ? n : m, outer = g_row_major ? m : n;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t q = inner; q < c->ld; q++) {
            size_t off = (size_t)(o * c->ld + q);
            double v = g_dt == LINCOLL_DOUBLE ? ((double *)c->p)[off] : ((float *)c->p)[off];
            if (v != 777.0) fail_msg("%s: C padding overwritten at %zu", what, off);
        }
    }
    g_checks++;
    free(t);
    free(bt);
    free(bta);
}

/* One call of kernel kr (NULL: lincoll_gemm_base) on fresh random data, checked. */
static void run_one(const lc_gemm_kernel_t *kr, int threads, int ta, int tb, int64_t m, int64_t n,
                    int64_t k, double alpha, double beta, int pad)
{
    int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    mat_t a = mat_new(ar, ac, pad, NAN);
    mat_t b = mat_new(br, bc, pad, NAN);
    mat_t c = mat_new(m, n, pad, 777.0);
    mat_t c0 = mat_new(m, n, pad, 777.0);
    if (beta == 0) { /* C must not be read */
        for (int64_t i = 0; i < m; i++) {
            for (int64_t j = 0; j < n; j++)
                set_raw(&c, idx(&c, i, j), NAN);
        }
    }
    memcpy(c0.p, c.p, c.total * esz());
    lincoll_layout_t lay = g_row_major ? LINCOLL_ROW_MAJOR : LINCOLL_COL_MAJOR;
    lincoll_trans_t lta = ta ? LINCOLL_TRANS : LINCOLL_NO_TRANS;
    lincoll_trans_t ltb = tb ? LINCOLL_TRANS : LINCOLL_NO_TRANS;
    lincoll_status_t st;
    char what[128];
    if (kr != NULL) {
        st = lc_gemm_with(kr, threads, lay, lta, ltb, m, n, k, alpha, a.p, a.ld, b.p, b.ld, beta,
                          c.p, c.ld);
        snprintf(what, sizeof(what), "%s mc=%d kc=%d nc=%d %s %c%c thr=%d", kr->name, kr->mc,
                 kr->kc, kr->nc, g_row_major ? "row" : "col", ta ? 'T' : 'N', tb ? 'T' : 'N',
                 threads);
    } else {
        st = lincoll_gemm_base(lay, lta, ltb, m, n, k, g_dt, alpha, a.p, a.ld, b.p, b.ld, beta, c.p,
                               c.ld);
        snprintf(what, sizeof(what), "gemm_base %s %c%c", g_row_major ? "row" : "col",
                 ta ? 'T' : 'N', tb ? 'T' : 'N');
    }
    assert_int_equal(st, LINCOLL_OK);
    check_residual(&a, ta, &b, tb, &c0, &c, m, n, k, alpha, beta, what);
    free(a.p);
    free(b.p);
    free(c.p);
    free(c0.p);
}

static const double ab_pairs[][2] = {{1.0, 0.0}, {1.0, 1.0}, {-0.75, 2.5}, {0.0, 0.5}};

/* Edge grid with the registered block sizes: sizes around MR and NR. */
static void grid_edges(const lc_gemm_kernel_t *kr)
{
    const int64_t mr = kr->mr, nr = kr->nr;
    const int64_t ms[] = {0, 1, 2, mr - 1, mr, mr + 1, 2 * mr + 3};
    const int64_t ns[] = {0, 1, 3, nr - 1, nr, nr + 1, 2 * nr + 5};
    const int64_t ks[] = {0, 1, 2, 7, 33};
    int sel = 0;
    for (int lay = 0; lay < 2; lay++) {
        g_row_major = lay;
        for (int tr = 0; tr < 4; tr++) {
            for (size_t im = 0; im < sizeof(ms) / sizeof(ms[0]); im++) {
                for (size_t in = 0; in < sizeof(ns) / sizeof(ns[0]); in++) {
                    for (size_t ik = 0; ik < sizeof(ks) / sizeof(ks[0]); ik++) {
                        const double *ab = ab_pairs[sel++ % 4];
                        run_one(kr, 1, tr >> 1, tr & 1, ms[im], ns[in], ks[ik], ab[0], ab[1],
                                (int)(sel % 3));
                    }
                }
            }
        }
    }
}

/* Tiny cache blocks: every mc/kc/nc boundary is crossed several times. */
static void grid_blocks(const lc_gemm_kernel_t *kr)
{
    lc_gemm_kernel_t small = *kr;
    small.mc = 2 * kr->mr;
    small.kc = 5;
    small.nc = 2 * kr->nr;
    const int64_t shapes[][3] = {{5 * kr->mr + 3, 3 * kr->nr + 1, 23},
                                 {2 * kr->mr, 4 * kr->nr, 10},
                                 {97, 13, 31},
                                 {1, 101, 6}};
    int sel = 0;
    for (int lay = 0; lay < 2; lay++) {
        g_row_major = lay;
        for (int tr = 0; tr < 4; tr++) {
            for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
                const double *ab = ab_pairs[sel++ % 4];
                run_one(&small, 1, tr >> 1, tr & 1, shapes[s][0], shapes[s][1], shapes[s][2], ab[0],
                        ab[1], 1);
            }
        }
    }
    /* One real-sized problem with the registered blocks: several kc blocks and ic blocks. */
    g_row_major = 0;
    run_one(kr, 1, 0, 0, kr->mc + kr->mr + 1, 2 * kr->nr + 1, kr->kc + 7, 1.0, 1.0, 0);
    g_row_major = 1;
    run_one(kr, 1, 1, 1, kr->mc + 5, 3 * kr->nr + 2, kr->kc + 1, -1.0, 0.0, 2);
}

static int run_variants(void (*grid)(const lc_gemm_kernel_t *))
{
    int variants = 0;
    for (int d = 0; d < 2; d++) {
        g_dt = d == 0 ? LINCOLL_DOUBLE : LINCOLL_FLOAT;
        for (lc_isa_t isa = LC_ISA_BASE; isa <= LC_ISA_AVX512; isa++) {
            const lc_gemm_kernel_t *kr = lc_gemm_kernel(isa, g_dt);
            if (lc_cpu_supports(isa)) {
                assert_non_null(kr); /* every ISA the CPU has must have a kernel */
            }
            if (kr == NULL) {
                print_message("gemm: %s not supported by this CPU\n", lc_isa_name(isa));
                continue;
            }
            assert_int_equal(kr->dtype, g_dt);
            assert_int_equal(kr->mc % kr->mr, 0);
            assert_int_equal(kr->nc % kr->nr, 0);
            grid(kr);
            variants++;
        }
    }
    return variants;
}

static void test_gemm_edges_all_variants(void **state)
{
    (void)state;
    g_checks = 0;
    int v = run_variants(grid_edges);
    assert_true(v >= 2);
    print_message("gemm edges: %d variants, %d residual checks\n", v, g_checks);
}

static void test_gemm_blocks_all_variants(void **state)
{
    (void)state;
    g_checks = 0;
    int v = run_variants(grid_blocks);
    assert_true(v >= 2);
    print_message("gemm blocks: %d variants, %d residual checks\n", v, g_checks);
}

static void test_gemm_base_reference(void **state)
{
    (void)state;
    for (int d = 0; d < 2; d++) {
        g_dt = d == 0 ? LINCOLL_DOUBLE : LINCOLL_FLOAT;
        for (int lay = 0; lay < 2; lay++) {
            g_row_major = lay;
            for (int tr = 0; tr < 4; tr++) {
                run_one(NULL, 1, tr >> 1, tr & 1, 13, 7, 11, 1.5, -1.0, 1);
                run_one(NULL, 1, tr >> 1, tr & 1, 5, 9, 0, 1.0, 0.0, 0);
                run_one(NULL, 1, tr >> 1, tr & 1, 1, 1, 40, 1.0, 0.0, 2);
            }
        }
    }
}

/* The dispatched public call, and the threaded split along n and along m. */
static void test_gemm_public_and_threads(void **state)
{
    (void)state;
    for (int d = 0; d < 2; d++) {
        g_dt = d == 0 ? LINCOLL_DOUBLE : LINCOLL_FLOAT;
        const lc_gemm_kernel_t *kr = lc_gemm_kernel_active(g_dt);
        assert_non_null(kr);
        g_row_major = 0;
        run_one(kr, 2, 0, 0, 100, 301, 170, 1.0, 1.0, 1); /* split n */
        run_one(kr, 3, 1, 0, 333, 64, 200, 0.5, 0.0, 0);  /* split m */
        g_row_major = 1;
        run_one(kr, 2, 0, 1, 250, 250, 129, -1.0, 2.0, 3); /* row-major, split */
        /* lincoll_gemm itself. */
        mat_t a = mat_new(37, 29, 0, 0), b = mat_new(29, 41, 0, 0), c = mat_new(37, 41, 0, 0);
        mat_t c0 = mat_new(37, 41, 0, 0);
        memcpy(c0.p, c.p, c.total * esz());
        assert_int_equal(lincoll_gemm(LINCOLL_ROW_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, 37, 41,
                                      29, g_dt, 2.0, a.p, a.ld, b.p, b.ld, 3.0, c.p, c.ld),
                         LINCOLL_OK);
        check_residual(&a, 0, &b, 0, &c0, &c, 37, 41, 29, 2.0, 3.0, "lincoll_gemm");
        assert_string_not_equal(lincoll_gemm_kernel_name(g_dt), "none");
        free(a.p);
        free(b.p);
        free(c.p);
        free(c0.p);
    }
    assert_string_equal(lincoll_gemm_kernel_name(LINCOLL_INT32), "none");
}

typedef lincoll_status_t (*gemm_fn)(lincoll_layout_t, lincoll_trans_t, lincoll_trans_t, int64_t,
                                    int64_t, int64_t, lincoll_dtype_t, double, const void *,
                                    int64_t, const void *, int64_t, double, void *, int64_t);

static void test_gemm_bad_input(void **state)
{
    (void)state;
    double a[64], b[64], c[64];
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = 1, c[i] = 5;
    const gemm_fn fns[] = {lincoll_gemm, lincoll_gemm_base};
    const lincoll_layout_t C = LINCOLL_COL_MAJOR, R = LINCOLL_ROW_MAJOR;
    const lincoll_trans_t N = LINCOLL_NO_TRANS, T = LINCOLL_TRANS;
    const lincoll_dtype_t D = LINCOLL_DOUBLE;
    for (int f = 0; f < 2; f++) {
        gemm_fn g = fns[f];
        /* negative sizes */
        assert_int_equal(g(C, N, N, -1, 2, 2, D, 1, a, 2, b, 2, 0, c, 2), LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, N, 2, -1, 2, D, 1, a, 2, b, 2, 0, c, 2), LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, N, 2, 2, -3, D, 1, a, 2, b, 2, 0, c, 2), LINCOLL_ERR_INVALID);
        /* leading dimensions too small, column- and row-major, with transposes */
        assert_int_equal(g(C, N, N, 4, 2, 3, D, 1, a, 3, b, 3, 0, c, 4), LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, T, N, 4, 2, 3, D, 1, a, 2, b, 3, 0, c, 4), LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, N, 4, 2, 3, D, 1, a, 4, b, 2, 0, c, 4), LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, T, 4, 2, 3, D, 1, a, 4, b, 1, 0, c, 4), LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, N, 4, 2, 3, D, 1, a, 4, b, 3, 0, c, 3), LINCOLL_ERR_INVALID);
        assert_int_equal(g(R, N, N, 4, 2, 3, D, 1, a, 2, b, 2, 0, c, 2), LINCOLL_ERR_INVALID);
        assert_int_equal(g(R, N, N, 4, 2, 3, D, 1, a, 3, b, 2, 0, c, 1), LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, N, 0, 0, 0, D, 1, a, 0, b, 1, 0, c, 1), LINCOLL_ERR_INVALID);
        /* NULL matrices that would be read or written */
        assert_int_equal(g(C, N, N, 2, 2, 2, D, 1, NULL, 2, b, 2, 0, c, 2), LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, N, 2, 2, 2, D, 1, a, 2, NULL, 2, 0, c, 2), LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, N, 2, 2, 2, D, 1, a, 2, b, 2, 0, NULL, 2), LINCOLL_ERR_INVALID);
        /* unknown enums and dtypes */
        assert_int_equal(g((lincoll_layout_t)7, N, N, 2, 2, 2, D, 1, a, 2, b, 2, 0, c, 2),
                         LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, (lincoll_trans_t)3, N, 2, 2, 2, D, 1, a, 2, b, 2, 0, c, 2),
                         LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, (lincoll_trans_t)-1, 2, 2, 2, D, 1, a, 2, b, 2, 0, c, 2),
                         LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, N, 2, 2, 2, (lincoll_dtype_t)99, 1, a, 2, b, 2, 0, c, 2),
                         LINCOLL_ERR_INVALID);
        assert_int_equal(g(C, N, N, 2, 2, 2, LINCOLL_INT32, 1, a, 2, b, 2, 0, c, 2),
                         LINCOLL_ERR_UNSUPPORTED);
        assert_int_equal(g(C, N, N, 2, 2, 2, LINCOLL_FLOAT16, 1, a, 2, b, 2, 0, c, 2),
                         LINCOLL_ERR_UNSUPPORTED);
        for (int i = 0; i < 64; i++)
            assert_true(c[i] == 5); /* nothing written */
        /* Legal degenerate calls: empty C with NULLs; alpha == 0 or k == 0 never read A, B. */
        assert_int_equal(g(C, N, N, 0, 5, 3, D, 1, NULL, 1, NULL, 3, 0, NULL, 1), LINCOLL_OK);
        assert_int_equal(g(C, N, N, 2, 2, 2, D, 0, NULL, 2, NULL, 2, 2, c, 2), LINCOLL_OK);
        assert_true(c[0] == 10 && c[1] == 10 && c[2] == 10 && c[3] == 10 && c[4] == 5);
        assert_int_equal(g(C, N, N, 2, 2, 0, D, 1, NULL, 2, NULL, 1, 0, c, 2), LINCOLL_OK);
        assert_true(c[0] == 0 && c[3] == 0 && c[4] == 5);
        for (int i = 0; i < 64; i++)
            c[i] = 5;
    }
}

/* LINCOLL_KERNEL_ISA (set by the ctest registration) picks the kernel lincoll_gemm uses. */
static void test_gemm_dispatch_env(void **state)
{
    (void)state;
    const char *env = getenv("LINCOLL_KERNEL_ISA");
    lc_isa_t want = lc_cpu_best_isa();
    if (env != NULL && lc_isa_parse(env, &want) == LINCOLL_OK && !lc_cpu_supports(want)) {
        want = lc_cpu_best_isa();
    }
    if (want == LC_ISA_GFNI) want = LC_ISA_AVX512;
    for (int d = 0; d < 2; d++) {
        lincoll_dtype_t dt = d == 0 ? LINCOLL_DOUBLE : LINCOLL_FLOAT;
        assert_ptr_equal(lc_gemm_kernel_active(dt), lc_gemm_kernel(want, dt));
        print_message("gemm dispatch (%s): %s\n", env ? env : "unset",
                      lincoll_gemm_kernel_name(dt));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_dispatch_env),
        cmocka_unit_test(test_gemm_bad_input),
        cmocka_unit_test(test_gemm_base_reference),
        cmocka_unit_test(test_gemm_edges_all_variants),
        cmocka_unit_test(test_gemm_blocks_all_variants),
        cmocka_unit_test(test_gemm_public_and_threads),
    };
    /* The extra ctest registrations with LINCOLL_KERNEL_ISA set only re-check dispatch. */
    size_t ntests = getenv("LC_TEST_DISPATCH_ONLY") ? 1 : sizeof(tests) / sizeof(tests[0]);
    return _cmocka_run_group_tests("kernels_gemm", tests, ntests, NULL, NULL);
}
