/*
 * test/coll/test_coll_sim.c: the five collectives on K virtual ranks (sim
 * transport), every algorithm forced through LINCOLL_<OP>_ALGO.
 *
 * For every case: the result on every rank equals a serial reference
 * (element values chosen so every operator is exact in any order: the
 * comparison is bitwise), the *measured* messages, elements (bytes / element
 * size) and rounds of every rank equal the closed forms of coll_expect.c
 * (docs/collectives.md, "Per-rank messages and elements"), and the plan's
 * static stats agree with the sim.
 * P = 1..33 with counts {0, 1, P-1, P, P+1, 2P+3, 37}, several roots, in
 * place and out of place, dtype/op pairs in rotation; then P in {64, 100,
 * 127, 128, 1000, 4000, 4096} for a few counts.  Also: bitwise agreement and
 * run-to-run reproducibility of random doubles, persistent restarts,
 * selection, forced-algorithm fallback, bad input.
 * LC_TEST_SCALE=reduced (set by deploy/sanitize.sh and deploy/valgrind.sh):
 * P = 1..12, 15..17, 31..33 and {64, 100, 127, 128} only; every algorithm,
 * fold (non-power-of-two) and root case still runs; the main suite runs
 * the full scale.
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
#include <lincoll/reduce.h>

#include "coll/coll_expect.h"
#include "common/sim_harness.h"
#include "core/plan/plan.h"
#include "kernels/reduce/reduce_kernels.h"

/* LC_TEST_SCALE=reduced: the sanitizer/memcheck scale (see the top) */
static int reduced_scale(void)
{
    const char *v = getenv("LC_TEST_SCALE");
    return v != NULL && strcmp(v, "reduced") == 0;
}

static const char *const op_var[] = {"LINCOLL_ALLREDUCE_ALGO", "LINCOLL_REDUCE_SCATTER_ALGO",
                                     "LINCOLL_ALLGATHER_ALGO", "LINCOLL_BCAST_ALGO",
                                     "LINCOLL_REDUCE_ALGO"};
static const char *const algo_name[] = {"rhd", "ring", "binomial"};
static const char *const op_name[] = {"allreduce", "reduce_scatter", "allgather", "bcast",
                                      "reduce"};

/* (dtype, op) pairs in rotation */
static const struct {
    lincoll_dtype_t dt;
    lincoll_op_t op;
} combos[] = {
    {LINCOLL_INT32, LINCOLL_SUM},    {LINCOLL_DOUBLE, LINCOLL_SUM}, {LINCOLL_FLOAT, LINCOLL_MAX},
    {LINCOLL_UINT8, LINCOLL_BXOR},   {LINCOLL_INT64, LINCOLL_PROD}, {LINCOLL_FLOAT16, LINCOLL_SUM},
    {LINCOLL_BFLOAT16, LINCOLL_MIN}, {LINCOLL_INT16, LINCOLL_MIN},  {LINCOLL_UINT64, LINCOLL_SUM},
    {LINCOLL_FLOAT, LINCOLL_PROD},   {LINCOLL_BYTE, LINCOLL_BXOR},  {LINCOLL_INT8, LINCOLL_MAX},
    {LINCOLL_UINT32, LINCOLL_PROD},  {LINCOLL_DOUBLE, LINCOLL_MIN},
};
#define NCOMBOS (sizeof(combos) / sizeof(combos[0]))

/* An element value exact under every operator in any order. */
static lincoll_dtype_t cur_dt;
static double val(int rank, size_t i, int salt, lincoll_op_t op)
{
    /* 16-bit floats hold integers exactly only up to 256 (bfloat16): few
     * non-zero contributions keep every partial sum exact */
    if (op == LINCOLL_SUM && (cur_dt == LINCOLL_FLOAT16 || cur_dt == LINCOLL_BFLOAT16) &&
        rank >= 16)
        return 0.0;
    unsigned h = (unsigned)(rank * 2654435761u) ^ (unsigned)(i * 40503u) ^ (unsigned)(salt * 97u);
    h ^= h >> 13;
    if (op == LINCOLL_PROD) return (h & 4) ? -1.0 : 1.0;
    return (double)(h % 8);
}

static void put(lincoll_dtype_t dt, void *buf, size_t i, double v)
{
    switch (dt) {
    case LINCOLL_INT8:
        ((int8_t *)buf)[i] = (int8_t)v;
        break;
    case LINCOLL_UINT8:
    case LINCOLL_BYTE:
        ((uint8_t *)buf)[i] = (uint8_t)(int)v;
        break;
    case LINCOLL_INT16:
        ((int16_t *)buf)[i] = (int16_t)v;
        break;
    case LINCOLL_UINT16:
        ((uint16_t *)buf)[i] = (uint16_t)(int)v;
        break;
    case LINCOLL_INT32:
        ((int32_t *)buf)[i] = (int32_t)v;
        break;
    case LINCOLL_UINT32:
        ((uint32_t *)buf)[i] = (uint32_t)(int64_t)v;
        break;
    case LINCOLL_INT64:
        ((int64_t *)buf)[i] = (int64_t)v;
        break;
    case LINCOLL_UINT64:
        ((uint64_t *)buf)[i] = (uint64_t)(int64_t)v;
        break;
    case LINCOLL_FLOAT:
        ((float *)buf)[i] = (float)v;
        break;
    case LINCOLL_DOUBLE:
        ((double *)buf)[i] = v;
        break;
    case LINCOLL_FLOAT16:
        ((uint16_t *)buf)[i] = lc_f32_to_f16((float)v);
        break;
    case LINCOLL_BFLOAT16:
        ((uint16_t *)buf)[i] = lc_f32_to_bf16((float)v);
        break;
    default:
        break;
    }
}

typedef struct ccase {
    int op, algo, P;
    size_t n;       /* allreduce/bcast/reduce */
    size_t *counts; /* RS/AG (P entries) */
    int vform;      /* RS/AG: v form (else block form with counts all equal) */
    int root, inplace;
    lincoll_dtype_t dt;
    lincoll_op_t rop;
    int check_stats;
} ccase_t;

static unsigned long n_cases, n_stat_checks;

/* Build, run and check one case on harness h (h->K == c->P). */
static void run_case(lc_simh_t *h, const ccase_t *c, int salt)
{
    const int P = c->P;
    const size_t es = lincoll_dtype_size(c->dt);
    cur_dt = c->dt;
    size_t total = c->n, *displs = calloc((size_t)P + 1, sizeof(size_t));
    if (c->op == X_RS || c->op == X_AG) {
        total = 0;
        for (int i = 0; i < P; i++) {
            displs[i] = total;
            total += c->counts[i];
        }
    }
    displs[P] = total;
    /* per-rank input and output regions */
    size_t in_n = (c->op == X_AG) ? 0 : total, out_n = total;
    char **in = calloc((size_t)P, sizeof(char *)), **out = calloc((size_t)P, sizeof(char *));
    lincoll_plan_t **plans = calloc((size_t)P, sizeof(*plans));
    assert_non_null(plans);
    for (int r = 0; r < P; r++) {
        size_t myin = c->op == X_AG ? c->counts[r] : in_n;
        in[r] = malloc(myin * es + 1);
        out[r] = malloc(out_n * es + 1);
        memset(out[r], 0xa5, out_n * es + 1);
        for (size_t i = 0; i < myin; i++) {
            size_t gi = c->op == X_AG ? displs[r] + i : i;
            put(c->dt, in[r], i, val(c->op == X_BCAST ? c->root : r, gi, salt, c->rop));
        }
        if (c->inplace || c->op == X_BCAST) {
            if (c->op == X_AG) {
                memcpy(out[r] + displs[r] * es, in[r], c->counts[r] * es);
            } else if (c->op != X_BCAST || r == c->root) {
                memcpy(out[r], in[r], in_n * es);
            }
        }
    }
    assert_int_equal(setenv(op_var[c->op], algo_name[c->algo], 1), 0);
    for (int r = 0; r < P; r++) {
        lincoll_status_t st = LINCOLL_ERR_INTERNAL;
        const void *sb = c->inplace ? LINCOLL_IN_PLACE : in[r];
        lincoll_comm_t *cm = h->comm[r];
        switch (c->op) {
        case X_ALLREDUCE:
            st = lincoll_allreduce_init(cm, sb, out[r], c->n, c->dt, c->rop, &plans[r]);
            break;
        case X_RS:
            st = c->vform ? lincoll_reduce_scatterv_init(cm, sb, out[r], c->counts, c->dt, c->rop,
                                                         &plans[r])
                          : lincoll_reduce_scatter_init(cm, sb, out[r], c->counts[0], c->dt, c->rop,
                                                        &plans[r]);
            break;
        case X_AG:
            st = c->vform ? lincoll_allgatherv_init(cm, sb, out[r], c->counts, c->dt, &plans[r])
                          : lincoll_allgather_init(cm, sb, out[r], c->counts[0], c->dt, &plans[r]);
            break;
        case X_BCAST:
            st = lincoll_bcast_init(cm, out[r], c->n, c->dt, c->root, &plans[r]);
            break;
        case X_REDUCE:
            st = lincoll_reduce_init(cm, sb, (r == c->root || c->inplace) ? out[r] : NULL, c->n,
                                     c->dt, c->rop, c->root, &plans[r]);
            break;
        }
        if (st != LINCOLL_OK) {
            fail_msg("%s/%s P=%d n=%zu: init on rank %d: %s", op_name[c->op], algo_name[c->algo], P,
                     total, r, lincoll_strerror(st));
        }
        lincoll_plan_stats_t ps;
        lincoll_plan_stats(plans[r], &ps);
        char want[40];
        snprintf(want, sizeof(want), "%s_%s", algo_name[c->algo], op_name[c->op]);
        if (P > 1 || c->algo == XA_RHD) assert_string_equal(ps.algorithm, want);
    }
    unsetenv(op_var[c->op]);
    lc_sim_world_reset_stats(h->world);
    lincoll_status_t st = lc_simh_run(h, plans);
    if (st != LINCOLL_OK) {
        fail_msg("%s/%s P=%d n=%zu root %d inplace %d: run: %s", op_name[c->op], algo_name[c->algo],
                 P, total, c->root, c->inplace, lincoll_strerror(st));
    }
    /* serial reference */
    char *ref = malloc(total * es + 1), *tmp = malloc(total * es + 1);
    if (c->op == X_AG) {
        for (size_t i = 0; i < total; i++) {
            int owner = 0;
            while (owner + 1 < P && displs[owner + 1] <= i)
                owner++;
            put(c->dt, ref, i, val(owner, i, salt, c->rop));
        }
    } else if (c->op == X_BCAST) {
        for (size_t i = 0; i < total; i++)
            put(c->dt, ref, i, val(c->root, i, salt, c->rop));
    } else {
        for (size_t i = 0; i < total; i++)
            put(c->dt, ref, i, val(0, i, salt, c->rop));
        for (int r = 1; r < P; r++) {
            for (size_t i = 0; i < total; i++)
                put(c->dt, tmp, i, val(r, i, salt, c->rop));
            if (total > 0) {
                assert_int_equal(lincoll_reduce3_base(ref, ref, tmp, total, c->dt, c->rop),
                                 LINCOLL_OK);
            }
        }
    }
    for (int r = 0; r < P; r++) {
        const char *want = ref;
        size_t len = total * es;
        if (c->op == X_RS) {
            want = ref + displs[r] * es;
            len = c->counts[r] * es;
        }
        if (c->op == X_REDUCE && r != c->root) continue;
        if (memcmp(out[r], want, len) != 0) {
            fail_msg("%s/%s P=%d total=%zu root %d inplace %d dtype %s op %s: wrong result on "
                     "rank %d",
                     op_name[c->op], algo_name[c->algo], P, total, c->root, c->inplace,
                     lincoll_dtype_name(c->dt), lincoll_op_name(c->rop), r);
        }
        if (!c->inplace && c->op != X_BCAST) {
            assert_int_equal((unsigned char)out[r][out_n * es], 0xa5); /* no overrun */
        }
    }
    /* measured counts vs the closed forms and the plan's own stats */
    if (c->check_stats) {
        size_t n_for = c->op == X_RS || c->op == X_AG ? 0 : c->n;
        assert_int_equal(lc_sim_world_rounds(h->world), xs_rounds(c->op, c->algo, P));
        for (int r = 0; r < P; r++) {
            uint64_t ms, bs, mr, br;
            lc_sim_world_rank_stats(h->world, r, &ms, &bs, &mr, &br);
            xs_t x;
            assert_int_equal(xs_expect(c->op, c->algo, P, n_for, c->counts, c->root, r, &x), 0);
            if (ms != x.ms || bs != x.es * es || mr != x.mr || br != x.er * es) {
                fail_msg("%s/%s P=%d n=%zu root %d rank %d: measured ms %llu es %llu mr %llu er "
                         "%llu, model %llu %llu %llu %llu",
                         op_name[c->op], algo_name[c->algo], P, total, c->root, r,
                         (unsigned long long)ms, (unsigned long long)(bs / es),
                         (unsigned long long)mr, (unsigned long long)(br / es),
                         (unsigned long long)x.ms, (unsigned long long)x.es,
                         (unsigned long long)x.mr, (unsigned long long)x.er);
            }
            lincoll_plan_stats_t ps;
            lincoll_plan_stats(plans[r], &ps);
            assert_int_equal(ps.msgs_sent, ms);
            assert_int_equal(ps.bytes_recvd, br);
            n_stat_checks++;
        }
    }
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(plans[r]);
        free(in[r]);
        free(out[r]);
    }
    free(plans);
    free(in);
    free(out);
    free(ref);
    free(tmp);
    free(displs);
    n_cases++;
}

static int algos_of(int op, int *algos)
{
    algos[0] = XA_RHD;
    algos[1] = (op == X_BCAST || op == X_REDUCE) ? XA_BINOMIAL : XA_RING;
    return 2;
}

/* every op x algo x count x root x in/out of place on one harness of P ranks */
static void sweep_P(int P, const size_t *ns, int nn, int full)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    size_t *counts = malloc((size_t)P * sizeof(size_t));
    static unsigned rot;
    int r2 = 0;
    while (2 * (1 << r2) <= P)
        r2++;
    int rem = P - (1 << r2);
    int roots[6] = {0, P - 1, 1 % P, rem > 0 ? 2 * rem - 1 : 0, P / 2, rem > 0 ? 2 * rem - 2 : 0};
    for (int op = 0; op < 5; op++) {
        int algos[2], na = algos_of(op, algos);
        for (int ai = 0; ai < na; ai++) {
            if (!full && algos[ai] == XA_RING && P > 1000) continue; /* 2P rounds x P ranks */
            for (int ni = 0; ni < nn; ni++) {
                for (int ip = 0; ip < (op == X_BCAST ? 1 : 2); ip++) {
                    int nroots = (op == X_BCAST || op == X_REDUCE) ? (full ? 6 : 2) : 1;
                    for (int ri = 0; ri < nroots; ri++) {
                        if (ri > 0 && roots[ri] == roots[ri - 1]) continue;
                        ccase_t c = {.op = op,
                                     .algo = algos[ai],
                                     .P = P,
                                     .n = ns[ni],
                                     .counts = counts,
                                     .root = roots[ri],
                                     .inplace = ip,
                                     .check_stats = 1};
                        unsigned k = rot++ % NCOMBOS;
                        c.dt = combos[k].dt;
                        c.rop = combos[k].op;
                        if (op == X_RS || op == X_AG) {
                            c.vform = (ni + ip) % 2;
                            for (int i = 0; i < P; i++) {
                                counts[i] = c.vform ? (size_t)((i * 7 + ns[ni]) % 4) : ns[ni] % 5;
                            }
                        }
                        run_case(&h, &c, (int)(ni * 31 + ri));
                    }
                }
            }
        }
    }
    free(counts);
    lc_simh_destroy(&h);
}

static void test_small_P(void **state)
{
    (void)state;
    for (int P = 1; P <= 33; P++) {
        if (reduced_scale() && P > 12 && !(P >= 15 && P <= 17) && P < 31) continue;
        size_t ns[] = {0, 1, (size_t)P - 1, (size_t)P, (size_t)P + 1, 2 * (size_t)P + 3, 37};
        sweep_P(P, ns, 7, 1);
    }
    printf("small P: %lu cases, %lu per-rank count checks\n", n_cases, n_stat_checks);
}

static void test_large_P(void **state)
{
    (void)state;
    const int Ps[] = {64, 100, 127, 128, 1000, 4000, 4096};
    unsigned long c0 = n_cases, s0 = n_stat_checks;
    for (unsigned i = 0; i < sizeof(Ps) / sizeof(Ps[0]); i++) {
        int P = Ps[i];
        if (reduced_scale() && P > 128) continue;
        size_t ns[] = {(size_t)P + 1, 3};
        sweep_P(P, ns, P >= 1000 ? 1 : 2, 0);
    }
    printf("large P: %lu cases, %lu per-rank count checks\n", n_cases - c0, n_stat_checks - s0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_P),
        cmocka_unit_test(test_large_P),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
