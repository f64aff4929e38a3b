/*
 * core/coll/registry.c: every reduction/gather collective algorithm, one
 * line each (docs/collectives.md, "Algorithm selection").
 *
 * An algorithm is its .c file, which defines `const lc_coll_alg_t
 * lc_alg_<plan name>` (the entry shape of core/plan/alg.h: name, applies,
 * closed-form cost, compiler; then its plan name, operation, zero copy or
 * not and ports), plus its line here.  Order matters only for ties of the cost model: the
 * first candidate wins.
 */
#include <string.h>
#include <strings.h>

#include "core/coll/coll_int.h"

#define LC_COLL_ALGS(X)                                                                            \
    X(rhd_allreduce)                                                                               \
    X(rd_allreduce)                                                                                \
    X(ring_allreduce)                                                                              \
    X(zcopy_rd_allreduce)                                                                          \
    X(zcopy_allreduce)                                                                             \
    X(rhd_reduce_scatter)                                                                          \
    X(ring_reduce_scatter)                                                                         \
    X(zcopy_rh_reduce_scatter)                                                                     \
    X(zcopy_reduce_scatter)                                                                        \
    X(rhd_allgather)                                                                               \
    X(ring_allgather)                                                                              \
    X(zcopy_rd_allgather)                                                                          \
    X(zcopy_allgather)                                                                             \
    X(rhd_bcast)                                                                                   \
    X(binomial_bcast)                                                                              \
    X(zcopy_bcast)                                                                                 \
    X(zcopy_direct_bcast)                                                                          \
    X(rhd_reduce)                                                                                  \
    X(binomial_reduce)                                                                             \
    X(zcopy_reduce)                                                                                \
    X(zcopy_direct_reduce)

#define LC_DECLARE(n) extern const lc_coll_alg_t lc_alg_##n;
LC_COLL_ALGS(LC_DECLARE)
#undef LC_DECLARE

#define LC_ENTRY(n) &lc_alg_##n,
static const lc_coll_alg_t *const lc_coll_algs[] = {LC_COLL_ALGS(LC_ENTRY)};
#undef LC_ENTRY

const lc_coll_alg_t *const *lc_coll_registry(size_t *n_p)
{
    *n_p = sizeof(lc_coll_algs) / sizeof(lc_coll_algs[0]);
    return lc_coll_algs;
}

const lc_coll_alg_t *lc_coll_find(lc_coll_op_t op, const char *name)
{
    for (size_t i = 0; i < sizeof(lc_coll_algs) / sizeof(lc_coll_algs[0]); i++) {
        const lc_coll_alg_t *a = lc_coll_algs[i];
        if (a->op == op && (strcasecmp(a->name, name) == 0 || strcasecmp(a->plan_name, name) == 0))
            return a;
    }
    return NULL;
}
