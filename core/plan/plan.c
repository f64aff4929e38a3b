/*
 * core/plan/plan.c: the plan builder and its checks (pure data: no
 * communicator, transport or executor is touched here).
 *
 * Checks at finalize: the multi-port limit (at most p sends/puts and p
 * receives/waits per round), every operand inside its slot, DURING steps
 * clear of their round's transfer buffers, ring slots inside one stride,
 * windows and views well formed.  Then the stats (core/plan/plan_cost.c) and
 * the receive pre-posting marks.
 */
#include "core/plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/plan/plan_steps.h"

#define LC_GROW(_arr, _n, _cap) lc_grow((void **)&(_arr), &(_cap), (_n) + 1, sizeof(*(_arr)))

static int lc_grow(void **arr, unsigned *cap, unsigned need, size_t elem)
{
    if (need <= *cap) {
        return 0;
    }
    unsigned ncap = *cap ? *cap * 2 : 4;
    while (ncap < need) {
        ncap *= 2;
    }
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (p == NULL) {
        return -1;
    }
    memset((char *)p + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
    *arr = p;
    *cap = ncap;
    return 0;
}

void lc_plan_compute_stats(lc_plan_t *p); /* plan_cost.c */

lincoll_status_t lc_plan_create(const lc_env_t *env, const char *algorithm, int ports,
                                lc_plan_t **plan_p)
{
    lc_plan_t *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    p->env = *env;
    lc_plan_rename(p, algorithm);
    p->ports = ports > 0 ? ports : (env->ports > 0 ? env->ports : 1);
    p->elem_size = 1;
    *plan_p = p;
    return LINCOLL_OK;
}

void lc_plan_rename(lc_plan_t *p, const char *algorithm)
{
    snprintf(p->algorithm, sizeof(p->algorithm), "%s", algorithm);
}

static int lc_slot_add(lc_plan_t *p, lc_slot_t s)
{
    if (LC_GROW(p->slots, p->nslots, p->cap_slots) != 0) {
        return -1;
    }
    p->slots[p->nslots] = s;
    return (int)p->nslots++;
}

int lc_plan_slot_user(lc_plan_t *p, void *ptr, size_t size)
{
    int mt = ptr != NULL && size > 0 && p->env.mem_type != NULL ? p->env.mem_type(ptr, size)
                                                                : LC_MEM_HOST;
    if (mt == LC_MEM_DEV) p->has_dev = 1;
    return lc_slot_add(p, (lc_slot_t){.kind = LC_SLOT_USER, .ptr = ptr, .size = size, .mtype = mt});
}

int lc_plan_slot_scratch(lc_plan_t *p, size_t size)
{
    return lc_slot_add(p, (lc_slot_t){.kind = LC_SLOT_SCRATCH, .size = size});
}

int lc_plan_slot_zero(lc_plan_t *p, size_t size)
{
    return lc_slot_add(p, (lc_slot_t){.kind = LC_SLOT_SCRATCH, .size = size, .zero = 1});
}

int lc_plan_slot_peer(lc_plan_t *p, int win, int peer, size_t off, size_t size)
{
    if (win < 0 || (unsigned)win >= p->nwins || peer < 0 || peer >= p->env.P) {
        lc_error("plan %s: view of window %d of rank %d does not exist", p->algorithm, win, peer);
        return -1;
    }
    return lc_slot_add(
        p, (lc_slot_t){.kind = LC_SLOT_PEER, .size = size, .win = win, .peer = peer, .off = off});
}

static int lc_win_add(lc_plan_t *p, lc_win_decl_t d)
{
    if (LC_GROW(p->wins, p->nwins, p->cap_wins) != 0) {
        return -1;
    }
    p->wins[p->nwins] = d;
    return (int)p->nwins++;
}

int lc_plan_win_user(lc_plan_t *p, int key, int slot)
{
    if (slot < 0 || (unsigned)slot >= p->nslots || p->slots[slot].kind != LC_SLOT_USER) {
        lc_error("plan %s: a window needs a user slot (slot %d)", p->algorithm, slot);
        return -1;
    }
    return lc_win_add(
        p,
        (lc_win_decl_t){.kind = LC_WIN_USER, .slot = slot, .len = p->slots[slot].size, .key = key});
}

int lc_plan_win_scratch(lc_plan_t *p, int key, size_t len)
{
    return lc_win_add(p,
                      (lc_win_decl_t){.kind = LC_WIN_SCRATCH, .slot = -1, .len = len, .key = key});
}

lincoll_status_t lc_plan_credit(lc_plan_t *p, int win, int peer, unsigned n)
{
    if (win < 0 || (unsigned)win >= p->nwins || peer < 0 || peer >= p->env.P) {
        return LINCOLL_ERR_INTERNAL;
    }
    if (LC_GROW(p->credits, p->ncredits, p->cap_credits) != 0) {
        return LINCOLL_ERR_NOMEM;
    }
    p->credits[p->ncredits++] = (lc_credit_t){.win = win, .peer = peer, .n = n};
    return LINCOLL_OK;
}

unsigned lc_plan_ring(lc_plan_t *p, unsigned depth, size_t stride)
{
    if (depth < 1) {
        return 0;
    }
    if (p->nrings == 0) { /* ring 0 is "none" */
        if (LC_GROW(p->rings, 0, p->cap_rings) != 0) return 0;
        p->nrings = 1;
    }
    if (LC_GROW(p->rings, p->nrings, p->cap_rings) != 0) {
        return 0;
    }
    p->rings[p->nrings] = (lc_ring_t){.depth = depth, .stride = stride};
    return p->nrings++;
}

lincoll_status_t lc_plan_slot_ring(lc_plan_t *p, int slot, unsigned ring)
{
    if (slot < 0 || (unsigned)slot >= p->nslots || ring == 0 || ring >= p->nrings) {
        return LINCOLL_ERR_INTERNAL;
    }
    p->slots[slot].ring = ring;
    return LINCOLL_OK;
}

int lc_plan_round(lc_plan_t *p)
{
    if (p->nrounds >= LC_PLAN_MAX_ROUNDS) {
        lc_error("plan %s: more than %u rounds", p->algorithm, LC_PLAN_MAX_ROUNDS);
        return -1;
    }
    if (LC_GROW(p->rounds, p->nrounds, p->cap_rounds) != 0) {
        return -1;
    }
    p->rounds[p->nrounds].every = 1;
    return (int)p->nrounds++;
}

int lc_plan_rounds_upto(lc_plan_t *p, int idx)
{
    while ((int)p->nrounds <= idx) {
        if (lc_plan_round(p) < 0) return -1;
    }
    return idx;
}

lincoll_status_t lc_plan_round_every(lc_plan_t *p, int round, unsigned every, unsigned phase)
{
    if (round < 0 || (unsigned)round >= p->nrounds || every < 1 || phase >= every) {
        return LINCOLL_ERR_INTERNAL;
    }
    p->rounds[round].every = every;
    p->rounds[round].phase = phase;
    return LINCOLL_OK;
}

static lincoll_status_t lc_plan_check_ref(const lc_plan_t *p, lc_bufref_t ref, size_t len,
                                          const char *what)
{
    if (ref.slot >= p->nslots || ref.off > p->slots[ref.slot].size ||
        len > p->slots[ref.slot].size - ref.off) {
        lc_error("plan %s: %s of %zu bytes at slot %u offset %zu is outside the buffer",
                 p->algorithm, what, len, ref.slot, ref.off);
        return LINCOLL_ERR_INTERNAL;
    }
    return LINCOLL_OK;
}

static lincoll_status_t lc_plan_xfer(lc_plan_t *p, int round, const lc_xfer_t *x)
{
    if (round < 0 || (unsigned)round >= p->nrounds) {
        return LINCOLL_ERR_INTERNAL;
    }
    if (x->peer < 0 || x->peer >= p->env.P) {
        lc_error("plan %s: peer %d outside the communicator of %d", p->algorithm, x->peer,
                 p->env.P);
        return LINCOLL_ERR_INTERNAL;
    }
    if ((x->kind == LC_XFER_PUT || x->kind == LC_XFER_WAIT) &&
        (x->win < 0 || (unsigned)x->win >= p->nwins)) {
        lc_error("plan %s: transfer on window %d, which the plan does not declare", p->algorithm,
                 x->win);
        return LINCOLL_ERR_INTERNAL;
    }
    if (x->kind != LC_XFER_WAIT || x->len > 0) {
        lincoll_status_t st = lc_plan_check_ref(p, x->buf, x->len, "transfer");
        if (st != LINCOLL_OK) {
            return st;
        }
    }
    lc_round_t *r = &p->rounds[round];
    if (LC_GROW(r->xfers, r->nxfers, r->cap_xfers) != 0) {
        return LINCOLL_ERR_NOMEM;
    }
    r->xfers[r->nxfers++] = *x;
    return LINCOLL_OK;
}

lincoll_status_t lc_plan_send(lc_plan_t *p, int round, int peer, lc_bufref_t src, size_t len)
{
    lc_xfer_t x = {.kind = LC_XFER_SEND, .peer = peer, .buf = src, .len = len, .win = -1};
    return lc_plan_xfer(p, round, &x);
}

lincoll_status_t lc_plan_recv(lc_plan_t *p, int round, int peer, lc_bufref_t dst, size_t len)
{
    lc_xfer_t x = {.kind = LC_XFER_RECV, .peer = peer, .buf = dst, .len = len, .win = -1};
    return lc_plan_xfer(p, round, &x);
}

lincoll_status_t lc_plan_put(lc_plan_t *p, int round, int peer, lc_bufref_t src, size_t len,
                             int win, size_t roff, unsigned ring)
{
    if (ring >= (p->nrings ? p->nrings : 1)) return LINCOLL_ERR_INTERNAL;
    lc_xfer_t x = {.kind = LC_XFER_PUT,
                   .peer = peer,
                   .buf = src,
                   .len = len,
                   .win = win,
                   .roff = roff,
                   .ring = ring};
    return lc_plan_xfer(p, round, &x);
}

lincoll_status_t lc_plan_signal(lc_plan_t *p, int round, int peer, int win)
{
    lc_xfer_t x = {.kind = LC_XFER_PUT, .peer = peer, .win = win, .buf = lc_ref(0, 0)};
    if (p->nslots == 0) { /* a signal carries nothing: an empty slot to point at */
        if (lc_plan_slot_user(p, NULL, 0) < 0) return LINCOLL_ERR_NOMEM;
    }
    return lc_plan_xfer(p, round, &x);
}

lincoll_status_t lc_plan_wait(lc_plan_t *p, int round, int peer, int win, unsigned count,
                              lc_bufref_t at, size_t len)
{
    lc_xfer_t x = {.kind = LC_XFER_WAIT,
                   .peer = peer,
                   .win = win,
                   .count = count ? count : 1,
                   .buf = at,
                   .len = len};
    return lc_plan_xfer(p, round, &x);
}

lincoll_status_t lc_plan_step(lc_plan_t *p, int round, int when, const lc_step_t *step)
{
    if (round < 0 || (unsigned)round >= p->nrounds) {
        free(step->ext);
        return LINCOLL_ERR_INTERNAL;
    }
    lc_round_t *r = &p->rounds[round];
    int fail = when == LC_STEP_DURING ? LC_GROW(r->during, r->nduring, r->cap_during)
               : when == LC_STEP_POST ? LC_GROW(r->post, r->npost, r->cap_post)
                                      : LC_GROW(r->pre, r->npre, r->cap_pre);
    if (fail) {
        free(step->ext);
        return LINCOLL_ERR_NOMEM;
    }
    if (when == LC_STEP_DURING) {
        r->during[r->nduring++] = *step;
    } else if (when == LC_STEP_POST) {
        r->post[r->npost++] = *step;
    } else {
        r->pre[r->npre++] = *step;
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_plan_copy(lc_plan_t *p, int round, int when, lc_bufref_t dst, lc_bufref_t src,
                              size_t len)
{
    lincoll_status_t st = lc_plan_check_ref(p, dst, len, "copy destination");
    if (st == LINCOLL_OK) st = lc_plan_check_ref(p, src, len, "copy source");
    if (st != LINCOLL_OK) return st;
    lc_step_t s = {.kind = LC_STEP_COPY, .dst = dst, .a = src, .len = len, .work = (double)len};
    return lc_plan_step(p, round, when, &s);
}

lincoll_status_t lc_plan_reduce(lc_plan_t *p, int round, int when, lc_bufref_t dst, lc_bufref_t a,
                                lc_bufref_t b, size_t count, lincoll_dtype_t dtype, lincoll_op_t op)
{
    size_t bytes = count * lincoll_dtype_size(dtype);
    lincoll_status_t st = lc_plan_check_ref(p, dst, bytes, "reduce destination");
    if (st == LINCOLL_OK) st = lc_plan_check_ref(p, a, bytes, "reduce operand");
    if (st == LINCOLL_OK) st = lc_plan_check_ref(p, b, bytes, "reduce operand");
    if (st != LINCOLL_OK) return st;
    lc_step_t s = {.kind = LC_STEP_REDUCE,
                   .dst = dst,
                   .a = a,
                   .b = b,
                   .len = count,
                   .dtype = dtype,
                   .op = op,
                   .work = 2.0 * (double)bytes}; /* a reduce reads two operands */
    return lc_plan_step(p, round, when, &s);
}

size_t lc_step_bytes(const lc_step_t *s)
{
    return s->kind == LC_STEP_REDUCE ? s->len * lincoll_dtype_size(s->dtype) : s->len;
}

static int lc_ranges_overlap(lc_bufref_t a, size_t alen, lc_bufref_t b, size_t blen)
{
    return a.slot == b.slot && a.off < b.off + blen && b.off < a.off + alen;
}

/* Does a step touch [ref, +len)?  GF steps: any of their operands; other
 * steps with extra operands (GEMM) count as touching everything. */
static int lc_step_touches(const lc_step_t *st, lc_bufref_t ref, size_t len)
{
    size_t n = lc_step_bytes(st);
    if ((st->kind == LC_STEP_GF_LINCOMB || st->kind == LC_STEP_GF_MAD) && st->ext != NULL) {
        const lc_gf_step_ext_t *e = st->ext;
        for (int i = 0; i < e->nsrc + e->ndst; i++)
            if (lc_ranges_overlap(ref, len, e->refs[i], e->len)) return 1;
        return 0;
    }
    return st->ext != NULL || lc_ranges_overlap(ref, len, st->dst, n) ||
           lc_ranges_overlap(ref, len, st->a, n) ||
           (st->kind == LC_STEP_REDUCE && lc_ranges_overlap(ref, len, st->b, n));
}

/* Does [ref, +len) overlap anything round R touches (transfers and steps)? */
static int lc_round_touches(const lc_round_t *R, lc_bufref_t ref, size_t len)
{
    for (unsigned i = 0; i < R->nxfers; i++) {
        const lc_xfer_t *x = &R->xfers[i];
        if (lc_ranges_overlap(ref, len, x->buf, x->len)) return 1;
    }
    for (unsigned i = 0; i < R->npre; i++)
        if (lc_step_touches(&R->pre[i], ref, len)) return 1;
    for (unsigned i = 0; i < R->nduring; i++)
        if (lc_step_touches(&R->during[i], ref, len)) return 1;
    for (unsigned i = 0; i < R->npost; i++)
        if (lc_step_touches(&R->post[i], ref, len)) return 1;
    return 0;
}

static int lc_slot_rotates(const lc_plan_t *p, uint32_t slot)
{
    return slot < p->nslots && p->slots[slot].ring != 0;
}

/* Round r+1's receives can be posted when round r's transfers are posted if
 * nothing round r does, and no PRE step of round r+1, touches their buffers,
 * both rounds run on every start, and the buffers do not rotate. */
static void lc_plan_mark_prepost(lc_plan_t *p)
{
    for (unsigned r = 0; r + 1 < p->nrounds; r++) {
        lc_round_t *R = &p->rounds[r], *N = &p->rounds[r + 1];
        int ok = R->every == 1 && N->every == 1;
        for (unsigned i = 0; ok && i < N->nxfers; i++) {
            const lc_xfer_t *x = &N->xfers[i];
            if (x->kind != LC_XFER_RECV) continue;
            ok = !lc_slot_rotates(p, x->buf.slot) && !lc_round_touches(R, x->buf, x->len);
            for (unsigned k = 0; ok && k < N->npre; k++)
                ok = !lc_step_touches(&N->pre[k], x->buf, x->len);
        }
        N->prepost = ok;
    }
}

static lincoll_status_t lc_plan_check(lc_plan_t *p)
{
    if (p->tag_round0 != 0 && (!p->p2p || p->tag_round0 + p->nrounds > LC_PLAN_MAX_ROUNDS + 1)) {
        lc_error("plan %s: tag rounds from %u: only a point-to-point plan may move them, within "
                 "the tag's round field",
                 p->algorithm, p->tag_round0);
        return LINCOLL_ERR_INTERNAL;
    }
    /* the multi-port model: at most p outgoing and p incoming transfers per round */
    for (unsigned r = 0; r < p->nrounds; r++) {
        lc_round_t *R = &p->rounds[r];
        unsigned out = 0, in = 0;
        for (unsigned i = 0; i < R->nxfers; i++) {
            lc_xfer_t *x = &R->xfers[i];
            int outgoing = (x->kind == LC_XFER_SEND || x->kind == LC_XFER_PUT);
            x->port = (uint16_t)(outgoing ? out++ : in++);
        }
        if (out > (unsigned)p->ports || in > (unsigned)p->ports) {
            lc_error("plan %s: round %u has %u sends and %u receives, more than p=%d ports",
                     p->algorithm, r, out, in, p->ports);
            return LINCOLL_ERR_INTERNAL;
        }
        /* DURING steps must not touch the round's receive buffers nor write its sends */
        for (unsigned i = 0; i < R->nduring; i++) {
            const lc_step_t *st = &R->during[i];
            size_t n = lc_step_bytes(st);
            for (unsigned k = 0; st->ext == NULL && k < R->nxfers; k++) {
                const lc_xfer_t *x = &R->xfers[k];
                int in_buf = x->kind == LC_XFER_RECV || x->kind == LC_XFER_WAIT;
                if (lc_ranges_overlap(st->dst, n, x->buf, x->len) ||
                    (in_buf && (lc_ranges_overlap(st->a, n, x->buf, x->len) ||
                                (st->kind == LC_STEP_REDUCE &&
                                 lc_ranges_overlap(st->b, n, x->buf, x->len))))) {
                    lc_error("plan %s: round %u runs a step during its transfers that touches "
                             "their buffers",
                             p->algorithm, r);
                    return LINCOLL_ERR_INTERNAL;
                }
            }
        }
    }
    for (unsigned i = 0; i < p->nslots; i++) {
        const lc_slot_t *s = &p->slots[i];
        if (s->ring != 0 && s->size > p->rings[s->ring].stride) {
            lc_error("plan %s: slot %u (%zu bytes) does not fit its ring's %zu-byte stride",
                     p->algorithm, i, s->size, p->rings[s->ring].stride);
            return LINCOLL_ERR_INTERNAL;
        }
        if (s->kind == LC_SLOT_PEER && s->peer == p->env.rank && p->wins[s->win].len > 0 &&
            s->off + s->size > p->wins[s->win].len) {
            lc_error("plan %s: view of %zu bytes at %zu is outside this rank's window %d",
                     p->algorithm, s->size, s->off, s->win);
            return LINCOLL_ERR_INTERNAL;
        }
    }
    for (unsigned w = 0; w < p->nwins; w++) {
        for (unsigned k = 0; k < w; k++) {
            if (p->wins[k].key == p->wins[w].key) {
                lc_error("plan %s: windows %u and %u share key %d", p->algorithm, k, w,
                         p->wins[w].key);
                return LINCOLL_ERR_INTERNAL;
            }
        }
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_plan_finalize(lc_plan_t *p)
{
    lincoll_status_t st = lc_pass_device(p);
    if (st != LINCOLL_OK) return st;
    st = lc_plan_check(p);
    if (st != LINCOLL_OK) return st;
    lc_plan_mark_prepost(p);
    lc_plan_compute_stats(p);
    p->finalized = 1;
    if (p->env.cfg != NULL && p->env.cfg->plan_dump) {
        size_t len = 4096 + 96 * (size_t)p->nrounds * 4;
        char *buf = malloc(len);
        if (buf != NULL) {
            lc_plan_dump_text(p, buf, len);
            lc_log(LINCOLL_LOG_ERROR < lc_log_level ? LINCOLL_LOG_INFO : LINCOLL_LOG_ERROR,
                   __FILE__, __LINE__, "plan dump\n%s", buf);
            free(buf);
        }
    }
    return LINCOLL_OK;
}

void lc_plan_destroy(lc_plan_t *p)
{
    if (p == NULL) {
        return;
    }
    for (unsigned r = 0; r < p->nrounds; r++) {
        lc_round_t *R = &p->rounds[r];
        for (unsigned i = 0; i < R->npre; i++)
            free(R->pre[i].ext);
        for (unsigned i = 0; i < R->npost; i++)
            free(R->post[i].ext);
        for (unsigned i = 0; i < R->nduring; i++)
            free(R->during[i].ext);
        free(R->during);
        free(R->xfers);
        free(R->pre);
        free(R->post);
    }
    if (p->priv_free != NULL) {
        p->priv_free(p->priv);
    }
    free(p->rounds);
    free(p->slots);
    free(p->wins);
    free(p->credits);
    free(p->rings);
    free(p);
}
