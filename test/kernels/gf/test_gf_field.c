/*
 * test/kernels/gf/test_gf_field.c: field axioms and scalar operations.
 * GF(2^8) exhaustively (every pair, every triple for associativity and
 * distributivity, every inverse) against a shift-and-xor reference; GF(2^16)
 * every inverse and sampled pairs; primes and Goldilocks sampled against
 * 128-bit arithmetic; pow, primitive elements and roots of unity.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "kernels/gf/gf_test_util.h"

/* Carry-less multiply then reduce by poly (degree w). */
static uint64_t ref_gf2_mul(uint64_t a, uint64_t b, unsigned w, uint64_t poly)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < w; i++) {
        if (b & (1ull << i)) r ^= a << i;
    }
    for (int i = 2 * (int)w - 2; i >= (int)w; i--) {
        if (r & (1ull << i)) r ^= poly << (i - (int)w);
    }
    return r;
}

static lincoll_field_t *mk(uint64_t q)
{
    lincoll_field_t *f = NULL;
    assert_int_equal(lincoll_gf_field_create(q, &f), LINCOLL_OK);
    assert_non_null(f);
    return f;
}

static void test_create_and_sizes(void **state)
{
    (void)state;
    static const struct {
        uint64_t q;
        size_t es;
        uint64_t gen;
    } t[] = {{256, 1, 2},        {65536, 2, 2}, {65537, 4, 3}, {998244353, 4, 3},
             {2147483647, 4, 7}, {13, 4, 2},    {2, 4, 1},     {LINCOLL_GF_GOLDILOCKS, 8, 7}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        lincoll_field_t *f = mk(t[i].q);
        assert_int_equal(lincoll_gf_field_order(f), t[i].q);
        assert_int_equal(lincoll_gf_field_elem_size(f), t[i].es);
        assert_int_equal(lincoll_gf_primitive(f), t[i].gen);
        assert_non_null(lincoll_gf_kernel_name(f));
        printf("q=%llu kernel %s\n", (unsigned long long)t[i].q, lincoll_gf_kernel_name(f));
        lincoll_gf_field_destroy(f);
    }
}

static void test_gf8_exhaustive(void **state)
{
    (void)state;
    lincoll_field_t *f = mk(256);
    static uint8_t mul[256][256];
    for (unsigned a = 0; a < 256; a++) {
        for (unsigned b = 0; b < 256; b++) {
            mul[a][b] = (uint8_t)lincoll_gf_mul(f, a, b);
            assert_int_equal(mul[a][b], ref_gf2_mul(a, b, 8, 0x11d));
            assert_int_equal(lincoll_gf_add(f, a, b), a ^ b);
            assert_int_equal(lincoll_gf_sub(f, a, b), a ^ b);
        }
    }
    for (unsigned a = 0; a < 256; a++) {
        assert_int_equal(mul[a][1], a);
        assert_int_equal(mul[a][0], 0);
        for (unsigned b = 0; b < 256; b++) {
            assert_int_equal(mul[a][b], mul[b][a]);
            for (unsigned c = 0; c < 256; c++) {
                if (mul[mul[a][b]][c] != mul[a][mul[b][c]]) fail_msg("assoc %u %u %u", a, b, c);
                if (mul[a][b ^ c] != (mul[a][b] ^ mul[a][c])) fail_msg("distr %u %u %u", a, b, c);
            }
        }
        if (a) {
            uint64_t inv;
            assert_int_equal(lincoll_gf_inv(f, a, &inv), LINCOLL_OK);
            assert_int_equal(mul[a][inv], 1);
        }
        /* pow against repeated multiplication */
        uint64_t x = 1;
        for (unsigned e = 0; e < 600; e += 1) {
            assert_int_equal(lincoll_gf_pow(f, a, e), x);
            x = mul[x][a];
        }
    }
    lincoll_gf_field_destroy(f);
}

static void test_gf16(void **state)
{
    (void)state;
    lincoll_field_t *f = mk(65536);
    uint64_t s = 1;
    for (uint64_t a = 1; a < 65536; a++) {
        uint64_t inv;
        assert_int_equal(lincoll_gf_inv(f, a, &inv), LINCOLL_OK);
        assert_int_equal(lincoll_gf_mul(f, a, inv), 1);
    }
    for (int n = 0; n < 200000; n++) {
        uint64_t a = lc_test_rand(&s) & 0xffff, b = lc_test_rand(&s) & 0xffff,
                 c = lc_test_rand(&s) & 0xffff;
        uint64_t ab = lincoll_gf_mul(f, a, b);
        assert_int_equal(ab, ref_gf2_mul(a, b, 16, 0x1100b));
        assert_int_equal(ab, lincoll_gf_mul(f, b, a));
        assert_int_equal(lincoll_gf_mul(f, ab, c), lincoll_gf_mul(f, a, lincoll_gf_mul(f, b, c)));
        assert_int_equal(lincoll_gf_mul(f, a, b ^ c), ab ^ lincoll_gf_mul(f, a, c));
    }
    lincoll_gf_field_destroy(f);
}

static void test_primes_sampled(void **state)
{
    (void)state;
    for (size_t t = 2; t < LC_TEST_NORDERS; t++) {
        uint64_t q = lc_test_orders[t];
        lincoll_field_t *f = mk(q);
        uint64_t s = q;
        for (int n = 0; n < 100000; n++) {
            uint64_t a = lc_test_elem(f, &s), b = lc_test_elem(f, &s), c = lc_test_elem(f, &s);
            uint64_t ab = lincoll_gf_mul(f, a, b);
            assert_int_equal(ab, (uint64_t)((unsigned __int128)a * b % q));
            assert_int_equal(lincoll_gf_add(f, a, b), (uint64_t)(((unsigned __int128)a + b) % q));
            assert_int_equal(lincoll_gf_sub(f, a, b),
                             (uint64_t)(((unsigned __int128)a + q - b) % q));
            assert_int_equal(lincoll_gf_mul(f, ab, c),
                             lincoll_gf_mul(f, a, lincoll_gf_mul(f, b, c)));
            assert_int_equal(lincoll_gf_mul(f, a, lincoll_gf_add(f, b, c)),
                             lincoll_gf_add(f, ab, lincoll_gf_mul(f, a, c)));
            if (a != 0 && n % 16 == 0) {
                uint64_t inv;
                assert_int_equal(lincoll_gf_inv(f, a, &inv), LINCOLL_OK);
                assert_int_equal(lincoll_gf_mul(f, a, inv), 1);
            }
        }
        /* Fermat: a^(q-1) = 1 */
        assert_int_equal(lincoll_gf_pow(f, 5 % q ? 5 % q : 1, q - 1), 1);
        lincoll_gf_field_destroy(f);
    }
}

static void check_root(uint64_t q, uint64_t K)
{
    lincoll_field_t *f = mk(q);
    uint64_t w;
    assert_int_equal(lincoll_gf_root_of_unity(f, K, &w), LINCOLL_OK);
    assert_int_equal(lincoll_gf_pow(f, w, K), 1);
    for (uint64_t p = 2; p <= K; p++) { /* primitive: w^(K/p) != 1 for prime p | K */
        if (K % p) continue;
        int prime = 1;
        for (uint64_t d = 2; d * d <= p; d++)
            prime &= (p % d) != 0;
        if (prime) assert_int_not_equal(lincoll_gf_pow(f, w, K / p), 1);
        if (p > 70000) break;
    }
    lincoll_gf_field_destroy(f);
}

static void test_roots_of_unity(void **state)
{
    (void)state;
    check_root(256, 255);
    check_root(256, 17);
    check_root(65536, 257);
    check_root(65537, 1u << 16);
    check_root(998244353, 1u << 23);
    check_root(998244353, 7 * 17);
    check_root(LINCOLL_GF_GOLDILOCKS, 1ull << 32);
    check_root(LINCOLL_GF_GOLDILOCKS, 65537);
    /* generators have full order */
    for (size_t t = 0; t < LC_TEST_NORDERS; t++) {
        lincoll_field_t *f = mk(lc_test_orders[t]);
        for (int i = 0; i < f->nfac; i++) {
            assert_int_not_equal(lincoll_gf_pow(f, lincoll_gf_primitive(f), (f->q - 1) / f->fac[i]),
                                 1);
        }
        lincoll_gf_field_destroy(f);
    }
}

static void test_bad_scalars(void **state)
{
    (void)state;
    lincoll_field_t *f = mk(998244353);
    uint64_t w = 12345;
    /* K must divide q - 1 = 2^23 * 7 * 17 */
    assert_int_equal(lincoll_gf_root_of_unity(f, 3, &w), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_root_of_unity(f, 1u << 24, &w), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_root_of_unity(f, 0, &w), LINCOLL_ERR_INVALID);
    assert_int_equal(w, 12345); /* untouched on error */
    assert_int_equal(lincoll_gf_root_of_unity(f, 2, NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_root_of_unity(NULL, 2, &w), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_inv(f, 0, &w), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_inv(f, 998244353, &w), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_inv(f, 3, NULL), LINCOLL_ERR_INVALID);
    lincoll_gf_field_destroy(f);
    lincoll_field_t *g = mk(256);
    assert_int_equal(lincoll_gf_root_of_unity(g, 2, &w), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_root_of_unity(g, 256, &w), LINCOLL_ERR_INVALID);
    lincoll_gf_field_destroy(g);
}

static void test_bad_orders(void **state)
{
    (void)state;
    lincoll_field_t *f = (lincoll_field_t *)(uintptr_t)1;
    assert_int_equal(lincoll_gf_field_create(1000, &f), LINCOLL_ERR_INVALID); /* 2^3 5^3 */
    assert_int_equal(lincoll_gf_field_create(0, &f), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_field_create(1, &f), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_gf_field_create(998244351, &f),
                     LINCOLL_ERR_INVALID); /* odd, composite */
    assert_int_equal(lincoll_gf_field_create(4, &f), LINCOLL_ERR_UNSUPPORTED);
    assert_int_equal(lincoll_gf_field_create(9, &f), LINCOLL_ERR_UNSUPPORTED);
    assert_int_equal(lincoll_gf_field_create(2147483659ull, &f), LINCOLL_ERR_UNSUPPORTED);
    assert_int_equal(lincoll_gf_field_create(256, NULL), LINCOLL_ERR_INVALID);
    assert_ptr_equal(f, (lincoll_field_t *)(uintptr_t)1); /* untouched on error */
    lincoll_gf_field_destroy(NULL);
    assert_int_equal(lincoll_gf_field_order(NULL), 0);
    assert_int_equal(lincoll_gf_field_elem_size(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_and_sizes),
        cmocka_unit_test(test_gf8_exhaustive),
        cmocka_unit_test(test_gf16),
        cmocka_unit_test(test_primes_sampled),
        cmocka_unit_test(test_roots_of_unity),
        cmocka_unit_test(test_bad_scalars),
        cmocka_unit_test(test_bad_orders),
    };
    return cmocka_run_group_tests_name("kernels_gf_field", tests, NULL, NULL);
}
