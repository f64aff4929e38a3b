/*
 * test/matmul/test_matmul_bad.c: bad input gets a status (and one log line
 * naming the argument), never a crash: inner dimensions that don't match, a
 * grid that does not cover the ranks, Cannon on a non-square grid, a bad
 * leading dimension, unknown LINCOLL_MATMUL_ALGO, unsupported dtype, 2.5D with
 * too many layers, bad scatter arguments, bad transposes (unknown op, a
 * descriptor of the stored A instead of op(A), lld of a transposed block).  Also:
 * LINCOLL_MATMUL_ALGO forces the algorithm, the default picks one that serves the distribution, and
 * LINCOLL_MATMUL_MAX_MEM can rule algorithms out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include <lincoll/matmul.h>

#include "common/sim_harness.h"

static double buf[3][4096];

static lincoll_status_t init(lincoll_comm_t *comm, const lincoll_matdesc_t *a,
                             const lincoll_matdesc_t *b, const lincoll_matdesc_t *c,
                             lincoll_matmul_algo_t algo, lincoll_plan_t **p)
{
    lincoll_matmul_opts_t o = {.algo = algo};
    return lincoll_matmul_init(comm, LINCOLL_DOUBLE, 1.0, buf[0], a, buf[1], b, 0.0, buf[2], c, &o,
                               p);
}

static void test_bad(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 4, 1), 0);
    lincoll_comm_t *comm = h.comm[1];
    lincoll_plan_t *p = NULL;
    lincoll_matdesc_t a, b, c;
    assert_int_equal(lincoll_matdesc_block(&a, 20, 16, 2, 2, 1, LINCOLL_COL_MAJOR), LINCOLL_OK);
    assert_int_equal(lincoll_matdesc_block(&b, 16, 12, 2, 2, 1, LINCOLL_COL_MAJOR), LINCOLL_OK);
    assert_int_equal(lincoll_matdesc_block(&c, 20, 12, 2, 2, 1, LINCOLL_COL_MAJOR), LINCOLL_OK);
    /* a good call first, so the failures below are about the one bad field */
    assert_int_equal(init(comm, &a, &b, &c, LINCOLL_MATMUL_CANNON, &p), LINCOLL_OK);
    lincoll_plan_free(p);
    /* inner dimensions */
    lincoll_matdesc_t bb = b;
    bb.m = 17;
    assert_int_equal(init(comm, &a, &bb, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_INVALID);
    lincoll_matdesc_t cc = c;
    cc.n = 13;
    assert_int_equal(init(comm, &a, &b, &cc, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_INVALID);
    /* grid that does not cover the 4 ranks */
    lincoll_matdesc_t g = a;
    g.pr = 2, g.pc = 3;
    assert_int_equal(init(comm, &g, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_matdesc_block(&g, 20, 16, 3, 1, 1, LINCOLL_COL_MAJOR), LINCOLL_OK);
    assert_int_equal(init(comm, &g, &g, &g, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_INVALID);
    /* grids that differ between A and C */
    g = a;
    g.pr = 4, g.pc = 1;
    assert_int_equal(init(comm, &g, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_INVALID);
    /* Cannon (and 2.5D) on a non-square grid */
    lincoll_matdesc_t a1, b1, c1;
    lincoll_matdesc_block(&a1, 20, 16, 1, 4, 1, LINCOLL_COL_MAJOR);
    lincoll_matdesc_block(&b1, 16, 12, 1, 4, 1, LINCOLL_COL_MAJOR);
    lincoll_matdesc_block(&c1, 20, 12, 1, 4, 1, LINCOLL_COL_MAJOR);
    assert_int_equal(init(comm, &a1, &b1, &c1, LINCOLL_MATMUL_CANNON, &p), LINCOLL_ERR_UNSUPPORTED);
    assert_int_equal(init(comm, &a1, &b1, &c1, LINCOLL_MATMUL_25D, &p), LINCOLL_ERR_UNSUPPORTED);
    assert_int_equal(init(comm, &a1, &b1, &c1, LINCOLL_MATMUL_RING, &p), LINCOLL_ERR_UNSUPPORTED);
    /* ... while the default falls back to SUMMA */
    assert_int_equal(init(comm, &a1, &b1, &c1, LINCOLL_MATMUL_AUTO, &p), LINCOLL_OK);
    lincoll_matmul_info_t in;
    assert_int_equal(lincoll_matmul_info(p, &in), LINCOLL_OK);
    assert_int_equal(in.algo, LINCOLL_MATMUL_SUMMA);
    lincoll_plan_free(p);
    /* Cannon with block-cyclic blocks */
    lincoll_matdesc_t cy;
    lincoll_matdesc_init(&cy, 20, 16, 4, 4, 2, 2, 1, LINCOLL_COL_MAJOR);
    assert_int_equal(init(comm, &cy, &b, &c, LINCOLL_MATMUL_CANNON, &p), LINCOLL_ERR_UNSUPPORTED);
    /* bad leading dimension (rank 1 holds 10 rows of A) */
    g = a;
    g.lld = 9;
    assert_int_equal(init(comm, &g, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_INVALID);
    g.lld = -1;
    assert_int_equal(init(comm, &g, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_INVALID);
    g = a;
    g.mb = 0;
    assert_int_equal(init(comm, &g, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_INVALID);
    /* NULL local buffer for a non-empty block, NULL descriptor, dtype */
    lincoll_matmul_opts_t o = {0};
    assert_int_equal(
        lincoll_matmul_init(comm, LINCOLL_DOUBLE, 1, NULL, &a, buf[1], &b, 0, buf[2], &c, &o, &p),
        LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_matmul_init(comm, LINCOLL_DOUBLE, 1, buf[0], NULL, buf[1], &b, 0,
                                         buf[2], &c, &o, &p),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(
        lincoll_matmul_init(comm, LINCOLL_INT32, 1, buf[0], &a, buf[1], &b, 0, buf[2], &c, &o, &p),
        LINCOLL_ERR_UNSUPPORTED);
    o.panel = -3;
    assert_int_equal(
        lincoll_matmul_init(comm, LINCOLL_DOUBLE, 1, buf[0], &a, buf[1], &b, 0, buf[2], &c, &o, &p),
        LINCOLL_ERR_INVALID);
    /* transposes: unknown op values; a descriptor of the stored A (k x m)
     * instead of op(A); lld checked against the transposed local array */
    o.panel = 0;
    o.transa = (lincoll_trans_t)7;
    assert_int_equal(
        lincoll_matmul_init(comm, LINCOLL_DOUBLE, 1, buf[0], &a, buf[1], &b, 0, buf[2], &c, &o, &p),
        LINCOLL_ERR_INVALID);
    o.transa = LINCOLL_NO_TRANS, o.transb = (lincoll_trans_t)-1;
    assert_int_equal(
        lincoll_matmul_init(comm, LINCOLL_DOUBLE, 1, buf[0], &a, buf[1], &b, 0, buf[2], &c, &o, &p),
        LINCOLL_ERR_INVALID);
    o.transa = LINCOLL_TRANS, o.transb = LINCOLL_NO_TRANS;
    lincoll_matdesc_t at;
    assert_int_equal(lincoll_matdesc_block(&at, 16, 20, 2, 2, 1, LINCOLL_COL_MAJOR), LINCOLL_OK);
    assert_int_equal(lincoll_matmul_init(comm, LINCOLL_DOUBLE, 1, buf[0], &at, buf[1], &b, 0,
                                         buf[2], &c, &o, &p),
                     LINCOLL_ERR_INVALID);
    g = a; /* rank 1: op(A) block 10 x 8, stored transposed 8 x 10: lld >= 8 */
    g.lld = 9;
    assert_int_equal(
        lincoll_matmul_init(comm, LINCOLL_DOUBLE, 1, buf[0], &g, buf[1], &b, 0, buf[2], &c, &o, &p),
        LINCOLL_OK);
    lincoll_plan_free(p);
    g.lld = 7;
    assert_int_equal(
        lincoll_matmul_init(comm, LINCOLL_DOUBLE, 1, buf[0], &g, buf[1], &b, 0, buf[2], &c, &o, &p),
        LINCOLL_ERR_INVALID);
    o.transa = LINCOLL_NO_TRANS;
    /* LINCOLL_MATMUL_ALGO */
    setenv("LINCOLL_MATMUL_ALGO", "strassen", 1);
    assert_int_equal(init(comm, &a, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_INVALID);
    setenv("LINCOLL_MATMUL_ALGO", "summa", 1);
    assert_int_equal(init(comm, &a, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_OK);
    assert_int_equal(lincoll_matmul_info(p, &in), LINCOLL_OK);
    assert_int_equal(in.algo, LINCOLL_MATMUL_SUMMA);
    lincoll_plan_free(p);
    setenv("LINCOLL_MATMUL_ALGO", "ring", 1); /* forced but the 2x2 grid is not P x 1 */
    assert_int_equal(init(comm, &a, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_UNSUPPORTED);
    unsetenv("LINCOLL_MATMUL_ALGO");
    /* default on a square grid with block distribution: Cannon (fewest rounds) */
    assert_int_equal(init(comm, &a, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_OK);
    assert_int_equal(lincoll_matmul_info(p, &in), LINCOLL_OK);
    assert_true(in.algo == LINCOLL_MATMUL_CANNON || in.algo == LINCOLL_MATMUL_25D ||
                in.algo == LINCOLL_MATMUL_SUMMA);
    lincoll_plan_free(p);
    /* memory limit: nothing fits in 1 byte */
    setenv("LINCOLL_MATMUL_MAX_MEM", "1", 1);
    assert_int_equal(init(comm, &a, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_UNSUPPORTED);
    setenv("LINCOLL_MATMUL_MAX_MEM", "1g", 1); /* the table's sizes: 1 GiB fits */
    assert_int_equal(init(comm, &a, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_OK);
    lincoll_plan_free(p);
    setenv("LINCOLL_MATMUL_MAX_MEM", "lots", 1);
    assert_int_equal(init(comm, &a, &b, &c, LINCOLL_MATMUL_AUTO, &p), LINCOLL_ERR_INVALID);
    unsetenv("LINCOLL_MATMUL_MAX_MEM");
    /* 2.5D with more layers than q: 4 ranks = 1 x 1 x 4 */
    lincoll_matdesc_t l4;
    lincoll_matdesc_block(&l4, 8, 8, 1, 1, 4, LINCOLL_COL_MAJOR);
    assert_int_equal(init(comm, &l4, &l4, &l4, LINCOLL_MATMUL_25D, &p), LINCOLL_ERR_UNSUPPORTED);
    /* scatter: bad root, bad ldg on the root */
    assert_int_equal(lincoll_matrix_scatter_init(comm, 7, NULL, 20, LINCOLL_DOUBLE, &a, buf[0], &p),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(
        lincoll_matrix_scatter_init(h.comm[0], 0, buf[1], 5, LINCOLL_DOUBLE, &a, buf[0], &p),
        LINCOLL_ERR_INVALID);
    /* descriptor helpers */
    assert_int_equal(lincoll_matdesc_coords(&a, 4, NULL, NULL, NULL), LINCOLL_ERR_INVALID);
    int sd[9] = {1, 0, 20, 16, 10, 8, 0, 0, 10};
    assert_int_equal(lincoll_matdesc_from_scalapack(&g, sd, 2, 2), LINCOLL_OK);
    assert_int_equal(g.mb, 10);
    sd[0] = 2;
    assert_int_equal(lincoll_matdesc_from_scalapack(&g, sd, 2, 2), LINCOLL_ERR_INVALID);
    /* info on a plan that is not a matmul plan */
    assert_int_equal(lincoll_ring_shift_init(comm, buf[0], buf[1], 8, 1, &p), LINCOLL_OK);
    assert_int_equal(lincoll_matmul_info(p, &in), LINCOLL_ERR_INVALID);
    lincoll_plan_free(p);
    lc_simh_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bad)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
