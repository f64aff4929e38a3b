/*
 * core/plan/plan.c: plan builder, validation, static cost and dump.
 *
 * Static cost of the calling rank's plan:
 *   C1 = rounds that carry at least one transfer,
 *   C2 = sum over those rounds of the largest transfer of the round,
 *   predicted time = C1*alpha + (C2 + moved_bytes)*beta + compute_bytes*gamma
 * (moved_bytes: what zero-copy plans copy through mapped memory, a transfer
 * in all but name; core/coll's lc_zc_copy sets it)
 * with alpha/beta/gamma from LINCOLL_MODEL_ALPHA, _BW and _COMPUTE_BW.  For the
 * symmetric algorithms lincoll ships, this rank's C2 equals the global C2 of
 * the papers (largest message on any rank per round); the sim transport
 * measures the global figures.
 */
#include "core/plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/context/win.h"

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

lincoll_status_t lc_plan_create(lincoll_comm_t *comm, const char *algorithm, int ports,
                                lincoll_plan_t **plan_p)
{
    lincoll_plan_t *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    p->comm = comm;
    p->ctx = comm->ctx;
    snprintf(p->algorithm, sizeof(p->algorithm), "%s", algorithm);
    p->ports = ports > 0 ? ports : comm->ctx->ports;
    p->elem_size = 1;
    p->ex.status = LINCOLL_OK;
    comm->ctx->live_plans++;
    *plan_p = p;
    return LINCOLL_OK;
}

int lc_plan_slot_user(lincoll_plan_t *p, void *ptr, size_t size)
{
    if (LC_GROW(p->slots, p->nslots, p->cap_slots) != 0) {
        return -1;
    }
    p->slots[p->nslots] = (lc_slot_t){LC_SLOT_USER, ptr, size};
    return (int)p->nslots++;
}

int lc_plan_slot_scratch(lincoll_plan_t *p, size_t size)
{
    if (LC_GROW(p->slots, p->nslots, p->cap_slots) != 0) {
        return -1;
    }
    p->slots[p->nslots] = (lc_slot_t){LC_SLOT_SCRATCH, NULL, size};
    return (int)p->nslots++;
}

int lc_plan_round(lincoll_plan_t *p)
{
    if (p->nrounds >= LC_TAG_MAX_ROUND) {
        lc_error("plan %s: more than %u rounds", p->algorithm, (unsigned)LC_TAG_MAX_ROUND);
        return -1;
    }
    if (LC_GROW(p->rounds, p->nrounds, p->cap_rounds) != 0) {
        return -1;
    }
    return (int)p->nrounds++;
}

static lincoll_status_t lc_plan_check_ref(const lincoll_plan_t *p, lc_bufref_t ref, size_t len,
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

static lincoll_status_t lc_plan_xfer(lincoll_plan_t *p, int round, const lc_xfer_t *x)
{
    if (round < 0 || (unsigned)round >= p->nrounds) {
        return LINCOLL_ERR_INTERNAL;
    }
    if (x->peer < 0 || x->peer >= p->comm->size) {
        lc_error("plan %s: peer %d outside the communicator of %d", p->algorithm, x->peer,
                 p->comm->size);
        return LINCOLL_ERR_INTERNAL;
    }
    if (x->kind != LC_XFER_WAIT_PUT) {
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

lincoll_status_t lc_plan_send(lincoll_plan_t *p, int round, int peer, lc_bufref_t src, size_t len)
{
    lc_xfer_t x = {.kind = LC_XFER_SEND, .peer = peer, .buf = src, .len = len};
    return lc_plan_xfer(p, round, &x);
}

lincoll_status_t lc_plan_recv(lincoll_plan_t *p, int round, int peer, lc_bufref_t dst, size_t len)
{
    lc_xfer_t x = {.kind = LC_XFER_RECV, .peer = peer, .buf = dst, .len = len};
    return lc_plan_xfer(p, round, &x);
}

lincoll_status_t lc_plan_put(lincoll_plan_t *p, int round, int peer, lc_bufref_t src, size_t len,
                             lc_win_t *win, size_t roff)
{
    lc_xfer_t x = {
        .kind = LC_XFER_PUT, .peer = peer, .buf = src, .len = len, .win = win, .roff = roff};
    return lc_plan_xfer(p, round, &x);
}

lincoll_status_t lc_plan_wait_put(lincoll_plan_t *p, int round, int peer, size_t len, lc_win_t *win)
{
    lc_xfer_t x = {.kind = LC_XFER_WAIT_PUT, .peer = peer, .len = len, .win = win};
    return lc_plan_xfer(p, round, &x);
}

lincoll_status_t lc_plan_step(lincoll_plan_t *p, int round, int post, const lc_step_t *step)
{
    if (round < 0 || (unsigned)round >= p->nrounds) {
        free(step->ext);
        return LINCOLL_ERR_INTERNAL;
    }
    lc_round_t *r = &p->rounds[round];
    /* LC_STEP_DURING steps go to their own list (the executor runs it while
     * the round's transfers are in flight); they used to land in post[] */
    int fail = post == LC_STEP_DURING ? LC_GROW(r->during, r->nduring, r->cap_during)
               : post                 ? LC_GROW(r->post, r->npost, r->cap_post)
                                      : LC_GROW(r->pre, r->npre, r->cap_pre);
    if (fail) {
        free(step->ext);
        return LINCOLL_ERR_NOMEM;
    }
    if (post == LC_STEP_DURING) {
        r->during[r->nduring++] = *step;
    } else if (post) {
        r->post[r->npost++] = *step;
    } else {
        r->pre[r->npre++] = *step;
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_plan_copy(lincoll_plan_t *p, int round, int post, lc_bufref_t dst,
                              lc_bufref_t src, size_t len)
{
    lincoll_status_t st = lc_plan_check_ref(p, dst, len, "copy destination");
    if (st == LINCOLL_OK) st = lc_plan_check_ref(p, src, len, "copy source");
    if (st != LINCOLL_OK) return st;
    lc_step_t s = {.kind = LC_STEP_COPY, .dst = dst, .a = src, .len = len};
    p->compute_bytes += (double)len;
    return lc_plan_step(p, round, post, &s);
}

lincoll_status_t lc_plan_reduce(lincoll_plan_t *p, int round, int post, lc_bufref_t dst,
                                lc_bufref_t a, lc_bufref_t b, size_t count, lincoll_dtype_t dtype,
                                lincoll_op_t op)
{
    size_t bytes = count * lincoll_dtype_size(dtype);
    lincoll_status_t st = lc_plan_check_ref(p, dst, bytes, "reduce destination");
    if (st == LINCOLL_OK) st = lc_plan_check_ref(p, a, bytes, "reduce operand");
    if (st == LINCOLL_OK) st = lc_plan_check_ref(p, b, bytes, "reduce operand");
    if (st != LINCOLL_OK) return st;
    lc_step_t s = {
        .kind = LC_STEP_REDUCE, .dst = dst, .a = a, .b = b, .len = count, .dtype = dtype, .op = op};
    p->compute_bytes += 2.0 * (double)bytes;
    return lc_plan_step(p, round, post, &s);
}

static void lc_plan_compute_stats(lincoll_plan_t *p)
{
    lincoll_plan_stats_t *s = &p->stats;
    const lc_config_t *cfg = &p->ctx->cfg;
    memset(s, 0, sizeof(*s));
    snprintf(s->algorithm, sizeof(s->algorithm), "%s", p->algorithm);
    s->ports = (unsigned)p->ports;
    for (unsigned r = 0; r < p->nrounds; r++) {
        const lc_round_t *R = &p->rounds[r];
        size_t largest = 0;
        for (unsigned i = 0; i < R->nxfers; i++) {
            const lc_xfer_t *x = &R->xfers[i];
            largest = x->len > largest ? x->len : largest;
            if (x->kind == LC_XFER_SEND || x->kind == LC_XFER_PUT) {
                s->msgs_sent++;
                s->bytes_sent += x->len;
            } else {
                s->msgs_recvd++;
                s->bytes_recvd += x->len;
            }
        }
        for (unsigned i = 0; i < R->npre + R->npost; i++) {
            const lc_step_t *st = i < R->npre ? &R->pre[i] : &R->post[i - R->npre];
            s->compute_elems += st->len;
        }
        for (unsigned i = 0; i < R->nduring; i++) {
            s->compute_elems += R->during[i].len;
        }
        if (R->nxfers > 0) {
            s->rounds++;
            s->c2_bytes += largest;
        }
    }
    s->c2_elems = s->c2_bytes / (p->elem_size ? p->elem_size : 1);
    s->scratch_bytes = p->scratch_bytes;
    s->predicted_us =
        1e6 * ((double)s->rounds * cfg->model_alpha +
               ((double)s->c2_bytes + p->moved_bytes) / cfg->model_bw +
               p->compute_bytes / cfg->model_compute_bw + p->compute_flops / cfg->model_flops);
}

static int lc_ranges_overlap(lc_bufref_t a, size_t alen, lc_bufref_t b, size_t blen)
{
    return a.slot == b.slot && a.off < b.off + blen && b.off < a.off + alen;
}

/* Does [ref, +len) overlap anything round R touches (transfers and steps)?
 * Steps with extra operands (GF, GEMM) count as touching everything. */
static int lc_round_touches(const lc_round_t *R, int with_post, lc_bufref_t ref, size_t len)
{
    for (unsigned i = 0; i < R->nxfers; i++) {
        const lc_xfer_t *x = &R->xfers[i];
        if (x->kind != LC_XFER_WAIT_PUT && lc_ranges_overlap(ref, len, x->buf, x->len)) return 1;
    }
    unsigned nsteps = R->npre + (with_post ? R->npost + R->nduring : 0);
    for (unsigned i = 0; i < nsteps; i++) {
        const lc_step_t *st = i < R->npre              ? &R->pre[i]
                              : i < R->npre + R->npost ? &R->post[i - R->npre]
                                                       : &R->during[i - R->npre - R->npost];
        size_t n = st->kind == LC_STEP_REDUCE ? st->len * lincoll_dtype_size(st->dtype) : st->len;
        if (st->ext != NULL || lc_ranges_overlap(ref, len, st->dst, n) ||
            lc_ranges_overlap(ref, len, st->a, n) ||
            (st->kind == LC_STEP_REDUCE && lc_ranges_overlap(ref, len, st->b, n))) {
            return 1;
        }
    }
    return 0;
}

/* Round r+1's receives can be posted when round r's transfers are posted if
 * nothing round r does, and no PRE step of round r+1, touches their buffers. */
static void lc_plan_mark_prepost(lincoll_plan_t *p)
{
    for (unsigned r = 0; r + 1 < p->nrounds; r++) {
        lc_round_t *R = &p->rounds[r], *N = &p->rounds[r + 1];
        int ok = 1;
        for (unsigned i = 0; ok && i < N->nxfers; i++) {
            const lc_xfer_t *x = &N->xfers[i];
            if (x->kind != LC_XFER_RECV) continue;
            ok = !lc_round_touches(R, 1, x->buf, x->len);
            /* PRE steps of round r+1 only: compare against its steps, not its own recvs */
            for (unsigned k = 0; ok && k < N->npre; k++) {
                const lc_step_t *st = &N->pre[k];
                size_t n =
                    st->kind == LC_STEP_REDUCE ? st->len * lincoll_dtype_size(st->dtype) : st->len;
                ok = st->ext == NULL && !lc_ranges_overlap(x->buf, x->len, st->dst, n) &&
                     !lc_ranges_overlap(x->buf, x->len, st->a, n) &&
                     !(st->kind == LC_STEP_REDUCE && lc_ranges_overlap(x->buf, x->len, st->b, n));
            }
        }
        N->prepost = ok;
    }
}

lincoll_status_t lc_plan_finalize(lincoll_plan_t *p)
{
    /* the multi-port model: at most p sends and p receives per round */
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
    }
    size_t total = 0;
    for (unsigned i = 0; i < p->nslots; i++) {
        if (p->slots[i].kind == LC_SLOT_SCRATCH) {
            total += (p->slots[i].size + 63) & ~(size_t)63;
        }
    }
    if (total > 0) {
        if (posix_memalign(&p->scratch_mem, 64, total) != 0) {
            return LINCOLL_ERR_NOMEM;
        }
        size_t off = 0;
        for (unsigned i = 0; i < p->nslots; i++) {
            if (p->slots[i].kind == LC_SLOT_SCRATCH) {
                p->slots[i].ptr = (char *)p->scratch_mem + off;
                off += (p->slots[i].size + 63) & ~(size_t)63;
            }
        }
    }
    p->scratch_bytes = total;
    for (unsigned r = 0; r < p->nrounds; r++) {
        const lc_round_t *R = &p->rounds[r];
        for (unsigned i = 0; i < R->nduring; i++) {
            const lc_step_t *st = &R->during[i];
            size_t n =
                st->kind == LC_STEP_REDUCE ? st->len * lincoll_dtype_size(st->dtype) : st->len;
            for (unsigned k = 0; st->ext == NULL && k < R->nxfers; k++) {
                const lc_xfer_t *x = &R->xfers[k];
                int recv = x->kind == LC_XFER_RECV;
                if (x->kind == LC_XFER_WAIT_PUT) continue;
                if (lc_ranges_overlap(st->dst, n, x->buf, x->len) ||
                    (recv && (lc_ranges_overlap(st->a, n, x->buf, x->len) ||
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
    lc_plan_mark_prepost(p);
    lc_plan_compute_stats(p);
    p->finalized = 1;
    if (p->ctx->cfg.plan_dump) {
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

void lc_plan_destroy(lincoll_plan_t *p)
{
    if (p == NULL) {
        return;
    }
    if (p->ex.running) {
        lc_exec_cancel(p);
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
    for (unsigned i = 0; i < p->nwins; i++) {
        lc_win_destroy(p->wins[i]);
    }
    free(p->wins);
    if (p->priv_free != NULL) {
        p->priv_free(p->priv);
    }
    free(p->rounds);
    free(p->slots);
    free(p->scratch_mem);
    free(p->ex.reqs);
    free(p->ex.next_reqs);
    p->ctx->live_plans--;
    free(p);
}

static const char *const lc_xfer_names[] = {"send", "recv", "put", "wait_put"};
static const char *const lc_step_names[] = {"copy", "reduce", "gf_lincomb",  "gf_mad",
                                            "gemm", "crc32c", "crc32c_check"};

void lc_plan_dump_text(const lincoll_plan_t *p, char *buf, size_t len)
{
    size_t used = 0;
#define OUT(...)                                                                                   \
    do {                                                                                           \
        if (used < len) {                                                                          \
            int _n = snprintf(buf + used, len - used, __VA_ARGS__);                                \
            used += _n > 0 ? (size_t)_n : 0;                                                       \
        }                                                                                          \
    } while (0)
    const lincoll_plan_stats_t *s = &p->stats;
    OUT("plan %s rank %d/%d ports %d: C1=%u C2=%llu bytes, sent %llu msgs %llu bytes, "
        "predicted %.2f us\n",
        p->algorithm, p->comm->rank, p->comm->size, p->ports, s->rounds,
        (unsigned long long)s->c2_bytes, (unsigned long long)s->msgs_sent,
        (unsigned long long)s->bytes_sent, s->predicted_us);
    for (unsigned r = 0; r < p->nrounds; r++) {
        const lc_round_t *R = &p->rounds[r];
        OUT(" round %u:\n", r);
        for (unsigned i = 0; i < R->npre; i++) {
            OUT("   pre  %s len %zu -> slot %u+%zu\n", lc_step_names[R->pre[i].kind], R->pre[i].len,
                R->pre[i].dst.slot, R->pre[i].dst.off);
        }
        for (unsigned i = 0; i < R->nxfers; i++) {
            const lc_xfer_t *x = &R->xfers[i];
            OUT("   port %u %-8s peer %d len %zu slot %u+%zu\n", x->port, lc_xfer_names[x->kind],
                x->peer, x->len, x->buf.slot, x->buf.off);
        }
        for (unsigned i = 0; i < R->nduring; i++) {
            OUT("   during %s len %zu -> slot %u+%zu\n", lc_step_names[R->during[i].kind],
                R->during[i].len, R->during[i].dst.slot, R->during[i].dst.off);
        }
        for (unsigned i = 0; i < R->npost; i++) {
            OUT("   post %s len %zu -> slot %u+%zu\n", lc_step_names[R->post[i].kind],
                R->post[i].len, R->post[i].dst.slot, R->post[i].dst.off);
        }
    }
    if (used >= len && len > 4) {
        memcpy(buf + len - 4, "...", 4);
    }
#undef OUT
}

/* ---- public plan API ------------------------------------------------------------ */

lincoll_status_t lincoll_plan_stats(const lincoll_plan_t *plan, lincoll_plan_stats_t *stats)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_plan_stats: plan must not be NULL");
    LC_CHECK_ARG(stats != NULL, "lincoll_plan_stats: stats must not be NULL");
    *stats = plan->stats;
    return LINCOLL_OK;
}

lincoll_status_t lincoll_plan_dump(const lincoll_plan_t *plan, char *buf, size_t len)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_plan_dump: plan must not be NULL");
    LC_CHECK_ARG(buf != NULL && len > 0, "lincoll_plan_dump: buf must not be NULL, len > 0");
    lc_plan_dump_text(plan, buf, len);
    return LINCOLL_OK;
}

lincoll_status_t lincoll_plan_free(lincoll_plan_t *plan)
{
    lc_plan_destroy(plan);
    return LINCOLL_OK;
}

lincoll_status_t lc_plan_run(lincoll_plan_t *plan)
{
    lincoll_status_t st = lc_exec_start(plan);
    if (st != LINCOLL_OK) {
        return st;
    }
    return lincoll_wait(plan);
}
