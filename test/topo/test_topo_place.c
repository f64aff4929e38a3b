/*
 * test/topo/test_topo_place.c: placement (core/topo/topo_place.c) and its
 * measured effect.
 *
 * For synthetic host maps (hosts x ranks per host, laid out in blocks as
 * lincoll-run or --map-by slot give, or cyclically as --map-by node gives,
 * and uneven hosts), the real RHD allreduce plan compiler runs on the sim
 * transport twice: on the world order and on a communicator permuted by
 * lc_topo_rhd_order().  The bytes of every SEND whose two ends sit on
 * different hosts are summed from the compiled plans, the plans are run and
 * their results checked, and the measured cross-host bytes must equal the
 * edge model (lc_topo_cross_bytes) and never grow with placement.  A table
 * of before/after goes to stdout.  Grid placement: rows of a SUMMA/Cannon
 * grid split across hosts, before and after.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <lincoll/coll.h>

#include "common/sim_harness.h"
#include "core/exec/exec.h"
#include "core/topo/topo.h"

enum { LAYOUT_BLOCK, LAYOUT_CYCLIC, LAYOUT_UNEVEN };

/* host_of for H hosts of L ranks (or the uneven sizes in sz[]). */
static int make_hosts(int layout, int H, int L, const int *sz, int *host_of)
{
    int p = 0;
    if (layout == LAYOUT_UNEVEN) {
        for (int h = 0; h < H; h++)
            for (int i = 0; i < sz[h]; i++)
                host_of[p++] = h;
        return p;
    }
    p = H * L;
    for (int r = 0; r < p; r++)
        host_of[r] = layout == LAYOUT_BLOCK ? r / L : r % H;
    return p;
}

/* Build RHD allreduce plans on the order (order[pos] = world rank) over the
 * sim world of h, run them, check the sums; return the bytes sent across
 * hosts (and all bytes in *total). */
static double measure(lc_simh_t *h, const int *order, const int *host_of, size_t count,
                      double *total, int *fold_cross)
{
    int p = h->K;
    lincoll_comm_t *comms = calloc((size_t)p, sizeof(*comms));
    int *to_world = malloc((size_t)p * sizeof(int));
    lincoll_plan_t **plans = calloc((size_t)p, sizeof(*plans));
    int64_t **in = calloc((size_t)p, sizeof(*in)), **out = calloc((size_t)p, sizeof(*out));
    assert_non_null(comms);
    assert_non_null(to_world);
    memcpy(to_world, order, (size_t)p * sizeof(int));
    static unsigned next_id = 100;
    unsigned id = next_id++;
    for (int pos = 0; pos < p; pos++) {
        int w = order[pos];
        comms[w] = (lincoll_comm_t){
            .ctx = h->ctx[w], .rank = pos, .size = p, .to_world = to_world, .id = id, .seq = 0};
        in[w] = malloc(count * sizeof(int64_t));
        out[w] = malloc(count * sizeof(int64_t));
        for (size_t i = 0; i < count; i++)
            in[w][i] = (int64_t)(w * 1000003 + (int64_t)i);
        assert_int_equal(lincoll_allreduce_init(&comms[w], in[w], out[w], count, LINCOLL_INT64,
                                                LINCOLL_SUM, &plans[w]),
                         LINCOLL_OK);
        assert_string_equal(lc_plan_of(plans[w])->algorithm, "rhd_allreduce");
    }
    double cross = 0;
    *total = 0;
    *fold_cross = 0;
    for (int w = 0; w < p; w++) {
        const lc_plan_t *pl = lc_plan_of(plans[w]);
        for (unsigned R = 0; R < pl->nrounds; R++) {
            for (unsigned x = 0; x < pl->rounds[R].nxfers; x++) {
                const lc_xfer_t *xf = &pl->rounds[R].xfers[x];
                if (xf->kind != LC_XFER_SEND && xf->kind != LC_XFER_PUT) continue;
                int peer = to_world[xf->peer];
                *total += (double)xf->len;
                if (host_of[peer] != host_of[w]) {
                    cross += (double)xf->len;
                    if (R == 0 && p & (p - 1)) (*fold_cross)++; /* round 0 = fold */
                }
            }
        }
    }
    assert_int_equal(lc_simh_run(h, plans), LINCOLL_OK);
    for (int w = 0; w < p; w++) {
        for (size_t i = 0; i < count; i += 97) {
            int64_t want = (int64_t)p * (int64_t)i + 1000003LL * (int64_t)p * (p - 1) / 2;
            assert_true(out[w][i] == want);
        }
        lincoll_plan_free(plans[w]);
        free(in[w]);
        free(out[w]);
    }
    free(in);
    free(out);
    free(plans);
    free(comms);
    free(to_world);
    return cross;
}

static void check_perm(int p, const int *order)
{
    char *seen = calloc((size_t)p, 1);
    for (int i = 0; i < p; i++) {
        assert_true(order[i] >= 0 && order[i] < p);
        assert_false(seen[order[i]]);
        seen[order[i]] = 1;
    }
    free(seen);
}

static void test_rhd_edges(void **state)
{
    (void)state;
    lc_topo_edge_t *e;
    int ne;
    /* p = 6: P = 4, r = 2 fold pairs (2n each), 2 steps x 2 pairs */
    assert_int_equal(lc_topo_rhd_edges(6, 8.0, &e, &ne), LINCOLL_OK);
    assert_int_equal(ne, 2 + 2 * 2);
    double sum = 0;
    for (int i = 0; i < ne; i++)
        sum += e[i].bytes;
    /* 2 folds x 16 + step 0: 2 x 4*4 + step 1: 2 x 4*2 */
    assert_true(sum == 32 + 32 + 16);
    assert_true(e[0].a == 0 && e[0].b == 1 && e[1].a == 2 && e[1].b == 3);
    free(e);
    assert_int_equal(lc_topo_rhd_edges(0, 8.0, &e, &ne), LINCOLL_ERR_INVALID);
    int order[4], host_of[4] = {0, 0, 0, 0};
    assert_int_equal(lc_topo_rhd_order(0, host_of, order), LINCOLL_ERR_INVALID);
    host_of[2] = -1;
    assert_int_equal(lc_topo_rhd_order(4, host_of, order), LINCOLL_ERR_INVALID);
}

static void test_rhd_placement_measured(void **state)
{
    (void)state;
    setenv("LINCOLL_ALLREDUCE_ALGO", "rhd", 1);
    static const int uneven1[3] = {5, 3, 4}, uneven2[4] = {1, 2, 3, 4};
    static const struct {
        int layout, H, L;
        const int *sz;
        const char *name;
    } cases[] = {
        {LAYOUT_BLOCK, 2, 2, NULL, "2 hosts x 2, block"},
        {LAYOUT_CYCLIC, 2, 2, NULL, "2 hosts x 2, cyclic"},
        {LAYOUT_BLOCK, 2, 3, NULL, "2 hosts x 3, block"},
        {LAYOUT_CYCLIC, 2, 3, NULL, "2 hosts x 3, cyclic"},
        {LAYOUT_CYCLIC, 4, 2, NULL, "4 hosts x 2, cyclic"},
        {LAYOUT_BLOCK, 4, 3, NULL, "4 hosts x 3, block"},
        {LAYOUT_CYCLIC, 4, 3, NULL, "4 hosts x 3, cyclic"},
        {LAYOUT_BLOCK, 3, 4, NULL, "3 hosts x 4, block"},
        {LAYOUT_CYCLIC, 4, 4, NULL, "4 hosts x 4, cyclic"},
        {LAYOUT_CYCLIC, 8, 4, NULL, "8 hosts x 4, cyclic"},
        {LAYOUT_CYCLIC, 6, 6, NULL, "6 hosts x 6, cyclic"},
        {LAYOUT_UNEVEN, 3, 0, uneven1, "hosts of 5,3,4"},
        {LAYOUT_UNEVEN, 4, 0, uneven2, "hosts of 1,2,3,4"},
    };
    const size_t count = 4096; /* divisible by every P here: the model is exact */
    printf("# RHD allreduce, %zu x int64 per rank (%zu KiB): bytes sent across hosts, from the "
           "compiled plans (sim)\n",
           count, count * 8 / 1024);
    printf("| ranks on hosts | p | total KiB | cross KiB, world order | cross KiB, placed | "
           "cut | fold msgs crossing before/after |\n|---|---|---|---|---|---|---|\n");
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        int host_of[64], order[64], ident[64];
        int p = make_hosts(cases[c].layout, cases[c].H, cases[c].L, cases[c].sz, host_of);
        for (int i = 0; i < p; i++)
            ident[i] = i;
        assert_int_equal(lc_topo_rhd_order(p, host_of, order), LINCOLL_OK);
        check_perm(p, order);
        int again[64];
        assert_int_equal(lc_topo_rhd_order(p, host_of, again), LINCOLL_OK);
        assert_memory_equal(order, again, (size_t)p * sizeof(int)); /* deterministic */
        lc_simh_t h;
        assert_int_equal(lc_simh_create(&h, p, 1), 0);
        double tot0, tot1;
        int f0, f1;
        double x0 = measure(&h, ident, host_of, count, &tot0, &f0);
        double x1 = measure(&h, order, host_of, count, &tot1, &f1);
        lc_simh_destroy(&h);
        /* the model predicts the plans exactly */
        lc_topo_edge_t *e;
        int ne;
        assert_int_equal(lc_topo_rhd_edges(p, (double)(count * 8), &e, &ne), LINCOLL_OK);
        assert_true(lc_topo_cross_bytes(e, ne, ident, host_of) == x0);
        assert_true(lc_topo_cross_bytes(e, ne, order, host_of) == x1);
        free(e);
        assert_true(tot0 == tot1);
        assert_true(x1 <= x0);
        if (cases[c].layout == LAYOUT_CYCLIC) {
            assert_true(x1 < x0);
        }
        /* the fold (n bytes each way) rarely pays to cross: here none does */
        if (p == 36 || p == 10 || p == 16 || p == 32) {
            assert_int_equal(f1, 0);
        }
        printf("| %s | %d | %.0f | %.0f | %.0f | %.0f%% | %d / %d |\n", cases[c].name, p,
               tot0 / 1024, x0 / 1024, x1 / 1024, x0 > 0 ? 100.0 * (x0 - x1) / x0 : 0.0, f0, f1);
    }
    /* 2 hosts of 4 (p = 8), cyclic: placement keeps the first two butterfly
     * steps (n/2 and n/4 each way) inside a host, only the last crosses */
    int host_of[8] = {0, 1, 0, 1, 0, 1, 0, 1}, order[8];
    assert_int_equal(lc_topo_rhd_order(8, host_of, order), LINCOLL_OK);
    for (int i = 0; i < 8; i++)
        assert_int_equal(host_of[order[i]], host_of[order[i & ~3]]);
    fflush(stdout);
}

/* Larger p: deterministic, a permutation, no worse; the swap search stops at 1024. */
static void test_rhd_placement_scale(void **state)
{
    (void)state;
    static int host_of[4000], order[4000], ident[4000];
    const int ps[] = {100, 1000, 4000};
    for (size_t k = 0; k < 3; k++) {
        int p = ps[k];
        for (int r = 0; r < p; r++) {
            host_of[r] = r % 10; /* 10 hosts, cyclic */
            ident[r] = r;
        }
        assert_int_equal(lc_topo_rhd_order(p, host_of, order), LINCOLL_OK);
        check_perm(p, order);
        lc_topo_edge_t *e;
        int ne;
        assert_int_equal(lc_topo_rhd_edges(p, 1.0, &e, &ne), LINCOLL_OK);
        double x0 = lc_topo_cross_bytes(e, ne, ident, host_of);
        double x1 = lc_topo_cross_bytes(e, ne, order, host_of);
        printf("# p=%d on 10 hosts (cyclic): cross-host share of RHD bytes %.3f -> %.3f\n", p, 1.0,
               x1 / x0);
        assert_true(x1 < x0);
        free(e);
    }
}

static void test_grid(void **state)
{
    (void)state;
    int host_of[16], order[16], split = -1;
    make_hosts(LAYOUT_CYCLIC, 4, 4, NULL, host_of);
    /* world order on a 4x4 grid: every row spans 4 hosts */
    int split0 = 0;
    for (int i = 0; i < 4; i++)
        split0 += host_of[4 * i] != host_of[4 * i + 1];
    assert_int_equal(split0, 4);
    assert_int_equal(lc_topo_grid_order(4, 4, host_of, order, &split), LINCOLL_OK);
    check_perm(16, order);
    assert_int_equal(split, 0);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            assert_int_equal(host_of[order[4 * i + j]], host_of[order[4 * i]]);
    /* 3 hosts x 4 ranks on a 6 x 2 grid: two whole rows per host */
    make_hosts(LAYOUT_CYCLIC, 3, 4, NULL, host_of);
    assert_int_equal(lc_topo_grid_order(6, 2, host_of, order, &split), LINCOLL_OK);
    assert_int_equal(split, 0);
    /* hosts of 3, 3, 2 on a 4 x 2 grid: only one row can be split */
    int un[8] = {0, 1, 2, 0, 1, 2, 0, 1};
    assert_int_equal(lc_topo_grid_order(4, 2, un, order, &split), LINCOLL_OK);
    check_perm(8, order);
    assert_int_equal(split, 1);
    printf("# grid rows split across hosts: 4x4 on 4 hosts cyclic 4 -> 0; 6x2 on 3 hosts 0; "
           "4x2 on hosts of 3,3,2: 1\n");
    assert_int_equal(lc_topo_grid_order(0, 2, un, order, &split), LINCOLL_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rhd_edges),
        cmocka_unit_test(test_rhd_placement_measured),
        cmocka_unit_test(test_rhd_placement_scale),
        cmocka_unit_test(test_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
