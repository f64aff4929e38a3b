/*
 * test/daemon/test_ecd_verify.c: the secret fingerprints of daemon/ecd_verify.c:
 * streaming in any pieces equals the one-shot value, linearity (a parity
 * row's fingerprint is the code row applied to the data rows'), every
 * alteration detected (single bytes, bursts, CRC32C-keeping forgeries from
 * the test hook), keys that differ give fingerprints that differ, and the
 * protocol words.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/ecd.h"
#include "daemon/ecd_verify.h"
#include "kernels/crc/crc32c.h"

static lincoll_field_t *gf;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void fill(uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)next();
}

static void key_of(ecd_vkey_t *k)
{
    assert_int_equal(ecd_vkey_new(k), 0);
}

/* One-shot and streamed in uneven pieces (across segment and batch edges)
 * agree, for lengths around the segment size. */
static void test_streaming(void **state)
{
    (void)state;
    ecd_vkey_t *k = malloc(sizeof(*k));
    key_of(k);
    size_t lens[] = {1,
                     5,
                     ECD_FP_W - 1,
                     ECD_FP_W,
                     ECD_FP_W + 1,
                     3 * ECD_FP_W + 17,
                     (size_t)ECD_FP_W * ECD_FP_BATCH + 999,
                     1u << 20};
    uint8_t *buf = malloc(1u << 20);
    fill(buf, 1u << 20);
    ecd_fp_acc_t *a = malloc(sizeof(*a));
    for (size_t t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
        ecd_fp_t one, streamed;
        assert_int_equal(ecd_fp(gf, k, buf, lens[t], &one), 0);
        ecd_fp_init(a, gf, k);
        for (size_t off = 0, step = 1; off < lens[t]; off += step, step = step * 7 % 9973 + 1)
            assert_int_equal(
                ecd_fp_update(a, buf + off, off + step > lens[t] ? lens[t] - off : step), 0);
        assert_int_equal(ecd_fp_final(a, &streamed), 0);
        assert_true(ecd_fp_equal(&one, &streamed));
    }
    /* trailing zeros are padding: the value of x || 0 is x's */
    ecd_fp_t x, xz;
    memset(buf + 1000, 0, 500);
    assert_int_equal(ecd_fp(gf, k, buf, 1000, &x), 0);
    assert_int_equal(ecd_fp(gf, k, buf, 1500, &xz), 0);
    assert_true(ecd_fp_equal(&x, &xz));
    free(a);
    free(buf);
    free(k);
}

/* RS(4,2) parity of random data: fp(parity_i) = sum_j P[i][j] fp(data_j);
 * and the same for a repair's recovery row applied to survivors. */
static void test_linearity(void **state)
{
    (void)state;
    enum { K = 4, M = 2, N = 6 };
    const size_t len = 300000; /* not a multiple of the segment */
    ecd_vkey_t *k = malloc(sizeof(*k));
    key_of(k);
    uint64_t G[N * K];
    assert_int_equal(lincoll_gf_matrix_systematic(gf, N, K, LINCOLL_GF_RS_CAUCHY, G), LINCOLL_OK);
    uint8_t *rows[N];
    for (int r = 0; r < N; r++)
        rows[r] = malloc(len);
    for (int r = 0; r < K; r++)
        fill(rows[r], len);
    assert_int_equal(lincoll_gf_encode(gf, K, M, G + K * K, len, (const void *const *)rows,
                                       (void *const *)(rows + K)),
                     LINCOLL_OK);
    ecd_fp_t fp[N], want;
    for (int r = 0; r < N; r++)
        assert_int_equal(ecd_fp(gf, k, rows[r], len, &fp[r]), 0);
    for (int i = 0; i < M; i++) {
        ecd_fp_combine(gf, G + (K + i) * K, K, fp, &want);
        assert_true(ecd_fp_equal(&want, &fp[K + i]));
    }
    /* row 1 rebuilt from rows 0, 2, 4, 5 */
    int surv[K] = {0, 2, 4, 5}, lost = 1;
    uint64_t R[K];
    ecd_fp_t sf[K];
    assert_int_equal(lincoll_gf_matrix_recover(gf, N, K, G, surv, 1, &lost, R), LINCOLL_OK);
    for (int i = 0; i < K; i++)
        sf[i] = fp[surv[i]];
    ecd_fp_combine(gf, R, K, sf, &want);
    assert_true(ecd_fp_equal(&want, &fp[lost]));
    for (int r = 0; r < N; r++)
        free(rows[r]);
    free(k);
}

/* Every alteration is seen: a single byte anywhere (every bit value), a
 * burst, a block of random bytes, the test hook's CRC32C-keeping forgery;
 * each under a fresh key.  A miss has probability <= 2^-56 per trial. */
static void test_detection(void **state)
{
    (void)state;
    const size_t len = 70000;
    ecd_vkey_t *k = malloc(sizeof(*k));
    uint8_t *buf = malloc(len), *alt = malloc(len);
    fill(buf, len);
    for (int t = 0; t < 300; t++) {
        key_of(k);
        memcpy(alt, buf, len);
        size_t at = (size_t)(next() % len);
        switch (t % 3) {
        case 0:
            alt[at] ^= (uint8_t)(1 + t % 255);
            break;
        case 1:
            for (size_t i = at; i < len && i < at + 64; i++)
                alt[i] ^= 0xff;
            break;
        default:
            for (size_t i = at; i < len && i < at + 4096; i++)
                alt[i] = (uint8_t)next();
            if (memcmp(alt, buf, len) == 0) alt[at] ^= 1;
            break;
        }
        ecd_fp_t a, b;
        assert_int_equal(ecd_fp(gf, k, buf, len, &a), 0);
        assert_int_equal(ecd_fp(gf, k, alt, len, &b), 0);
        assert_false(ecd_fp_equal(&a, &b));
    }
    /* the hook's forgery keeps the CRC32C and is still seen */
    ecd_verify_alter_at = 2;
    memcpy(alt, buf, len);
    assert_int_equal(ecd_verify_test_alter(alt, len, "piece 1"), 0); /* the first: untouched */
    assert_memory_equal(alt, buf, len);
    assert_int_equal(ecd_verify_test_alter(alt, len, "piece 2"), 1);
    assert_memory_not_equal(alt, buf, len);
    assert_int_equal(lc_crc32c(0, alt, len), lc_crc32c(0, buf, len));
    assert_int_equal(ecd_verify_test_alter(alt + 1, 100, "piece 3"), 0); /* only the N-th */
    ecd_fp_t a, b;
    key_of(k);
    assert_int_equal(ecd_fp(gf, k, buf, len, &a), 0);
    assert_int_equal(ecd_fp(gf, k, alt, len, &b), 0);
    assert_false(ecd_fp_equal(&a, &b));
    ecd_verify_alter_at = 0;
    free(buf);
    free(alt);
    free(k);
}

/* The value depends on the key: 20 keys, 20 different fingerprints of one
 * buffer (a collision has probability about 20^2 / 2^65). */
static void test_keys(void **state)
{
    (void)state;
    uint8_t buf[5000];
    fill(buf, sizeof(buf));
    ecd_vkey_t *k = malloc(sizeof(*k));
    ecd_fp_t f[20];
    for (int i = 0; i < 20; i++) {
        key_of(k);
        assert_int_equal(ecd_fp(gf, k, buf, sizeof(buf), &f[i]), 0);
        for (int j = 0; j < i; j++)
            assert_false(ecd_fp_equal(&f[i], &f[j]));
    }
    free(k);
}

/* Hex forms and the "verify=KEY" word of ENCODE and REPAIR lines. */
static void test_words(void **state)
{
    (void)state;
    ecd_vkey_t *k = malloc(sizeof(*k)), *back = malloc(sizeof(*back));
    key_of(k);
    char hex[2 * ECD_VKEY + 1], word[64];
    ecd_vkey_hex(k, hex);
    snprintf(word, sizeof(word), "verify=%s", hex);
    char a0[] = "ENCODE", a1[] = "x";
    char *w[3] = {a0, a1, word};
    int have = -1;
    assert_int_equal(ecd_verify_take_key(w, 3, back, &have), 2);
    assert_int_equal(have, 1);
    assert_memory_equal(back->key, k->key, ECD_VKEY);
    assert_memory_equal(back->d, k->d, sizeof(k->d));
    assert_int_equal(ecd_verify_take_key(w, 2, back, &have), 2); /* no key word */
    assert_int_equal(have, 0);
    char bad[] = "verify=12zz";
    w[2] = bad;
    assert_int_equal(ecd_verify_take_key(w, 3, back, &have), -1);
    ecd_fp_t f = {{1, 2, 3, 4, 5, 6, 7, 0xff}}, g;
    char fh[2 * ECD_FP_T + 1];
    ecd_fp_hex(&f, fh);
    assert_string_equal(fh, "01020304050607ff");
    assert_int_equal(ecd_fp_parse(&g, fh), 0);
    assert_true(ecd_fp_equal(&f, &g));
    assert_int_equal(ecd_fp_parse(&g, "0102"), -1);
    free(k);
    free(back);
}

int main(void)
{
    if (lincoll_gf_field_create(256, &gf) != LINCOLL_OK) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streaming), cmocka_unit_test(test_linearity),
        cmocka_unit_test(test_detection), cmocka_unit_test(test_keys),
        cmocka_unit_test(test_words),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    lincoll_gf_field_destroy(gf);
    return rc;
}
