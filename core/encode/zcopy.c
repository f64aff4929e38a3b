/*
 * core/encode/zcopy.c: all-to-all encode by loads from the peers' mapped
 * packets ("zcopy"): no message carries data and nothing is copied.
 *
 * What: every rank's input packet x_j is lincoll memory (lincoll_mem_alloc)
 * that every rank maps (one node: UCX shared memory, ucp_rkey_ptr), through a
 * window over the inputs.  Rank k:
 *   round 0  "ready": a 0-byte signalled put to every rank j that reads x_k
 *            (A[k][j] != 0), and a wait for the same flag from every rank j
 *            whose packet it reads (A[j][k] != 0): those packets now hold this
 *            start's data; then (POST) one GF lincomb
 *            y_k = sum_j A[j][k] x_j whose sources x_j, j != k, are rank j's
 *            packet itself, loaded from its memory: one pass over K sources;
 *   round 1  "done": a flag to every rank it read from, a wait for a flag from
 *            every rank that reads x_k: nobody reads x_k any more, so the start
 *            completes and the caller may overwrite x_k.
 * Flags are counted per peer (lc_win_signal_ready): a peer's "ready" of the
 * next start may arrive before this start's "done" is consumed; counts keep
 * them apart.
 * Reference: the "ready"/"done" direct shared-memory collectives of
 * core/coll/zcopy_rsag.c (UCC tl/shm style) applied to the direct encode
 * baseline of Wang & Raviv (arXiv 2205.05183, the trivial algorithm);
 * single-copy through a peer's mapped window as in ucp_rkey_ptr.
 * Cost (n = packet bytes, s = sources of this rank besides itself, K - 1 for
 * a dense column):
 *   C1 = 2 (flag rounds of 0-byte messages);
 *   C2 = s packets: no message carries them, but the GF pass pulls s packets
 *        from the peers' memory into this core in round 0; that volume is
 *        what a round of the alpha-beta-tau model moves, so the plan stats
 *        report it (c2_bytes = s n) instead of the flags' 0 bytes;
 *   Time = 2 alpha_flag + (s + 1).n.gamma_gf, the pull being the kernel's own
 *        loads (the selection model, lc_enc_zc_predict: 2 alpha + K n gamma);
 *        the alpha-beta-tau prediction of lincoll_perf is C1 alpha + C2 tau.
 *
 * zcopy_split, when every rank's output is lincoll memory mapped by all as
 * well (a second window, over the outputs): the packet is cut in K segments
 * (64-byte units when the size allows, else elements; segment k of rank k's
 * choosing is the same on every rank), and rank k computes segment k of
 * *every* output in one GF pass: K sources (segment k of every input) into K
 * destinations (segment k of every output, stored into the peers' memory).
 * Flags go to and come from every peer (everyone reads every input and
 * writes every output).  Per rank the pass reads n bytes and writes n bytes
 * instead of reading K n and writing n, and the kernel's K-output shape
 * loads each source once for K products (lincoll_perf -t gf, GF(2^8), one
 * core: 2+1 over 1 MiB 70 GB/s of input = 30 us, 2+2 over 512 KiB 53 GB/s =
 * 20 us; 16 MiB vs 8 MiB: 1.18 ms vs 0.67 ms; over UCX, K = 2, both plans
 * alternated in one run, medians of 7, loaded VM: 1 MiB zcopy 33-40 us,
 * zcopy_split 21-24 us; 4 MiB 600-660 vs 306-330 us; 16 MiB 5.4-5.7 vs
 * 4.6-4.8 ms).  Same GF work, K n
 * coefficient-bytes per rank.  C2 = 2 (K - 1) segments (read and written
 * between ranks) = one packet at K = 2.
 * Restrictions: lincoll_encode_init (an explicit matrix), K >= 2, every rank's
 * input lincoll memory and mapped by every rank (checked collectively at init
 * by lc_enc_zc_agree, one allgather plus a window exchange; otherwise every
 * rank takes the tag algorithms); the output may be any memory; ports K - 1
 * (flags to every peer at once); not chunked; not with
 * LINCOLL_ENCODE_CHECKSUM (no message to checksum); zcopy_split needs every
 * output in lincoll memory (agreed in the same votes); ranks of a sim world
 * driven from one thread (no bootstrap) cannot agree at init, so the public
 * init falls back there (tests build the plan with hand-exchanged windows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/context/win.h"
#include "core/encode/encode_int.h"

/* RMA transfers of core/plan/plan.c (declared in core/coll/coll_int.h). */
lincoll_status_t lc_plan_put(lincoll_plan_t *plan, int round, int peer, lc_bufref_t src, size_t len,
                             lc_win_t *win, size_t roff);
lincoll_status_t lc_plan_wait_put(lincoll_plan_t *plan, int round, int peer, size_t len,
                                  lc_win_t *win);

#define LC_ENC_ZC_MAGIC UINT64_C(0x656e637a63707931) /* "enczcpy1" */

double lc_enc_zc_predict(const lincoll_context_t *ctx, int K, size_t B)
{
    const lc_config_t *cfg = &ctx->cfg;
    return 2.0 * cfg->model_alpha + (double)K * (double)B / cfg->model_compute_bw;
}

lincoll_status_t lc_enc_zcopy_build(lc_enc_b_t *b, lc_win_t *win, int K, int me,
                                    lc_enc_coef_fn_t coef, const void *arg, lc_bufref_t in,
                                    lc_bufref_t out)
{
    lincoll_plan_t *p = b->plan;
    const size_t B = b->B;
    lincoll_status_t st = LINCOLL_OK;
    if (win == NULL) return LINCOLL_ERR_INTERNAL;
    /* the plan owns the window from here on, whatever happens */
    lc_win_t **wl = realloc(p->wins, sizeof(*wl) * (p->nwins + 1));
    if (wl == NULL) {
        lc_win_destroy(win);
        return LINCOLL_ERR_NOMEM;
    }
    p->wins = wl;
    p->wins[p->nwins++] = win;
    if (K < 2 || win->comm->size != K || win->len < B) return LINCOLL_ERR_INTERNAL;
    snprintf(p->algorithm, sizeof(p->algorithm), "zcopy");
    p->ports = K - 1;
    b->priv->zc = 1;
    lc_bufref_t *src = malloc(sizeof(*src) * (size_t)K);
    uint64_t *row = malloc(sizeof(uint64_t) * (size_t)K);
    if (src == NULL || row == NULL || lc_enc_round(b, 1) < 0) st = LINCOLL_ERR_NOMEM;
    int ns = 0;
    for (int j = 0; st == LINCOLL_OK && j < K; j++) {
        uint64_t c = coef(arg, j, me);
        int reads = j != me && c != 0, read_by = j != me && coef(arg, me, j) != 0;
        if (read_by) { /* j loads x_me: tell it the packet is ready, wait until it is done */
            st = lc_plan_put(p, 0, j, in, 0, win, 0);
            if (st == LINCOLL_OK) st = lc_plan_wait_put(p, 1, j, 0, win);
        }
        if (st != LINCOLL_OK || c == 0) continue;
        if (j == me) {
            src[ns] = in;
        } else {
            void *pj = lc_win_peer_ptr(win, j);
            int s = pj != NULL ? lc_plan_slot_user(p, pj, B) : -1;
            if (s < 0) {
                st = pj == NULL ? LINCOLL_ERR_INTERNAL : LINCOLL_ERR_NOMEM;
                if (pj == NULL) lc_error("encode zcopy: rank %d's packet is not mapped here", j);
                break;
            }
            src[ns] = lc_ref(s, 0);
        }
        row[ns++] = c;
        if (reads) {
            st = lc_plan_wait_put(p, 0, j, 0, win);
            if (st == LINCOLL_OK) st = lc_plan_put(p, 1, j, in, 0, win, 0);
        }
    }
    if (st == LINCOLL_OK) {
        if (ns == 0) { /* a zero column: the result is zero */
            lc_bufref_t z;
            st = lc_enc_zero_packet(b, &z);
            if (st == LINCOLL_OK) st = lc_plan_copy(p, 0, LC_STEP_POST, out, z, B);
        } else {
            st = lc_enc_lincomb(b, 0, LC_STEP_POST, ns, src, 1, &out, row);
        }
    }
    b->priv->zc_c2 = (uint64_t)(ns - (ns > 0 && coef(arg, me, me) != 0)) * B;
    b->priv->zc_pred_us = 1e6 * lc_enc_zc_predict(p->ctx, K, B);
    free(src);
    free(row);
    return st;
}

void lc_enc_zc_segment(size_t B, size_t es, int K, int k, size_t *off, size_t *len)
{
    size_t u = (B % 64 == 0 && 64 % es == 0) ? 64 : es;
    size_t n = B / u, q = n / (size_t)K, m = n % (size_t)K, kk = (size_t)k;
    *off = (kk * q + (kk < m ? kk : m)) * u;
    *len = (q + (kk < m)) * u;
}

lincoll_status_t lc_enc_zcopy_split_build(lc_enc_b_t *b, lc_win_t *win, lc_win_t *wout, int K,
                                          int me, lc_enc_coef_fn_t coef, const void *arg,
                                          lc_bufref_t in, lc_bufref_t out)
{
    lincoll_plan_t *p = b->plan;
    const size_t B = b->B;
    lincoll_status_t st = LINCOLL_OK;
    /* the plan owns both windows from here on, whatever happens */
    lc_win_t **wl = realloc(p->wins, sizeof(*wl) * (p->nwins + 2));
    if (wl == NULL) {
        lc_win_destroy(win);
        lc_win_destroy(wout);
        return LINCOLL_ERR_NOMEM;
    }
    p->wins = wl;
    if (win != NULL) p->wins[p->nwins++] = win;
    if (wout != NULL) p->wins[p->nwins++] = wout;
    if (win == NULL || wout == NULL || K < 2 || win->comm->size != K || wout->comm->size != K ||
        win->len < B || wout->len < B)
        return LINCOLL_ERR_INTERNAL;
    snprintf(p->algorithm, sizeof(p->algorithm), "zcopy_split");
    p->ports = K - 1;
    b->priv->zc = 1;
    size_t off, len;
    lc_enc_zc_segment(B, b->f->elem_size, K, me, &off, &len);
    lc_bufref_t *src = malloc(sizeof(*src) * (size_t)K), *dst = malloc(sizeof(*dst) * (size_t)K);
    uint64_t *M = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
    if (src == NULL || dst == NULL || M == NULL || lc_enc_round(b, 1) < 0) st = LINCOLL_ERR_NOMEM;
    /* every rank reads segment me of every input and writes it in every
     * output: flags with every peer */
    for (int j = 0; st == LINCOLL_OK && j < K; j++) {
        if (j != me) {
            st = lc_plan_put(p, 0, j, in, 0, win, 0);
            if (st == LINCOLL_OK) st = lc_plan_wait_put(p, 0, j, 0, win);
            if (st == LINCOLL_OK) st = lc_plan_put(p, 1, j, in, 0, win, 0);
            if (st == LINCOLL_OK) st = lc_plan_wait_put(p, 1, j, 0, win);
        }
        if (st != LINCOLL_OK || len == 0) continue;
        if (j == me) {
            src[j] = lc_ref((int)in.slot, in.off + off);
            dst[j] = lc_ref((int)out.slot, out.off + off);
        } else {
            void *xj = lc_win_peer_ptr(win, j), *yj = lc_win_peer_ptr(wout, j);
            int sx = xj != NULL ? lc_plan_slot_user(p, xj, B) : -1;
            int sy = yj != NULL ? lc_plan_slot_user(p, yj, B) : -1;
            if (sx < 0 || sy < 0) {
                st = xj == NULL || yj == NULL ? LINCOLL_ERR_INTERNAL : LINCOLL_ERR_NOMEM;
                if (st == LINCOLL_ERR_INTERNAL)
                    lc_error("encode zcopy_split: rank %d's packets are not mapped here", j);
                break;
            }
            src[j] = lc_ref(sx, off);
            dst[j] = lc_ref(sy, off);
        }
        for (int r = 0; r < K; r++)
            M[(size_t)r * (size_t)K + (size_t)j] = coef(arg, j, r);
    }
    if (st == LINCOLL_OK && len > 0) {
        b->B = len; /* lc_enc_lincomb's steps span b->B bytes: here one segment */
        st = lc_enc_lincomb(b, 0, LC_STEP_POST, K, src, K, dst, M);
        b->B = B;
    }
    /* moved between ranks in round 0: K - 1 segments read, K - 1 written */
    b->priv->zc_c2 = 2 * (uint64_t)(K - 1) * len;
    b->priv->zc_pred_us = 1e6 * lc_enc_zc_predict(p->ctx, K, B);
    free(src);
    free(dst);
    free(M);
    return st;
}

/* One allgather of the call's shape and this rank's flags (bit 0: input,
 * bit 1: output): the AND of every rank's flags, or LINCOLL_ERR_MISMATCH
 * (logged) when a rank passed another shape. */
static lincoll_status_t lc_enc_zc_vote(lincoll_comm_t *comm, const char *fn,
                                       const uint64_t shape[3], unsigned mine, unsigned *all_p)
{
    uint64_t rec[4] = {shape[0], shape[1], shape[2], (uint64_t)mine};
    uint64_t *all = malloc((size_t)comm->size * sizeof(rec));
    *all_p = 0;
    if (all == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_comm_allgather_bytes(comm, rec, all, sizeof(rec));
    uint64_t acc = 3;
    for (int i = 0; st == LINCOLL_OK && i < comm->size; i++) {
        const uint64_t *o = all + 4 * (size_t)i;
        if (o[0] != rec[0] || o[1] != rec[1] || o[2] != rec[2]) {
            lc_error("%s: rank %d passed another packet size (%llu bytes, here %llu), ports or "
                     "algorithm",
                     fn, i, (unsigned long long)o[1], (unsigned long long)rec[1]);
            st = LINCOLL_ERR_MISMATCH;
            break;
        }
        acc &= o[3];
    }
    free(all);
    if (st == LINCOLL_OK) *all_p = (unsigned)acc;
    return st;
}

/* every peer of w mapped here */
static int lc_enc_zc_mapped(lc_win_t *w, int K)
{
    for (int j = 0; w != NULL && j < K; j++)
        if (lc_win_peer_ptr(w, j) == NULL) return 0;
    return w != NULL;
}

lincoll_status_t lc_enc_zc_agree(lincoll_comm_t *comm, lc_enc_b_t *b, const char *fn,
                                 lincoll_encode_algo_t *algo, const void *in, void *out)
{
    lincoll_context_t *ctx = comm->ctx;
    const int K = comm->size;
    const size_t B = b->B;
    if (*algo != LINCOLL_ENCODE_ALGO_AUTO && *algo != LINCOLL_ENCODE_ALGO_ZCOPY) return LINCOLL_OK;
    /* the same on every rank: K, p, B, the configuration, the kind of context */
    int possible =
        K >= 2 && ctx->boot != NULL && ctx->tl_ops->rkey_ptr != NULL && !ctx->cfg.encode_checksum;
    int want =
        possible && (*algo == LINCOLL_ENCODE_ALGO_ZCOPY ||
                     lc_enc_pick(ctx, K, b->p, B, *algo, 1, NULL) == LINCOLL_ENCODE_ALGO_ZCOPY);
    lincoll_status_t st = LINCOLL_OK;
    unsigned all = 0;
    if (want) {
        const uint64_t shape[3] = {LC_ENC_ZC_MAGIC ^ (uint64_t)K, (uint64_t)B,
                                   (uint64_t)b->p | (uint64_t)*algo << 16};
        /* every rank votes, lincoll memory or not, so all take the same path:
         * bit 0 the input is lincoll memory (zcopy), bit 1 the output too
         * (zcopy_split) */
        unsigned mine = (lc_mem_find(ctx, in, B) != NULL) |
                        (unsigned)(out != NULL && lc_mem_find(ctx, out, B) != NULL) << 1;
        st = lc_enc_zc_vote(comm, fn, shape, mine, &all);
        lc_win_t *w = NULL, *wo = NULL;
        if (st == LINCOLL_OK && (all & 1)) {
            lincoll_status_t ws = lc_win_create(comm, (void *)in, B, &w);
            if (all & 2) { /* every rank creates it (collective), whatever happened above */
                lincoll_status_t ws2 = lc_win_create(comm, out, B, &wo);
                if (ws == LINCOLL_OK) ws = ws2;
            }
            mine = (unsigned)lc_enc_zc_mapped(w, K) | (unsigned)lc_enc_zc_mapped(wo, K) << 1;
            st = lc_enc_zc_vote(comm, fn, shape, ws == LINCOLL_OK ? mine : 0, &all);
            if (st == LINCOLL_OK && ws != LINCOLL_OK) st = ws;
            if (st != LINCOLL_OK || !(all & 1)) {
                lc_win_destroy(w);
                w = NULL;
            }
            if (st != LINCOLL_OK || !(all & 1) || !(all & 2)) {
                lc_win_destroy(wo);
                wo = NULL;
            }
        }
        b->zc_win = w;
        b->zc_wout = wo;
        if (st != LINCOLL_OK) return st;
        lc_debug("%s: zcopy %s (K=%d, %zu-byte packets)", fn,
                 wo != NULL  ? "agreed, outputs too (zcopy_split)"
                 : w != NULL ? "agreed (inputs)"
                             : "not possible: a rank's packet is not lincoll memory or not "
                               "mapped by every rank",
                 K, B);
    }
    if (*algo == LINCOLL_ENCODE_ALGO_ZCOPY && b->zc_win == NULL) {
        if (ctx->cfg.algo_fallback == LC_FALLBACK_ERROR) {
            lc_error("%s: algorithm zcopy needs every rank's packet in lincoll memory mapped by "
                     "every rank (LINCOLL_ALGO_FALLBACK=error)",
                     fn);
            return LINCOLL_ERR_UNSUPPORTED;
        }
        static int warned;
        if (!warned) {
            warned = 1;
            lc_warn("%s: algorithm zcopy needs every rank's packet in lincoll memory mapped by "
                    "every rank; choosing automatically",
                    fn);
        }
        *algo = LINCOLL_ENCODE_ALGO_AUTO;
    }
    return LINCOLL_OK;
}
