/*
 * test/kernels/gf/test_gf_isal.c: bit-compatibility of lincoll's GF(2^8)
 * with ISA-L (test-only dependency).  For the same coefficient matrix, every
 * lincoll variant the CPU supports equals ec_encode_data byte for byte
 * (k <= 32, m <= 16, odd lengths), mad equals ec_encode_data_update, scalar
 * gf_mul/gf_inv agree on every pair, the systematic Cauchy generator equals
 * gf_gen_cauchy1_matrix, the inverse equals gf_invert_matrix, and decoding
 * through lincoll_gf_decode equals ISA-L's invert + ec_encode_data recipe.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <isa-l/erasure_code.h>
#include <stdio.h>

#include "kernels/gf/gf_test_util.h"

static lincoll_field_t *gf8(void)
{
    lincoll_field_t *f = NULL;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    return f;
}

static void test_scalars(void **state)
{
    (void)state;
    lincoll_field_t *f = gf8();
    for (unsigned a = 0; a < 256; a++) {
        for (unsigned b = 0; b < 256; b++) {
            assert_int_equal(lincoll_gf_mul(f, a, b), gf_mul((unsigned char)a, (unsigned char)b));
        }
        if (a) assert_int_equal(lc_gf_inv(f, a), gf_inv((unsigned char)a));
    }
    lincoll_gf_field_destroy(f);
}

static void test_cauchy_matrix(void **state)
{
    (void)state;
    lincoll_field_t *f = gf8();
    for (int k = 1; k <= 32; k += 3) {
        for (int m = 1; m <= 16; m += 3) {
            unsigned char a[48 * 32];
            uint64_t g[48 * 32];
            gf_gen_cauchy1_matrix(a, k + m, k);
            assert_int_equal(lincoll_gf_matrix_systematic(f, k + m, k, LINCOLL_GF_RS_CAUCHY, g),
                             LINCOLL_OK);
            for (int e = 0; e < (k + m) * k; e++)
                assert_int_equal(g[e], a[e]);
        }
    }
    lincoll_gf_field_destroy(f);
}

static void test_invert_matrix(void **state)
{
    (void)state;
    lincoll_field_t *f = gf8();
    uint64_t s = 3;
    for (int n = 1; n <= 16; n++) {
        unsigned char a[256], ia[256];
        uint64_t a64[256], inv[256];
        for (int e = 0; e < n * n; e++)
            a64[e] = a[e] = (unsigned char)lc_test_rand(&s);
        int isal_rc = gf_invert_matrix(a, ia, n);
        lincoll_status_t st = lincoll_gf_matrix_invert(f, n, a64, inv);
        assert_int_equal(isal_rc == 0, st == LINCOLL_OK);
        if (st == LINCOLL_OK) {
            for (int e = 0; e < n * n; e++)
                assert_int_equal(inv[e], ia[e]);
        }
    }
    lincoll_gf_field_destroy(f);
}

static const size_t lens[] = {1, 15, 16, 31, 32, 63, 64, 65, 127, 128, 129, 255, 4097, 65539};

/* Every supported variant vs ec_encode_data and ec_encode_data_update. */
static void check_encode(const lincoll_field_t *f, int k, int m, const unsigned char *par,
                         uint64_t *s)
{
    unsigned char *tbl = malloc(32 * (size_t)k * m);
    uint64_t *coef = malloc(sizeof(uint64_t) * k * m);
    for (int e = 0; e < k * m; e++)
        coef[e] = par[e];
    ec_init_tables(k, m, (unsigned char *)par, tbl);
    lincoll_gf_coeffs_t *c;
    assert_int_equal(lincoll_gf_coeffs_create(f, m, k, coef, &c), LINCOLL_OK);
    size_t maxlen = 65539;
    unsigned char **data = malloc(sizeof(void *) * k), **ref = malloc(sizeof(void *) * m),
                  **out = malloc(sizeof(void *) * m);
    for (int i = 0; i < k; i++) {
        data[i] = malloc(maxlen + 1);
        for (size_t b = 0; b < maxlen + 1; b++)
            data[i][b] = (unsigned char)lc_test_rand(s);
    }
    for (int j = 0; j < m; j++) {
        ref[j] = malloc(maxlen + 1);
        out[j] = malloc(maxlen + 1);
    }
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
        size_t len = lens[l];
        /* unaligned sources: shift by one byte on odd lengths */
        unsigned char *src[32];
        for (int i = 0; i < k; i++)
            src[i] = data[i] + (len & 1);
        ec_encode_data((int)len, k, m, tbl, src, ref);
        for (int isa = LC_ISA_BASE; isa < LC_ISA_LAST; isa++) {
            const lc_gf_variant_t *v = lc_gf_variant(LC_GF_KIND_GF8, (lc_isa_t)isa);
            if (v == NULL || !lc_cpu_supports((lc_isa_t)isa)) continue;
            v->lincomb(c, len, (const void *const *)src, (void *const *)out);
            for (int j = 0; j < m; j++) {
                if (memcmp(out[j], ref[j], len) != 0) {
                    fail_msg("%s k=%d m=%d len=%zu output %d differs from ec_encode_data", v->name,
                             k, m, len, j);
                }
            }
            /* update: fold source 0 once more into both; results must agree */
            int col = (int)(lc_test_rand(s) % (uint64_t)k);
            ec_encode_data_update((int)len, k, m, col, tbl, src[col], ref);
            v->mad(c, len, col, src[col], (void *const *)out);
            for (int j = 0; j < m; j++) {
                if (memcmp(out[j], ref[j], len) != 0) {
                    fail_msg("%s k=%d m=%d len=%zu col=%d mad differs from ec_encode_data_update",
                             v->name, k, m, len, col);
                }
            }
            ec_encode_data((int)len, k, m, tbl, src, ref);
        }
    }
    for (int i = 0; i < k; i++)
        free(data[i]);
    for (int j = 0; j < m; j++) {
        free(ref[j]);
        free(out[j]);
    }
    free(data);
    free(ref);
    free(out);
    free(tbl);
    free(coef);
    lincoll_gf_coeffs_destroy(c);
}

static void test_encode_cauchy(void **state)
{
    (void)state;
    lincoll_field_t *f = gf8();
    uint64_t s = 11;
    static const int km[][2] = {{10, 4},  {8, 8}, {16, 16}, {4, 2}, {1, 1},
                                {32, 16}, {3, 9}, {17, 5},  {6, 6}, {2, 13}};
    for (size_t t = 0; t < sizeof(km) / sizeof(km[0]); t++) {
        int k = km[t][0], m = km[t][1];
        unsigned char a[48 * 32];
        gf_gen_cauchy1_matrix(a, k + m, k);
        check_encode(f, k, m, a + k * k, &s);
    }
    int tested = 0;
    for (int isa = LC_ISA_BASE; isa < LC_ISA_LAST; isa++) {
        if (lc_cpu_supports((lc_isa_t)isa)) {
            printf("gf8_%s checked against ISA-L\n", lc_isa_name((lc_isa_t)isa));
            tested++;
        } else {
            printf("gf8_%s NOT TESTED: CPU lacks %s\n", lc_isa_name((lc_isa_t)isa),
                   lc_isa_name((lc_isa_t)isa));
        }
    }
    assert_true(tested >= 1);
    lincoll_gf_field_destroy(f);
}

static void test_encode_random(void **state)
{
    (void)state;
    lincoll_field_t *f = gf8();
    uint64_t s = 17;
    for (int n = 0; n < 12; n++) {
        int k = 1 + (int)(lc_test_rand(&s) % 32), m = 1 + (int)(lc_test_rand(&s) % 16);
        unsigned char par[16 * 32];
        for (int e = 0; e < k * m; e++)
            par[e] = (unsigned char)lc_test_rand(&s);
        par[0] = 0;
        par[k * m - 1] = 1;
        check_encode(f, k, m, par, &s);
    }
    lincoll_gf_field_destroy(f);
}

/* ISA-L's decode recipe (ec_simple_example.c) vs lincoll_gf_decode. */
static void test_decode(void **state)
{
    (void)state;
    lincoll_field_t *f = gf8();
    const int k = 10, m = 4, n = 14;
    const size_t len = 5000;
    unsigned char a[14 * 10], tbl[32 * 10 * 4], dtbl[32 * 10 * 4];
    gf_gen_cauchy1_matrix(a, n, k);
    ec_init_tables(k, m, a + k * k, tbl);
    unsigned char *buf[14], *rec_isal[4], *rec_ours[4];
    uint64_t s = 23, gen[140];
    for (int e = 0; e < n * k; e++)
        gen[e] = a[e];
    for (int i = 0; i < n; i++)
        buf[i] = malloc(len);
    for (int i = 0; i < m; i++) {
        rec_isal[i] = malloc(len);
        rec_ours[i] = malloc(len);
    }
    for (int i = 0; i < k; i++) {
        for (size_t b = 0; b < len; b++)
            buf[i][b] = (unsigned char)lc_test_rand(&s);
    }
    ec_encode_data((int)len, k, m, tbl, buf, buf + k);
    int lost[4] = {0, 3, 11, 13}, surv[10];
    unsigned char *sp[10];
    for (int i = 0, ns = 0; i < n; i++) {
        if (i != 0 && i != 3 && i != 11 && i != 13) {
            surv[ns] = i;
            sp[ns++] = buf[i];
        }
    }
    /* ISA-L: invert the surviving rows, multiply the lost rows through */
    unsigned char b[100], inv[100], d[40];
    for (int i = 0; i < k; i++)
        memcpy(b + i * k, a + surv[i] * k, (size_t)k);
    assert_int_equal(gf_invert_matrix(b, inv, k), 0);
    for (int l = 0; l < m; l++) {
        for (int j = 0; j < k; j++) {
            unsigned char acc = 0;
            for (int t = 0; t < k; t++)
                acc ^= gf_mul(a[lost[l] * k + t], inv[t * k + j]);
            d[l * k + j] = acc;
        }
    }
    ec_init_tables(k, m, d, dtbl);
    ec_encode_data((int)len, k, m, dtbl, sp, rec_isal);
    assert_int_equal(lincoll_gf_decode(f, n, k, gen, surv, (const void *const *)sp, m, lost, len,
                                       (void *const *)rec_ours),
                     LINCOLL_OK);
    for (int l = 0; l < m; l++) {
        assert_memory_equal(rec_ours[l], rec_isal[l], len);
        assert_memory_equal(rec_ours[l], buf[lost[l]], len);
    }
    for (int i = 0; i < n; i++)
        free(buf[i]);
    for (int i = 0; i < m; i++) {
        free(rec_isal[i]);
        free(rec_ours[i]);
    }
    lincoll_gf_field_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),       cmocka_unit_test(test_cauchy_matrix),
        cmocka_unit_test(test_invert_matrix), cmocka_unit_test(test_encode_cauchy),
        cmocka_unit_test(test_encode_random), cmocka_unit_test(test_decode),
    };
    return cmocka_run_group_tests_name("kernels_gf_isal", tests, NULL, NULL);
}
