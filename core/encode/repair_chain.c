/*
 * core/encode/repair_chain.c: repair on the k survivors, pipelined chain
 * (repair pipelining): the chunk is cut into S slices that flow survivor ->
 * survivor -> rebuilding rank, each survivor adding its term.
 *
 * What: positions 0 .. T (T + 1 = the ranks taking part): first the sources
 * that rebuild nothing (rank order), then the targets (the one that is also
 * a source first).  In template round j, position j sends position j + 1
 * the vector of partial sums it holds: a source's vector has r partials
 * (one per target; position 0 computes R[.][s] x_s, the others receive the
 * vector and add R[.][s] x_s with one GF mad), target i receives the
 * partials of targets i .. r-1, adds its own term if it is also a source,
 * keeps partial i and forwards the rest.  The template is then cut into S
 * slices merged as a wavefront (lc_enc_slice_plan, core/plan/
 * pass_pipeline.c): slice c's hop j runs in global round j + c, so in one
 * round a survivor sends slice c downstream while slice c + 1 arrives from
 * upstream.
 * Reference: R. Li, X. Li, P. P. C. Lee, Q. Huang, "Repair Pipelining for
 * Erasure-Coded Storage", USENIX ATC '17 (ECPipe): single-chunk repair in
 * about the time of one chunk read.
 * Cost (m = chunk bytes, l = m / S, u = sources that rebuild nothing,
 * T = u + r - 1 hops):
 *   rounds = T + S - 1;  time = (T + S - 1)(alpha + r l (beta + gamma)),
 *   ~ r m (beta + gamma) for S >> T: one chunk's transfer for r = 1;
 *   messages T S; every source sends and receives r m in S messages.
 *   The model's S minimises the time: S = sqrt((T - 1) r m (beta + gamma) /
 *   alpha), slices in multiples of 64 bytes, at most 4096.
 * Restrictions: one port (a chain has one successor); T + S - 1 rounds fit
 * the tag (and twice that with the checksum pass).  Scratch: r chunks per
 * rank (a target i: r - i).
 */
#include <math.h>
#include <stdlib.h>

#include "core/encode/repair_int.h"

#define LC_REP_SLICE_ALIGN 64
#define LC_REP_MAX_SLICES  4096u

static size_t lc_rep_round_up(size_t v, size_t q)
{
    return (v + q - 1) / q * q;
}

size_t lc_rep_chain_slice(const lc_config_t *cfg, const lc_rep_shape_t *s, size_t asked)
{
    const size_t B = s->B;
    const long T = (long)(s->k - s->both) + s->r - 1;
    /* rounds T + S - 1, doubled by the checksum pass, within the tag */
    long lim_tag = (long)(LC_PLAN_MAX_ROUNDS / 2) - T;
    unsigned lim = lim_tag < (long)LC_REP_MAX_SLICES ? (unsigned)(lim_tag > 1 ? lim_tag : 1)
                                                     : LC_REP_MAX_SLICES;
    size_t S;
    if (asked == LINCOLL_ENCODE_CHUNK_NONE || asked >= B) return B;
    if (asked != 0) {
        S = lc_rep_round_up(asked, LC_REP_SLICE_ALIGN);
    } else {
        if (T < 2) return B; /* one hop: nothing to pipeline */
        const double a = cfg->model_alpha, bg = 1.0 / cfg->model_bw + 1.0 / cfg->model_compute_bw;
        double n = sqrt((double)(T - 1) * (double)s->r * (double)B * bg / a);
        if (!(n >= 1.0)) n = 1.0;
        if (n > (double)lim) n = (double)lim;
        S = lc_rep_round_up(lc_rep_cdiv(B, (size_t)n), LC_REP_SLICE_ALIGN);
    }
    if (lc_rep_cdiv(B, S) > lim) S = lc_rep_round_up(lc_rep_cdiv(B, lim), LC_REP_SLICE_ALIGN);
    return S < B ? S : B;
}

static void lc_rep_chain_figures(const lc_env_t *env, const lc_rep_args_t *a,
                                 lincoll_repair_cost_t *c)
{
    const lc_config_t *cfg = env->cfg;
    const lc_rep_shape_t *s = &a->shape;
    const uint64_t B = s->B, r = (uint64_t)s->r, u = (uint64_t)(s->k - s->both);
    const uint64_t T = u + r - 1;
    const size_t l = s->slice > 0 && s->slice < s->B ? s->slice : s->B;
    const uint64_t S = lc_rep_cdiv(s->B, l);
    c->rounds = T > 0 ? (unsigned)(T + S - 1) : 0;
    c->slices = (unsigned)S;
    c->slice_bytes = l;
    c->msgs_total = T * S;
    c->bytes_total = (u * r + r * (r - 1) / 2) * B;
    /* a source sends (and, past position 0, receives) the r partials; with
     * no such source the first target sends r - 1 and the second gets them */
    const uint64_t most = (u >= 1 ? r : r - 1) * B;
    c->max_msgs_sent = c->max_msgs_recvd = T > 0 ? S : 0;
    c->max_bytes_sent = c->max_bytes_recvd = T > 0 ? most : 0;
    c->seconds =
        (double)c->rounds *
        (cfg->model_alpha + (double)(r * l) * (1.0 / cfg->model_bw + 1.0 / cfg->model_compute_bw));
}

static double lc_rep_chain_cost(const lc_env_t *env, const lc_rep_args_t *a)
{
    return lc_rep_seconds(lc_rep_chain_figures, env, a);
}

static lincoll_status_t lc_rep_chain_build(lc_enc_b_t *b, const lc_rep_args_t *a)
{
    const lc_rep_t *rp = &a->rep;
    const lc_bufref_t in = a->in, out = a->out;
    const int k = rp->k, r = rp->r, n = rp->nranks;
    const size_t B = b->B;
    int *pos = malloc(sizeof(int) * (size_t)n), *tord = malloc(sizeof(int) * (size_t)r);
    int *psrc = malloc(sizeof(int) * (size_t)n); /* position -> source index, -1 */
    uint64_t *c = malloc(sizeof(uint64_t) * (size_t)r);
    lc_bufref_t *d = malloc(sizeof(*d) * (size_t)r);
    lincoll_status_t st = pos && tord && psrc && c && d ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    int u = 0;
    if (st == LINCOLL_OK) {
        for (int i = 0; i < k; i++)
            if (rp->src[i] != rp->both) psrc[u] = i, pos[u++] = rp->src[i];
        int nt = 0;
        for (int j = 0; j < r; j++)
            if (rp->tgt[j] == rp->both) tord[nt++] = j;
        for (int j = 0; j < r; j++)
            if (rp->tgt[j] != rp->both) tord[nt++] = j;
        for (int i = 0; i < r; i++) {
            pos[u + i] = rp->tgt[tord[i]];
            psrc[u + i] = -1;
            if (rp->tgt[tord[i]] == rp->both)
                for (int s = 0; s < k; s++)
                    if (rp->src[s] == rp->both) psrc[u + i] = s;
        }
    }
    const int T = n - 1;
    if (st == LINCOLL_OK && lc_enc_round(b, T > 0 ? T - 1 : 0) < 0) st = LINCOLL_ERR_NOMEM;
    int j = -1;
    for (int x = 0; st == LINCOLL_OK && x < n; x++)
        if (pos[x] == rp->me) j = x;
    if (st == LINCOLL_OK && j >= 0) {
        const int i = j - u;             /* target index in chain order, < 0 for a source */
        const int first = i < 0 ? 0 : i; /* partials this position holds: first .. r-1 */
        const int cnt = r - first, s = psrc[j];
        for (int t = 0; t < cnt && s >= 0; t++)
            c[t] = rp->R[(size_t)tord[first + t] * (size_t)k + (size_t)s];
        int vin = -1;
        if (st == LINCOLL_OK && (i < 0 || cnt > 1)) {
            vin = lc_enc_scratch(b, (size_t)cnt);
            if (vin < 0) st = LINCOLL_ERR_NOMEM;
        }
        /* where partial t (first + t) lives: out for this target's own one
         * when nothing is forwarded or it computes the vector itself */
        for (int t = 0; st == LINCOLL_OK && t < cnt; t++)
            d[t] = lc_ref(vin, (size_t)t * B);
        if (st == LINCOLL_OK && i >= 0 && cnt == 1) d[0] = out;
        if (st == LINCOLL_OK && j == 0) {
            /* the vector starts here: R[.][s] x_s; a target computes its own row
             * into out and the rest into scratch */
            if (i == 0) d[0] = out;
            lc_bufref_t *dd = d;
            if (i == 0 && cnt > 1) { /* out, then the forwarded partials at vin 0.. */
                for (int t = 1; t < cnt; t++)
                    d[t] = lc_ref(vin, (size_t)(t - 1) * B);
            }
            uint64_t *M = c; /* cnt x 1 */
            st = lc_enc_lincomb(b, 0, LC_STEP_PRE, 1, &in, cnt, dd, M);
            if (st == LINCOLL_OK && T > 0)
                st = lc_plan_send(b->plan, 0, pos[1], lc_ref(vin, 0),
                                  (size_t)(i == 0 ? cnt - 1 : cnt) * B);
        } else if (st == LINCOLL_OK) {
            /* receive the vector, add the own term, keep the own row, forward */
            st = lc_plan_recv(b->plan, j - 1, pos[j - 1], d[0], (size_t)cnt * B);
            if (st == LINCOLL_OK && s >= 0) st = lc_enc_mad(b, j - 1, LC_STEP_POST, in, cnt, d, c);
            if (st == LINCOLL_OK && i >= 0 && cnt > 1)
                st = lc_plan_copy(b->plan, j - 1, LC_STEP_POST, out, d[0], B);
            if (st == LINCOLL_OK && j < T) {
                const int fw = i >= 0 ? 1 : 0; /* a target forwards all but its own */
                st = lc_plan_send(b->plan, j, pos[j + 1], d[fw], (size_t)(cnt - fw) * B);
            }
        }
    }
    free(pos);
    free(tord);
    free(psrc);
    free(c);
    free(d);
    return st;
}

const lc_rep_alg_t lc_rep_alg_chain = {.name = "chain",
                                       .cost = lc_rep_chain_cost,
                                       .compile = lc_rep_chain_build,
                                       .plan_name = "repair_chain",
                                       .algo = LINCOLL_REPAIR_ALGO_CHAIN,
                                       .sliced = 1,
                                       .figures = lc_rep_chain_figures};
