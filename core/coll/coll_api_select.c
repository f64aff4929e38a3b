/*
 * core/coll/coll_api_select.c: which registry algorithm serves a reduction/gather
 * collective, and its compilation and bind (docs/collectives.md,
 * "Algorithm selection").
 *
 * For one call:
 *   1. The call's opts->algo (the *_init_opts inits), else
 *      LINCOLL_<OP>_ALGO (reread through the config table at every *_init,
 *      so a program may change it between calls), forces an algorithm by its
 *      short name (rhd, ring, binomial, zcopy, zcopy_rd, ...) or plan name;
 *      NULL, "" and "auto" force nothing.  A name that is not one of the
 *      operation's algorithms is LINCOLL_ERR_INVALID naming opts->algo; in
 *      the variable, a name no operation has is LINCOLL_ERR_INVALID naming
 *      the variable, and another operation's name falls back as below.  A
 *      forced algorithm that cannot serve this call (not applicable, or zero
 *      copy where peers are not mapped) falls back to the automatic choice
 *      (the cost model: a forced opts->algo does not fall back to the
 *      variable) with one warning, or is LINCOLL_ERR_UNSUPPORTED when
 *      LINCOLL_ALGO_FALLBACK=error.
 *   2. Otherwise the cheapest applicable algorithm by its closed-form cost
 *      (ties to the registry's first).  Zero-copy candidates count when every
 *      peer may be mapped (lc_exec_can_map: a real bootstrap on one host; not
 *      for the blocking calls, whose plans are cached).
 *   3. A zero-copy winner is compiled for mapped peers and bound with one
 *      exchange of bind records (lc_bind_agree): when every rank offers its
 *      windows (its buffers are lincoll memory, mapped here) it runs; else
 *      every rank learns so from the same records and compiles the cheapest
 *      tag algorithm instead.  Ranks that passed other arguments fail alike
 *      with LINCOLL_ERR_MISMATCH.
 * Everything the choice depends on is the same on every rank (op, P,
 * counts, dtype, root, opts, configuration, the records), so every rank
 * compiles the same algorithm.
 *
 * Pipelining (LINCOLL_COLL_CHUNK > 0): allreduce, bcast and reduce cut
 * vectors of at least two pieces into pieces of that many bytes (at most 64
 * pieces), compiled separately and merged by the pipelining pass
 * (core/plan/pass_pipeline.c); zero-copy plans too (their windows merge).
 * A plan the pass cannot cut (rounds that run every n-th start) runs whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/log.h"
#include "core/coll/coll_int.h"
#include "core/exec/exec.h"

static const char *const lc_op_names[LC_COLL_NOPS] = {"allreduce", "reduce_scatter", "allgather",
                                                      "bcast", "reduce"};
/* The variable that forces each operation's algorithm (its name: the table's) */
static const lincoll_config_id_t lc_op_var_ids[LC_COLL_NOPS] = {
    LINCOLL_CONFIG_ALLREDUCE_ALGO, LINCOLL_CONFIG_REDUCE_SCATTER_ALGO,
    LINCOLL_CONFIG_ALLGATHER_ALGO, LINCOLL_CONFIG_BCAST_ALGO, LINCOLL_CONFIG_REDUCE_ALGO};

const char *lc_coll_op_name(lc_coll_op_t op)
{
    return (unsigned)op < LC_COLL_NOPS ? lc_op_names[op] : "unknown";
}

const char *lc_coll_op_var(lc_coll_op_t op)
{
    return (unsigned)op < LC_COLL_NOPS ? lc_config_name(lc_op_var_ids[op]) : "?";
}

static const char *lc_cfg_algo(const lc_config_t *c, lc_coll_op_t op)
{
    switch (op) {
    case LC_COLL_ALLREDUCE:
        return c->algo_allreduce;
    case LC_COLL_REDUCE_SCATTER:
        return c->algo_reduce_scatter;
    case LC_COLL_ALLGATHER:
        return c->algo_allgather;
    case LC_COLL_BCAST:
        return c->algo_bcast;
    default:
        return c->algo_reduce;
    }
}

/* ---- compilation ------------------------------------------------------------ */

static lincoll_status_t lc_coll_compile_raw(const lc_coll_alg_t *alg, const lc_env_t *env,
                                            const lc_coll_args_t *a, lc_plan_t **ir_p)
{
    lc_plan_t *ir;
    int ports = alg->ports < 0 ? env->P - 1 : (alg->ports > 0 ? alg->ports : 1);
    lincoll_status_t st = lc_plan_create(env, alg->plan_name, ports, &ir);
    if (st != LINCOLL_OK) return st;
    ir->elem_size = a->es;
    st = alg->compile(ir, a);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(ir);
        return st;
    }
    *ir_p = ir;
    return LINCOLL_OK;
}

/* The call cut into pieces of LINCOLL_COLL_CHUNK bytes, or 0 pieces. */
static unsigned lc_coll_pieces(const lc_env_t *env, const lc_coll_args_t *a, size_t *per_p)
{
    const size_t chunk = env->cfg->coll_chunk;
    if (chunk == 0 || env->P < 2 ||
        (a->op != LC_COLL_ALLREDUCE && a->op != LC_COLL_BCAST && a->op != LC_COLL_REDUCE))
        return 0;
    size_t per = chunk / a->es ? chunk / a->es : 1;
    size_t n = (a->count + per - 1) / per;
    if (n < 2) return 0;
    if (n > 64) { /* at most 64 pieces */
        per = (a->count + 63) / 64;
        n = (a->count + per - 1) / per;
    }
    *per_p = per;
    return (unsigned)n;
}

lincoll_status_t lc_coll_compile(const lc_coll_alg_t *alg, const lc_env_t *env,
                                 const lc_coll_args_t *a, lc_plan_t **ir_p)
{
    if (alg->applies != NULL && !alg->applies(env, a)) {
        lc_error("%s: %s cannot serve this call", lc_coll_op_name(a->op), alg->plan_name);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    return lc_coll_compile_any(alg, env, a, ir_p);
}

lincoll_status_t lc_coll_compile_any(const lc_coll_alg_t *alg, const lc_env_t *env,
                                     const lc_coll_args_t *a, lc_plan_t **ir_p)
{
    size_t per = 0;
    unsigned n = lc_coll_pieces(env, a, &per);
    lincoll_status_t st;
    lc_plan_t *ir = NULL;
    if (n == 0) {
        st = lc_coll_compile_raw(alg, env, a, &ir);
    } else {
        lc_plan_t **pc = calloc(n, sizeof(*pc));
        st = pc != NULL ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
        for (unsigned c = 0; c < n && st == LINCOLL_OK; c++) {
            lc_coll_args_t b = *a;
            size_t off = (size_t)c * per, bytes_off = off * a->es;
            b.count = b.total = c + 1 < n ? per : a->count - off;
            b.sbuf = a->sbuf != NULL ? (const char *)a->sbuf + bytes_off : NULL;
            b.rbuf = a->rbuf != NULL ? (char *)a->rbuf + bytes_off : NULL;
            st = lc_coll_compile_raw(alg, env, &b, &pc[c]);
        }
        if (st == LINCOLL_OK) {
            st = lc_pass_pipeline(pc, n, &ir);
        } else {
            for (unsigned c = 0; pc != NULL && c < n; c++)
                lc_plan_destroy(pc[c]);
        }
        free(pc);
        if (st == LINCOLL_ERR_UNSUPPORTED) { /* a plan the pass cannot cut: whole */
            lc_debug("%s: %s is not pipelined", lc_coll_op_name(a->op), alg->plan_name);
            st = lc_coll_compile_raw(alg, env, a, &ir);
        }
    }
    if (st == LINCOLL_OK) st = lc_plan_finalize(ir);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(ir);
        return st;
    }
    *ir_p = ir;
    return LINCOLL_OK;
}

/* ---- choice ----------------------------------------------------------------- */

/* The cheapest applicable algorithm of the call's operation (mapped: zero
 * copy allowed); NULL when none. */
static const lc_coll_alg_t *lc_coll_best(const lc_env_t *env, const lc_coll_args_t *a, int mapped,
                                         double *cost_p)
{
    size_t n;
    const lc_coll_alg_t *const *reg = lc_coll_registry(&n);
    const lc_coll_alg_t *best = NULL;
    double bt = 0;
    for (size_t i = 0; i < n; i++) {
        const lc_coll_alg_t *g = reg[i];
        if (g->op != a->op || (g->mapped && !mapped)) continue;
        if (g->applies != NULL && !g->applies(env, a)) continue;
        double t = g->cost(env, a);
        /* a later candidate must be clearly cheaper: equal closed forms
         * (p = 2) must not flip on rounding */
        if (best == NULL || t < bt * (1.0 - 1e-9)) {
            best = g;
            bt = t;
        }
    }
    *cost_p = bt;
    return best;
}

/* What forced the call's algorithm, for log lines and the fallback. */
typedef struct lc_coll_force {
    char who[96];  /* "LINCOLL_ALLREDUCE_ALGO" or "lincoll_allreduce_init_opts: opts->algo" */
    char name[64]; /* the name it gave (a copy: the variable's lives in a local config) */
    int opts;      /* 1: opts->algo, 0: the variable */
} lc_coll_force_t;

/* A forced algorithm that cannot serve: warn once (per operation and
 * source) and choose (NULL), or fail. */
static lincoll_status_t lc_coll_fallback(const lc_config_t *cfg, lc_coll_op_t op,
                                         const lc_coll_force_t *f, const char *why)
{
    if (cfg->algo_fallback == LC_FALLBACK_ERROR) {
        lc_error("%s=%s: %s (%s=error)", f->who, f->name, why,
                 lc_config_name(LINCOLL_CONFIG_ALGO_FALLBACK));
        return LINCOLL_ERR_UNSUPPORTED;
    }
    static int warned[2][LC_COLL_NOPS];
    if (!warned[f->opts][op]) {
        warned[f->opts][op] = 1;
        lc_warn("%s=%s: %s; choosing automatically", f->who, f->name, why);
    }
    return LINCOLL_OK;
}

/* The names of op's algorithms, ", "-separated, into buf. */
static void lc_coll_names(lc_coll_op_t op, char *buf, size_t len)
{
    size_t n, at = 0;
    const lc_coll_alg_t *const *reg = lc_coll_registry(&n);
    buf[0] = '\0';
    for (size_t i = 0; i < n && at < len; i++) {
        if (reg[i]->op != op) continue;
        int w = snprintf(buf + at, len - at, "%s%s", at > 0 ? ", " : "", reg[i]->name);
        if (w < 0) break;
        at += (size_t)w;
    }
}

/* g, forced by f, if it can serve the call; else the fallback (NULL or an error). */
static lincoll_status_t lc_coll_usable(const lc_config_t *cfg, const lc_env_t *env,
                                       const lc_coll_args_t *a, int can_map,
                                       const lc_coll_force_t *f, const lc_coll_alg_t *g,
                                       const lc_coll_alg_t **alg_p)
{
    if (g->mapped && !can_map)
        return lc_coll_fallback(cfg, a->op, f,
                                "zero copy needs every rank on this node in one job, and not a "
                                "blocking call");
    if (g->applies != NULL && !g->applies(env, a))
        return lc_coll_fallback(cfg, a->op, f, "it cannot serve this call's size or rank count");
    *alg_p = g;
    return LINCOLL_OK;
}

static int lc_coll_is_auto(const char *name)
{
    return name == NULL || name[0] == '\0' || strcasecmp(name, "auto") == 0;
}

/* The forced algorithm (NULL: automatic) or an error; f says what forced it. */
static lincoll_status_t lc_coll_forced(const lc_config_t *cfg, const lc_env_t *env,
                                       const lc_coll_args_t *a, int can_map, const char *fn,
                                       const lincoll_coll_opts_t *opts, lc_coll_force_t *f,
                                       const lc_coll_alg_t **alg_p)
{
    *alg_p = NULL;
    if (opts != NULL && !lc_coll_is_auto(opts->algo)) { /* the call's choice first */
        snprintf(f->who, sizeof(f->who), "%s: opts->algo", fn);
        snprintf(f->name, sizeof(f->name), "%s", opts->algo);
        f->opts = 1;
        const lc_coll_alg_t *g = lc_coll_find(a->op, opts->algo);
        if (g == NULL) {
            char names[160];
            lc_coll_names(a->op, names, sizeof(names));
            lc_error("%s=%s: no %s algorithm of that name (%s)", f->who, opts->algo,
                     lc_op_names[a->op], names);
            return LINCOLL_ERR_INVALID;
        }
        return lc_coll_usable(cfg, env, a, can_map, f, g, alg_p);
    }
    lc_config_t c = *cfg;
    if (lc_config_reread_id(lc_op_var_ids[a->op], &c) != LINCOLL_OK) return LINCOLL_ERR_INVALID;
    const char *name = lc_cfg_algo(&c, a->op);
    if (name[0] == '\0' || strcmp(name, "auto") == 0) return LINCOLL_OK;
    snprintf(f->who, sizeof(f->who), "%s", lc_coll_op_var(a->op));
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->opts = 0;
    const lc_coll_alg_t *g = lc_coll_find(a->op, name);
    if (g == NULL) {
        for (int op = 0; op < LC_COLL_NOPS && g == NULL; op++)
            g = lc_coll_find((lc_coll_op_t)op, name);
        if (g == NULL) {
            lc_error("%s=%s: no such algorithm (lincoll_info -a lists them)", f->who, name);
            return LINCOLL_ERR_INVALID;
        }
        char why[96];
        snprintf(why, sizeof(why), "%s has no %s algorithm", lc_op_names[a->op], name);
        return lc_coll_fallback(cfg, a->op, f, why);
    }
    return lc_coll_usable(cfg, env, a, can_map, f, g, alg_p);
}

/* What every rank of the call must agree on. */
static lc_bind_shape_t lc_coll_shape(const lc_coll_args_t *a, int P)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (int i = 0; a->counts != NULL && i < P; i++)
        h = (h ^ (uint64_t)a->counts[i]) * UINT64_C(1099511628211);
    lc_bind_shape_t s = {{UINT64_C(0x636f6c6c61677231) ^ (uint64_t)a->op, /* "collagr1" */
                          (uint64_t)a->total ^ (uint64_t)a->root << 48 ^ h,
                          (uint64_t)a->dtype | (uint64_t)a->rop << 16 | (uint64_t)a->es << 32}};
    return s;
}

static lincoll_status_t lc_coll_plan_bind(lincoll_comm_t *comm, const lc_coll_args_t *a,
                                          const char *fn, const lincoll_coll_opts_t *opts,
                                          int blocking, lincoll_plan_t **plan_p)
{
    const lc_config_t *cfg = &comm->ctx->cfg;
    { /* memory types (docs/accelerators.md): every collective takes device buffers */
        const size_t mine = a->counts != NULL ? a->counts[comm->rank] : a->count;
        const size_t rb = a->op == LC_COLL_REDUCE_SCATTER ? mine : a->total;
        const size_t sb = a->op == LC_COLL_ALLGATHER ? mine : a->total;
        const lc_dev_arg_t args[2] = {{"sbuf", a->sbuf, sb * a->es}, {"rbuf", a->rbuf, rb * a->es}};
        lincoll_status_t dst = lc_dev_check_args(fn, args, 2, NULL);
        if (dst != LINCOLL_OK) return dst;
    }
    const int can_map = lc_exec_can_map(comm) && !blocking;
    lc_env_t env = lc_exec_env(comm, can_map);
    const lc_coll_alg_t *alg;
    lc_coll_force_t force = {.opts = 0};
    lincoll_status_t st = lc_coll_forced(cfg, &env, a, can_map, fn, opts, &force, &alg);
    if (st != LINCOLL_OK) return st;
    const int forced = alg != NULL;
    double cost = 0;
    if (alg == NULL) alg = lc_coll_best(&env, a, can_map, &cost);
    if (alg == NULL) {
        lc_error("%s: no algorithm serves this call", lc_op_names[a->op]);
        return LINCOLL_ERR_INTERNAL;
    }
    lc_plan_t *ir = NULL;
    if (alg->mapped) {
        /* a rank whose compile fails (memory) still takes part in the
         * agreement, offering nothing, so that every rank falls back alike */
        if (lc_coll_compile(alg, &env, a, &ir) != LINCOLL_OK) ir = NULL;
        lc_plan_t none = {.env = env};
        lc_bind_shape_t shape = lc_coll_shape(a, comm->size);
        lc_bind_t *bind = NULL;
        unsigned keys = 0;
        st = lc_bind_agree(comm, ir != NULL ? ir : &none, &shape, &bind, &keys);
        if (st != LINCOLL_OK) {
            lc_plan_destroy(ir);
            return st;
        }
        const unsigned need = ir != NULL ? lc_bind_keys(ir) : ~0u;
        if (ir != NULL && (keys & need) == need) {
            lc_debug("%s of %zu bytes on %d ranks: %s (peers' memory mapped)", lc_op_names[a->op],
                     lc_coll_bytes(a), comm->size, alg->plan_name);
            return lc_bind_finish(bind, ir, plan_p);
        }
        lc_bind_drop(bind);
        lc_plan_destroy(ir);
        ir = NULL;
        if (forced &&
            (st = lc_coll_fallback(cfg, a->op, &force,
                                   "a rank's buffers are not lincoll memory mapped by every "
                                   "rank")) != LINCOLL_OK)
            return st;
        env.mapped = 0;
        alg = lc_coll_best(&env, a, 0, &cost);
        if (alg == NULL) return LINCOLL_ERR_INTERNAL;
    }
    env.mapped = 0;
    lc_debug("%s of %zu elements on %d ranks: %s (predicted %.2f us)", lc_op_names[a->op], a->total,
             comm->size, alg->plan_name, cost * 1e6);
    st = lc_coll_compile(alg, &env, a, &ir);
    if (st != LINCOLL_OK) return st;
    return lc_bind_local(comm, ir, plan_p);
}

/* The plan, bound with the call's operation tag (core/exec/optag.c). */
lincoll_status_t lc_coll_plan(lincoll_comm_t *comm, const lc_coll_args_t *a, const char *fn,
                              const lincoll_coll_opts_t *opts, int blocking,
                              lincoll_plan_t **plan_p)
{
    int nested;
    lincoll_status_t st = lc_optag_enter(comm, opts != NULL ? opts->tag : 0, fn, &nested);
    if (st != LINCOLL_OK) return st;
    lincoll_plan_t *plan = NULL;
    st = lc_coll_plan_bind(comm, a, fn, opts, blocking, &plan);
    lc_optag_leave(comm, nested, st, plan);
    if (st == LINCOLL_OK) *plan_p = plan;
    return st;
}
