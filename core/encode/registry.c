/*
 * core/encode/registry.c: the universal all-to-all encode algorithms (any
 * K x K matrix), one line each (docs/encode.md, "Algorithm selection").
 *
 * An algorithm is its .c file, which defines `const lc_enc_alg_t
 * lc_enc_alg_<name>` (the entry shape of core/plan/alg.h: name, applies,
 * closed-form cost and compiler; then its lincoll_encode_algo_t value and
 * whether it is zero copy), plus its line here.  An algorithm
 * without a public lincoll_encode_algo_t value (algo -1) gets the number
 * LINCOLL_ENCODE_ALGO_LAST + its position: LINCOLL_ENCODE_ALGO=name and
 * lincoll_encode_algo_name() reach it all the same.  Order matters only for
 * ties of the cost model: the first candidate wins (a window that one
 * prepare round fills is the direct schedule: at K = 2 the two are the same
 * plan, and direct names it).
 */
#include <string.h>
#include <strings.h>

#include "core/encode/encode_int.h"

#define LC_ENC_ALGS(X)                                                                             \
    X(direct)                                                                                      \
    X(best_window)                                                                                 \
    X(prepare_shoot)                                                                               \
    X(zcopy_split)                                                                                 \
    X(zcopy)

#define LC_DECLARE(n) extern const lc_enc_alg_t lc_enc_alg_##n;
LC_ENC_ALGS(LC_DECLARE)
#undef LC_DECLARE

#define LC_ENTRY(n) &lc_enc_alg_##n,
static const lc_enc_alg_t *const lc_enc_algs[] = {LC_ENC_ALGS(LC_ENTRY)};
#undef LC_ENTRY
#define LC_ENC_NALGS (sizeof(lc_enc_algs) / sizeof(lc_enc_algs[0]))

const lc_enc_alg_t *const *lc_enc_registry(size_t *n_p)
{
    *n_p = LC_ENC_NALGS;
    return lc_enc_algs;
}

int lc_enc_alg_id(const lc_enc_alg_t *a)
{
    for (size_t i = 0; i < LC_ENC_NALGS; i++)
        if (lc_enc_algs[i] == a)
            return a->algo >= 0 ? (int)a->algo : LINCOLL_ENCODE_ALGO_LAST + (int)i;
    return -1;
}

const lc_enc_alg_t *lc_enc_alg(lincoll_encode_algo_t algo)
{
    for (size_t i = 0; i < LC_ENC_NALGS; i++)
        if (lc_enc_alg_id(lc_enc_algs[i]) == (int)algo) return lc_enc_algs[i];
    return NULL;
}

const char *lc_enc_algo_name(lincoll_encode_algo_t algo)
{
    if (algo == LINCOLL_ENCODE_ALGO_AUTO) return "auto";
    if (algo == LINCOLL_ENCODE_ALGO_SPECIFIC) return "specific";
    const lc_enc_alg_t *a = lc_enc_alg(algo);
    return a != NULL ? a->name : "unknown";
}

int lc_enc_algo_named(const char *name, lincoll_encode_algo_t *algo_p)
{
    if (strcasecmp(name, "auto") == 0 || strcasecmp(name, "specific") == 0) {
        *algo_p =
            strcasecmp(name, "auto") == 0 ? LINCOLL_ENCODE_ALGO_AUTO : LINCOLL_ENCODE_ALGO_SPECIFIC;
        return 1;
    }
    for (size_t i = 0; i < LC_ENC_NALGS; i++) {
        if (strcasecmp(name, lc_enc_algs[i]->name) == 0) {
            *algo_p = (lincoll_encode_algo_t)lc_enc_alg_id(lc_enc_algs[i]);
            return 1;
        }
    }
    return 0;
}
