/*
 * core/coll/select.c: algorithm registry and selection for the reduction and
 * gather collectives.
 *
 * The registry is one table: (operation, algorithm, plan name, compiler).
 * Selection, for one call:
 *   1. LINCOLL_<OP>_ALGO=auto|rhd|ring|binomial (read at every *_init, so a
 *      program or test may change it between calls) forces an algorithm; a
 *      value that is not one of those is LINCOLL_ERR_INVALID naming the
 *      variable.  A forced algorithm the operation does not have (ring
 *      broadcast/reduce, binomial allreduce/reduce-scatter/allgather) falls
 *      back to the automatic choice with one warning, or is
 *      LINCOLL_ERR_UNSUPPORTED when LINCOLL_ALGO_FALLBACK=error.
 *   2. Otherwise the cheapest by the alpha-beta-gamma closed forms of
 *      design/RHD.md §2/§7 with LINCOLL_MODEL_ALPHA, LINCOLL_MODEL_BW and
 *      LINCOLL_MODEL_COMPUTE_BW (ties go to the first candidate, rhd).
 * The choice depends only on arguments that must match on every rank (op,
 * p, counts, dtype size) and on the configuration, so every rank compiles
 * the same algorithm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/log.h"
#include "core/coll/coll_int.h"

typedef struct lc_coll_alg {
    lc_coll_op_t op;
    lc_coll_algo_t algo;
    const char *name;
    lc_coll_build_fn_t build;
} lc_coll_alg_t;

static const lc_coll_alg_t lc_coll_algs[] = {
    {LC_COLL_ALLREDUCE, LC_ALGO_RHD, "rhd_allreduce", lc_rhd_allreduce_build},
    {LC_COLL_ALLREDUCE, LC_ALGO_RING, "ring_allreduce", lc_ring_allreduce_build},
    {LC_COLL_REDUCE_SCATTER, LC_ALGO_RHD, "rhd_reduce_scatter", lc_rhd_reduce_scatter_build},
    {LC_COLL_REDUCE_SCATTER, LC_ALGO_RING, "ring_reduce_scatter", lc_ring_reduce_scatter_build},
    {LC_COLL_ALLGATHER, LC_ALGO_RHD, "rhd_allgather", lc_rhd_allgather_build},
    {LC_COLL_ALLGATHER, LC_ALGO_RING, "ring_allgather", lc_ring_allgather_build},
    {LC_COLL_BCAST, LC_ALGO_RHD, "rhd_bcast", lc_rhd_bcast_build},
    {LC_COLL_BCAST, LC_ALGO_BINOMIAL, "binomial_bcast", lc_binomial_bcast_build},
    {LC_COLL_REDUCE, LC_ALGO_RHD, "rhd_reduce", lc_rhd_reduce_build},
    {LC_COLL_REDUCE, LC_ALGO_BINOMIAL, "binomial_reduce", lc_binomial_reduce_build},
};
#define LC_NALGS (sizeof(lc_coll_algs) / sizeof(lc_coll_algs[0]))

static const char *const lc_op_names[LC_COLL_NOPS] = {"allreduce", "reduce_scatter", "allgather",
                                                      "bcast", "reduce"};
static const char *const lc_op_vars[LC_COLL_NOPS] = {
    "LINCOLL_ALLREDUCE_ALGO", "LINCOLL_REDUCE_SCATTER_ALGO", "LINCOLL_ALLGATHER_ALGO",
    "LINCOLL_BCAST_ALGO", "LINCOLL_REDUCE_ALGO"};
static const char *const lc_algo_names[LC_ALGO_NALGOS] = {"auto", "rhd", "ring", "binomial"};

const char *lc_coll_op_name(lc_coll_op_t op)
{
    return (unsigned)op < LC_COLL_NOPS ? lc_op_names[op] : "unknown";
}

const char *lc_coll_algo_name(lc_coll_algo_t algo)
{
    return (unsigned)algo < LC_ALGO_NALGOS ? lc_algo_names[algo] : "unknown";
}

lincoll_status_t lc_coll_forced_algo(lc_coll_op_t op, lc_coll_algo_t *algo_p)
{
    *algo_p = LC_ALGO_AUTO;
    const char *v = getenv(lc_op_vars[op]);
    if (v == NULL || *v == '\0') {
        return LINCOLL_OK;
    }
    for (int i = 0; i < LC_ALGO_NALGOS; i++) {
        if (strcasecmp(v, lc_algo_names[i]) == 0) {
            *algo_p = (lc_coll_algo_t)i;
            return LINCOLL_OK;
        }
    }
    lc_error("%s=%s: expected one of auto|rhd|ring|binomial", lc_op_vars[op], v);
    return LINCOLL_ERR_INVALID;
}

static const lc_coll_alg_t *lc_coll_find(lc_coll_op_t op, lc_coll_algo_t algo)
{
    for (size_t i = 0; i < LC_NALGS; i++) {
        if (lc_coll_algs[i].op == op && lc_coll_algs[i].algo == algo) return &lc_coll_algs[i];
    }
    return NULL;
}

double lc_coll_predict(const lc_config_t *cfg, lc_coll_op_t op, lc_coll_algo_t algo, int p,
                       const lc_coll_args_t *a)
{
    if (lc_coll_find(op, algo) == NULL) return -1.0;
    if (p <= 1) return 0.0;
    lc_fold_t f;
    lc_fold_init(&f, p, 0);
    const double al = cfg->model_alpha, be = 1.0 / cfg->model_bw;
    const double ga = 2.0 / cfg->model_compute_bw; /* a reduce reads two operands */
    const double n = (double)a->total * (double)a->es, k = f.k, P = f.P, d = f.r > 0;
    const double fr = (P - 1) / P, fp = (double)(p - 1) / p, b = n / p;
    switch (op) {
    case LC_COLL_ALLREDUCE:
        if (algo == LC_ALGO_RHD)
            return (2 * k + 2 * d) * al + (2 * fr + 2 * d) * n * be + (fr + d) * n * ga;
        return 2.0 * (p - 1) * al + 2 * fp * n * be + fp * n * ga;
    case LC_COLL_REDUCE_SCATTER:
        if (algo == LC_ALGO_RHD)
            return (k + 2 * d) * al + (fr * n + d * (n + b)) * be + (fr + d) * n * ga;
        return (p - 1) * al + fp * n * (be + ga);
    case LC_COLL_ALLGATHER:
        if (algo == LC_ALGO_RHD) return (k + 2 * d) * al + (fr * n + d * (n + b)) * be;
        return (p - 1) * al + fp * n * be;
    case LC_COLL_BCAST:
        if (algo == LC_ALGO_RHD) return (2 * k + d) * al + (2 * fr + d) * n * be;
        return (k + d) * (al + n * be);
    case LC_COLL_REDUCE:
        if (algo == LC_ALGO_RHD)
            return (2 * k + d) * al + (2 * fr + d) * n * be + (fr + d) * n * ga;
        return (k + d) * (al + n * be + n * ga);
    default:
        return -1.0;
    }
}

lincoll_status_t lc_coll_plan(lincoll_comm_t *comm, const lc_coll_args_t *a,
                              lincoll_plan_t **plan_p)
{
    const lc_config_t *cfg = &comm->ctx->cfg;
    lc_coll_algo_t forced;
    lincoll_status_t st = lc_coll_forced_algo(a->op, &forced);
    if (st != LINCOLL_OK) return st;
    const lc_coll_alg_t *alg = NULL;
    if (forced != LC_ALGO_AUTO) {
        alg = lc_coll_find(a->op, forced);
        if (alg == NULL) {
            if (cfg->algo_fallback == LC_FALLBACK_ERROR) {
                lc_error("%s=%s: %s has no %s algorithm (LINCOLL_ALGO_FALLBACK=error)",
                         lc_op_vars[a->op], lc_algo_names[forced], lc_op_names[a->op],
                         lc_algo_names[forced]);
                return LINCOLL_ERR_UNSUPPORTED;
            }
            static int warned[LC_COLL_NOPS];
            if (!warned[a->op]) {
                warned[a->op] = 1;
                lc_warn("%s=%s: %s has no %s algorithm; choosing automatically", lc_op_vars[a->op],
                        lc_algo_names[forced], lc_op_names[a->op], lc_algo_names[forced]);
            }
        }
    }
    if (forced == LC_ALGO_AUTO && !lc_coll_blocking_build()) {
        /* zero copy when every rank's buffers are mapped here (collective check) */
        st = lc_zc_allreduce_try(comm, a, plan_p);
        if (st != LINCOLL_ERR_UNSUPPORTED) return st;
    }
    if (alg == NULL) {
        double best = 0;
        for (size_t i = 0; i < LC_NALGS; i++) {
            if (lc_coll_algs[i].op != a->op) continue;
            double t = lc_coll_predict(cfg, a->op, lc_coll_algs[i].algo, comm->size, a);
            /* a later candidate must be clearly cheaper: equal closed forms
             * (p = 2) must not flip on rounding */
            if (alg == NULL || t < best * (1.0 - 1e-9)) {
                alg = &lc_coll_algs[i];
                best = t;
            }
        }
        lc_debug("%s of %zu elements on %d ranks: %s (predicted %.2f us)", lc_op_names[a->op],
                 a->total, comm->size, alg->name, best * 1e6);
    }
    lincoll_plan_t *plan;
    st = lc_plan_create(comm, alg->name, 1, &plan);
    if (st != LINCOLL_OK) return st;
    plan->elem_size = a->es;
    st = alg->build(plan, a);
    if (st == LINCOLL_OK) st = lc_plan_finalize(plan);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(plan);
        return st;
    }
    *plan_p = plan;
    return LINCOLL_OK;
}
