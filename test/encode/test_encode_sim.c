/*
 * test/encode/test_encode_sim.c: universal all-to-all encode on K virtual
 * ranks (sim transport).
 *
 * For every K in 1..300 and p in 1..4, prepare_shoot (paper window, every-K
 * fix) and best_window: random A and x (GF(2^8) and the prime 65537 in
 * rotation, both for K <= 40), every rank's output equals x A computed
 * serially; the *measured* rounds and per-round largest messages give
 * C1 = ceil(log_{p+1} K) and C2 equal to the closed forms (lincoll_encode_cost)
 * and to the schedule model of docs/encode.md (model_table.h, generated from
 * test/encode/model); the plan's static stats agree.  The per-round sizes
 * of the pruned variant (docs/encode.md; ps_model.round_sizes) are checked
 * one by one.  Direct baseline for K <= 64.
 * Then K = 1000 and 4096 (p = 2), GF(2^16) and Goldilocks spot checks,
 * persistent restarts and a larger packet.
 * LC_TEST_SCALE=reduced (set by deploy/sanitize.sh and deploy/valgrind.sh):
 * the sweep takes K = 1..40 (both fields) and a few larger K (powers of p+1
 * and their neighbours, 300), and K = 4096 is skipped; every algorithm,
 * field and code path still runs; the main suite runs the full scale.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "encode/enc_common.h"
#include "encode/model_table.h"
#include "core/encode/encode_int.h"

/* LC_TEST_SCALE=reduced: the sanitizer/memcheck scale (see the top) */
static int reduced_scale(void)
{
    const char *v = getenv("LC_TEST_SCALE");
    return v != NULL && strcmp(v, "reduced") == 0;
}

static int reduced_keeps(int K)
{
    static const int big[] = {63, 64, 65, 80, 81, 82, 124, 125, 126, 255, 256, 257, 300};
    if (K <= 40) return 1;
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
        if (big[i] == K) return 1;
    return 0;
}

typedef struct uarg {
    const lincoll_field_t *f;
    const uint64_t *A;
    int K, p;
    size_t B;
    lincoll_encode_algo_t algo;
} uarg_t;

static lincoll_status_t init_universal(lincoll_comm_t *comm, int r, const void *in, void *out,
                                       void *arg, lincoll_plan_t **plan)
{
    (void)r;
    uarg_t *u = arg;
    lincoll_encode_opts_t o = {.ports = u->p, .algo = u->algo};
    return lincoll_encode_init(comm, u->f, u->A, u->K, u->K, u->B, in, out, &o, plan);
}

static const int *model_row(int K, int p)
{
    static int row[4];
    for (size_t i = 0; i < sizeof(model_table) / sizeof(model_table[0]); i++) {
        if (model_table[i].K == K && model_table[i].p == p) {
            row[0] = model_table[i].c1;
            row[1] = model_table[i].c2_pruned;
            row[2] = model_table[i].best_m;
            row[3] = model_table[i].c2_best;
            return row;
        }
    }
    return NULL;
}

/* one (K, p, algo, field) case; returns the run for extra checks */
static void one_case(const lincoll_field_t *f, int K, int p, lincoll_encode_algo_t algo, size_t B,
                     uint64_t seed, int starts, enc_run_t *res)
{
    uint64_t q = lincoll_gf_field_order(f);
    uint64_t *A = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
    for (size_t i = 0; i < (size_t)K * (size_t)K; i++)
        A[i] = enc_rand(&seed) % q;
    uint8_t **x = enc_bufs(f, K, B, &seed, 1), **y = enc_bufs(f, K, B, &seed, 0);
    uarg_t u = {.f = f, .A = A, .K = K, .p = p, .B = B, .algo = algo};
    assert_int_equal(enc_run(K, p, x, y, init_universal, &u, starts, res), 0);
    if (res->init_st != LINCOLL_OK || res->run_st != LINCOLL_OK) {
        fail_msg("K=%d p=%d %s: init %s run %s", K, p, lincoll_encode_algo_name(algo),
                 lincoll_strerror(res->init_st), lincoll_strerror(res->run_st));
    }
    int bad = enc_check_matrix(f, K, A, x, y, B);
    if (bad)
        fail_msg("K=%d p=%d %s q=%llu: %d ranks wrong", K, p, lincoll_encode_algo_name(algo),
                 (unsigned long long)q, bad);
    /* measured vs closed form vs plan stats */
    unsigned c1;
    uint64_t c2;
    int m;
    assert_int_equal(lincoll_encode_cost(K, p, algo, &c1, &c2, &m), LINCOLL_OK);
    if (res->c1 != c1 || res->c2_bytes != c2 * B || res->c2_bytes % B) {
        fail_msg("K=%d p=%d %s: measured C1=%u C2=%llu, closed form C1=%u C2=%llu", K, p,
                 lincoll_encode_algo_name(algo), res->c1, (unsigned long long)(res->c2_bytes / B),
                 c1, (unsigned long long)c2);
    }
    assert_int_equal(res->st0.rounds, c1);
    assert_int_equal(res->st0.c2_elems, c2);
    assert_string_equal(res->st0.algorithm, lincoll_encode_algo_name(algo));
    enc_free_bufs(x, K);
    enc_free_bufs(y, K);
    free(A);
}

static int ceil_log(int K, int P)
{
    int L = 0;
    long v = 1;
    while (v < K)
        v *= P, L++;
    return L;
}

static void test_universal_sweep(void **state)
{
    (void)state;
    lincoll_field_t *f8, *fp;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(65537, &fp), LINCOLL_OK);
    int cases = 0;
    for (int p = 1; p <= 4; p++) {
        for (int K = 1; K <= 300; K++) {
            if (reduced_scale() && !reduced_keeps(K)) continue;
            const int *mr = K >= 2 ? model_row(K, p) : NULL;
            assert_true(K == 1 || mr != NULL);
            for (int a = 0; a < 2; a++) {
                lincoll_encode_algo_t algo =
                    a ? LINCOLL_ENCODE_ALGO_BEST_WINDOW : LINCOLL_ENCODE_ALGO_PREPARE_SHOOT;
                for (int fi = 0; fi < 2; fi++) {
                    if (K > 40 && fi != (K + a) % 2) continue; /* rotate fields */
                    const lincoll_field_t *f = fi ? fp : f8;
                    size_t B = fi ? 8 : 3; /* 2 and 3 elements */
                    enc_run_t res;
                    one_case(f, K, p, algo, B, (uint64_t)(K * 131 + p * 7 + a * 3 + fi + 1), 1,
                             &res);
                    cases++;
                    /* C1 = ceil(log_{p+1} K) always; C2 >= C1 */
                    assert_int_equal(res.c1, (unsigned)ceil_log(K, p + 1));
                    assert_true(res.c2_bytes / B >= res.c1);
                    if (mr != NULL) {
                        assert_int_equal((int)res.c1, mr[0]);
                        int want = a ? mr[3] : mr[1];
                        if ((int)(res.c2_bytes / B) != want)
                            fail_msg("K=%d p=%d %s: C2=%llu, model %d", K, p,
                                     lincoll_encode_algo_name(algo),
                                     (unsigned long long)(res.c2_bytes / B), want);
                        int m;
                        lincoll_encode_cost(K, p, LINCOLL_ENCODE_ALGO_BEST_WINDOW, NULL, NULL, &m);
                        assert_int_equal(m, mr[2]);
                    }
                }
            }
        }
    }
    printf("universal sweep: %d cases (K = 1..300%s, p = 1..4, 2 algorithms)\n", cases,
           reduced_scale() ? " reduced" : "");
    lincoll_gf_field_destroy(f8);
    lincoll_gf_field_destroy(fp);
}

/* per-round sizes d_t of the pruned variant (docs/encode.md, "Per-round message sizes";
 * test/encode/model) */
static void test_round_profiles(void **state)
{
    (void)state;
    static const struct {
        int K, p, n;
        int d[8];
    } prof[] = {
        {5, 1, 3, {1, 2, 1}},        {9, 1, 4, {1, 2, 1, 1}},        {16, 1, 4, {1, 2, 2, 1}},
        {17, 1, 5, {1, 2, 4, 1, 1}}, {33, 1, 6, {1, 2, 4, 2, 1, 1}}, {64, 1, 6, {1, 2, 4, 4, 2, 1}},
        {4, 2, 2, {1, 1}},           {10, 2, 3, {1, 3, 1}},          {28, 2, 4, {1, 3, 1, 1}},
        {81, 2, 4, {1, 3, 3, 1}},    {17, 3, 3, {1, 4, 1}},          {65, 3, 4, {1, 4, 1, 1}},
        {100, 3, 4, {1, 4, 2, 1}},
    };
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    for (size_t i = 0; i < sizeof(prof) / sizeof(prof[0]); i++) {
        enc_run_t res;
        size_t B = 5;
        one_case(f, prof[i].K, prof[i].p, LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, B, 99 + i, 1, &res);
        assert_int_equal(res.c1, prof[i].n);
        for (int t = 0; t < prof[i].n; t++) {
            if (res.max_round_bytes[t] != (unsigned long long)prof[i].d[t] * B)
                fail_msg("K=%d p=%d round %d: %llu packets, the model says %d", prof[i].K,
                         prof[i].p, t, res.max_round_bytes[t] / B, prof[i].d[t]);
        }
    }
    lincoll_gf_field_destroy(f);
}

static void test_direct(void **state)
{
    (void)state;
    lincoll_field_t *f8, *fp;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(998244353, &fp), LINCOLL_OK);
    for (int p = 1; p <= 4; p++) {
        for (int K = 1; K <= 64; K += (K < 20 ? 1 : 7)) {
            enc_run_t res;
            one_case(K % 2 ? f8 : fp, K, p, LINCOLL_ENCODE_ALGO_DIRECT, K % 2 ? 7 : 12,
                     (uint64_t)K * 17 + (uint64_t)p, 1, &res);
            assert_int_equal(res.c1, (unsigned)((K - 1 + p - 1) / p));
        }
    }
    lincoll_gf_field_destroy(f8);
    lincoll_gf_field_destroy(fp);
}

/* K = 1000 and 4096 (p = 2), other fields, restarts, bigger packets */
static void test_large_and_fields(void **state)
{
    (void)state;
    lincoll_field_t *f8, *f16, *fp, *fg;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(65536, &f16), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(2147483647, &fp), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(LINCOLL_GF_GOLDILOCKS, &fg), LINCOLL_OK);
    static const int bigK[] = {1000, 4096};
    for (int i = 0; i < 2; i++) {
        if (reduced_scale() && bigK[i] > 1000) continue;
        for (int a = 0; a < 2; a++) {
            lincoll_encode_algo_t algo =
                a ? LINCOLL_ENCODE_ALGO_BEST_WINDOW : LINCOLL_ENCODE_ALGO_PREPARE_SHOOT;
            enc_run_t res;
            one_case(f8, bigK[i], 2, algo, 1, 5 + (uint64_t)i, 1, &res);
            const int *mr = model_row(bigK[i], 2);
            assert_non_null(mr);
            assert_int_equal((int)res.c1, mr[0]);
            assert_int_equal((int)res.c2_bytes, a ? mr[3] : mr[1]);
            printf("K=%d p=2 %s: C1=%u C2=%llu (model %d)\n", bigK[i],
                   lincoll_encode_algo_name(algo), res.c1, (unsigned long long)res.c2_bytes,
                   a ? mr[3] : mr[1]);
        }
    }
    static const int Ks[] = {2, 7, 9, 13, 33};
    for (int i = 0; i < 5; i++) {
        enc_run_t res;
        one_case(f16, Ks[i], 1 + i % 3, LINCOLL_ENCODE_ALGO_BEST_WINDOW, 6, 3 + (uint64_t)i, 2,
                 &res);
        one_case(fg, Ks[i], 1 + i % 2, LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, 16, 4 + (uint64_t)i, 3,
                 &res);
        one_case(fp, Ks[i], 2,
                 LINCOLL_ENCODE_ALGO_AUTO == 0 ? LINCOLL_ENCODE_ALGO_BEST_WINDOW
                                               : LINCOLL_ENCODE_ALGO_DIRECT,
                 4 * 1031, 6 + (uint64_t)i, 2, &res);
        one_case(f8, Ks[i], 3, LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, 70001, 8 + (uint64_t)i, 2, &res);
    }
    lincoll_gf_field_destroy(f8);
    lincoll_gf_field_destroy(f16);
    lincoll_gf_field_destroy(fp);
    lincoll_gf_field_destroy(fg);
}

/* ---- every tag algorithm of the encode registry, one line each --------------- */

/* The universal tag algorithms (the zero-copy ones: test_encode_zcopy.c).
 * Adding one to core/encode/registry.c means adding its line here
 * (test_registry fails otherwise); its result is then checked on K = 1..13
 * ranks, p = 1..3, over GF(2^8) and a prime field. */
static const char *const tag_algs[] = {"direct", "best_window", "prepare_shoot"};
#define NTAG (sizeof(tag_algs) / sizeof(tag_algs[0]))

static void test_registry(void **state)
{
    (void)state;
    size_t n;
    const lc_enc_alg_t *const *reg = lc_enc_registry(&n);
    for (size_t i = 0; i < n; i++) {
        int listed = reg[i]->mapped;
        for (size_t t = 0; t < NTAG && !listed; t++)
            listed = strcmp(tag_algs[t], reg[i]->name) == 0;
        if (!listed) fail_msg("encode registry algorithm %s has no line in tag_algs", reg[i]->name);
    }
    lincoll_field_t *f8, *fp;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(65537, &fp), LINCOLL_OK);
    for (size_t t = 0; t < NTAG; t++) {
        lincoll_encode_algo_t algo;
        assert_true(lc_enc_algo_named(tag_algs[t], &algo));
        for (int K = 1; K <= 13; K++) {
            for (int p = 1; p <= 3; p++) {
                const lincoll_field_t *f = (K + p) % 2 ? f8 : fp;
                uint64_t seed = (uint64_t)K * 31 + (uint64_t)p, q = lincoll_gf_field_order(f);
                const size_t B = 64;
                uint64_t *A = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
                for (size_t i = 0; i < (size_t)K * (size_t)K; i++)
                    A[i] = enc_rand(&seed) % q;
                uint8_t **x = enc_bufs(f, K, B, &seed, 1), **y = enc_bufs(f, K, B, &seed, 0);
                uarg_t u = {.f = f, .A = A, .K = K, .p = p, .B = B, .algo = algo};
                enc_run_t res;
                assert_int_equal(enc_run(K, p, x, y, init_universal, &u, 2, &res), 0);
                if (res.init_st != LINCOLL_OK || res.run_st != LINCOLL_OK)
                    fail_msg("%s K=%d p=%d: init %s run %s", tag_algs[t], K, p,
                             lincoll_strerror(res.init_st), lincoll_strerror(res.run_st));
                if (enc_check_matrix(f, K, A, x, y, B))
                    fail_msg("%s K=%d p=%d: wrong result", tag_algs[t], K, p);
                assert_string_equal(res.st0.algorithm, tag_algs[t]);
                enc_free_bufs(x, K);
                enc_free_bufs(y, K);
                free(A);
            }
        }
    }
    lincoll_gf_field_destroy(f8);
    lincoll_gf_field_destroy(fp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),        cmocka_unit_test(test_round_profiles),
        cmocka_unit_test(test_direct),          cmocka_unit_test(test_large_and_fields),
        cmocka_unit_test(test_universal_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
