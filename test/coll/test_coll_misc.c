/*
 * test/coll/test_coll_misc.c: determinism, persistence, selection, forced
 * algorithms and bad input for the collectives, on the sim transport.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lincoll/coll.h>

#include "common/sim_harness.h"
#include "core/coll/coll_int.h"
#include "core/exec/exec.h"

static double rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return ((double)(*s >> 8) / (double)(1u << 24) - 0.5) * 1e3;
}

/* Random doubles: all ranks bitwise identical, reruns identical, and an
 * element's result does not depend on count or position (batch invariance). */
static void allreduce_doubles(int P, size_t n, const char *algo, double *res, size_t shift)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    setenv("LINCOLL_ALLREDUCE_ALGO", algo, 1);
    double **buf = calloc((size_t)P, sizeof(double *));
    lincoll_plan_t **pl = calloc((size_t)P, sizeof(*pl));
    for (int r = 0; r < P; r++) {
        buf[r] = calloc(n + shift, sizeof(double));
        unsigned s = 7u + (unsigned)r * 1000003u;
        for (size_t i = 0; i < n; i++)
            buf[r][i + shift] = rnd(&s);
        assert_int_equal(lincoll_allreduce_init(h.comm[r], LINCOLL_IN_PLACE, buf[r] + shift, n,
                                                LINCOLL_DOUBLE, LINCOLL_SUM, &pl[r]),
                         LINCOLL_OK);
    }
    unsetenv("LINCOLL_ALLREDUCE_ALGO");
    assert_int_equal(lc_simh_run(&h, pl), LINCOLL_OK);
    for (int r = 1; r < P; r++) {
        assert_memory_equal(buf[r] + shift, buf[0] + shift, n * sizeof(double));
    }
    memcpy(res, buf[0] + shift, n * sizeof(double));
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(pl[r]);
        free(buf[r]);
    }
    free(buf);
    free(pl);
    lc_simh_destroy(&h);
}

static void test_determinism(void **state)
{
    (void)state;
    const int Ps[] = {2, 5, 6, 13, 16};
    const char *algos[] = {"rhd", "ring"};
    for (unsigned i = 0; i < 5; i++) {
        for (unsigned a = 0; a < 2; a++) {
            size_t n = 1000;
            double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
            allreduce_doubles(Ps[i], n, algos[a], x, 0);
            allreduce_doubles(Ps[i], n, algos[a], y, 0);
            assert_memory_equal(x, y, n * sizeof(double)); /* run to run */
            free(x);
            free(y);
        }
    }
}

/* A persistent plan restarted many times with new data. */
static void test_persistent(void **state)
{
    (void)state;
    const int P = 7;
    const size_t n = 50;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    int32_t *in[7], *out[7];
    lincoll_plan_t *pl[7];
    for (int r = 0; r < P; r++) {
        in[r] = malloc(n * 4);
        out[r] = malloc(n * 4);
        assert_int_equal(
            lincoll_allreduce_init(h.comm[r], in[r], out[r], n, LINCOLL_INT32, LINCOLL_SUM, &pl[r]),
            LINCOLL_OK);
    }
    for (int it = 0; it < 20; it++) {
        for (int r = 0; r < P; r++)
            for (size_t i = 0; i < n; i++)
                in[r][i] = (int32_t)(r * 100 + (int)i + it);
        assert_int_equal(lc_simh_run(&h, pl), LINCOLL_OK);
        for (int r = 0; r < P; r++)
            for (size_t i = 0; i < n; i++)
                assert_int_equal(out[r][i], 2100 + 7 * (int)i + 7 * it);
    }
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(pl[r]);
        free(in[r]);
        free(out[r]);
    }
    lc_simh_destroy(&h);
}

static lincoll_status_t init_op(lincoll_comm_t *c, int op, void *a, void *b, size_t n,
                                lincoll_plan_t **pl)
{
    switch (op) {
    case LC_COLL_ALLREDUCE:
        return lincoll_allreduce_init(c, a, b, n, LINCOLL_FLOAT, LINCOLL_SUM, pl);
    case LC_COLL_REDUCE_SCATTER:
        return lincoll_reduce_scatter_init(c, a, b, n, LINCOLL_FLOAT, LINCOLL_SUM, pl);
    case LC_COLL_ALLGATHER:
        return lincoll_allgather_init(c, a, b, n, LINCOLL_FLOAT, pl);
    case LC_COLL_BCAST:
        return lincoll_bcast_init(c, b, n, LINCOLL_FLOAT, 0, pl);
    default:
        return lincoll_reduce_init(c, a, b, n, LINCOLL_FLOAT, LINCOLL_SUM, 0, pl);
    }
}

/* Forced algorithms that do not exist: fallback (warn) or UNSUPPORTED (error). */
static void test_forced(void **state)
{
    (void)state;
    const char *vars[] = {"LINCOLL_ALLREDUCE_ALGO", "LINCOLL_REDUCE_SCATTER_ALGO",
                          "LINCOLL_ALLGATHER_ALGO", "LINCOLL_BCAST_ALGO", "LINCOLL_REDUCE_ALGO"};
    const char *bad[] = {"binomial", "binomial", "binomial", "ring", "ring"};
    float a[64], b[64];
    for (int mode = 0; mode < 2; mode++) {
        setenv("LINCOLL_ALGO_FALLBACK", mode ? "error" : "warn", 1);
        lc_simh_t h;
        assert_int_equal(lc_simh_create(&h, 4, 1), 0);
        for (int op = 0; op < 5; op++) {
            lincoll_plan_t *pl = NULL;
            setenv(vars[op], bad[op], 1);
            lincoll_status_t st = init_op(h.comm[0], op, a, b, 4, &pl);
            assert_int_equal(st, mode ? LINCOLL_ERR_UNSUPPORTED : LINCOLL_OK);
            lincoll_plan_free(pl);
            setenv(vars[op], "nonsense", 1);
            assert_int_equal(init_op(h.comm[0], op, a, b, 4, &pl), LINCOLL_ERR_INVALID);
            setenv(vars[op], "RHD", 1); /* case-insensitive */
            assert_int_equal(init_op(h.comm[0], op, a, b, 4, &pl), LINCOLL_OK);
            lincoll_plan_stats_t s;
            lincoll_plan_stats(pl, &s);
            assert_true(strncmp(s.algorithm, "rhd_", 4) == 0);
            lincoll_plan_free(pl);
            unsetenv(vars[op]);
        }
        lc_simh_destroy(&h);
    }
    unsetenv("LINCOLL_ALGO_FALLBACK");
}

/* The cost model: rhd for small messages on many ranks, ring for large
 * allreduce on a non-power-of-two count where the fold doubles the volume. */
static void test_selection(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 24, 1), 0);
    size_t big = 1 << 20;
    float *x = malloc(big * sizeof(float));
    lincoll_plan_t *pl;
    lincoll_plan_stats_t s;
    assert_int_equal(
        lincoll_allreduce_init(h.comm[0], LINCOLL_IN_PLACE, x, 8, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
        LINCOLL_OK);
    lincoll_plan_stats(pl, &s);
    assert_string_equal(s.algorithm, "rhd_allreduce");
    lincoll_plan_free(pl);
    assert_int_equal(lincoll_allreduce_init(h.comm[0], LINCOLL_IN_PLACE, x, big, LINCOLL_FLOAT,
                                            LINCOLL_SUM, &pl),
                     LINCOLL_OK);
    lincoll_plan_stats(pl, &s);
    assert_string_equal(s.algorithm, "ring_allreduce");
    lincoll_plan_free(pl);
    assert_int_equal(lincoll_bcast_init(h.comm[0], x, 2, LINCOLL_FLOAT, 3, &pl), LINCOLL_OK);
    lincoll_plan_stats(pl, &s);
    assert_string_equal(s.algorithm, "binomial_bcast");
    lincoll_plan_free(pl);
    assert_int_equal(lincoll_bcast_init(h.comm[0], x, big, LINCOLL_FLOAT, 3, &pl), LINCOLL_OK);
    lincoll_plan_stats(pl, &s);
    assert_string_equal(s.algorithm, "rhd_bcast");
    lincoll_plan_free(pl);
    free(x);
    lc_simh_destroy(&h);
}

static void test_bad_input(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 3, 1), 0);
    lincoll_comm_t *c = h.comm[0];
    float a[16], b[16];
    size_t counts[3] = {1, 2, 3};
    lincoll_plan_t *pl;
    assert_int_equal(lincoll_allreduce_init(NULL, a, b, 4, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_allreduce_init(c, a, b, 4, LINCOLL_FLOAT, LINCOLL_SUM, NULL),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_allreduce_init(c, a, NULL, 4, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_allreduce_init(c, NULL, b, 4, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_allreduce_init(c, a, a + 2, 4, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
                     LINCOLL_ERR_INVALID); /* partial overlap */
    assert_int_equal(lincoll_allreduce_init(c, a, b, 4, (lincoll_dtype_t)99, LINCOLL_SUM, &pl),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_allreduce_init(c, a, b, 4, LINCOLL_FLOAT, (lincoll_op_t)42, &pl),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_allreduce_init(c, a, b, 4, LINCOLL_FLOAT, LINCOLL_BXOR, &pl),
                     LINCOLL_ERR_UNSUPPORTED);
    assert_int_equal(lincoll_allreduce_init(c, a, b, SIZE_MAX / 2, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_bcast_init(c, a, 4, LINCOLL_FLOAT, 3, &pl), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_bcast_init(c, a, 4, LINCOLL_FLOAT, -1, &pl), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_bcast_init(c, NULL, 4, LINCOLL_FLOAT, 0, &pl), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_reduce_init(c, a, b, 4, LINCOLL_FLOAT, LINCOLL_SUM, 5, &pl),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_reduce_init(c, a, NULL, 4, LINCOLL_FLOAT, LINCOLL_SUM, 0, &pl),
                     LINCOLL_ERR_INVALID); /* rank 0 is the root */
    assert_int_equal(lincoll_reduce_scatterv_init(c, a, b, NULL, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(
        lincoll_reduce_scatterv_init(c, a, a + 1, counts, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
        LINCOLL_ERR_INVALID);
    size_t huge[3] = {SIZE_MAX / 4, SIZE_MAX / 4, 1};
    assert_int_equal(lincoll_reduce_scatterv_init(c, a, b, huge, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_allgatherv_init(c, b + 1, b, counts, LINCOLL_FLOAT, &pl),
                     LINCOLL_ERR_INVALID); /* sbuf inside rbuf, not the own block */
    assert_int_equal(lincoll_allgatherv_init(c, a, NULL, counts, LINCOLL_FLOAT, &pl),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_allgather_init(c, a, b, 2, (lincoll_dtype_t)-1, &pl),
                     LINCOLL_ERR_INVALID);
    /* count 0 with NULL buffers is fine */
    assert_int_equal(lincoll_allreduce_init(c, NULL, NULL, 0, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
                     LINCOLL_OK);
    lincoll_plan_free(pl);
    lc_simh_destroy(&h);
}

/* Ranks that pass different counts get an error, not a hang or an overrun. */
static void test_mismatch(void **state)
{
    (void)state;
    const int P = 4;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    float *buf[4];
    lincoll_plan_t *pl[4];
    for (int r = 0; r < P; r++) {
        size_t n = r == 2 ? 13 : 12; /* rank 2 disagrees */
        buf[r] = calloc(16, sizeof(float));
        buf[r][13] = 42.0f;
        assert_int_equal(lincoll_allreduce_init(h.comm[r], LINCOLL_IN_PLACE, buf[r], n,
                                                LINCOLL_FLOAT, LINCOLL_SUM, &pl[r]),
                         LINCOLL_OK);
    }
    lincoll_status_t st = lc_simh_run(&h, pl);
    assert_true(st == LINCOLL_ERR_MISMATCH || st == LINCOLL_ERR_TRUNCATED);
    for (int r = 0; r < P; r++) {
        assert_true(buf[r][13] == 42.0f || r == 2); /* nothing written past count */
        lincoll_plan_free(pl[r]);
        free(buf[r]);
    }
    lc_simh_destroy(&h);
}

/* P = 4000 (sim): the plan's alpha-beta-gamma prediction on the critical
 * path (a proxy, which also holds the root) equals HCCL's published RHD
 * formulas (docs/collectives.md, "Closed forms") with the same alpha, beta, gamma. */
static void test_hccl_formula(void **state)
{
    (void)state;
    const int P = 4000, k = 11, Pp = 2048;
    const size_t count = (size_t)Pp * 512; /* floats, divisible by P' */
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    const lc_config_t *cfg = &h.ctx[0]->cfg;
    const double al = cfg->model_alpha, be = 1.0 / cfg->model_bw, ga = 2.0 / cfg->model_compute_bw;
    const double n = (double)count * 4, f = (double)(Pp - 1) / Pp;
    float *a = malloc(count * 4), *b = malloc(count * 4);
    lincoll_plan_t *pl;
    lincoll_plan_stats_t s;
    setenv("LINCOLL_ALLREDUCE_ALGO", "rhd", 1);
    assert_int_equal(
        lincoll_allreduce_init(h.comm[0], a, b, count, LINCOLL_FLOAT, LINCOLL_SUM, &pl),
        LINCOLL_OK);
    lincoll_plan_stats(pl, &s);
    double hccl = (2 * k + 2) * al + (2 * f + 2) * n * be + (f + 1) * n * ga;
    printf("allreduce P=4000 n=%.0f bytes: lincoll predicted %.1f us, HCCL RHD formula %.1f us\n",
           n, s.predicted_us, hccl * 1e6);
    assert_int_equal(s.rounds, 2 * k + 2);
    assert_true(fabs(s.predicted_us - hccl * 1e6) < 1e-6 * hccl * 1e6);
    lincoll_plan_free(pl);
    unsetenv("LINCOLL_ALLREDUCE_ALGO");
    setenv("LINCOLL_REDUCE_ALGO", "rhd", 1);
    assert_int_equal(
        lincoll_reduce_init(h.comm[0], a, b, count, LINCOLL_FLOAT, LINCOLL_SUM, 0, &pl),
        LINCOLL_OK);
    lincoll_plan_stats(pl, &s);
    hccl = (2 * k + 1) * al + (2 * f + 1) * n * be + (f + 1) * n * ga;
    printf("reduce    P=4000 n=%.0f bytes: lincoll predicted %.1f us, HCCL RHD formula %.1f us\n",
           n, s.predicted_us, hccl * 1e6);
    assert_true(fabs(s.predicted_us - hccl * 1e6) < 1e-6 * hccl * 1e6);
    lincoll_plan_free(pl);
    unsetenv("LINCOLL_REDUCE_ALGO");
    setenv("LINCOLL_BCAST_ALGO", "binomial", 1);
    assert_int_equal(lincoll_bcast_init(h.comm[0], a, count, LINCOLL_FLOAT, 0, &pl), LINCOLL_OK);
    lincoll_plan_stats(pl, &s);
    hccl = 12 * (al + n * be); /* ceil(log2 4000) (alpha + n beta) */
    printf("bcast     P=4000 n=%.0f bytes: lincoll predicted %.1f us, HCCL RHD formula %.1f us\n",
           n, s.predicted_us, hccl * 1e6);
    assert_true(fabs(s.predicted_us - hccl * 1e6) < 1e-6 * hccl * 1e6);
    lincoll_plan_free(pl);
    unsetenv("LINCOLL_BCAST_ALGO");
    free(a);
    free(b);
    lc_simh_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism),  cmocka_unit_test(test_persistent),
        cmocka_unit_test(test_forced),       cmocka_unit_test(test_selection),
        cmocka_unit_test(test_bad_input),    cmocka_unit_test(test_mismatch),
        cmocka_unit_test(test_hccl_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
