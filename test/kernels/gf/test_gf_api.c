/*
 * test/kernels/gf/test_gf_api.c: bad input gives a clear status (NULL
 * pointers, zero or over-limit sizes, unreduced elements, lengths that are
 * not whole elements, misaligned wide-element buffers, bad columns, singular
 * matrices), zero length is a no-op, and the dispatch picks the variant of
 * the forced ISA level (lc_kernel_isa_set, and LINCOLL_KERNEL_ISA when the
 * test runs with it set).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "kernels/gf/gf_test_util.h"

static lincoll_field_t *mk(uint64_t q)
{
    lincoll_field_t *f = NULL;
    assert_int_equal(lincoll_gf_field_create(q, &f), LINCOLL_OK);
    return f;
}

static void test_coeffs_bad(void **state)
{
    (void)state;
    lincoll_field_t *f = mk(256), *p = mk(998244353);
    uint64_t m[4] = {1, 2, 3, 4};
    lincoll_gf_coeffs_t *c = (lincoll_gf_coeffs_t *)(uintptr_t)1;
    assert_int_equal(lincoll_gf_coeffs_create(NULL, 2, 2, m, &c), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_coeffs_create(f, 2, 2, NULL, &c), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_coeffs_create(f, 2, 2, m, NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_coeffs_create(f, 0, 2, m, &c), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_coeffs_create(f, 2, 0, m, &c), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_coeffs_create(f, -1, 2, m, &c), LINCOLL_ERR_INVALID);
    uint64_t *big = calloc((size_t)(LINCOLL_GF_MAX_K + 1), sizeof(uint64_t));
    assert_int_equal(lincoll_gf_coeffs_create(f, 1, LINCOLL_GF_MAX_K + 1, big, &c),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_coeffs_create(f, LINCOLL_GF_MAX_R + 1, 1, big, &c),
                     LINCOLL_ERR_INVALID);
    /* the limits themselves are accepted */
    assert_int_equal(lincoll_gf_coeffs_create(f, 1, LINCOLL_GF_MAX_K, big, &c), LINCOLL_OK);
    lincoll_gf_coeffs_destroy(c);
    free(big);
    c = (lincoll_gf_coeffs_t *)(uintptr_t)1;
    m[3] = 256;
    assert_int_equal(lincoll_gf_coeffs_create(f, 2, 2, m, &c), LINCOLL_ERR_INVALID);
    m[3] = 998244353;
    assert_int_equal(lincoll_gf_coeffs_create(p, 2, 2, m, &c), LINCOLL_ERR_INVALID);
    assert_ptr_equal(c, (lincoll_gf_coeffs_t *)(uintptr_t)1);
    lincoll_gf_coeffs_destroy(NULL);
    lincoll_gf_field_destroy(f);
    lincoll_gf_field_destroy(p);
}

static void test_kernel_bad(void **state)
{
    (void)state;
    lincoll_field_t *f = mk(998244353);
    uint64_t m[6] = {1, 2, 3, 4, 5, 6};
    lincoll_gf_coeffs_t *c;
    assert_int_equal(lincoll_gf_coeffs_create(f, 2, 3, m, &c), LINCOLL_OK);
    uint32_t *a = lc_test_alloc(256), *b = lc_test_alloc(256), *d0 = lc_test_alloc(256),
             *d1 = lc_test_alloc(256);
    memset(a, 0, 256);
    memset(b, 0, 256);
    const void *src[3] = {a, b, a};
    void *dst[2] = {d0, d1};
    assert_int_equal(lincoll_gf_lincomb(NULL, 64, src, dst), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_lincomb(c, 64, NULL, dst), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_lincomb(c, 64, src, NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_lincomb(c, 6, src, dst), LINCOLL_ERR_INVALID); /* 1.5 words */
    const void *src_null[3] = {a, NULL, a};
    assert_int_equal(lincoll_gf_lincomb(c, 64, src_null, dst), LINCOLL_ERR_INVALID);
    void *dst_null[2] = {d0, NULL};
    assert_int_equal(lincoll_gf_lincomb(c, 64, src, dst_null), LINCOLL_ERR_INVALID);
    const void *src_mis[3] = {a, (const uint8_t *)b + 2, a};
    assert_int_equal(lincoll_gf_lincomb(c, 64, src_mis, dst), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_mad(c, 64, -1, a, dst), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_mad(c, 64, 3, a, dst), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_mad(c, 64, 0, NULL, dst), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_mad(c, 2, 0, a, dst), LINCOLL_ERR_INVALID);
    /* zero length: allowed, nothing written */
    memset(d0, 0x77, 256);
    assert_int_equal(lincoll_gf_lincomb(c, 0, src, dst), LINCOLL_OK);
    assert_int_equal(lincoll_gf_mad(c, 0, 1, a, dst), LINCOLL_OK);
    assert_int_equal(((uint8_t *)d0)[0], 0x77);
    /* a valid call still works after the failures */
    assert_int_equal(lincoll_gf_lincomb(c, 256, src, dst), LINCOLL_OK);
    assert_int_equal(d0[0], 0);
    free(a);
    free(b);
    free(d0);
    free(d1);
    lincoll_gf_coeffs_destroy(c);
    lincoll_gf_field_destroy(f);
}

static void test_matrix_bad(void **state)
{
    (void)state;
    lincoll_field_t *f = mk(13);
    uint64_t out[16 * 16], in[4] = {1, 2, 3, 4};
    assert_int_equal(lincoll_gf_matrix_vandermonde(f, 14, 2, out), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_vandermonde(f, 0, 2, out), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_vandermonde(NULL, 2, 2, out), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_vandermonde(f, 2, 2, NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_cauchy(f, 7, 7, out), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_systematic(f, 3, 4, LINCOLL_GF_RS_CAUCHY, out),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_systematic(f, 14, 4, LINCOLL_GF_RS_VANDERMONDE, out),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_systematic(f, 6, 4, (lincoll_gf_rs_kind_t)7, out),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_invert(f, 0, in, out), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_invert(f, 2, NULL, out), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_mul(f, 2, 0, 2, in, in, out), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_dft(f, 5, 0, out), LINCOLL_ERR_INVALID); /* 5 !| 12 */
    uint64_t x[2] = {1, 14}, y[1] = {2};
    assert_int_equal(lincoll_gf_matrix_lagrange(f, 2, x, 1, y, out), LINCOLL_ERR_INVALID);
    int surv[2] = {0, 1}, lost[1] = {2};
    assert_int_equal(lincoll_gf_matrix_recover(f, 3, 2, in, surv, 0, lost, out),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_matrix_decode(f, 1, 2, in, surv, out), LINCOLL_ERR_INVALID);
    const void *sp[2] = {out, out};
    void *op[1] = {out};
    assert_int_equal(lincoll_gf_decode(f, 3, 2, in, surv, sp, 0, lost, 8, op), LINCOLL_ERR_INVALID);
    lincoll_gf_field_destroy(f);
}

/* lc_kernel_isa_set selects the variant lincoll_gf_kernel_name reports. */
static void test_dispatch(void **state)
{
    (void)state;
    static const uint64_t qs[] = {256, 65536, 998244353, LINCOLL_GF_GOLDILOCKS};
    static const char *const fam[] = {"gf8", "gf16", "gfp32", "gfp64"};
    lc_isa_t saved = lc_kernel_isa();
    for (int isa = LC_ISA_BASE; isa < LC_ISA_LAST; isa++) {
        if (!lc_cpu_supports((lc_isa_t)isa)) {
            printf("dispatch to %s NOT TESTED: CPU lacks it\n", lc_isa_name((lc_isa_t)isa));
            continue;
        }
        lc_kernel_isa_set((lc_isa_t)isa);
        assert_int_equal(lc_kernel_isa(), isa);
        for (int t = 0; t < 4; t++) {
            lincoll_field_t *f = mk(qs[t]);
            /* highest compiled variant not above isa */
            int want = isa;
            while (want > LC_ISA_BASE && lc_gf_variant(f->kind, (lc_isa_t)want) == NULL)
                want--;
            char name[32];
            snprintf(name, sizeof(name), "%s_%s", fam[t], lc_isa_name((lc_isa_t)want));
            assert_string_equal(lincoll_gf_kernel_name(f), name);
            lincoll_gf_field_destroy(f);
        }
    }
    lc_kernel_isa_set(saved);
    assert_string_equal(lincoll_gf_kernel_name(NULL), "none");
}

/* Under ctest this also runs with LINCOLL_KERNEL_ISA set (base, avx2). */
static void test_env_override(void **state)
{
    (void)state;
    const char *env = getenv("LINCOLL_KERNEL_ISA");
    if (env == NULL) {
        printf("LINCOLL_KERNEL_ISA unset: dispatch at %s\n", lc_isa_name(lc_kernel_isa()));
        assert_int_equal(lc_kernel_isa(), lc_cpu_best_isa());
        return;
    }
    lc_isa_t want;
    assert_int_equal(lc_isa_parse(env, &want), LINCOLL_OK);
    if (want > lc_cpu_best_isa()) want = lc_cpu_best_isa();
    assert_int_equal(lc_kernel_isa(), want);
    lincoll_field_t *f = mk(256);
    char name[32];
    snprintf(name, sizeof(name), "gf8_%s", lc_isa_name(want));
    assert_string_equal(lincoll_gf_kernel_name(f), name);
    printf("LINCOLL_KERNEL_ISA=%s: %s\n", env, lincoll_gf_kernel_name(f));
    lincoll_gf_field_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_override), cmocka_unit_test(test_coeffs_bad),
        cmocka_unit_test(test_kernel_bad),   cmocka_unit_test(test_matrix_bad),
        cmocka_unit_test(test_dispatch),
    };
    return cmocka_run_group_tests_name("kernels_gf_api", tests, NULL, NULL);
}
