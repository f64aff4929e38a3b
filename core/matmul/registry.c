/*
 * core/matmul/registry.c: the distributed matrix multiply algorithms, one
 * line each (docs/matmul.md).  An algorithm is its .c file, which defines
 * `const lc_mm_alg_t lc_mm_alg_<file>` (the entry shape of core/plan/alg.h:
 * name, applies, closed-form cost, compiler; then its lincoll_matmul_algo_t,
 * why_not and scratch memory), plus its line here.  Order matters only for
 * ties of the cost model: the first wins.
 */
#include "core/matmul/mm_int.h"

#define LC_MM_ALGS(X)                                                                              \
    X(ring1d)                                                                                      \
    X(summa)                                                                                       \
    X(cannon)                                                                                      \
    X(25d)

#define LC_DECLARE(n) extern const lc_mm_alg_t lc_mm_alg_##n;
LC_MM_ALGS(LC_DECLARE)
#undef LC_DECLARE

#define LC_ENTRY(n) &lc_mm_alg_##n,
static const lc_mm_alg_t *const lc_mm_algs[] = {LC_MM_ALGS(LC_ENTRY)};
#undef LC_ENTRY
#define LC_MM_NALGS (sizeof(lc_mm_algs) / sizeof(lc_mm_algs[0]))

const lc_mm_alg_t *const *lc_mm_registry(size_t *n_p)
{
    *n_p = LC_MM_NALGS;
    return lc_mm_algs;
}

const lc_mm_alg_t *lc_mm_alg(lincoll_matmul_algo_t algo)
{
    for (size_t i = 0; i < LC_MM_NALGS; i++)
        if (lc_mm_algs[i]->algo == algo) return lc_mm_algs[i];
    return NULL;
}

const char *lc_mm_algo_name(lincoll_matmul_algo_t algo)
{
    if (algo == LINCOLL_MATMUL_AUTO) return "auto";
    const lc_mm_alg_t *a = lc_mm_alg(algo);
    return a != NULL ? a->name : "?";
}
