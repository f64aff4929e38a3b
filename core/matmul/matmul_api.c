/*
 * core/matmul/matmul_api.c: lincoll_matmul_init(): argument checks, algorithm
 * choice (options, then LINCOLL_MATMUL_ALGO, then the cost model), and the
 * call into the chosen plan compiler.
 *
 * Cost model (alpha = LINCOLL_MODEL_ALPHA s/round, beta = 1/LINCOLL_MODEL_BW
 * s/byte), words = elements sent by the busiest rank:
 *   ring   (P-1).alpha            + k n (P-1)/P . es.beta
 *   summa  rounds(s).alpha        + (m k (pc-1)/(pr pc) + k n (pr-1)/(pr pc)) . es.beta
 *   cannon q.alpha                + (m k + k n)/q^2 . q . es.beta
 *   25d    (2 log c + q/c).alpha  + (m k + k n)/q^2 . (q/c + log c) . es.beta + m n/q^2 log c
 * (each algorithm's file holds its closed form beside its compiler).
 * Algorithms whose scratch would exceed LINCOLL_MATMUL_MAX_MEM bytes are skipped.
 *
 * Transposes (opts->transa/transb): the descriptors always describe op(A)
 * and op(B); a transposed operand's local arrays hold the transpose of their
 * op block.  Every algorithm moves whole blocks or panels, so each supports
 * it: the regions (mm_int.h) carry the flag and the GEMM steps use op = T.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec/exec.h"
#include "core/matmul/mm_int.h"

const char *lincoll_matmul_algo_name(lincoll_matmul_algo_t algo)
{
    return lc_mm_algo_name(algo);
}

/* LINCOLL_MATMUL_ALGO (reread through the config table at every init):
 * unset/empty/auto -> AUTO */
static lincoll_status_t lc_mm_env_algo(const lc_config_t *cfg, lincoll_matmul_algo_t *algo)
{
    lc_config_t c = *cfg;
    *algo = LINCOLL_MATMUL_AUTO;
    if (lc_config_reread_id(LINCOLL_CONFIG_MATMUL_ALGO, &c) != LINCOLL_OK)
        return LINCOLL_ERR_INVALID;
    const char *v = c.algo_matmul;
    if (v[0] == '\0') return LINCOLL_OK;
    if (strcmp(v, "auto") == 0) return LINCOLL_OK;
    size_t n;
    const lc_mm_alg_t *const *reg = lc_mm_registry(&n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v, reg[i]->name) == 0) {
            *algo = reg[i]->algo;
            return LINCOLL_OK;
        }
    }
    lc_error("%s=%s: expected auto or an algorithm of lincoll_info -a",
             lc_config_name(LINCOLL_CONFIG_MATMUL_ALGO), v);
    return LINCOLL_ERR_INVALID;
}

static lincoll_status_t lc_mm_prepare(lincoll_comm_t *comm, lincoll_dtype_t dtype, double alpha,
                                      const void *a, const lincoll_matdesc_t *desca, const void *b,
                                      const lincoll_matdesc_t *descb, double beta, void *c,
                                      const lincoll_matdesc_t *descc,
                                      const lincoll_matmul_opts_t *opts, lc_mm_t *mm)
{
    LC_CHECK_ARG(comm != NULL, "lincoll_matmul_init: comm must not be NULL");
    if (dtype != LINCOLL_FLOAT && dtype != LINCOLL_DOUBLE) {
        lc_error("lincoll_matmul_init: dtype %s is not supported (float or double)",
                 lincoll_dtype_name(dtype));
        return LINCOLL_ERR_UNSUPPORTED;
    }
    const int P = comm->size;
    lincoll_status_t st = lc_mm_check_desc(desca, "desca", P);
    if (st == LINCOLL_OK) st = lc_mm_check_desc(descb, "descb", P);
    if (st == LINCOLL_OK) st = lc_mm_check_desc(descc, "descc", P);
    if (st != LINCOLL_OK) return st;
    LC_CHECK_ARG(desca->n == descb->m,
                 "lincoll_matmul_init: inner dimensions differ: desca.n=%lld "
                 "(columns of op(A)) != descb.m=%lld (rows of op(B)); with transposes the "
                 "descriptors describe op(A) and op(B)",
                 (long long)desca->n, (long long)descb->m);
    LC_CHECK_ARG(desca->m == descc->m, "lincoll_matmul_init: desca.m=%lld != descc.m=%lld",
                 (long long)desca->m, (long long)descc->m);
    LC_CHECK_ARG(descb->n == descc->n, "lincoll_matmul_init: descb.n=%lld != descc.n=%lld",
                 (long long)descb->n, (long long)descc->n);
    const lincoll_matdesc_t *ds[2] = {desca, descb};
    for (int x = 0; x < 2; x++) {
        LC_CHECK_ARG(ds[x]->pr == descc->pr && ds[x]->pc == descc->pc &&
                         ds[x]->layers == descc->layers && ds[x]->layout == descc->layout,
                     "lincoll_matmul_init: desc%c grid %dx%dx%d (layout %d) differs from descc "
                     "%dx%dx%d (layout %d)",
                     "ab"[x], ds[x] -> pr, ds[x] -> pc, ds[x] -> layers, (int)ds[x] -> layout,
                     descc -> pr, descc -> pc, descc -> layers, (int)descc -> layout);
    }
    const lincoll_trans_t ta = opts != NULL ? opts->transa : LINCOLL_NO_TRANS;
    const lincoll_trans_t tb = opts != NULL ? opts->transb : LINCOLL_NO_TRANS;
    LC_CHECK_ARG(ta == LINCOLL_NO_TRANS || ta == LINCOLL_TRANS,
                 "lincoll_matmul_init: opts->transa=%d is neither LINCOLL_NO_TRANS nor "
                 "LINCOLL_TRANS",
                 (int)ta);
    LC_CHECK_ARG(tb == LINCOLL_NO_TRANS || tb == LINCOLL_TRANS,
                 "lincoll_matmul_init: opts->transb=%d is neither LINCOLL_NO_TRANS nor "
                 "LINCOLL_TRANS",
                 (int)tb);
    st = lc_mm_check_ld(desca, "desca", comm->rank, ta == LINCOLL_TRANS);
    if (st == LINCOLL_OK) st = lc_mm_check_ld(descb, "descb", comm->rank, tb == LINCOLL_TRANS);
    if (st == LINCOLL_OK) st = lc_mm_check_ld(descc, "descc", comm->rank, 0);
    if (st != LINCOLL_OK) return st;
    *mm = (lc_mm_t){.env = lc_exec_env(comm, 0),
                    .dtype = dtype,
                    .es = lincoll_dtype_size(dtype),
                    .alpha = alpha,
                    .beta = beta,
                    .a = a,
                    .b = b,
                    .c = c,
                    .da = *desca,
                    .db = *descb,
                    .dc = *descc,
                    .m = descc->m,
                    .n = descc->n,
                    .k = desca->n,
                    .me = comm->rank,
                    .P = P,
                    .ta = ta == LINCOLL_TRANS,
                    .tb = tb == LINCOLL_TRANS};
    if (opts != NULL) mm->opts = *opts;
    LC_CHECK_ARG((unsigned)mm->opts.algo < LINCOLL_MATMUL_ALGO_LAST,
                 "lincoll_matmul_init: opts->algo=%d is unknown", (int)mm->opts.algo);
    LC_CHECK_ARG(mm->opts.panel >= 0, "lincoll_matmul_init: opts->panel=%lld must be >= 0",
                 (long long)mm->opts.panel);
    LC_CHECK_ARG(mm->opts.bcast <= LINCOLL_MATMUL_BCAST_RING,
                 "lincoll_matmul_init: opts->bcast=%d is unknown", (int)mm->opts.bcast);
    mm->comm_only = (mm->opts.flags & LINCOLL_MATMUL_COMM_ONLY) != 0;
    lincoll_matdesc_coords(descc, comm->rank, &mm->pi, &mm->pj, &mm->pl);
    const lincoll_matdesc_t *all[3] = {desca, descb, descc};
    const void *ptrs[3] = {a, b, c};
    for (int x = 0; x < 3; x++) {
        int64_t r, cc;
        lincoll_matdesc_local(all[x], comm->rank, &r, &cc, NULL);
        LC_CHECK_ARG(ptrs[x] != NULL || r == 0 || cc == 0,
                     "lincoll_matmul_init: %c is NULL but rank %d holds a %lldx%lld block",
                     "abc"[x], comm -> rank, (long long)r, (long long)cc);
    }
    return LINCOLL_OK;
}

lincoll_status_t lincoll_matmul_init(lincoll_comm_t *comm, lincoll_dtype_t dtype, double alpha,
                                     const void *a, const lincoll_matdesc_t *desca, const void *b,
                                     const lincoll_matdesc_t *descb, double beta, void *c,
                                     const lincoll_matdesc_t *descc,
                                     const lincoll_matmul_opts_t *opts, lincoll_plan_t **plan_p)
{
    LC_CHECK_ARG(plan_p != NULL, "lincoll_matmul_init: plan_p must not be NULL");
    lc_mm_t mm;
    lincoll_status_t st =
        lc_mm_prepare(comm, dtype, alpha, a, desca, b, descb, beta, c, descc, opts, &mm);
    if (st != LINCOLL_OK) return st;
    { /* memory types (docs/accelerators.md): device GEMM steps run through cuBLAS */
        const lc_dev_arg_t args[3] = {{"a", a, 1}, {"b", b, 1}, {"c", c, 1}};
        st = lc_dev_check_args("lincoll_matmul_init", args, 3, NULL);
        if (st != LINCOLL_OK) return st;
    }
    lincoll_matmul_algo_t algo = mm.opts.algo;
    if (algo == LINCOLL_MATMUL_AUTO) {
        st = lc_mm_env_algo(&comm->ctx->cfg, &algo);
        if (st != LINCOLL_OK) return st;
    }
    if (algo != LINCOLL_MATMUL_AUTO) {
        const lc_mm_alg_t *g = lc_mm_alg(algo);
        if (!LC_ALG_APPLIES(g, &mm.env, &mm)) {
            char why[256] = "it cannot serve this distribution";
            if (g->why_not != NULL) g->why_not(&mm.env, &mm, why, sizeof(why));
            lc_error("matmul %s: %s", g->name, why);
            return LINCOLL_ERR_UNSUPPORTED;
        }
    } else {
        lc_config_t cfg = comm->ctx->cfg; /* read at every init, like the algorithm */
        if (lc_config_reread_id(LINCOLL_CONFIG_MATMUL_MAX_MEM, &cfg) != LINCOLL_OK)
            return LINCOLL_ERR_INVALID;
        const double limit = (double)cfg.matmul_max_mem;
        double best = 1e300;
        size_t n;
        const lc_mm_alg_t *const *reg = lc_mm_registry(&n);
        for (size_t x = 0; x < n; x++) {
            const lc_mm_alg_t *g = reg[x];
            if (!LC_ALG_APPLIES(g, &mm.env, &mm)) continue;
            if (limit > 0 && g->memory != NULL && g->memory(&mm.env, &mm) > limit) continue;
            const double sec = g->cost(&mm.env, &mm);
            if (sec < best) best = sec, algo = g->algo;
        }
        if (algo == LINCOLL_MATMUL_AUTO) {
            lc_error("lincoll_matmul_init: no algorithm serves this distribution within "
                     "LINCOLL_MATMUL_MAX_MEM (grid %dx%dx%d)",
                     descc->pr, descc->pc, descc->layers);
            return LINCOLL_ERR_UNSUPPORTED;
        }
    }
    char name[32];
    snprintf(name, sizeof(name), "matmul_%s", lc_mm_algo_name(algo));
    lc_plan_t *p;
    st = lc_plan_create(&mm.env, name, 2, &p);
    if (st != LINCOLL_OK) return st;
    lc_mm_priv_t *pv = calloc(1, sizeof(*pv));
    if (pv == NULL) {
        lc_plan_destroy(p);
        return LINCOLL_ERR_NOMEM;
    }
    pv->magic = LC_MM_MAGIC;
    p->priv = pv;
    p->priv_free = free;
    st = lc_mm_alg(algo)->compile(p, &mm);
    if (st == LINCOLL_OK) st = lc_mm_finish(p, &mm, algo, pv->info.panel, pv->info.bcast);
    int nested; /* the operation tag: the plan takes it at bind */
    if (st == LINCOLL_OK) st = lc_optag_enter(comm, mm.opts.tag, "lincoll_matmul_init", &nested);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(p);
        return st;
    }
    lincoll_plan_t *plan = NULL;
    st = lc_bind_local(comm, p, &plan);
    lc_optag_leave(comm, nested, st, plan);
    if (st == LINCOLL_OK) *plan_p = plan;
    return st;
}

lincoll_status_t lincoll_matmul(lincoll_comm_t *comm, lincoll_dtype_t dtype, double alpha,
                                const void *a, const lincoll_matdesc_t *desca, const void *b,
                                const lincoll_matdesc_t *descb, double beta, void *c,
                                const lincoll_matdesc_t *descc, const lincoll_matmul_opts_t *opts)
{
    lincoll_plan_t *p;
    lincoll_status_t st =
        lincoll_matmul_init(comm, dtype, alpha, a, desca, b, descb, beta, c, descc, opts, &p);
    if (st != LINCOLL_OK) return st;
    st = lincoll_start(p);
    if (st == LINCOLL_OK) st = lincoll_wait(p);
    lincoll_plan_free(p);
    return st;
}

lincoll_status_t lincoll_matmul_info(const lincoll_plan_t *plan, lincoll_matmul_info_t *info)
{
    LC_CHECK_ARG(plan != NULL && info != NULL, "lincoll_matmul_info: NULL argument");
    const lc_plan_t *ir = lc_plan_of(plan);
    const lc_mm_priv_t *pv = ir->priv;
    LC_CHECK_ARG(pv != NULL && ir->priv_free == free && pv->magic == LC_MM_MAGIC,
                 "lincoll_matmul_info: plan %s was not made by lincoll_matmul_init", ir->algorithm);
    *info = pv->info;
    return LINCOLL_OK;
}
