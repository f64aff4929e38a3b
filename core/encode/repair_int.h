/*
 * core/encode/repair_int.h: what the repair schedules on the k survivors
 * (repair_star.c, repair_tree.c, repair_chain.c) share with their init
 * (repair_api.c).
 *
 * The init validates the arguments, computes the decoding coefficients and
 * describes the repair as an lc_rep_t: which communicator ranks hold a
 * surviving row (the sources) and which rebuild one (the targets), and
 * R[t][s], the coefficient of source s's chunk in target t's row.  A
 * schedule is a registry entry (lc_rep_alg_t, the shape of core/plan/alg.h:
 * name, applies, closed-form cost, compiler; then its figures).  The
 * compilers are pure: they see the arguments (lc_rep_args_t) and the plan
 * builder (b->plan, b->B, b->p, b->f, b->priv), never a communicator.
 */
#ifndef LC_REPAIR_INT_H
#define LC_REPAIR_INT_H

#include <lincoll/encode.h>

#include "core/encode/encode_int.h"

/* One repair, as every rank sees it. */
typedef struct lc_rep {
    int nranks;         /* ranks taking part (the communicator) */
    int k, r;           /* sources (holders), targets (rebuilding ranks) */
    const int *src;     /* k source ranks, increasing */
    const int *tgt;     /* r target ranks, increasing */
    int both;           /* the rank that is a source and a target, or -1 */
    const uint64_t *R;  /* r x k: R[t k + s], source s's coefficient in target t's row */
    int me;             /* this rank */
    int my_src, my_tgt; /* this rank's index in src / tgt, or -1 */
} lc_rep_t;

/* What a cost depends on (the same on every rank). */
typedef struct lc_rep_shape {
    int k, r;
    int both;     /* 1: one target is also a source */
    int p;        /* ports */
    size_t B;     /* chunk bytes */
    size_t asked; /* the asked slice (0: the model's; LINCOLL_ENCODE_CHUNK_NONE: none) */
    size_t slice; /* chain: bytes per slice (B: one slice) */
} lc_rep_shape_t;

/* The arguments of one repair: applies and cost read the shape only (so
 * lincoll_encode_repair_cost prices a repair without ranks); compile reads
 * the repair and this rank's chunks too. */
typedef struct lc_rep_args {
    lc_rep_shape_t shape;
    lc_rep_t rep;        /* zero when only priced */
    lc_bufref_t in, out; /* the chunk held / rebuilt (slot -1 when this rank has none) */
} lc_rep_args_t;

/* A schedule of the registry: the shape of every family's entry
 * (core/plan/alg.h: name as LINCOLL_REPAIR_ALGO takes it, applies, NULL =
 * any repair the init accepts; cost, the seconds of its figures; compile,
 * rank a->rep.me's template for whole chunks into the builder), then the
 * repair extras. */
typedef struct lc_rep_alg {
    LC_ALG_SHAPE(lc_enc_b_t, lc_rep_args_t);
    const char *plan_name; /* the plan's name (repair_star, ...) */
    lincoll_repair_algo_t algo;
    int sliced; /* cut into slices merged as a wavefront (else round-major chunks) */
    /* every figure of the closed form (lincoll_encode_repair_cost): rounds,
     * slices, messages, bytes and seconds; reads the shape only */
    void (*figures)(const lc_env_t *env, const lc_rep_args_t *a, lincoll_repair_cost_t *c);
} lc_rep_alg_t;

/* The seconds of figures(env, a): what each schedule's cost returns. */
static inline double lc_rep_seconds(void (*figures)(const lc_env_t *, const lc_rep_args_t *,
                                                    lincoll_repair_cost_t *),
                                    const lc_env_t *env, const lc_rep_args_t *a)
{
    lincoll_repair_cost_t c = {0};
    figures(env, a, &c);
    return c.seconds;
}

/* the registry, in the order the cost model breaks ties */
const lc_rep_alg_t *const *lc_rep_registry(size_t *n_p);

/* The chain's slice: the asked size (0: the model's choice) rounded up to
 * 64 bytes and limited so that the plan's rounds fit; B when not cut. */
size_t lc_rep_chain_slice(const lc_config_t *cfg, const lc_rep_shape_t *s, size_t asked);

/* The figures of a star or tree schedule of R rounds whose busiest link
 * carries x bytes per round and whose critical path computes W bytes at
 * gamma, once cut into the round-major chunks lc_enc_end makes of it
 * (s->asked, or the model's): rounds, slices and seconds set, the message
 * counts (already filled for whole chunks) multiplied by the chunks. */
void lc_rep_cost_chunked(const lc_config_t *cfg, const lc_rep_shape_t *s, unsigned R, double x,
                         double W, lincoll_repair_cost_t *c);

/* ceil(a / b) */
static inline size_t lc_rep_cdiv(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

#endif
