/*
 * core/encode/repair_registry.c: the repair schedules of
 * lincoll_encode_repair_k_init, one line each (docs/encode.md, "Repair with
 * the k survivors only").  A schedule is its .c file (repair_<name>.c),
 * which defines `const lc_rep_alg_t lc_rep_alg_<name>` (the entry shape of
 * core/plan/alg.h: name, applies, cost, compile; then its plan name,
 * lincoll_repair_algo_t, slicing and figures), plus its line here; order:
 * ties of the cost model go to the first.
 */
#include "core/encode/repair_int.h"

#define LC_REP_ALGS(X)                                                                             \
    X(star)                                                                                        \
    X(tree)                                                                                        \
    X(chain)

#define LC_DECLARE(n) extern const lc_rep_alg_t lc_rep_alg_##n;
LC_REP_ALGS(LC_DECLARE)
#undef LC_DECLARE

#define LC_ENTRY(n) &lc_rep_alg_##n,
static const lc_rep_alg_t *const lc_rep_algs[] = {LC_REP_ALGS(LC_ENTRY)};
#undef LC_ENTRY
#define LC_REP_NALGS (sizeof(lc_rep_algs) / sizeof(lc_rep_algs[0]))

const lc_rep_alg_t *const *lc_rep_registry(size_t *n_p)
{
    *n_p = LC_REP_NALGS;
    return lc_rep_algs;
}
