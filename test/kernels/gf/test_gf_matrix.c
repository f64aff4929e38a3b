/*
 * test/kernels/gf/test_gf_matrix.c: code matrices over every field kind:
 * inverse (A * inv(A) = I, singular matrices rejected), MDS property of the
 * systematic generators (every k-row subset invertible), Cauchy squares,
 * DFT * inverse DFT = I, Lagrange interpolation of random polynomials, and
 * the encode -> erase any m rows -> decode round trip on real buffers
 * (lincoll_gf_decode and the streaming mad path).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "kernels/gf/gf_test_util.h"

static lincoll_field_t *mk(uint64_t q)
{
    lincoll_field_t *f = NULL;
    assert_int_equal(lincoll_gf_field_create(q, &f), LINCOLL_OK);
    return f;
}

static void assert_identity(const uint64_t *m, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            assert_int_equal(m[i * n + j], i == j);
    }
}

static void test_invert(void **state)
{
    (void)state;
    for (size_t t = 0; t < LC_TEST_NORDERS; t++) {
        lincoll_field_t *f = mk(lc_test_orders[t]);
        uint64_t s = 99 + t, a[144], inv[144], prod[144];
        int done = 0;
        for (int n = 1; n <= 12; n++) {
            for (int e = 0; e < n * n; e++)
                a[e] = lc_test_rand(&s) % f->q;
            lincoll_status_t st = lincoll_gf_matrix_invert(f, n, a, inv);
            if (st == LINCOLL_ERR_SINGULAR) continue; /* possible for q = 13 */
            assert_int_equal(st, LINCOLL_OK);
            assert_int_equal(lincoll_gf_matrix_mul(f, n, n, n, a, inv, prod), LINCOLL_OK);
            assert_identity(prod, n);
            assert_int_equal(lincoll_gf_matrix_mul(f, n, n, n, inv, a, prod), LINCOLL_OK);
            assert_identity(prod, n);
            done++;
        }
        assert_true(done >= 6);
        /* in-place */
        uint64_t b[4] = {1, 2, 3, 5};
        assert_int_equal(lincoll_gf_matrix_invert(f, 2, b, b), LINCOLL_OK); /* det = -1 */
        uint64_t b0[4] = {1, 2, 3, 5}, bp[4];
        assert_int_equal(lincoll_gf_matrix_mul(f, 2, 2, 2, b0, b, bp), LINCOLL_OK);
        assert_identity(bp, 2);
        /* singular: repeated row; zero matrix; out untouched */
        uint64_t sg[9] = {1, 2, 3, 1, 2, 3, 4, 5, 6};
        for (int e = 0; e < 9; e++)
            sg[e] %= f->q;
        uint64_t out[9] = {7, 7, 7, 7, 7, 7, 7, 7, 7};
        assert_int_equal(lincoll_gf_matrix_invert(f, 3, sg, out), LINCOLL_ERR_SINGULAR);
        for (int e = 0; e < 9; e++)
            assert_int_equal(out[e], 7);
        uint64_t z[4] = {0, 0, 0, 0};
        assert_int_equal(lincoll_gf_matrix_invert(f, 2, z, out), LINCOLL_ERR_SINGULAR);
        lincoll_gf_field_destroy(f);
    }
}

/* every k-subset of the n rows invertible */
static void assert_mds(const lincoll_field_t *f, int n, int k, const uint64_t *gen)
{
    int rows[16];
    uint64_t dec[256];
    for (unsigned mask = 0; mask < (1u << n); mask++) {
        if (__builtin_popcount(mask) != k) continue;
        int c = 0;
        for (int i = 0; i < n; i++) {
            if (mask & (1u << i)) rows[c++] = i;
        }
        assert_int_equal(lincoll_gf_matrix_decode(f, n, k, gen, rows, dec), LINCOLL_OK);
    }
}

static void test_generators(void **state)
{
    (void)state;
    for (size_t t = 0; t < LC_TEST_NORDERS; t++) {
        lincoll_field_t *f = mk(lc_test_orders[t]);
        const int n = 9, k = 4;
        uint64_t g[36], v[36], c[20];
        for (int kind = 0; kind < 2; kind++) {
            assert_int_equal(lincoll_gf_matrix_systematic(f, n, k, (lincoll_gf_rs_kind_t)kind, g),
                             LINCOLL_OK);
            assert_identity(g, k);
            assert_mds(f, n, k, g);
        }
        assert_int_equal(lincoll_gf_matrix_vandermonde(f, n, k, v), LINCOLL_OK);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < k; j++) {
                assert_int_equal(v[i * k + j], lincoll_gf_pow(f, (uint64_t)i, (uint64_t)j));
            }
        }
        assert_int_equal(lincoll_gf_matrix_cauchy(f, 5, 4, c), LINCOLL_OK);
        for (int i = 0; i < 5; i++) {
            for (int j = 0; j < 4; j++) {
                uint64_t d = lincoll_gf_sub(f, (uint64_t)(4 + i), (uint64_t)j);
                assert_int_equal(lincoll_gf_mul(f, c[i * 4 + j], d), 1);
            }
        }
        lincoll_gf_field_destroy(f);
    }
}

static void check_dft(uint64_t q, int n)
{
    lincoll_field_t *f = mk(q);
    uint64_t *a = malloc(sizeof(uint64_t) * n * n * 3), *b = a + n * n, *p = b + n * n;
    assert_int_equal(lincoll_gf_matrix_dft(f, n, 0, a), LINCOLL_OK);
    assert_int_equal(lincoll_gf_matrix_dft(f, n, 1, b), LINCOLL_OK);
    assert_int_equal(lincoll_gf_matrix_mul(f, n, n, n, a, b, p), LINCOLL_OK);
    assert_identity(p, n);
    uint64_t w;
    assert_int_equal(lincoll_gf_root_of_unity(f, (uint64_t)n, &w), LINCOLL_OK);
    assert_int_equal(a[1 * n + 1], w);
    free(a);
    lincoll_gf_field_destroy(f);
}

static void test_dft(void **state)
{
    (void)state;
    check_dft(998244353, 16);
    check_dft(65537, 32);
    check_dft(LINCOLL_GF_GOLDILOCKS, 8);
    check_dft(13, 12);
    check_dft(256, 15);
    check_dft(65536, 17);
    lincoll_field_t *f = mk(256);
    uint64_t m[16];
    assert_int_equal(lincoll_gf_matrix_dft(f, 4, 0, m), LINCOLL_ERR_INVALID);
    lincoll_gf_field_destroy(f);
}

static void test_lagrange(void **state)
{
    (void)state;
    for (size_t t = 0; t < LC_TEST_NORDERS; t++) {
        lincoll_field_t *f = mk(lc_test_orders[t]);
        uint64_t s = 5 + t, x[5], y[7], coef[5], vx[5], vy[7], L[35];
        const int k = 5, r = 7;
        for (int i = 0; i < k; i++)
            x[i] = (uint64_t)(i * 3 + 1) % f->q;
        for (int i = 0; i < r; i++)
            y[i] = lc_test_rand(&s) % f->q;
        for (int i = 0; i < k; i++)
            coef[i] = lc_test_rand(&s) % f->q;
        for (int i = 0; i < k + r; i++) {
            uint64_t pt = i < k ? x[i] : y[i - k], acc = 0;
            for (int d = k - 1; d >= 0; d--)
                acc = lincoll_gf_add(f, lincoll_gf_mul(f, acc, pt), coef[d]);
            if (i < k)
                vx[i] = acc;
            else
                vy[i - k] = acc;
        }
        assert_int_equal(lincoll_gf_matrix_lagrange(f, k, x, r, y, L), LINCOLL_OK);
        uint64_t got[7];
        assert_int_equal(lincoll_gf_matrix_mul(f, r, k, 1, L, vx, got), LINCOLL_OK);
        for (int i = 0; i < r; i++)
            assert_int_equal(got[i], vy[i]);
        x[3] = x[1];
        assert_int_equal(lincoll_gf_matrix_lagrange(f, k, x, r, y, L), LINCOLL_ERR_INVALID);
        lincoll_gf_field_destroy(f);
    }
}

/* Encode k data buffers into n = k + m, erase every m-subset, rebuild it. */
static void round_trip(uint64_t q, int k, int m, lincoll_gf_rs_kind_t kind, size_t nelem,
                       int all_patterns)
{
    lincoll_field_t *f = mk(q);
    const int n = k + m;
    size_t len = nelem * f->elem_size;
    uint64_t *gen = malloc(sizeof(uint64_t) * n * k);
    assert_int_equal(lincoll_gf_matrix_systematic(f, n, k, kind, gen), LINCOLL_OK);
    void **buf = calloc((size_t)n, sizeof(void *)), **out = calloc((size_t)m, sizeof(void *));
    uint64_t s = q + (uint64_t)k;
    for (int i = 0; i < n; i++)
        buf[i] = lc_test_alloc(len + 64);
    for (int i = 0; i < m; i++)
        out[i] = lc_test_alloc(len + 64);
    for (int i = 0; i < k; i++)
        lc_test_fill(f, buf[i], len, &s);
    assert_int_equal(
        lincoll_gf_encode(f, k, m, gen + (size_t)k * k, len, (const void *const *)buf, buf + k),
        LINCOLL_OK);
    /* the streaming path gives the same parity */
    lincoll_gf_coeffs_t *pc;
    assert_int_equal(lincoll_gf_coeffs_create(f, m, k, gen + (size_t)k * k, &pc), LINCOLL_OK);
    for (int j = 0; j < m; j++)
        memset(out[j], 0, len);
    for (int i = 0; i < k; i++)
        assert_int_equal(lincoll_gf_mad(pc, len, i, buf[i], out), LINCOLL_OK);
    for (int j = 0; j < m; j++)
        assert_memory_equal(out[j], buf[k + j], len);
    lincoll_gf_coeffs_destroy(pc);

    int patterns = 0;
    for (unsigned mask = 0; mask < (1u << n); mask++) {
        if (__builtin_popcount(mask) != m) continue;
        if (!all_patterns && (lc_test_rand(&s) % 8) != 0 && patterns > 0) continue;
        int lost[32], surv[32], nl = 0, ns = 0;
        const void *sp[32];
        for (int i = 0; i < n; i++) {
            if (mask & (1u << i))
                lost[nl++] = i;
            else if (ns < k) {
                surv[ns] = i;
                sp[ns++] = buf[i];
            }
        }
        assert_int_equal(lincoll_gf_decode(f, n, k, gen, surv, sp, nl, lost, len, out), LINCOLL_OK);
        for (int i = 0; i < nl; i++)
            assert_memory_equal(out[i], buf[lost[i]], len);
        patterns++;
    }
    assert_true(patterns > 0);
    for (int i = 0; i < n; i++)
        free(buf[i]);
    for (int i = 0; i < m; i++)
        free(out[i]);
    free(buf);
    free(out);
    free(gen);
    lincoll_gf_field_destroy(f);
}

static void test_round_trip(void **state)
{
    (void)state;
    for (size_t t = 0; t < LC_TEST_NORDERS; t++) {
        uint64_t q = lc_test_orders[t];
        for (int kind = 0; kind < 2; kind++) {
            round_trip(q, 4, 2, (lincoll_gf_rs_kind_t)kind, 1001, 1);
            round_trip(q, 5, 3, (lincoll_gf_rs_kind_t)kind, 300, 1);
            if (q > 13) round_trip(q, 10, 4, (lincoll_gf_rs_kind_t)kind, 4099, 0);
        }
    }
}

static void test_decode_singular(void **state)
{
    (void)state;
    lincoll_field_t *f = mk(256);
    /* a non-MDS generator: two equal parity rows */
    uint64_t gen[] = {1, 0, 0, 1, 3, 7, 3, 7};
    int surv[2] = {2, 3}, lost[1] = {0};
    uint64_t dec[4];
    assert_int_equal(lincoll_gf_matrix_decode(f, 4, 2, gen, surv, dec), LINCOLL_ERR_SINGULAR);
    assert_int_equal(lincoll_gf_matrix_recover(f, 4, 2, gen, surv, 1, lost, dec),
                     LINCOLL_ERR_SINGULAR);
    int dup[2] = {1, 1};
    assert_int_equal(lincoll_gf_matrix_decode(f, 4, 2, gen, dup, dec), LINCOLL_ERR_INVALID);
    int oob[2] = {0, 4};
    assert_int_equal(lincoll_gf_matrix_decode(f, 4, 2, gen, oob, dec), LINCOLL_ERR_INVALID);
    lincoll_gf_field_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invert),     cmocka_unit_test(test_generators),
        cmocka_unit_test(test_dft),        cmocka_unit_test(test_lagrange),
        cmocka_unit_test(test_round_trip), cmocka_unit_test(test_decode_singular),
    };
    return cmocka_run_group_tests_name("kernels_gf_matrix", tests, NULL, NULL);
}
