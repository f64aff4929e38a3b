/*
 * test/plan/test_alg_registry.c: every family's registry has the entry
 * shape of core/plan/alg.h, and each entry compiles on small arguments.
 *
 * For the collectives (core/coll/registry.c), the universal encodes
 * (core/encode/registry.c), the repair schedules
 * (core/encode/repair_registry.c) and matmul (core/matmul/registry.c):
 *  - every entry has a name, a cost and a compiler; names are unique within
 *    the family (collectives: within the operation, plan names too);
 *  - on a few small calls (rank counts, ranks, roots, grids), built the way
 *    the public inits build them but without a communicator: where applies
 *    says yes, cost is a finite number >= 0; compile on a fresh plan gives a plan that
 *    finalizes, or LINCOLL_ERR_UNSUPPORTED; where applies says yes, it must
 *    give the plan;
 *  - zero-copy entries (mapped) refuse a call whose peers are not mapped
 *    (applies with env->mapped = 0);
 *  - matmul: an entry that does not apply says why (why_not), and has a
 *    memory figure.
 * The walk reads the registries, so a new algorithm is covered without a
 * line here.
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

#include <lincoll/encode.h>
#include <lincoll/matmul.h>

#include "core/base/config.h"
#include "core/coll/coll_int.h"
#include "core/encode/repair_int.h"
#include "core/matmul/mm_int.h"

static lc_config_t cfg;

static int setup(void **state)
{
    (void)state;
    return lc_config_load(&cfg) == LINCOLL_OK ? 0 : -1;
}

static lc_env_t env_of(int P, int rank, int ports, int mapped)
{
    return (lc_env_t){.P = P, .rank = rank, .ports = ports, .mapped = mapped, .cfg = &cfg};
}

static void check_cost(const char *family, const char *name, double t)
{
    if (!(isfinite(t) && t >= 0))
        fail_msg("%s %s: cost %g is not a finite time >= 0", family, name, t);
}

/* the outcome of one compile: a finalized plan, or UNSUPPORTED where applies
 * says no; *compiled counts the plans */
static void check_compiled(const char *what, int applies, lincoll_status_t st, lc_plan_t *plan,
                           unsigned *compiled)
{
    if (st == LINCOLL_OK) {
        if (plan == NULL || !plan->finalized) fail_msg("%s: compiled but not finalized", what);
        (*compiled)++;
        return;
    }
    if (applies) fail_msg("%s: applies, but compile gives %s", what, lincoll_strerror(st));
    if (st != LINCOLL_ERR_UNSUPPORTED)
        fail_msg("%s: compile gives %s, not a plan or LINCOLL_ERR_UNSUPPORTED", what,
                 lincoll_strerror(st));
}

/* ---- collectives ------------------------------------------------------------- */

static lc_coll_args_t coll_args(lc_coll_op_t op, int P, int root, size_t count, size_t *counts,
                                size_t *displs, void *in, void *out)
{
    lc_coll_args_t a = {.op = op,
                        .sbuf = in,
                        .rbuf = out,
                        .count = count,
                        .total = count,
                        .dtype = LINCOLL_DOUBLE,
                        .rop = LINCOLL_SUM,
                        .root = root,
                        .es = sizeof(double)};
    if (op == LC_COLL_REDUCE_SCATTER || op == LC_COLL_ALLGATHER) {
        displs[0] = 0;
        for (int r = 0; r < P; r++) {
            counts[r] = count / (size_t)P + ((size_t)r < count % (size_t)P);
            displs[r + 1] = displs[r] + counts[r];
        }
        a.count = 0, a.root = 0;
        a.counts = counts, a.displs = displs;
        if (op == LC_COLL_ALLGATHER) a.rop = 0;
    } else if (op == LC_COLL_BCAST) {
        a.sbuf = NULL, a.inplace = 1, a.rop = 0;
    } else if (op == LC_COLL_ALLREDUCE) {
        a.root = 0;
    }
    return a;
}

static void test_coll(void **state)
{
    (void)state;
    size_t n;
    const lc_coll_alg_t *const *reg = lc_coll_registry(&n);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        const lc_coll_alg_t *g = reg[i];
        assert_non_null(g->name);
        assert_non_null(g->plan_name);
        if (g->cost == NULL || g->compile == NULL)
            fail_msg("collective %s: cost or compile missing", g->plan_name);
        assert_true((unsigned)g->op < LC_COLL_NOPS);
        for (size_t j = 0; j < i; j++) {
            if (reg[j]->op == g->op && strcmp(reg[j]->name, g->name) == 0)
                fail_msg("collective %s: name %s twice in %s", g->plan_name, g->name,
                         lc_coll_op_name(g->op));
            if (strcmp(reg[j]->plan_name, g->plan_name) == 0)
                fail_msg("collective plan name %s twice", g->plan_name);
        }
        assert_ptr_equal(lc_coll_find(g->op, g->name), g);
    }
    static const int Ps[] = {2, 3, 4, 8};
    static const size_t counts_of[] = {1, 37};
    /* the zero-copy entries apply above or below LINCOLL_COLL_ZCOPY_THRESHOLD */
    const size_t thresholds[] = {cfg.zcopy_threshold, 0, SIZE_MAX / 16};
    size_t counts[9], displs[10];
    double *in = calloc(64, sizeof(double)), *out = calloc(64, sizeof(double));
    assert_true(in != NULL && out != NULL);
    unsigned compiled = 0, refused = 0;
    for (size_t i = 0; i < n; i++) {
        const lc_coll_alg_t *g = reg[i];
        const unsigned before = compiled;
        for (size_t pi = 0; pi < sizeof(Ps) / sizeof(Ps[0]); pi++) {
            const int P = Ps[pi];
            for (size_t ci = 0; ci < sizeof(counts_of) / sizeof(counts_of[0]); ci++) {
                for (int rank = 0; rank < P; rank += P - 1) {
                    for (size_t ti = 0; ti < 3; ti++) {
                        lc_config_t saved = cfg;
                        cfg.zcopy_threshold = thresholds[ti];
                        const lc_env_t env = env_of(P, rank, 1, 1);
                        const lc_coll_args_t a =
                            coll_args(g->op, P, P - 1, counts_of[ci], counts, displs, in, out);
                        const int ok = LC_ALG_APPLIES(g, &env, &a);
                        if (ok) check_cost("collective", g->plan_name, g->cost(&env, &a));
                        if (g->mapped) {
                            const lc_env_t unmapped = env_of(P, rank, 1, 0);
                            if (g->applies == NULL || g->applies(&unmapped, &a))
                                fail_msg("collective %s: zero copy, yet applies without mapped "
                                         "peers",
                                         g->plan_name);
                        }
                        const int ports = g->ports < 0 ? P - 1 : (g->ports > 0 ? g->ports : 1);
                        lc_plan_t *plan = NULL;
                        assert_int_equal(lc_plan_create(&env, g->plan_name, ports, &plan),
                                         LINCOLL_OK);
                        plan->elem_size = a.es;
                        lincoll_status_t st = g->compile(plan, &a);
                        if (st == LINCOLL_OK) st = lc_plan_finalize(plan);
                        char what[128];
                        snprintf(what, sizeof(what), "collective %s P=%d rank %d count %zu",
                                 g->plan_name, P, rank, counts_of[ci]);
                        check_compiled(what, ok, st, plan, &compiled);
                        refused += st != LINCOLL_OK;
                        lc_plan_destroy(plan);
                        cfg = saved;
                    }
                }
            }
        }
        if (compiled == before) fail_msg("collective %s: compiled on no test call", g->plan_name);
    }
    free(in);
    free(out);
    printf("collectives: %zu entries, %u plans, %u refused\n", n, compiled, refused);
}

/* ---- encode ------------------------------------------------------------------ */

static void test_encode(void **state)
{
    (void)state;
    size_t n;
    const lc_enc_alg_t *const *reg = lc_enc_registry(&n);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        const lc_enc_alg_t *g = reg[i];
        assert_non_null(g->name);
        if (g->cost == NULL || g->compile == NULL)
            fail_msg("encode %s: cost or compile missing", g->name);
        if (strcmp(g->name, "auto") == 0 || strcmp(g->name, "specific") == 0)
            fail_msg("encode %s: a name LINCOLL_ENCODE_ALGO reserves", g->name);
        for (size_t j = 0; j < i; j++)
            if (strcmp(reg[j]->name, g->name) == 0) fail_msg("encode name %s twice", g->name);
        lincoll_encode_algo_t id;
        assert_true(lc_enc_algo_named(g->name, &id));
        assert_ptr_equal(lc_enc_alg(id), g);
    }
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    const size_t B = 64;
    uint8_t *in = calloc(1, B), *out = calloc(1, B);
    assert_true(in != NULL && out != NULL);
    static const int Ks[] = {1, 2, 3, 5, 8};
    unsigned compiled = 0;
    for (size_t i = 0; i < n; i++) {
        const lc_enc_alg_t *g = reg[i];
        const unsigned before = compiled;
        for (size_t ki = 0; ki < sizeof(Ks) / sizeof(Ks[0]); ki++) {
            const int K = Ks[ki];
            uint64_t A[64];
            for (int x = 0; x < K * K; x++)
                A[x] = (uint64_t)(x * 37 + 11) % 256;
            lc_enc_dense_t d = {.A = A, .K = K, .q = 256, .bad_j = -1, .bad_k = -1};
            for (int p = 1; p <= 2; p++) {
                for (int me = 0; me<K; me += K> 1 ? K - 1 : 1) {
                    for (int mapped = 0; mapped <= 1; mapped++) {
                        const lc_env_t env = env_of(K, me, p, mapped);
                        lc_enc_b_t b;
                        assert_int_equal(lc_enc_builder(&b, &env, g->name, p, f, B, 0), LINCOLL_OK);
                        int si = lc_plan_slot_user(b.plan, in, B);
                        int so = lc_plan_slot_user(b.plan, out, B);
                        assert_true(si >= 0 && so >= 0);
                        const lc_enc_args_t a = lc_enc_args(&b, K, me, lc_enc_dense_coef, &d,
                                                            lc_ref(si, 0), lc_ref(so, 0));
                        const int ok = LC_ALG_APPLIES(g, &env, &a);
                        if (g->mapped && !mapped && ok)
                            fail_msg("encode %s: zero copy, yet applies without mapped peers",
                                     g->name);
                        if (ok) check_cost("encode", g->name, g->cost(&env, &a));
                        lincoll_status_t st = g->compile(&b, &a);
                        if (st == LINCOLL_OK) st = lc_plan_finalize(b.plan);
                        char what[128];
                        snprintf(what, sizeof(what), "encode %s K=%d p=%d rank %d mapped %d",
                                 g->name, K, p, me, mapped);
                        check_compiled(what, ok, st, b.plan, &compiled);
                        lc_plan_destroy(b.plan);
                    }
                }
            }
        }
        if (compiled == before) fail_msg("encode %s: compiled on no test call", g->name);
    }
    free(in);
    free(out);
    lincoll_gf_field_destroy(f);
    printf("encode: %zu entries, %u plans\n", n, compiled);
}

/* ---- repair ------------------------------------------------------------------ */

static void test_repair(void **state)
{
    (void)state;
    size_t n;
    const lc_rep_alg_t *const *reg = lc_rep_registry(&n);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        const lc_rep_alg_t *g = reg[i];
        assert_non_null(g->name);
        assert_non_null(g->plan_name);
        if (g->cost == NULL || g->compile == NULL || g->figures == NULL)
            fail_msg("repair %s: cost, compile or figures missing", g->name);
        assert_string_equal(lincoll_repair_algo_name(g->algo), g->name);
        for (size_t j = 0; j < i; j++)
            if (strcmp(reg[j]->name, g->name) == 0 || reg[j]->algo == g->algo)
                fail_msg("repair %s: name or lincoll_repair_algo_t twice", g->name);
    }
    /* 4 ranks: k sources, r targets, `both` the rank that is one of each */
    static const struct {
        int k, r, src[3], tgt[2], both;
    } cases[] = {
        {3, 1, {0, 1, 2}, {3}, -1}, {3, 2, {0, 1, 2}, {2, 3}, 2}, {2, 2, {1, 3}, {0, 2}, -1}};
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    const size_t B = 256;
    uint8_t *in = calloc(1, B), *out = calloc(1, B);
    assert_true(in != NULL && out != NULL);
    const uint64_t R[6] = {3, 5, 7, 11, 13, 17};
    unsigned compiled = 0;
    for (size_t i = 0; i < n; i++) {
        const lc_rep_alg_t *g = reg[i];
        const unsigned before = compiled;
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
            const int k = cases[c].k, r = cases[c].r, P = 4;
            for (int p = 1; p <= 2; p++) {
                for (int me = 0; me < P; me++) {
                    const lc_env_t env = env_of(P, me, p, 0);
                    lc_rep_args_t a = {.shape = {.k = k,
                                                 .r = r,
                                                 .both = cases[c].both >= 0,
                                                 .p = p,
                                                 .B = B,
                                                 .slice = B}};
                    int ms = -1, mt = -1;
                    for (int x = 0; x < k; x++)
                        if (cases[c].src[x] == me) ms = x;
                    for (int x = 0; x < r; x++)
                        if (cases[c].tgt[x] == me) mt = x;
                    a.rep = (lc_rep_t){.nranks = P,
                                       .k = k,
                                       .r = r,
                                       .src = cases[c].src,
                                       .tgt = cases[c].tgt,
                                       .both = cases[c].both,
                                       .R = R,
                                       .me = me,
                                       .my_src = ms,
                                       .my_tgt = mt};
                    const int ok = LC_ALG_APPLIES(g, &env, &a);
                    const double t = g->cost(&env, &a);
                    check_cost("repair", g->name, t);
                    lincoll_repair_cost_t fig = {0};
                    g->figures(&env, &a, &fig);
                    assert_true(fig.seconds == t);
                    lc_enc_b_t b;
                    assert_int_equal(lc_enc_builder(&b, &env, g->plan_name, p, f, B, 0),
                                     LINCOLL_OK);
                    int si = ms >= 0 ? lc_plan_slot_user(b.plan, in, B) : -1;
                    int so = mt >= 0 ? lc_plan_slot_user(b.plan, out, B) : -1;
                    a.in = lc_ref(si, 0), a.out = lc_ref(so, 0);
                    lincoll_status_t st = g->compile(&b, &a);
                    if (st == LINCOLL_OK) st = lc_plan_finalize(b.plan);
                    char what[128];
                    snprintf(what, sizeof(what), "repair %s k=%d r=%d p=%d rank %d", g->name, k, r,
                             p, me);
                    check_compiled(what, ok, st, b.plan, &compiled);
                    lc_plan_destroy(b.plan);
                }
            }
        }
        if (compiled == before) fail_msg("repair %s: compiled on no test call", g->name);
    }
    free(in);
    free(out);
    lincoll_gf_field_destroy(f);
    printf("repair: %zu entries, %u plans\n", n, compiled);
}

/* ---- matmul ------------------------------------------------------------------ */

static void test_matmul(void **state)
{
    (void)state;
    size_t n;
    const lc_mm_alg_t *const *reg = lc_mm_registry(&n);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        const lc_mm_alg_t *g = reg[i];
        assert_non_null(g->name);
        if (g->cost == NULL || g->compile == NULL || g->memory == NULL)
            fail_msg("matmul %s: cost, compile or memory missing", g->name);
        if (g->applies != NULL && g->why_not == NULL)
            fail_msg("matmul %s: a restriction (applies) without why_not", g->name);
        assert_ptr_equal(lc_mm_alg(g->algo), g);
        for (size_t j = 0; j < i; j++)
            if (strcmp(reg[j]->name, g->name) == 0 || reg[j]->algo == g->algo)
                fail_msg("matmul %s: name or lincoll_matmul_algo_t twice", g->name);
    }
    static const struct {
        int pr, pc, c;
    } grids[] = {{4, 1, 1}, {1, 4, 1}, {2, 2, 1}, {2, 3, 1}, {2, 2, 2}};
    const int64_t N = 12;
    double *A = calloc((size_t)(N * N), sizeof(double)), *Bm = calloc((size_t)(N * N), 8);
    double *C = calloc((size_t)(N * N), sizeof(double));
    assert_true(A != NULL && Bm != NULL && C != NULL);
    unsigned compiled = 0;
    int *served = calloc(n, sizeof(int));
    assert_non_null(served);
    for (size_t i = 0; i < n; i++) {
        const lc_mm_alg_t *g = reg[i];
        for (size_t gi = 0; gi < sizeof(grids) / sizeof(grids[0]); gi++) {
            const int P = grids[gi].pr * grids[gi].pc * grids[gi].c;
            for (int me = 0; me < P; me++) {
                lc_mm_t mm = {.env = env_of(P, me, 2, 0),
                              .dtype = LINCOLL_DOUBLE,
                              .es = sizeof(double),
                              .alpha = 1,
                              .beta = 0,
                              .a = A,
                              .b = Bm,
                              .c = C,
                              .m = N,
                              .n = N,
                              .k = N,
                              .me = me,
                              .P = P};
                assert_int_equal(lincoll_matdesc_block(&mm.dc, N, N, grids[gi].pr, grids[gi].pc,
                                                       grids[gi].c, LINCOLL_COL_MAJOR),
                                 LINCOLL_OK);
                mm.da = mm.db = mm.dc;
                assert_int_equal(lincoll_matdesc_coords(&mm.dc, me, &mm.pi, &mm.pj, &mm.pl),
                                 LINCOLL_OK);
                const int ok = LC_ALG_APPLIES(g, &mm.env, &mm);
                char why[256] = "";
                if (!ok) {
                    if (!g->why_not(&mm.env, &mm, why, sizeof(why)) || why[0] == '\0')
                        fail_msg("matmul %s on %dx%dx%d: does not apply, says no reason", g->name,
                                 grids[gi].pr, grids[gi].pc, grids[gi].c);
                    continue;
                }
                if (g->why_not != NULL && g->why_not(&mm.env, &mm, why, sizeof(why)))
                    fail_msg("matmul %s: applies, yet why_not says %s", g->name, why);
                check_cost("matmul", g->name, g->cost(&mm.env, &mm));
                const double mem = g->memory(&mm.env, &mm);
                if (!(isfinite(mem) && mem >= 0)) fail_msg("matmul %s: memory %g", g->name, mem);
                lc_plan_t *plan = NULL;
                assert_int_equal(lc_plan_create(&mm.env, g->name, 2, &plan), LINCOLL_OK);
                lc_mm_priv_t *pv = calloc(1, sizeof(*pv));
                assert_non_null(pv);
                pv->magic = LC_MM_MAGIC;
                plan->priv = pv;
                plan->priv_free = free;
                lincoll_status_t st = g->compile(plan, &mm);
                if (st == LINCOLL_OK)
                    st = lc_mm_finish(plan, &mm, g->algo, pv->info.panel, pv->info.bcast);
                char what[128];
                snprintf(what, sizeof(what), "matmul %s grid %dx%dx%d rank %d", g->name,
                         grids[gi].pr, grids[gi].pc, grids[gi].c, me);
                check_compiled(what, ok, st, plan, &compiled);
                served[i] = 1;
                lc_plan_destroy(plan);
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!served[i]) fail_msg("matmul %s: applies to none of the test grids", reg[i]->name);
    free(served);
    free(A);
    free(Bm);
    free(C);
    printf("matmul: %zu entries, %u plans\n", n, compiled);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coll),
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_repair),
        cmocka_unit_test(test_matmul),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
