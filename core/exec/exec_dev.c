/*
 * core/exec/exec_dev.c: device work of a bound plan (docs/accelerators.md,
 * "The executor and device steps").
 *
 * A plan with device memory gets, at bind: one stream of the device backend
 * (core/dev), its device and page-locked scratch slots (one block each,
 * zeroed where the IR asks), and the GF tables of its device GF steps
 * (built once).  Steps the device pass marked (step.dev) are enqueued on the
 * stream and do not wait.  The executor then waits at the points where the
 * round structure needs their results: after a round's PRE steps (its sends
 * read them), before its POST steps are done with (the next round may
 * depend on them), and for DURING steps it polls the stream like one more
 * transfer of the round, so the transport progresses while the device
 * copies and computes.  A host step that follows device work in one list
 * waits for it first.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/exec/exec.h"
#include "core/plan/plan_steps.h"

typedef struct lc_dev_tab {
    const lc_step_t *step;
    void *tab;
} lc_dev_tab_t;

struct lc_exec_dev {
    const lc_dev_ops_t *ops;
    lc_dev_stream_t *s;
    void *dev_mem, *pin_mem;
    lc_dev_tab_t *tabs;
    unsigned ntabs, cap_tabs;
};

static lincoll_status_t lc_dev_add_tabs(lc_exec_dev_t *d, const lc_step_t *st, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const lc_step_t *s = &st[i];
        if (!s->dev || (s->kind != LC_STEP_GF_LINCOMB && s->kind != LC_STEP_GF_MAD)) continue;
        if (d->ntabs == d->cap_tabs) {
            unsigned cap = d->cap_tabs ? 2 * d->cap_tabs : 8;
            lc_dev_tab_t *t = realloc(d->tabs, cap * sizeof(*t));
            if (t == NULL) return LINCOLL_ERR_NOMEM;
            d->tabs = t;
            d->cap_tabs = cap;
        }
        const lc_gf_step_ext_t *e = s->ext;
        int col = s->kind == LC_STEP_GF_MAD ? e->col : -1;
        void *tab = NULL;
        lincoll_status_t r = d->ops->gf_prepare(e->coeffs, col, &tab);
        if (r != LINCOLL_OK) return r;
        d->tabs[d->ntabs++] = (lc_dev_tab_t){s, tab};
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_exec_dev_bind(lincoll_plan_t *p, size_t dev_bytes, size_t pin_bytes)
{
    const lc_dev_ops_t *ops = lc_dev();
    if (ops == NULL) {
        lc_error("plan %s: device memory, but %s", p->ir->algorithm, lc_dev_why());
        return LINCOLL_ERR_UNSUPPORTED;
    }
    lc_exec_dev_t *d = calloc(1, sizeof(*d));
    if (d == NULL) return LINCOLL_ERR_NOMEM;
    d->ops = ops;
    p->dev = d;
    lincoll_status_t st = ops->stream_create(&d->s);
    if (st == LINCOLL_OK && dev_bytes > 0) st = ops->alloc(dev_bytes, &d->dev_mem);
    if (st == LINCOLL_OK && pin_bytes > 0) st = ops->host_alloc(pin_bytes, &d->pin_mem);
    const lc_plan_t *ir = p->ir;
    for (unsigned r = 0; st == LINCOLL_OK && r < ir->nrounds; r++) {
        const lc_round_t *R = &ir->rounds[r];
        st = lc_dev_add_tabs(d, R->pre, R->npre);
        if (st == LINCOLL_OK) st = lc_dev_add_tabs(d, R->during, R->nduring);
        if (st == LINCOLL_OK) st = lc_dev_add_tabs(d, R->post, R->npost);
    }
    if (st != LINCOLL_OK)
        lc_error("plan %s: device resources (%zu device, %zu page-locked bytes): %s", ir->algorithm,
                 dev_bytes, pin_bytes, lincoll_strerror(st));
    return st; /* on error the caller frees the plan, and d with it */
}

void *lc_exec_dev_mem(lincoll_plan_t *p, int pinned)
{
    return pinned ? p->dev->pin_mem : p->dev->dev_mem;
}

void lc_exec_dev_free(lincoll_plan_t *p)
{
    lc_exec_dev_t *d = p->dev;
    if (d == NULL) return;
    if (d->s != NULL) {
        (void)d->ops->sync(d->s);
        d->ops->stream_destroy(d->s);
    }
    for (unsigned i = 0; i < d->ntabs; i++)
        d->ops->gf_release(d->tabs[i].tab);
    free(d->tabs);
    d->ops->free(d->dev_mem);
    d->ops->host_free(d->pin_mem);
    free(d);
    p->dev = NULL;
}

lincoll_status_t lc_exec_dev_memset(lincoll_plan_t *p, void *dst, size_t n)
{
    return p->dev->ops->memset(p->dev->s, dst, 0, n);
}

lincoll_status_t lc_exec_dev_wait(lincoll_plan_t *p)
{
    if (!p->ex.dev_pending) return LINCOLL_OK;
    p->ex.dev_pending = 0;
    return p->dev->ops->sync(p->dev->s);
}

lincoll_status_t lc_exec_dev_poll(lincoll_plan_t *p)
{
    if (!p->ex.dev_pending) return LINCOLL_OK;
    lincoll_status_t st = p->dev->ops->query(p->dev->s);
    if (st != LINCOLL_INPROGRESS) p->ex.dev_pending = 0;
    return st;
}

lincoll_status_t lc_exec_dev_copy_now(lincoll_plan_t *p, void *dst, const void *src, size_t n)
{
    lincoll_status_t st = p->dev->ops->copy(p->dev->s, dst, src, n);
    if (st == LINCOLL_OK) st = p->dev->ops->sync(p->dev->s);
    return st;
}

#define LC_DEV_STACK 64

static lincoll_status_t lc_exec_dev_gf(lincoll_plan_t *p, const lc_step_t *s)
{
    lc_exec_dev_t *d = p->dev;
    const lc_gf_step_ext_t *e = s->ext;
    void *tab = NULL;
    for (unsigned i = 0; i < d->ntabs && tab == NULL; i++)
        if (d->tabs[i].step == s) tab = d->tabs[i].tab;
    if (tab == NULL || e->nsrc > LC_DEV_STACK || e->ndst > LC_DEV_STACK) {
        lc_error("plan %s: a device GF step without tables", p->ir->algorithm);
        return LINCOLL_ERR_INTERNAL;
    }
    const void *src[LC_DEV_STACK];
    void *dst[LC_DEV_STACK];
    for (int i = 0; i < e->nsrc; i++)
        src[i] = lc_exec_ptr(p, e->refs[i]);
    for (int j = 0; j < e->ndst; j++)
        dst[j] = lc_exec_ptr(p, e->refs[e->nsrc + j]);
    return d->ops->gf_run(d->s, tab, e->coeffs, s->kind == LC_STEP_GF_MAD ? e->col : -1, e->len,
                          src, dst);
}

lincoll_status_t lc_exec_dev_step(lincoll_plan_t *p, const lc_step_t *s)
{
    lc_exec_dev_t *d = p->dev;
    lincoll_status_t st = LINCOLL_OK;
    switch (s->kind) {
    case LC_STEP_COPY:
        st = d->ops->copy(d->s, lc_exec_ptr(p, s->dst), lc_exec_ptr(p, s->a), s->len);
        break;
    case LC_STEP_REDUCE:
        st = d->ops->reduce(d->s, lc_exec_ptr(p, s->dst), lc_exec_ptr(p, s->a),
                            lc_exec_ptr(p, s->b), s->len, s->dtype, s->op);
        break;
    case LC_STEP_GF_LINCOMB:
    case LC_STEP_GF_MAD:
        if (((const lc_gf_step_ext_t *)s->ext)->len > 0) st = lc_exec_dev_gf(p, s);
        break;
    case LC_STEP_GEMM: {
        const lc_gemm_ext_t *g = s->ext;
        if (g->m == 0 || g->n == 0) break;
        st = d->ops->gemm(d->s, g->layout, g->ta, g->tb, g->m, g->n, g->k, g->dtype, g->alpha,
                          g->k > 0 ? lc_exec_ptr(p, g->a) : NULL, g->lda,
                          g->k > 0 ? lc_exec_ptr(p, g->b) : NULL, g->ldb, g->beta,
                          lc_exec_ptr(p, g->c), g->ldc);
        break;
    }
    default:
        lc_error("plan %s: step kind %d cannot run on the device", p->ir->algorithm, (int)s->kind);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    if (st == LINCOLL_OK) p->ex.dev_pending = 1;
    return st;
}
