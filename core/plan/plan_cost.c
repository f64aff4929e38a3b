/*
 * core/plan/plan_cost.c: the static cost of a plan, from the IR alone, and
 * its text dump.
 *
 * Per round r of this rank (weight 1/every for rounds that run on every n-th
 * start), with alpha = LINCOLL_MODEL_ALPHA, beta = 1/LINCOLL_MODEL_BW,
 * gamma = 1/LINCOLL_MODEL_COMPUTE_BW, F = LINCOLL_MODEL_FLOPS:
 *   x_r   = the largest transfer (send, receive, put, or a put's data landing
 *           here) or, when larger, the bytes the round's steps load from or
 *           store into peers' mapped memory (zero copy: the "message" of a
 *           round without messages);
 *   t_r   = alpha [if r transfers] + max(x_r beta, during_r)
 *           + pre_r + post_r,
 *   (alpha = LINCOLL_MODEL_ALPHA_MAPPED for a round of puts and waits only
 *   in a plan compiled for mapped peers: stores and flags, no messages)
 *   where a step costs work gamma + flops / F (a reduction's gamma:
 *   1/LINCOLL_MODEL_REDUCE_BW), except a COPY through a peer
 *   view, whose bytes move at beta_mapped = 1/LINCOLL_MODEL_BW_MAPPED (a
 *   transfer in all but name; a round of stores moves at it too).
 * C1 = rounds with transfers, C2 = sum of x_r (bytes; elements when the
 * compiler set elem_size), predicted time = sum of t_r.  For the symmetric
 * algorithms lincoll ships, this rank's C2 equals the global C2 of the papers
 * (the largest message on any rank per round); the sim transport measures
 * the global figures.  The stats count every round once: they describe the
 * plan's structure, also for rounds that run every n-th start.
 */
#include <stdio.h>
#include <string.h>

#include "core/plan/plan.h"
#include "core/plan/plan_steps.h"

static int lc_ref_remote(const lc_plan_t *p, lc_bufref_t r)
{
    const lc_slot_t *sl = r.slot < p->nslots ? &p->slots[r.slot] : NULL;
    return sl != NULL && sl->kind == LC_SLOT_PEER && sl->peer != p->env.rank;
}

/* bytes of the step's operands that live in a peer's memory */
static double lc_step_remote(const lc_plan_t *p, const lc_step_t *s)
{
    if ((s->kind == LC_STEP_GF_LINCOMB || s->kind == LC_STEP_GF_MAD) && s->ext != NULL) {
        const lc_gf_step_ext_t *e = s->ext;
        double r = 0;
        for (int i = 0; i < e->nsrc + e->ndst; i++)
            r += lc_ref_remote(p, e->refs[i]) ? (double)e->len : 0;
        return r;
    }
    const lc_bufref_t *ops[3] = {&s->dst, &s->a, &s->b};
    int nops = s->kind == LC_STEP_REDUCE ? 3 : (s->kind == LC_STEP_COPY ? 2 : 0);
    double n = (double)lc_step_bytes(s), r = 0;
    for (int i = 0; i < nops; i++) {
        if (lc_ref_remote(p, *ops[i])) r += n;
    }
    return r;
}

typedef struct lc_round_cost {
    double remote; /* bytes steps move to or from peers' memory */
    double time;   /* seconds of the steps */
    double work;   /* bytes of compute */
} lc_round_cost_t;

static void lc_steps_cost(const lc_plan_t *p, const lc_step_t *s, unsigned n, lc_round_cost_t *c)
{
    const lc_config_t *cfg = p->env.cfg;
    for (unsigned i = 0; i < n; i++) {
        double rem = lc_step_remote(p, &s[i]);
        c->remote += rem;
        c->work += s[i].work;
        if (cfg == NULL) continue;
        if (s[i].kind == LC_STEP_COPY && rem > 0) {
            c->time += s[i].work / cfg->model_bw_mapped;
        } else {
            c->time += s[i].work /
                       (s[i].kind == LC_STEP_REDUCE ? cfg->model_reduce_bw : cfg->model_compute_bw);
        }
        c->time += s[i].flops / cfg->model_flops;
    }
}

void lc_plan_compute_stats(lc_plan_t *p)
{
    lincoll_plan_stats_t *s = &p->stats;
    const lc_config_t *cfg = p->env.cfg;
    memset(s, 0, sizeof(*s));
    snprintf(s->algorithm, sizeof(s->algorithm), "%s", p->algorithm);
    s->ports = (unsigned)p->ports;
    s->global_rounds = p->nrounds;
    double pred = 0, moved = 0;
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
                s->msgs_recvd += x->kind == LC_XFER_WAIT ? x->count : 1;
                s->bytes_recvd += x->len;
            }
        }
        lc_round_cost_t pp = {0}, du = {0};
        lc_steps_cost(p, R->pre, R->npre, &pp);
        lc_steps_cost(p, R->post, R->npost, &pp);
        lc_steps_cost(p, R->during, R->nduring, &du);
        for (unsigned i = 0; i < R->npre; i++)
            s->compute_elems += R->pre[i].len;
        for (unsigned i = 0; i < R->npost; i++)
            s->compute_elems += R->post[i].len;
        for (unsigned i = 0; i < R->nduring; i++)
            s->compute_elems += R->during[i].len;
        double remote = pp.remote + du.remote;
        double x = (double)largest > remote ? (double)largest : remote;
        moved += remote;
        if (R->nxfers > 0) {
            s->rounds++;
        }
        if (R->nxfers > 0 || remote > 0) {
            s->c2_bytes += (uint64_t)x;
        }
        if (cfg != NULL) {
            /* a round of puts and waits only, on a plan compiled for mapped
             * peers, is stores and flags: alpha_mapped */
            int stores = p->env.mapped && R->nxfers > 0;
            for (unsigned i = 0; stores && i < R->nxfers; i++)
                stores = R->xfers[i].kind == LC_XFER_PUT || R->xfers[i].kind == LC_XFER_WAIT;
            double alpha = stores ? cfg->model_alpha_mapped : cfg->model_alpha;
            double xfer = (double)largest / (stores ? cfg->model_bw_mapped : cfg->model_bw);
            double t = (R->nxfers > 0 ? alpha : 0) + (xfer > du.time ? xfer : du.time) + pp.time;
            pred += t / (double)(R->every ? R->every : 1);
        }
    }
    s->c2_elems = s->c2_bytes / (p->elem_size ? p->elem_size : 1);
    s->moved_bytes = (uint64_t)moved;
    size_t scratch = 0;
    for (unsigned i = 0; i < p->nslots; i++) {
        if (p->slots[i].kind == LC_SLOT_SCRATCH) scratch += (p->slots[i].size + 63) & ~(size_t)63;
    }
    for (unsigned i = 0; i < p->nwins; i++) {
        if (p->wins[i].kind == LC_WIN_SCRATCH) scratch += p->wins[i].len;
    }
    s->scratch_bytes = scratch;
    s->predicted_us = 1e6 * pred;
}

double lc_plan_predict(const lc_plan_t *p)
{
    return p->stats.predicted_us * 1e-6;
}

static const char *const lc_xfer_names[] = {"send", "recv", "put", "wait"};
static const char *const lc_step_names[] = {"copy", "reduce", "gf_lincomb",  "gf_mad",
                                            "gemm", "crc32c", "crc32c_check"};

void lc_plan_dump_text(const lc_plan_t *p, char *buf, size_t len)
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
    OUT("plan %s rank %d/%d ports %d: C1=%u of %u rounds C2=%llu bytes, sent %llu msgs %llu "
        "bytes, moved %llu bytes, predicted %.2f us\n",
        p->algorithm, p->env.rank, p->env.P, p->ports, s->rounds, s->global_rounds,
        (unsigned long long)s->c2_bytes, (unsigned long long)s->msgs_sent,
        (unsigned long long)s->bytes_sent, (unsigned long long)s->moved_bytes, s->predicted_us);
    for (unsigned w = 0; w < p->nwins; w++) {
        const lc_win_decl_t *d = &p->wins[w];
        OUT(" window %u (key %d): %s %zu bytes\n", w, d->key,
            d->kind == LC_WIN_USER ? "user slot" : "scratch", d->len);
    }
    for (unsigned g = 1; g < p->nrings; g++) {
        OUT(" ring %u: %u x %zu bytes\n", g, p->rings[g].depth, p->rings[g].stride);
    }
    for (unsigned r = 0; r < p->nrounds; r++) {
        const lc_round_t *R = &p->rounds[r];
        if (R->every > 1) {
            OUT(" round %u (starts %u mod %u):\n", r, R->phase, R->every);
        } else {
            OUT(" round %u:\n", r);
        }
        for (unsigned i = 0; i < R->npre; i++) {
            OUT("   pre  %s len %zu -> slot %u+%zu\n", lc_step_names[R->pre[i].kind], R->pre[i].len,
                R->pre[i].dst.slot, R->pre[i].dst.off);
        }
        for (unsigned i = 0; i < R->nxfers; i++) {
            const lc_xfer_t *x = &R->xfers[i];
            OUT("   port %u %-8s peer %d len %zu slot %u+%zu", x->port, lc_xfer_names[x->kind],
                x->peer, x->len, x->buf.slot, x->buf.off);
            if (x->kind == LC_XFER_PUT) OUT(" win %d+%zu", x->win, x->roff);
            if (x->kind == LC_XFER_WAIT) OUT(" win %d x%u", x->win, x->count);
            OUT("\n");
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
