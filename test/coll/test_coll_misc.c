/*
 * test/coll/test_coll_misc.c: determinism, persistence, selection, forced
 * algorithms (LINCOLL_<OP>_ALGO and lincoll_coll_opts_t::algo, every
 * algorithm of the registry) and bad input for the collectives, on the sim
 * transport.
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
#include <lincoll/log.h>

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

/* ---- the algorithm forced through lincoll_coll_opts_t ------------------------------ */

static const char *const op_var_name[LC_COLL_NOPS] = {
    "LINCOLL_ALLREDUCE_ALGO", "LINCOLL_REDUCE_SCATTER_ALGO", "LINCOLL_ALLGATHER_ALGO",
    "LINCOLL_BCAST_ALGO", "LINCOLL_REDUCE_ALGO"};

/* log lines at error level that name opts->algo */
static int opts_log_errors;
static char opts_log_last[256];
static void opts_log(lincoll_log_level_t level, int rank, const char *file, int line,
                     const char *msg, void *arg)
{
    (void)rank;
    (void)file;
    (void)line;
    (void)arg;
    if (level == LINCOLL_LOG_ERROR && strstr(msg, "opts->algo=") != NULL) {
        opts_log_errors++;
        snprintf(opts_log_last, sizeof(opts_log_last), "%s", msg);
    }
}

/* Input of rank r at element i, start it. */
static int32_t opts_in(int r, size_t i, int it)
{
    return (int32_t)(r * 1000 + (int)i + it);
}

/* Init op on every rank of h (P ranks, n elements per rank block, int32
 * sum, root P - 1) with opts; every rank must return the same status.  On
 * LINCOLL_OK: the plans' algorithm (equal on every rank) into algo, two
 * starts with new data, results against the closed forms. */
static lincoll_status_t opts_run(lc_simh_t *h, int op, size_t n, const lincoll_coll_opts_t *o,
                                 char *algo, size_t algo_len)
{
    const int P = h->K, root = P - 1;
    const size_t tot = (size_t)P * n,
                 len = op == LC_COLL_REDUCE_SCATTER || op == LC_COLL_ALLGATHER ? tot : n;
    int32_t **in = calloc((size_t)P, sizeof(*in)), **out = calloc((size_t)P, sizeof(*out));
    lincoll_plan_t **pl = calloc((size_t)P, sizeof(*pl));
    lincoll_status_t st0 = LINCOLL_OK;
    for (int r = 0; r < P; r++) {
        in[r] = calloc(len + 1, sizeof(int32_t));
        out[r] = calloc(len + 1, sizeof(int32_t));
        lincoll_comm_t *c = h->comm[r];
        lincoll_status_t st = LINCOLL_ERR_INTERNAL;
        switch (op) {
        case LC_COLL_ALLREDUCE:
            st = lincoll_allreduce_init_opts(c, in[r], out[r], n, LINCOLL_INT32, LINCOLL_SUM, o,
                                             &pl[r]);
            break;
        case LC_COLL_REDUCE_SCATTER:
            st = lincoll_reduce_scatter_init_opts(c, in[r], out[r], n, LINCOLL_INT32, LINCOLL_SUM,
                                                  o, &pl[r]);
            break;
        case LC_COLL_ALLGATHER:
            st = lincoll_allgather_init_opts(c, in[r], out[r], n, LINCOLL_INT32, o, &pl[r]);
            break;
        case LC_COLL_BCAST:
            st = lincoll_bcast_init_opts(c, out[r], n, LINCOLL_INT32, root, o, &pl[r]);
            break;
        default:
            st = lincoll_reduce_init_opts(c, in[r], out[r], n, LINCOLL_INT32, LINCOLL_SUM, root, o,
                                          &pl[r]);
            break;
        }
        if (r == 0) st0 = st;
        assert_int_equal(st, st0); /* the same verdict on every rank */
    }
    if (st0 == LINCOLL_OK) {
        lincoll_plan_stats_t s;
        for (int r = 0; r < P; r++) {
            assert_int_equal(lincoll_plan_stats(pl[r], &s), LINCOLL_OK);
            if (r == 0) snprintf(algo, algo_len, "%s", s.algorithm);
            assert_string_equal(s.algorithm, algo);
        }
        const int32_t sum_r = 1000 * P * (P - 1) / 2; /* sum over ranks of r * 1000 */
        for (int it = 0; it < 2; it++) {
            for (int r = 0; r < P; r++) {
                for (size_t i = 0; i < len; i++) {
                    in[r][i] = opts_in(r, i, it);
                    out[r][i] = op == LC_COLL_BCAST && r == root ? opts_in(root, i, it) : -1;
                }
            }
            assert_int_equal(lc_simh_run(h, pl), LINCOLL_OK);
            for (int r = 0; r < P; r++) {
                if (op == LC_COLL_REDUCE && r != root) continue;
                size_t m = op == LC_COLL_REDUCE_SCATTER ? n : len;
                for (size_t i = 0; i < m; i++) {
                    int32_t want;
                    if (op == LC_COLL_REDUCE_SCATTER)
                        want = sum_r + P * (int32_t)((size_t)r * n + i + (size_t)it);
                    else if (op == LC_COLL_ALLGATHER)
                        want = opts_in((int)(i / n), i % n, it);
                    else if (op == LC_COLL_BCAST)
                        want = opts_in(root, i, it);
                    else
                        want = sum_r + P * (int32_t)(i + (size_t)it);
                    if (out[r][i] != want)
                        fail_msg("%s (opts->algo %s) P=%d n=%zu start %d: rank %d element %zu is "
                                 "%d, not %d",
                                 lc_coll_op_name((lc_coll_op_t)op), o && o->algo ? o->algo : "NULL",
                                 P, n, it, r, i, out[r][i], want);
                }
            }
        }
    }
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(pl[r]);
        free(in[r]);
        free(out[r]);
    }
    free(in);
    free(out);
    free(pl);
    return st0;
}

/* Whether g can serve op's call of opts_run on rank 0 of h: zero copy only
 * where peers can be mapped, and its applicability test. */
static int opts_serves(lc_simh_t *h, const lc_coll_alg_t *g, size_t n)
{
    lincoll_comm_t *c = h->comm[0];
    const int P = h->K, can_map = lc_exec_can_map(c);
    if (g->mapped && !can_map) return 0;
    if (g->applies == NULL) return 1;
    size_t *counts = malloc((size_t)P * sizeof(size_t)),
           *displs = malloc((size_t)P * sizeof(size_t));
    for (int i = 0; i < P; i++) {
        counts[i] = n;
        displs[i] = (size_t)i * n;
    }
    const int vec = g->op == LC_COLL_REDUCE_SCATTER || g->op == LC_COLL_ALLGATHER;
    int32_t dummy[2];
    lc_coll_args_t a = {.op = g->op,
                        .sbuf = g->op == LC_COLL_BCAST ? NULL : dummy,
                        .rbuf = dummy + 1,
                        .count = vec ? 0 : n,
                        .counts = vec ? counts : NULL,
                        .displs = vec ? displs : NULL,
                        .total = vec ? (size_t)P * n : n,
                        .dtype = LINCOLL_INT32,
                        .rop = LINCOLL_SUM,
                        .root = g->op == LC_COLL_BCAST || g->op == LC_COLL_REDUCE ? P - 1 : 0,
                        .inplace = g->op == LC_COLL_BCAST,
                        .es = 4};
    lc_env_t env = lc_exec_env(c, can_map);
    int ok = g->applies(&env, &a);
    free(counts);
    free(displs);
    return ok;
}

/* Every algorithm of the registry, of every operation, forced through
 * opts->algo (short name and plan name) with LINCOLL_<OP>_ALGO naming
 * another algorithm: the plan is the forced one where it can serve the
 * call, else (zero copy on sim ranks, which cannot agree at init) the cost
 * model's choice under LINCOLL_ALGO_FALLBACK=warn, LINCOLL_ERR_UNSUPPORTED
 * on every rank under =error.  Results in closed form.  NULL opts, a NULL
 * algo, "" and "auto" leave the choice to the variable; a name that is not
 * one of the operation's algorithms is LINCOLL_ERR_INVALID on every rank
 * with one log line each naming opts->algo. */
static void test_opts_algo(void **state)
{
    (void)state;
    size_t nreg;
    const lc_coll_alg_t *const *reg = lc_coll_registry(&nreg);
    const int Ps[] = {4, 5};
    const size_t ns[] = {3, 1024};
    unsigned forced = 0, fell_back = 0, refused = 0;
    lincoll_log_set_handler(opts_log, NULL);
    for (int mode = 0; mode < 2; mode++) {
        setenv("LINCOLL_ALGO_FALLBACK", mode ? "error" : "warn", 1);
        for (unsigned pi = 0; pi < 2; pi++) {
            lc_simh_t h;
            assert_int_equal(lc_simh_create(&h, Ps[pi], 1), 0);
            for (unsigned ni = 0; ni < 2; ni++) {
                const size_t n = ns[ni];
                for (size_t gi = 0; gi < nreg; gi++) {
                    const lc_coll_alg_t *g = reg[gi];
                    const int op = (int)g->op;
                    char model[32] = "", env_alg[32] = "", got[32] = "";
                    /* the model's choice, and the variable's (a tag algorithm other than g) */
                    assert_int_equal(opts_run(&h, op, n, NULL, model, sizeof(model)), LINCOLL_OK);
                    const lc_coll_alg_t *other = NULL;
                    for (size_t k = 0; k < nreg && other == NULL; k++)
                        if (reg[k]->op == g->op && reg[k] != g && !reg[k]->mapped) other = reg[k];
                    assert_non_null(other);
                    setenv(op_var_name[op], other->name, 1);
                    assert_int_equal(opts_run(&h, op, n, NULL, env_alg, sizeof(env_alg)),
                                     LINCOLL_OK);
                    assert_string_equal(env_alg, other->plan_name);
                    const int serves = opts_serves(&h, g, n);
                    for (int pn = 0; pn < 2; pn++) { /* short name, then plan name */
                        lincoll_coll_opts_t o = {.algo = pn ? g->plan_name : g->name};
                        lincoll_status_t st = opts_run(&h, op, n, &o, got, sizeof(got));
                        if (serves) {
                            assert_int_equal(st, LINCOLL_OK);
                            assert_string_equal(got, g->plan_name);
                            forced++;
                        } else if (mode == 0) {
                            assert_int_equal(st, LINCOLL_OK);
                            assert_string_equal(got, model); /* not the variable's */
                            fell_back++;
                        } else {
                            assert_int_equal(st, LINCOLL_ERR_UNSUPPORTED);
                            refused++;
                        }
                    }
                    /* no choice in opts: the variable's */
                    const char *autos[] = {NULL, "", "auto", "AUTO"};
                    for (int k = 0; k < 4; k++) {
                        lincoll_coll_opts_t o = {.algo = autos[k]};
                        assert_int_equal(opts_run(&h, op, n, &o, got, sizeof(got)), LINCOLL_OK);
                        assert_string_equal(got, other->plan_name);
                    }
                    /* names that are not this operation's: INVALID, one line per rank */
                    const char *bad[3] = {"nonsense", NULL, NULL};
                    char list[160] = "(";
                    for (size_t k = 0; k < nreg; k++) {
                        if (reg[k]->op == g->op) {
                            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                                     list[1] ? ", " : "", reg[k]->name);
                        } else if (lc_coll_find(g->op, reg[k]->name) == NULL) {
                            bad[1] = reg[k]->name;      /* another operation's short name */
                            bad[2] = reg[k]->plan_name; /* and plan name */
                        }
                    }
                    snprintf(list + strlen(list), sizeof(list) - strlen(list), ")");
                    assert_non_null(bad[1]);
                    for (int k = 0; k < 3; k++) {
                        lincoll_coll_opts_t o = {.algo = bad[k]};
                        opts_log_errors = 0;
                        assert_int_equal(opts_run(&h, op, n, &o, got, sizeof(got)),
                                         LINCOLL_ERR_INVALID);
                        assert_int_equal(opts_log_errors, Ps[pi]);
                        char want[96];
                        snprintf(want, sizeof(want), "_init_opts: opts->algo=%s: no %s algorithm",
                                 bad[k], lc_coll_op_name(g->op));
                        if (strstr(opts_log_last, want) == NULL ||
                            strstr(opts_log_last, list) == NULL)
                            fail_msg("log line \"%s\" lacks \"%s\" or \"%s\"", opts_log_last, want,
                                     list);
                    }
                    unsetenv(op_var_name[op]);
                }
            }
            lc_simh_destroy(&h);
        }
    }
    unsetenv("LINCOLL_ALGO_FALLBACK");
    lincoll_log_set_handler(NULL, NULL);
    printf("opts->algo: %u inits ran the forced algorithm, %u fell back, %u refused\n", forced,
           fell_back, refused);
    assert_true(forced > 0);
}

/* The v forms take opts too. */
static void test_opts_vform(void **state)
{
    (void)state;
    const int P = 3;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    size_t counts[3] = {2, 0, 3};
    int32_t in[3][5], out[3][5];
    lincoll_plan_t *pl[3];
    const char *algos[] = {"ring", "rhd_reduce_scatter"};
    for (int k = 0; k < 2; k++) {
        lincoll_coll_opts_t o = {.algo = algos[k]};
        for (int r = 0; r < P; r++) {
            for (int i = 0; i < 5; i++)
                in[r][i] = r * 10 + i;
            assert_int_equal(lincoll_reduce_scatterv_init_opts(h.comm[r], in[r], out[r], counts,
                                                               LINCOLL_INT32, LINCOLL_SUM, &o,
                                                               &pl[r]),
                             LINCOLL_OK);
            lincoll_plan_stats_t s;
            lincoll_plan_stats(pl[r], &s);
            assert_string_equal(s.algorithm, k ? "rhd_reduce_scatter" : "ring_reduce_scatter");
        }
        assert_int_equal(lc_simh_run(&h, pl), LINCOLL_OK);
        assert_int_equal(out[0][1], 30 + 3 * 1);
        assert_int_equal(out[2][0], 30 + 3 * 2);
        assert_int_equal(out[2][2], 30 + 3 * 4);
        for (int r = 0; r < P; r++)
            lincoll_plan_free(pl[r]);
    }
    lincoll_coll_opts_t o = {.algo = "rhd"};
    for (int r = 0; r < P; r++) {
        for (int i = 0; i < 5; i++)
            out[r][i] = -1;
        const int32_t *sb = r == 1 ? NULL : in[r]; /* counts[1] = 0 */
        assert_int_equal(
            lincoll_allgatherv_init_opts(h.comm[r], sb, out[r], counts, LINCOLL_INT32, &o, &pl[r]),
            LINCOLL_OK);
        lincoll_plan_stats_t s;
        lincoll_plan_stats(pl[r], &s);
        assert_string_equal(s.algorithm, "rhd_allgather");
    }
    for (int r = 0; r < P; r++)
        for (int i = 0; i < 3; i++)
            in[r][i] = r * 100 + i;
    assert_int_equal(lc_simh_run(&h, pl), LINCOLL_OK);
    for (int r = 0; r < P; r++) {
        const int32_t want[5] = {0, 1, 200, 201, 202}; /* rank 0's 2, rank 2's 3 */
        assert_memory_equal(out[r], want, sizeof(want));
        lincoll_plan_free(pl[r]);
    }
    o.algo = "binomial";
    assert_int_equal(
        lincoll_allgatherv_init_opts(h.comm[0], in[0], out[0], counts, LINCOLL_INT32, &o, &pl[0]),
        LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_reduce_scatterv_init_opts(h.comm[0], in[0], out[0], counts,
                                                       LINCOLL_INT32, LINCOLL_SUM, &o, &pl[0]),
                     LINCOLL_ERR_INVALID);
    lc_simh_destroy(&h);
}

/* The cost model: rd (one message a round) for small vectors, rhd for
 * medium ones on many ranks, ring for large allreduce on a
 * non-power-of-two count where the fold doubles the volume. */
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
    assert_string_equal(s.algorithm, "rd_allreduce");
    lincoll_plan_free(pl);
    assert_int_equal(lincoll_allreduce_init(h.comm[0], LINCOLL_IN_PLACE, x, 32768, LINCOLL_FLOAT,
                                            LINCOLL_SUM, &pl),
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
        cmocka_unit_test(test_hccl_formula), cmocka_unit_test(test_opts_algo),
        cmocka_unit_test(test_opts_vform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
