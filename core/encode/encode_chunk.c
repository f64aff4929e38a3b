/*
 * core/encode/encode_chunk.c: chunk pipelining of encode plans for large
 * packets (transfers of one chunk overlap the GF kernels of another).
 *
 * What: every encode compiler emits its schedule for whole packets of B
 * bytes (T rounds).  Here that "template" plan is replayed on n chunks of
 * the packet (chunk c = bytes [c*S, c*S + l_c), S the chunk size, the last
 * chunk shorter when S does not divide B), round-major: global round
 * g = t*n + c carries round t of chunk c, with the template's transfers and
 * steps restricted to that chunk.  The compute of a round moves next to
 * another chunk's transfers:
 *   POST steps of (c, t) -> DURING of global round g + 1 (the last: POST),
 *   PRE  steps of (c, t) -> DURING of global round g - 1 (the first: PRE).
 * Round g +- 1 belongs to another chunk (n >= 2), so those steps touch none
 * of its transfer buffers; and chunk c's next round is g + n >= g + 2, so
 * every dependency of the template stays satisfied (the order within one
 * DURING list is post(g-1) then pre(g+1)).  With the executor's
 * LC_STEP_DURING, the GF `mad`/lincomb work of chunk c runs while the
 * messages of chunk c+1 fly.
 * Layout: a scratch slot of k packets is addressed chunk-major — chunk c of
 * packet i sits at k*c*S + i*l_c — so the chunk of a multi-packet message
 * (prepare windows, shoot partials) is one contiguous block.  User slots hold
 * one packet, where chunk-major is the packet itself.
 * Cost: bytes sent and C2 in bytes are those of the template (every round's
 * largest message is split n ways over n global rounds); message rounds are
 * n*T.  Prediction of one start (alpha, beta, gamma of the plan model):
 *   n = 1: sum_t (alpha + x_t B beta + (pre_t + post_t) B gamma)
 *   n > 1: pre_0 l gamma + sum_g (alpha + max(x_t(g) l beta, w_g l gamma))
 *          + post_{T-1} l gamma,  w_g = post_t(g-1) + pre_t(g+1),  l = B/n,
 * x_t = largest message of round t in packets, pre/post_t = GF work of
 * round t in packet-bytes (this rank's: the plan stats' predicted_us).  The
 * model choice is the n with the least prediction among chunk sizes >=
 * LC_ENC_CHUNK_AUTO_MIN = 1 MiB (so packets below 2 MiB are never chunked).
 * Measured on the loaded 2-core VM: K = 4, 16 MiB, 64 KiB chunks ran 5x
 * slower than whole packets, 256 KiB .. 4 MiB chunks 5-12% faster, 1 MiB the
 * best; K = 2, direct, malloc packets, medians of 3-7 alternated runs:
 * 1 MiB packets whole 143 us, in 4 x 256 KiB 161-173 us; 4 MiB whole 3.5-5 ms,
 * 4 x 1 MiB 0.8-0.9 ms, 16 x 256 KiB 3.9-4.8 ms; 16 MiB whole 19.5-24 ms,
 * 16 x 1 MiB 14-26 ms, 64 x 256 KiB 17-30 ms: 256 KiB chunks never won), on
 * the profile x_t = post_t = 1, pre_t = 0: every rank must cut alike, and it
 * depends only on B, T and LINCOLL_MODEL_* (a rank's own work may differ:
 * direct on a sparse matrix, the natural-order DFT's last round).  Roughly
 * n = sqrt(B min(beta, gamma) / (T alpha)).
 * Restrictions: encode plans only (send/recv, COPY and GF steps on
 * packet-aligned buffer ranges); 2 n T < 2^16 rounds, room for the checksum
 * pass (the chunk grows); at most 4096 chunks.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/encode/encode_int.h"

#define LC_ENC_CHUNK_ALIGN    64
#define LC_ENC_CHUNK_AUTO_MIN ((size_t)1 << 20) /* smallest chunk the model picks */
#define LC_ENC_CHUNK_AUTO_Q   ((size_t)4 << 10) /* model's chunks are multiples of 4 KiB */
#define LC_ENC_MAX_CHUNKS     4096u
#define LC_ENC_AUTO_MAX       256u

/* per template round: largest message and compute, in packets / packet-bytes */
typedef struct lc_enc_tround {
    double x, pre, post;
    int h; /* has transfers */
} lc_enc_tround_t;

static double lc_enc_step_work(const lc_step_t *s, size_t B)
{
    if (s->kind == LC_STEP_COPY) return (double)s->len / (double)B;
    if (s->kind == LC_STEP_GF_LINCOMB || s->kind == LC_STEP_GF_MAD) {
        const lc_gf_step_ext_t *e = s->ext;
        return (double)e->len * (double)e->nsrc * (double)e->ndst / (double)B;
    }
    return 0;
}

static void lc_enc_profile(const lincoll_plan_t *tp, size_t B, lc_enc_tround_t *tr)
{
    for (unsigned t = 0; t < tp->nrounds; t++) {
        const lc_round_t *R = &tp->rounds[t];
        size_t big = 0;
        for (unsigned i = 0; i < R->nxfers; i++)
            big = R->xfers[i].len > big ? R->xfers[i].len : big;
        tr[t].x = (double)big / (double)B;
        tr[t].h = R->nxfers > 0;
        tr[t].pre = tr[t].post = 0;
        for (unsigned i = 0; i < R->npre; i++)
            tr[t].pre += lc_enc_step_work(&R->pre[i], B);
        for (unsigned i = 0; i < R->npost; i++)
            tr[t].post += lc_enc_step_work(&R->post[i], B);
        for (unsigned i = 0; i < R->nduring; i++)
            tr[t].post += lc_enc_step_work(&R->during[i], B);
    }
}

/* predicted seconds of one start with n chunks (see the file comment) */
static double lc_enc_pipe_time(const lc_config_t *cfg, const lc_enc_tround_t *tr, unsigned T,
                               size_t B, unsigned n)
{
    const double a = cfg->model_alpha, be = 1.0 / cfg->model_bw, ga = 1.0 / cfg->model_compute_bw;
    double tot = 0;
    if (n <= 1) {
        for (unsigned t = 0; t < T; t++)
            tot +=
                tr[t].h * a + tr[t].x * (double)B * be + (tr[t].pre + tr[t].post) * (double)B * ga;
        return tot;
    }
    const double l = (double)B / (double)n;
    const unsigned G = n * T;
    tot = tr[0].pre * l * ga + tr[T - 1].post * l * ga;
    for (unsigned g = 0; g < G; g++) {
        unsigned t = g / n;
        double w = (g > 0 ? tr[(g - 1) / n].post : 0) + (g + 1 < G ? tr[(g + 1) / n].pre : 0);
        double x = tr[t].x * l * be, c = w * l * ga;
        tot += tr[t].h * a + (x > c ? x : c);
    }
    return tot;
}

/* the part of a packet-aligned reference that chunk [o, o + l) covers */
static int lc_enc_cmap(const lincoll_plan_t *tp, size_t B, lc_bufref_t ref, size_t len, size_t o,
                       size_t l, lc_bufref_t *out, size_t *olen)
{
    if (ref.slot >= tp->nslots) return -1;
    size_t S = tp->slots[ref.slot].size;
    if (S % B != 0 || ref.off % B != 0 || len % B != 0 || ref.off + len > S) return -1;
    size_t npk = S / B, k = ref.off / B, m = len / B;
    out->slot = ref.slot;
    out->off = npk * o + k * l;
    if (olen) *olen = m * l;
    return 0;
}

/* one template step restricted to a chunk, appended to round g as `when` */
static lincoll_status_t lc_enc_cstep(lincoll_plan_t *np, const lincoll_plan_t *tp, size_t B,
                                     const lc_step_t *s, int g, int when, size_t o, size_t l)
{
    if (s->kind == LC_STEP_COPY) {
        lc_bufref_t d, a;
        size_t n;
        if (lc_enc_cmap(tp, B, s->dst, s->len, o, l, &d, &n) != 0 ||
            lc_enc_cmap(tp, B, s->a, s->len, o, l, &a, NULL) != 0)
            return LINCOLL_ERR_INTERNAL;
        if (when != LC_STEP_DURING) return lc_plan_copy(np, g, when, d, a, n);
        lc_step_t c = {.kind = LC_STEP_COPY, .dst = d, .a = a, .len = n};
        np->compute_bytes += (double)n;
        return lc_plan_step(np, g, LC_STEP_DURING, &c);
    }
    if (s->kind != LC_STEP_GF_LINCOMB && s->kind != LC_STEP_GF_MAD) return LINCOLL_ERR_INTERNAL;
    const lc_gf_step_ext_t *e = s->ext;
    int nr = e->nsrc + e->ndst;
    lc_bufref_t stack[64], *refs = nr <= 64 ? stack : malloc(sizeof(*refs) * (size_t)nr);
    if (refs == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    for (int i = 0; i < nr && st == LINCOLL_OK; i++) {
        if (lc_enc_cmap(tp, B, e->refs[i], e->len, o, l, &refs[i], NULL) != 0)
            st = LINCOLL_ERR_INTERNAL;
    }
    if (st == LINCOLL_OK)
        st = lc_plan_gf_step(np, g, when, s->kind, e->coeffs, e->col, e->nsrc, refs, e->ndst,
                             refs + e->nsrc, l);
    if (refs != stack) free(refs);
    return st;
}

/* the chunked plan of template tp: n chunks of S bytes (last shorter) */
static lincoll_status_t lc_enc_chunk_build(const lincoll_plan_t *tp, size_t B, size_t S, unsigned n,
                                           lincoll_plan_t **np_p)
{
    lincoll_plan_t *np;
    lincoll_status_t st = lc_plan_create(tp->comm, tp->algorithm, tp->ports, &np);
    if (st != LINCOLL_OK) return st;
    np->elem_size = tp->elem_size;
    for (unsigned i = 0; i < tp->nslots && st == LINCOLL_OK; i++) {
        const lc_slot_t *sl = &tp->slots[i];
        int r = sl->kind == LC_SLOT_USER ? lc_plan_slot_user(np, sl->ptr, sl->size)
                                         : lc_plan_slot_scratch(np, sl->size);
        if (r != (int)i) st = LINCOLL_ERR_NOMEM;
    }
    const unsigned T = tp->nrounds, G = n * T;
    for (unsigned g = 0; g < G && st == LINCOLL_OK; g++) {
        if (lc_plan_round(np) < 0) st = LINCOLL_ERR_NOMEM;
    }
    for (unsigned g = 0; g < G && st == LINCOLL_OK; g++) {
        const unsigned t = g / n, c = g % n;
        const size_t o = (size_t)c * S, l = o + S <= B ? S : B - o;
        const lc_round_t *R = &tp->rounds[t];
        for (unsigned i = 0; i < R->nxfers && st == LINCOLL_OK; i++) {
            const lc_xfer_t *x = &R->xfers[i];
            lc_bufref_t ref;
            size_t len;
            if ((x->kind != LC_XFER_SEND && x->kind != LC_XFER_RECV) ||
                lc_enc_cmap(tp, B, x->buf, x->len, o, l, &ref, &len) != 0) {
                st = LINCOLL_ERR_INTERNAL;
                break;
            }
            st = x->kind == LC_XFER_SEND ? lc_plan_send(np, (int)g, x->peer, ref, len)
                                         : lc_plan_recv(np, (int)g, x->peer, ref, len);
        }
        for (unsigned i = 0; i < R->npre && st == LINCOLL_OK; i++) {
            st = g == 0 ? lc_enc_cstep(np, tp, B, &R->pre[i], 0, LC_STEP_PRE, o, l)
                        : lc_enc_cstep(np, tp, B, &R->pre[i], (int)g - 1, LC_STEP_DURING, o, l);
        }
        for (unsigned i = 0; i < R->nduring + R->npost && st == LINCOLL_OK; i++) {
            const lc_step_t *s = i < R->nduring ? &R->during[i] : &R->post[i - R->nduring];
            st = g + 1 < G ? lc_enc_cstep(np, tp, B, s, (int)g + 1, LC_STEP_DURING, o, l)
                           : lc_enc_cstep(np, tp, B, s, (int)g, LC_STEP_POST, o, l);
        }
    }
    if (st != LINCOLL_OK) {
        if (st == LINCOLL_ERR_INTERNAL)
            lc_error("encode %s: the plan cannot be cut into chunks (a transfer or step is not "
                     "packet-aligned)",
                     tp->algorithm);
        lc_plan_destroy(np);
        return st;
    }
    *np_p = np;
    return LINCOLL_OK;
}

static size_t lc_enc_round_up(size_t v, size_t q)
{
    return (v + q - 1) / q * q;
}

lincoll_status_t lc_enc_chunk_plan(lc_enc_b_t *b)
{
    lincoll_plan_t *tp = b->plan;
    lc_enc_priv_t *pv = b->priv;
    const size_t B = b->B;
    const unsigned T = tp->nrounds;
    const lc_config_t *cfg = &tp->ctx->cfg;
    /* the schedule's per-packet figures, as plan.c counts them */
    unsigned c1 = 0, any = 0;
    uint64_t c2 = 0;
    for (unsigned t = 0; t < T; t++) {
        const lc_round_t *R = &tp->rounds[t];
        size_t big = 0;
        for (unsigned i = 0; i < R->nxfers; i++)
            big = R->xfers[i].len > big ? R->xfers[i].len : big;
        if (R->nxfers > 0) c1++, c2 += big, any = 1;
    }
    pv->sched_rounds = c1;
    pv->sched_c2 = c2;
    pv->nchunks = 1;
    pv->chunk = B;
    if (!any || T == 0 || b->chunk_req == LINCOLL_ENCODE_CHUNK_NONE) return LINCOLL_OK;
    lc_enc_tround_t *tr = malloc(sizeof(*tr) * T);
    if (tr == NULL) return LINCOLL_ERR_NOMEM;
    lc_enc_profile(tp, B, tr);
    /* n T rounds, and twice that under LINCOLL_ENCODE_CHECKSUM (plan_checksum.c) */
    const unsigned nmax_tag = (unsigned)((LC_TAG_MAX_ROUND / 2 - 1) / T);
    size_t S;
    if (b->chunk_req != 0) { /* asked for */
        S = lc_enc_round_up(b->chunk_req < B ? b->chunk_req : B, LC_ENC_CHUNK_ALIGN);
        unsigned lim = nmax_tag < LC_ENC_MAX_CHUNKS ? nmax_tag : LC_ENC_MAX_CHUNKS;
        if (lim < 1) lim = 1;
        if ((B + S - 1) / S > lim) {
            size_t S2 = lc_enc_round_up((B + lim - 1) / lim, LC_ENC_CHUNK_ALIGN);
            lc_debug("encode %s: chunk of %zu bytes gives more than %u chunks; using %zu",
                     tp->algorithm, S, lim, S2);
            S = S2;
        }
    } else {
        /* the model: least predicted time over chunk sizes >= the minimum, on a
         * profile every rank computes alike (one packet moved and one folded
         * per round: ranks' own work differs, e.g. direct on a sparse matrix,
         * and all must cut the packet the same way) */
        lc_enc_tround_t *u = malloc(sizeof(*u) * T);
        if (u == NULL) {
            free(tr);
            return LINCOLL_ERR_NOMEM;
        }
        for (unsigned t = 0; t < T; t++)
            u[t] = (lc_enc_tround_t){.x = 1, .pre = 0, .post = 1, .h = 1};
        S = B;
        double best = lc_enc_pipe_time(cfg, u, T, B, 1);
        unsigned lim = nmax_tag < LC_ENC_AUTO_MAX ? nmax_tag : LC_ENC_AUTO_MAX;
        size_t prevS = B;
        for (unsigned n = 2; n <= lim && B / n >= LC_ENC_CHUNK_AUTO_MIN; n++) {
            size_t s = lc_enc_round_up((B + n - 1) / n, LC_ENC_CHUNK_AUTO_Q);
            if (s >= prevS) continue;
            prevS = s;
            unsigned nn = (unsigned)((B + s - 1) / s);
            if (nn < 2) continue;
            double t = lc_enc_pipe_time(cfg, u, T, B, nn);
            if (t < best) {
                best = t;
                S = s;
            }
        }
        free(u);
    }
    unsigned n = (unsigned)((B + S - 1) / S);
    double pred = lc_enc_pipe_time(cfg, tr, T, B, n);
    free(tr);
    if (n < 2) return LINCOLL_OK;
    lincoll_plan_t *np;
    lincoll_status_t st = lc_enc_chunk_build(tp, B, S, n, &np);
    if (st != LINCOLL_OK) return st;
    /* the new plan takes the algorithm's data; the template goes */
    np->priv = tp->priv;
    np->priv_free = tp->priv_free;
    tp->priv = NULL;
    tp->priv_free = NULL;
    lc_plan_destroy(tp);
    b->plan = np;
    pv->nchunks = n;
    pv->chunk = S;
    pv->pipe_us = pred * 1e6;
    lc_debug("encode %s: packet of %zu bytes in %u chunks of %zu (C1=%u -> %u message rounds, "
             "predicted %.1f us)",
             np->algorithm, B, n, S, c1, n * T, pv->pipe_us);
    return LINCOLL_OK;
}

void lc_enc_chunk_stats(lc_enc_b_t *b)
{
    lc_enc_priv_t *pv = b->priv;
    if (pv->nchunks < 2) return;
    lincoll_plan_stats_t *s = &b->plan->stats;
    s->rounds = pv->sched_rounds;
    s->c2_bytes = pv->sched_c2;
    s->c2_elems = pv->sched_c2 / (b->B ? b->B : 1);
    s->predicted_us = pv->pipe_us;
}

lincoll_status_t lincoll_encode_chunks(const lincoll_plan_t *plan, unsigned *nchunks_p,
                                       size_t *chunk_bytes_p)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_encode_chunks: plan must not be NULL");
    LC_CHECK_ARG(plan->priv_free == lc_enc_priv_free && plan->priv != NULL,
                 "lincoll_encode_chunks: plan %s is not an encode plan", plan->algorithm);
    const lc_enc_priv_t *pv = plan->priv;
    if (nchunks_p) *nchunks_p = pv->nchunks;
    if (chunk_bytes_p) *chunk_bytes_p = pv->chunk;
    return LINCOLL_OK;
}
