/*
 * core/plan/alg.h: the shape of a registry entry, the same in every family
 * (docs/architecture.md, "Registries and selection").
 *
 * Each family keeps one registry of its algorithms, one line per algorithm
 * (core/coll/registry.c, core/encode/registry.c,
 * core/encode/repair_registry.c, core/matmul/registry.c), and each
 * algorithm's file defines its entry beside its compiler.  Every entry type
 * opens with LC_ALG_SHAPE(PLAN_T, ARGS_T), four members with the same names
 * and the same meaning in every family, then the family's own extras:
 *
 *   family       entry            PLAN_T       ARGS_T
 *   collectives  lc_coll_alg_t    lc_plan_t    lc_coll_args_t  (coll_int.h)
 *   encode       lc_enc_alg_t     lc_enc_b_t   lc_enc_args_t   (encode_int.h)
 *   repair       lc_rep_alg_t     lc_enc_b_t   lc_rep_args_t   (repair_int.h)
 *   matmul       lc_mm_alg_t      lc_plan_t    lc_mm_t         (mm_int.h)
 *
 * The four members:
 *  - name: what the family's LINCOLL_<X>_ALGO variable and lincoll_info -a
 *    call the algorithm; unique within the family (collectives: within the
 *    operation).  The plan's own name, where it differs, is an extra.
 *  - applies(env, a): non-zero when the algorithm can serve the call;
 *    NULL means it serves every call the family's public init accepts.  It
 *    states the algorithm's own restrictions (a power of two, a square grid,
 *    mapped peers: env->mapped), so that selection, lincoll_sim and the
 *    tests ask the entry rather than repeat them.
 *  - cost(env, a): the predicted seconds of one start of the plan, a closed
 *    form (alpha-beta-gamma with the constants of env->cfg) of the file's
 *    comment, defined where applies says yes (callers ask applies first);
 *    the cheapest applicable entry wins the automatic choice, ties going to
 *    the registry's first line.
 *  - compile(plan, a): the compiler.  It adds slots, windows, rounds,
 *    transfers and steps to the plan under construction that the caller
 *    created (and finalizes, or destroys on error), and returns
 *    LINCOLL_ERR_UNSUPPORTED (or an argument error) when it cannot serve
 *    the call.
 *
 * Purity: all three functions are pure functions of their arguments.  They
 * read the environment (lc_env_t: P, this rank, ports, mapped, the
 * configuration) and the family's argument struct only; they never call a
 * transport, a communicator, the executor or the public API, keep no state
 * between calls and give the same answer on every rank for arguments that
 * match on every rank (applies and cost in particular, since every rank
 * must pick the same algorithm without talking to the others).  Logging
 * why an algorithm does not apply is the public init's business (matmul's
 * why_not extra hands it the reason).
 *
 * Why encode and repair compile into a builder (lc_enc_b_t, encode_int.h)
 * rather than the bare plan: the builder is the plan under construction
 * (b->plan) together with what belongs to that plan while it is built and
 * that one compiler call cannot own, namely the coefficient tables the GF
 * steps share (b->priv, freed with the plan), the one zero packet every
 * stage reuses, and the packet size, field and ports the building blocks
 * (lc_enc_round, lc_enc_lincomb, lc_enc_ps_build, ...) read.  Composite
 * schedules (coset Vandermonde, Lagrange) run several compilers into one
 * builder, stage after stage.  The builder holds no communicator and no
 * bind; the argument struct repeats the field, packet bytes and ports so
 * that applies and cost need no builder.
 */
#ifndef LC_PLAN_ALG_H
#define LC_PLAN_ALG_H

#include <lincoll/types.h>

#include "core/plan/plan.h"

/* The four core members of every registry entry (see above), in this
 * order, as an entry type's first members:
 *   typedef struct lc_x_alg { LC_ALG_SHAPE(lc_plan_t, lc_x_args_t); ... } lc_x_alg_t; */
#define LC_ALG_SHAPE(PLAN_T, ARGS_T)                                                               \
    const char *name;                                                                              \
    int (*applies)(const lc_env_t *env, const ARGS_T *a);                                          \
    double (*cost)(const lc_env_t *env, const ARGS_T *a);                                          \
    lincoll_status_t (*compile)(PLAN_T * plan, const ARGS_T *a)

/* Whether entry e (any family) serves the call: its applies, NULL = always. */
#define LC_ALG_APPLIES(e, env, a) ((e)->applies == NULL || (e)->applies((env), (a)))

#endif
