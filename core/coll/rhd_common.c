/*
 * core/coll/rhd_common.c: helpers the collective plan compilers share —
 * the non-power-of-two fold (docs/collectives.md, "Non-power-of-two fold"),
 * global round indices, and the terms of the closed-form costs.
 */
#include "core/coll/coll_int.h"

void lc_fold_init(lc_fold_t *f, int p, int s)
{
    int P = 1, k = 0;
    while (2 * P <= p) {
        P *= 2;
        k++;
    }
    f->p = p;
    f->P = P;
    f->k = k;
    f->r = p - P;
    f->s = s;
}

int lc_coll_round(lc_plan_t *plan, int idx)
{
    while ((int)plan->nrounds <= idx) {
        if (lc_plan_round(plan) < 0) {
            return -1;
        }
    }
    return idx;
}

int lc_coll_model(const lc_env_t *env, const lc_coll_args_t *a, lc_coll_model_t *m)
{
    const int p = env->P;
    if (p <= 1) return 1;
    lc_fold_t f;
    lc_fold_init(&f, p, 0);
    const lc_config_t *cfg = env->cfg;
    m->al = cfg->model_alpha;
    m->be = 1.0 / cfg->model_bw;
    m->ga = 2.0 / cfg->model_reduce_bw; /* a reduce reads two operands */
    m->n = (double)a->total * (double)a->es;
    m->k = f.k;
    m->P = f.P;
    m->d = f.r > 0;
    m->p = p;
    m->fr = (m->P - 1) / m->P;
    m->fp = (double)(p - 1) / p;
    m->b = m->n / p;
    return 0;
}
