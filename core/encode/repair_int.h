/*
 * core/encode/repair_int.h: what the repair schedules on the k survivors
 * (repair_star.c, repair_tree.c, repair_chain.c) share with their init
 * (repair_api.c).
 *
 * The init validates the arguments, computes the decoding coefficients and
 * describes the repair as an lc_rep_t: which communicator ranks hold a
 * surviving row (the sources) and which rebuild one (the targets), and
 * R[t][s], the coefficient of source s's chunk in target t's row.  A
 * schedule is a registry entry (lc_rep_alg_t): its closed-form cost and its
 * compiler.  The compilers are pure: they see the problem and the plan
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

/* A schedule of the registry. */
typedef struct lc_rep_alg {
    lincoll_repair_algo_t algo;
    const char *plan; /* plan name */
    int sliced;       /* cut into slices merged as a wavefront (else round-major chunks) */
    /* closed forms (cfg prices them) */
    void (*cost)(const lc_config_t *cfg, const lc_rep_shape_t *s, lincoll_repair_cost_t *c);
    /* compile rank rp->me's template for whole chunks into b->plan; in / out: the
     * chunk held / rebuilt (slot -1 when this rank has none) */
    lincoll_status_t (*compile)(lc_enc_b_t *b, const lc_rep_t *rp, lc_bufref_t in, lc_bufref_t out);
} lc_rep_alg_t;

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
