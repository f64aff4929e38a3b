/*
 * test/plan/test_plan_passes.c: what the plan IR says about itself, and
 * the passes over any plan (sim transport).
 *
 *  - stats from the IR alone: every rank reports the schedule's global
 *    rounds (the same on every rank, and what the sim measures), C1 only
 *    the rounds this rank transfers in (bcast from root 3 on 11 ranks);
 *  - pipelining (LINCOLL_COLL_CHUNK): allreduce, bcast and reduce cut in
 *    pieces give the whole-vector results bitwise, n times the rounds, the
 *    same bytes, and compute that runs during transfers; composed with a
 *    zero-copy plan (zcopy_allreduce: its windows merge);
 *  - the checksum pass over a plan of puts (zcopy_rd_allreduce): right
 *    results, twice the rounds, and a corrupted put fails its receiver with
 *    LINCOLL_ERR_CORRUPT;
 *  - a bad entry of an encode matrix fails every rank alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_harness.h"
#include "core/coll/coll_int.h"
#include "core/exec/exec.h"

static lc_coll_args_t args_of(lc_coll_op_t op, const void *s, void *r, size_t n, int root)
{
    lc_coll_args_t a = {.op = op,
                        .sbuf = op == LC_COLL_BCAST ? NULL : s,
                        .rbuf = r,
                        .count = n,
                        .total = n,
                        .dtype = LINCOLL_DOUBLE,
                        .rop = LINCOLL_SUM,
                        .root = root,
                        .inplace = op == LC_COLL_BCAST,
                        .es = sizeof(double)};
    return a;
}

/* compile alg (registry name) on every rank, bind, run; stats of each rank */
static void run_alg(lc_simh_t *h, lc_coll_op_t op, const char *name, int mapped, double **in,
                    double **out, size_t n, int root, lincoll_plan_stats_t *st, int starts)
{
    const int P = h->K;
    const lc_coll_alg_t *alg = lc_coll_find(op, name);
    assert_non_null(alg);
    lc_plan_t **irs = calloc((size_t)P, sizeof(*irs));
    lincoll_plan_t **plans = calloc((size_t)P, sizeof(*plans));
    for (int r = 0; r < P; r++) {
        lc_coll_args_t a = args_of(op, in[r], out[r], n, root);
        lc_env_t env = lc_exec_env(h->comm[r], mapped);
        assert_int_equal(lc_coll_compile_any(alg, &env, &a, &irs[r]), LINCOLL_OK);
    }
    assert_int_equal(lc_simh_bind(h, irs, plans), LINCOLL_OK);
    for (int s = 0; s < starts; s++) {
        lc_sim_world_reset_stats(h->world);
        assert_int_equal(lc_simh_run(h, plans), LINCOLL_OK);
    }
    for (int r = 0; r < P; r++) {
        assert_int_equal(lincoll_plan_stats(plans[r], &st[r]), LINCOLL_OK);
        lincoll_plan_free(plans[r]);
    }
    free(irs);
    free(plans);
}

static void test_global_rounds(void **state)
{
    (void)state;
    const int P = 11;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    double *in[11], *out[11];
    for (int r = 0; r < P; r++) {
        in[r] = calloc(64, sizeof(double));
        out[r] = calloc(64, sizeof(double));
    }
    lincoll_plan_stats_t st[11];
    static const struct {
        lc_coll_op_t op;
        const char *name;
    } algs[] = {{LC_COLL_BCAST, "rhd"},          {LC_COLL_BCAST, "binomial"},
                {LC_COLL_REDUCE, "rhd"},         {LC_COLL_REDUCE, "binomial"},
                {LC_COLL_ALLREDUCE, "rhd"},      {LC_COLL_ALLREDUCE, "ring"},
                {LC_COLL_ALLGATHER, "rhd"},      {LC_COLL_ALLGATHER, "ring"},
                {LC_COLL_REDUCE_SCATTER, "rhd"}, {LC_COLL_REDUCE_SCATTER, "ring"}};
    for (size_t k = 0; k < sizeof(algs) / sizeof(algs[0]); k++) {
        size_t counts[11], displs[11];
        for (int r = 0; r < P; r++)
            counts[r] = 3, displs[r] = (size_t)(3 * r);
        if (algs[k].op == LC_COLL_ALLGATHER || algs[k].op == LC_COLL_REDUCE_SCATTER) {
            /* vector ops: counts/displs */
            const lc_coll_alg_t *alg = lc_coll_find(algs[k].op, algs[k].name);
            lc_plan_t *irs[11];
            lincoll_plan_t *plans[11];
            for (int r = 0; r < P; r++) {
                lc_coll_args_t a = args_of(algs[k].op, in[r], out[r], 0, 0);
                a.counts = counts, a.displs = displs, a.total = 33;
                if (algs[k].op == LC_COLL_ALLGATHER) a.sbuf = in[r];
                lc_env_t env = lc_exec_env(h.comm[r], 0);
                assert_int_equal(lc_coll_compile_any(alg, &env, &a, &irs[r]), LINCOLL_OK);
            }
            assert_int_equal(lc_simh_bind(&h, irs, plans), LINCOLL_OK);
            lc_sim_world_reset_stats(h.world);
            assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
            for (int r = 0; r < P; r++) {
                assert_int_equal(lincoll_plan_stats(plans[r], &st[r]), LINCOLL_OK);
                lincoll_plan_free(plans[r]);
            }
        } else {
            lc_sim_world_reset_stats(h.world);
            run_alg(&h, algs[k].op, algs[k].name, 0, in, out, 8, 3, st, 1);
        }
        unsigned measured = lc_sim_world_rounds(h.world);
        for (int r = 0; r < P; r++) {
            if (st[r].global_rounds != st[0].global_rounds || st[r].global_rounds != measured)
                fail_msg("%s/%s: rank %d reports %u global rounds, rank 0 %u, the sim measured %u",
                         lc_coll_op_name(algs[k].op), algs[k].name, r, st[r].global_rounds,
                         st[0].global_rounds, measured);
            assert_true(st[r].rounds <= st[r].global_rounds);
        }
    }
    /* the case that once reported C1 = 1 as if it were the schedule's length */
    run_alg(&h, LC_COLL_BCAST, "rhd", 0, in, out, 8, 3, st, 1);
    assert_int_equal(st[0].global_rounds, 7);
    assert_true(st[0].rounds < 7);
    for (int r = 0; r < P; r++) {
        free(in[r]);
        free(out[r]);
    }
    lc_simh_destroy(&h);
}

/* whole vs pipelined (every rank's cfg.coll_chunk), bitwise */
static void pipeline_case(int P, lc_coll_op_t op, const char *name, int mapped, size_t n,
                          size_t chunk)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    double **in = calloc((size_t)P, sizeof(double *)), **out = calloc((size_t)P, sizeof(double *));
    double **ref = calloc((size_t)P, sizeof(double *));
    for (int r = 0; r < P; r++) {
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], n * 8, (void **)&in[r]), LINCOLL_OK);
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], n * 8, (void **)&out[r]), LINCOLL_OK);
        ref[r] = malloc(n * 8);
    }
    const int root = P / 2;
    lincoll_plan_stats_t *w = calloc((size_t)P, sizeof(*w)), *c = calloc((size_t)P, sizeof(*c));
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < P; r++) {
            for (size_t i = 0; i < n; i++)
                in[r][i] = (double)(r + 1) + (double)(i % 97); /* exact sums */
            for (size_t i = 0; i < n; i++)
                out[r][i] = op == LC_COLL_BCAST && r == root ? in[r][i] : -1.0;
            h.ctx[r]->cfg.coll_chunk = pass ? chunk : 0;
        }
        run_alg(&h, op, name, mapped, in, out, n, root, pass ? c : w, 3);
        for (int r = 0; r < P; r++) {
            if (op == LC_COLL_REDUCE && r != root) continue;
            if (pass == 0) {
                memcpy(ref[r], out[r], n * 8);
            } else if (memcmp(ref[r], out[r], n * 8) != 0) {
                fail_msg("%s/%s P=%d n=%zu chunk %zu: rank %d differs from the whole vector",
                         lc_coll_op_name(op), name, P, n, chunk, r);
            }
        }
    }
    const unsigned pieces = (unsigned)((n * 8 + chunk - 1) / chunk);
    for (int r = 0; r < P; r++) {
        assert_int_equal(c[r].global_rounds, w[r].global_rounds * pieces);
        assert_int_equal(c[r].bytes_sent, w[r].bytes_sent);
        assert_int_equal(c[r].msgs_sent, w[r].msgs_sent * pieces);
        assert_string_equal(c[r].algorithm, w[r].algorithm);
    }
    for (int r = 0; r < P; r++) {
        lincoll_mem_free(h.ctx[r], in[r]);
        lincoll_mem_free(h.ctx[r], out[r]);
        free(ref[r]);
    }
    free(in);
    free(out);
    free(ref);
    free(w);
    free(c);
    lc_simh_destroy(&h);
}

static void test_pipeline(void **state)
{
    (void)state;
    pipeline_case(5, LC_COLL_ALLREDUCE, "rhd", 0, 1000, 1024);
    pipeline_case(4, LC_COLL_ALLREDUCE, "ring", 0, 999, 2048);
    pipeline_case(6, LC_COLL_BCAST, "binomial", 0, 700, 1024);
    pipeline_case(7, LC_COLL_REDUCE, "rhd", 0, 512, 800);
    /* composed with zero copy: the pieces' windows over one buffer merge */
    pipeline_case(3, LC_COLL_ALLREDUCE, "zcopy", 1, 1000, 2048);
    pipeline_case(4, LC_COLL_REDUCE, "zcopy_direct", 1, 800, 1600);
}

/* corrupt the first put with data that rank 1 receives in round 0 */
static int corrupted;
static lc_sim_fault_t corrupt_one(void *arg, int src, int dst, unsigned round, size_t len)
{
    (void)arg;
    (void)src;
    if (!corrupted && dst == 1 && round == 0 && len > 4) {
        corrupted = 1;
        return LC_SIM_FAULT_CORRUPT;
    }
    return LC_SIM_FAULT_NONE;
}

static void test_checksum_puts(void **state)
{
    (void)state;
    const int P = 4;
    const size_t n = 100;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    double *in[4], *out[4];
    const lc_coll_alg_t *alg = lc_coll_find(LC_COLL_ALLREDUCE, "zcopy_rd");
    lc_plan_t *irs[4];
    lincoll_plan_t *plans[4];
    for (int r = 0; r < P; r++) {
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], n * 8, (void **)&in[r]), LINCOLL_OK);
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], n * 8, (void **)&out[r]), LINCOLL_OK);
        lc_coll_args_t a = args_of(LC_COLL_ALLREDUCE, in[r], out[r], n, 0);
        lc_env_t env = lc_exec_env(h.comm[r], 1);
        /* compile without finalizing: the pass goes before */
        lc_plan_t *p;
        assert_int_equal(lc_plan_create(&env, alg->plan_name, 1, &p), LINCOLL_OK);
        p->elem_size = 8;
        assert_int_equal(alg->compile(p, &a), LINCOLL_OK);
        unsigned before = p->nrounds;
        assert_int_equal(lc_pass_checksum(p), LINCOLL_OK);
        assert_int_equal(p->nrounds, 2 * before);
        assert_int_equal(lc_plan_finalize(p), LINCOLL_OK);
        irs[r] = p;
    }
    assert_int_equal(lc_simh_bind(&h, irs, plans), LINCOLL_OK);
    for (int s = 0; s < 3; s++) {
        for (int r = 0; r < P; r++)
            for (size_t i = 0; i < n; i++)
                in[r][i] = (double)(r * 10 + s) + (double)i;
        assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
        for (int r = 0; r < P; r++)
            for (size_t i = 0; i < n; i++)
                assert_true(out[r][i] == (double)(60 + 4 * s) + 4.0 * (double)i);
    }
    /* one corrupted put: its receiver fails, nobody computes on it */
    corrupted = 0;
    lc_sim_world_set_fault(h.world, corrupt_one, NULL, 0);
    for (int r = 0; r < P; r++)
        h.ctx[r]->timeout = 1.0;
    lincoll_status_t st = lc_simh_run(&h, plans);
    assert_int_equal(corrupted, 1);
    assert_true(st == LINCOLL_ERR_CORRUPT || st == LINCOLL_ERR_TIMEOUT);
    assert_int_equal(lincoll_test(plans[1]), LINCOLL_ERR_CORRUPT);
    lc_sim_world_set_fault(h.world, NULL, NULL, 0);
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(plans[r]);
        lincoll_mem_free(h.ctx[r], in[r]);
        lincoll_mem_free(h.ctx[r], out[r]);
    }
    lc_simh_destroy(&h);
}

static void test_symmetric_matrix_check(void **state)
{
    (void)state;
    const int K = 4;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, 1), 0);
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    uint64_t A[16];
    for (int i = 0; i < 16; i++)
        A[i] = (uint64_t)(i + 1);
    A[2 * K + 3] = 300; /* only column 3, rank 3's, uses it */
    unsigned char in[4][64], out[4][64];
    for (int r = 0; r < K; r++) {
        lincoll_plan_t *p = NULL;
        assert_int_equal(lincoll_encode_init(h.comm[r], f, A, K, K, 64, in[r], out[r], NULL, &p),
                         LINCOLL_ERR_INVALID);
        assert_null(p);
    }
    lincoll_gf_field_destroy(f);
    lc_simh_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_global_rounds),
        cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_checksum_puts),
        cmocka_unit_test(test_symmetric_matrix_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
