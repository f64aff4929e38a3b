/*
 * core/plan/pass_device.c: memory types in the plan (docs/accelerators.md,
 * "Plans with device memory").
 *
 * Input: a plan whose user slots carry the type of their memory
 * (lc_plan_slot_user asks env.mem_type).  A plan without device memory is
 * returned as it is.  Otherwise, in order:
 *   1. Types flow from the user buffers: a window over a user slot has its
 *      slot's type, and every view of a window has the window's type.  A
 *      compute step (REDUCE, GF, GEMM) with a device operand makes its
 *      scratch operands, and scratch windows it reaches through views,
 *      device memory, to a fixed point.  Copies do not propagate: a COPY
 *      between host and device memory is a host<->device copy.
 *   2. Every step is checked and marked: a compute step runs on the device
 *      (step.dev) when its operands are device memory, on the CPU when none
 *      is; a mix, or a kind the device kernels lack (checksums; GF fields
 *      other than GF(2^8) and GF(2^16); GEMM other than float and double;
 *      an undefined reduction), is LINCOLL_ERR_UNSUPPORTED with one line
 *      naming the plan and the step.  A COPY with a device side is a device
 *      copy.
 *   3. Staging, unless the transport moves device memory (env.tl_dev): each
 *      SEND from device memory becomes a PRE copy (after the round's own PRE
 *      steps) into a fresh page-locked slot and a send from it; each RECV
 *      into device memory a receive into a page-locked slot and a POST copy
 *      out of it (before the round's own POST steps); a PUT from device memory
 *      is staged the same way unless every peer is mapped (env.mapped: the
 *      put is then a device copy into the peer's IPC-mapped window).  With
 *      the pipelining pass (which runs this pass on every piece first), the
 *      copies of one piece run while another piece's messages fly.
 * Without a device backend (env.dev 0) a device buffer is
 * LINCOLL_ERR_UNSUPPORTED (the families name the argument before this).
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/plan/plan.h"
#include "core/plan/plan_steps.h"
#include "kernels/reduce/reduce_kernels.h"

#define LC_DEV_MAX_OPS 8

/* The slot references of a step (GF steps: callback per reference). */
static unsigned lc_step_refs(const lc_step_t *s, uint32_t *out, const lc_bufref_t **many,
                             unsigned *nmany)
{
    unsigned n = 0;
    *many = NULL;
    *nmany = 0;
    switch (s->kind) {
    case LC_STEP_COPY:
        out[n++] = s->dst.slot;
        out[n++] = s->a.slot;
        break;
    case LC_STEP_REDUCE:
        out[n++] = s->dst.slot;
        out[n++] = s->a.slot;
        out[n++] = s->b.slot;
        break;
    case LC_STEP_CRC_MAKE:
        out[n++] = s->dst.slot;
        out[n++] = s->a.slot;
        break;
    case LC_STEP_CRC_CHECK:
        out[n++] = s->a.slot;
        out[n++] = s->b.slot;
        break;
    case LC_STEP_GEMM: {
        const lc_gemm_ext_t *g = s->ext;
        out[n++] = g->a.slot;
        out[n++] = g->b.slot;
        out[n++] = g->c.slot;
        break;
    }
    case LC_STEP_GF_LINCOMB:
    case LC_STEP_GF_MAD: {
        const lc_gf_step_ext_t *e = s->ext;
        *many = e->refs;
        *nmany = (unsigned)(e->nsrc + e->ndst);
        break;
    }
    }
    return n;
}

/* Run _body with _var set to every slot step _s addresses. */
#define LC_FOR_REFS(_p, _s, _var, _body)                                                           \
    do {                                                                                           \
        uint32_t _r[LC_DEV_MAX_OPS];                                                               \
        const lc_bufref_t *_m;                                                                     \
        unsigned _nm, _n = lc_step_refs((_s), _r, &_m, &_nm);                                      \
        for (unsigned _i = 0; _i < _n + _nm; _i++) {                                               \
            uint32_t _var = _i < _n ? _r[_i] : _m[_i - _n].slot;                                   \
            if (_var >= (_p)->nslots) continue;                                                    \
            _body;                                                                                 \
        }                                                                                          \
    } while (0)

static int lc_is_compute(const lc_step_t *s)
{
    return s->kind == LC_STEP_REDUCE || s->kind == LC_STEP_GEMM || s->kind == LC_STEP_GF_LINCOMB ||
           s->kind == LC_STEP_GF_MAD;
}

/* Make slot `sl` device memory where it may still change (scratch, or a
 * view of a scratch window); 1 when something changed. */
static int lc_make_dev(lc_plan_t *p, uint32_t sl)
{
    lc_slot_t *s = &p->slots[sl];
    if (s->mtype == LC_MEM_DEV) return 0;
    if (s->kind == LC_SLOT_SCRATCH) {
        s->mtype = LC_MEM_DEV;
        return 1;
    }
    if (s->kind == LC_SLOT_PEER && s->win >= 0 && (unsigned)s->win < p->nwins &&
        p->wins[s->win].kind == LC_WIN_SCRATCH) {
        p->wins[s->win].mtype = LC_MEM_DEV;
        return 1;
    }
    return 0;
}

typedef void (*lc_step_visit_t)(lc_plan_t *p, lc_step_t *s, void *arg);

static void lc_each_step(lc_plan_t *p, lc_step_visit_t fn, void *arg)
{
    for (unsigned r = 0; r < p->nrounds; r++) {
        lc_round_t *R = &p->rounds[r];
        for (unsigned i = 0; i < R->npre; i++)
            fn(p, &R->pre[i], arg);
        for (unsigned i = 0; i < R->nduring; i++)
            fn(p, &R->during[i], arg);
        for (unsigned i = 0; i < R->npost; i++)
            fn(p, &R->post[i], arg);
    }
}

static void lc_spread(lc_plan_t *p, lc_step_t *s, void *arg)
{
    int *changed = arg, any = 0;
    if (!lc_is_compute(s)) return;
    LC_FOR_REFS(p, s, sl, any |= p->slots[sl].mtype == LC_MEM_DEV);
    if (any) LC_FOR_REFS(p, s, sl, *changed |= lc_make_dev(p, sl));
}

/* Views take their window's type, windows over user slots their slot's. */
static void lc_type_views(lc_plan_t *p)
{
    for (unsigned w = 0; w < p->nwins; w++)
        if (p->wins[w].kind == LC_WIN_USER) p->wins[w].mtype = p->slots[p->wins[w].slot].mtype;
    for (unsigned i = 0; i < p->nslots; i++) {
        lc_slot_t *s = &p->slots[i];
        if (s->kind == LC_SLOT_PEER && s->win >= 0 && (unsigned)s->win < p->nwins)
            s->mtype = p->wins[s->win].mtype;
    }
}

typedef struct lc_check_ctx {
    lincoll_status_t st;
    unsigned round;
} lc_check_ctx_t;

static const char *const lc_step_names[] = {"copy", "reduce", "gf lincomb",  "gf mad",
                                            "gemm", "crc32c", "crc32c check"};

static void lc_mark(lc_plan_t *p, lc_step_t *s, void *arg)
{
    lc_check_ctx_t *c = arg;
    int dev = 0, host = 0;
    LC_FOR_REFS(p, s, sl, {
        if (p->slots[sl].mtype == LC_MEM_DEV)
            dev = 1;
        else if (p->slots[sl].size > 0)
            host = 1;
    });
    s->dev = dev;
    if (!dev || c->st != LINCOLL_OK) return;
    const char *why = NULL;
    switch (s->kind) {
    case LC_STEP_COPY:
        return; /* any direction */
    case LC_STEP_REDUCE:
        if (lc_reduce_fn(LC_ISA_BASE, s->dtype, s->op) == NULL) why = "an undefined reduction";
        break;
    case LC_STEP_GF_LINCOMB:
    case LC_STEP_GF_MAD: {
        const lc_gf_step_ext_t *e = s->ext;
        lc_gf_kind_t k = e->coeffs->field->kind;
        if (k != LC_GF_KIND_GF8 && k != LC_GF_KIND_GF16)
            why = "the device GF kernels serve GF(2^8) and GF(2^16) only";
        break;
    }
    case LC_STEP_GEMM: {
        const lc_gemm_ext_t *g = s->ext;
        if (g->dtype != LINCOLL_FLOAT && g->dtype != LINCOLL_DOUBLE)
            why = "device GEMM serves float and double only";
        break;
    }
    case LC_STEP_CRC_MAKE:
    case LC_STEP_CRC_CHECK:
        why = "checksums of device memory are not supported";
        break;
    }
    if (why == NULL && host) why = "its operands mix host and device memory";
    if (why != NULL) {
        lc_error("plan %s: a %s step on device memory cannot run: %s", p->algorithm,
                 lc_step_names[s->kind], why);
        c->st = LINCOLL_ERR_UNSUPPORTED;
    }
}

/* A page-locked scratch slot of len bytes. */
static int lc_stage_slot(lc_plan_t *p, size_t len)
{
    int sl = lc_plan_slot_scratch(p, len ? len : 1);
    if (sl >= 0) p->slots[sl].mtype = LC_MEM_PINNED;
    return sl;
}

static lincoll_status_t lc_stage(lc_plan_t *p)
{
    for (unsigned r = 0; r < p->nrounds; r++) {
        unsigned ins = 0; /* staging copies out of receives come first in POST */
        for (unsigned i = 0; i < p->rounds[r].nxfers; i++) {
            lc_xfer_t *x = &p->rounds[r].xfers[i];
            if (x->len == 0 || x->kind == LC_XFER_WAIT) continue;
            if (p->slots[x->buf.slot].mtype != LC_MEM_DEV) continue;
            if (x->kind == LC_XFER_PUT && p->env.mapped) continue;
            int sl = lc_stage_slot(p, x->len);
            if (sl < 0) return LINCOLL_ERR_NOMEM;
            /* p->rounds may not move (no round is added), but x may: the
             * step arrays are separate from the transfer array */
            lc_bufref_t dev = x->buf, st = lc_ref(sl, 0);
            size_t len = x->len;
            int recv = x->kind == LC_XFER_RECV;
            x->buf = st;
            lincoll_status_t s = recv ? lc_plan_copy(p, (int)r, LC_STEP_POST, dev, st, len)
                                      : lc_plan_copy(p, (int)r, LC_STEP_PRE, st, dev, len);
            if (s != LINCOLL_OK) return s;
            if (recv) { /* before the round's own POST steps, which read what arrived */
                lc_round_t *R = &p->rounds[r];
                lc_step_t c = R->post[R->npost - 1];
                memmove(&R->post[ins + 1], &R->post[ins], (R->npost - 1 - ins) * sizeof(c));
                R->post[ins++] = c;
            }
        }
    }
    return LINCOLL_OK;
}

static void lc_mark_copy(lc_plan_t *p, lc_step_t *s, void *arg)
{
    (void)arg;
    if (s->kind == LC_STEP_COPY)
        s->dev =
            p->slots[s->dst.slot].mtype == LC_MEM_DEV || p->slots[s->a.slot].mtype == LC_MEM_DEV;
}

lincoll_status_t lc_pass_device(lc_plan_t *p)
{
    if (p->dev_done) return LINCOLL_OK;
    p->dev_done = 1;
    if (!p->has_dev) return LINCOLL_OK;
    if (!p->env.dev) {
        lc_error("plan %s: a buffer is CUDA device memory, and no device backend runs here",
                 p->algorithm);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    lc_type_views(p);
    for (int changed = 1; changed;) {
        changed = 0;
        lc_each_step(p, lc_spread, &changed);
        lc_type_views(p);
    }
    lc_check_ctx_t c = {LINCOLL_OK, 0};
    lc_each_step(p, lc_mark, &c);
    if (c.st != LINCOLL_OK) return c.st;
    if (!p->env.tl_dev) {
        lincoll_status_t st = lc_stage(p);
        if (st != LINCOLL_OK) return st;
        lc_each_step(p, lc_mark_copy, NULL); /* the staging copies */
    }
    return LINCOLL_OK;
}
