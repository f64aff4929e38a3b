/*
 * core/encode/encode_chunk.c: chunk pipelining of encode plans for large
 * packets (transfers of one chunk overlap the GF kernels of another).
 *
 * What: every encode compiler emits its schedule for whole packets of B
 * bytes (T rounds).  That template is cut into n pieces, piece c carrying
 * chunk c = bytes [c S, c S + l_c) of every packet (S the chunk size, the
 * last chunk shorter when S does not divide B): every transfer and step of
 * the template restricted to that chunk; a user slot (one packet) becomes
 * its chunk, a scratch slot of k packets becomes k chunks.  The generic
 * pipelining pass (core/plan/pass_pipeline.c) then merges the pieces
 * round-major and moves each piece's GF work beside the next piece's
 * transfers.
 * Cost: the merged plan's stats model it (a round costs the larger of its
 * largest chunk at beta and the GF work that overlaps it); n T message
 * rounds of chunks.  The chunk size: opts->chunk_bytes or LINCOLL_ENCODE_CHUNK
 * when given (rounded up to 64 bytes, at most 4096 chunks), else the model
 * choice of lc_pipeline_piece on the profile every rank computes alike (one
 * packet moved and folded per round), among chunk sizes >= 1 MiB in 4 KiB
 * steps (so packets below 2 MiB are never chunked).  Measured on the loaded
 * 2-core VM: K = 4, 16 MiB, 64 KiB chunks ran 5x slower than whole packets,
 * 256 KiB .. 4 MiB chunks 5-12% faster, 1 MiB the best (docs/encode.md,
 * "Chunk pipelining").
 * Slices (lc_enc_slice_plan, the repair chain): the same pieces merged as a
 * wavefront (lc_pass_wavefront): round t of slice c in global round t + c,
 * T + n - 1 rounds, every step kept in its round.
 * Restrictions: encode plans only (send/recv, COPY and GF steps on
 * packet-aligned buffer ranges); 2 n T rounds within the tag's round field
 * (room for the checksum pass); not zero-copy plans.
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

/* the part of a packet-aligned reference that chunk [o, o + l) covers, in
 * the piece whose slots hold chunks of l bytes */
static int lc_enc_cmap(const lc_plan_t *tp, size_t B, lc_bufref_t ref, size_t len, size_t l,
                       lc_bufref_t *out, size_t *olen)
{
    if (ref.slot >= tp->nslots) return -1;
    size_t S = tp->slots[ref.slot].size;
    if (S % B != 0 || ref.off % B != 0 || len % B != 0 || ref.off + len > S) return -1;
    out->slot = ref.slot;
    out->off = ref.off / B * l;
    if (olen) *olen = len / B * l;
    return 0;
}

static lincoll_status_t lc_enc_cstep(lc_plan_t *np, const lc_plan_t *tp, size_t B,
                                     const lc_step_t *s, int g, int when, size_t l)
{
    if (s->kind == LC_STEP_COPY) {
        lc_bufref_t d, a;
        size_t n;
        if (lc_enc_cmap(tp, B, s->dst, s->len, l, &d, &n) != 0 ||
            lc_enc_cmap(tp, B, s->a, s->len, l, &a, NULL) != 0)
            return LINCOLL_ERR_INTERNAL;
        return lc_plan_copy(np, g, when, d, a, n);
    }
    if (s->kind != LC_STEP_GF_LINCOMB && s->kind != LC_STEP_GF_MAD) return LINCOLL_ERR_INTERNAL;
    const lc_gf_step_ext_t *e = s->ext;
    int nr = e->nsrc + e->ndst;
    lc_bufref_t stack[64], *refs = nr <= 64 ? stack : malloc(sizeof(*refs) * (size_t)nr);
    if (refs == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    for (int i = 0; i < nr && st == LINCOLL_OK; i++) {
        if (lc_enc_cmap(tp, B, e->refs[i], e->len, l, &refs[i], NULL) != 0)
            st = LINCOLL_ERR_INTERNAL;
    }
    if (st == LINCOLL_OK)
        st = lc_plan_gf_step(np, g, when, s->kind, e->coeffs, e->col, e->nsrc, refs, e->ndst,
                             refs + e->nsrc, l);
    if (refs != stack) free(refs);
    return st;
}

static lincoll_status_t lc_enc_csteps(lc_plan_t *np, const lc_plan_t *tp, size_t B,
                                      const lc_step_t *s, unsigned n, int g, int when, size_t l)
{
    lincoll_status_t st = LINCOLL_OK;
    for (unsigned i = 0; i < n && st == LINCOLL_OK; i++)
        st = lc_enc_cstep(np, tp, B, &s[i], g, when, l);
    return st;
}

/* Piece c of template tp: chunk [o, o + l) of every packet. */
static lincoll_status_t lc_enc_piece(const lc_plan_t *tp, size_t B, size_t o, size_t l,
                                     lc_plan_t **np_p)
{
    lc_plan_t *np;
    lincoll_status_t st = lc_plan_create(&tp->env, tp->algorithm, tp->ports, &np);
    if (st != LINCOLL_OK) return st;
    np->elem_size = tp->elem_size;
    for (unsigned i = 0; i < tp->nslots && st == LINCOLL_OK; i++) {
        const lc_slot_t *sl = &tp->slots[i];
        int r = -1;
        if (sl->size % B != 0) {
            st = LINCOLL_ERR_INTERNAL;
        } else if (sl->kind == LC_SLOT_USER) {
            /* a user slot holds one packet: its chunk */
            r = sl->size == B
                    ? lc_plan_slot_user(np, sl->ptr != NULL ? (char *)sl->ptr + o : NULL, l)
                    : (st = LINCOLL_ERR_INTERNAL, -1);
        } else if (sl->kind == LC_SLOT_SCRATCH) {
            r = sl->zero ? lc_plan_slot_zero(np, sl->size / B * l)
                         : lc_plan_slot_scratch(np, sl->size / B * l);
        } else {
            st = LINCOLL_ERR_INTERNAL;
        }
        if (st == LINCOLL_OK && r != (int)i) st = LINCOLL_ERR_NOMEM;
    }
    if (st == LINCOLL_OK && lc_plan_rounds_upto(np, (int)tp->nrounds - 1) < 0 && tp->nrounds > 0)
        st = LINCOLL_ERR_NOMEM;
    for (unsigned t = 0; t < tp->nrounds && st == LINCOLL_OK; t++) {
        const lc_round_t *R = &tp->rounds[t];
        for (unsigned i = 0; i < R->nxfers && st == LINCOLL_OK; i++) {
            const lc_xfer_t *x = &R->xfers[i];
            lc_bufref_t ref;
            size_t len;
            if ((x->kind != LC_XFER_SEND && x->kind != LC_XFER_RECV) ||
                lc_enc_cmap(tp, B, x->buf, x->len, l, &ref, &len) != 0) {
                st = LINCOLL_ERR_INTERNAL;
                break;
            }
            st = x->kind == LC_XFER_SEND ? lc_plan_send(np, (int)t, x->peer, ref, len)
                                         : lc_plan_recv(np, (int)t, x->peer, ref, len);
        }
        if (st == LINCOLL_OK)
            st = lc_enc_csteps(np, tp, B, R->pre, R->npre, (int)t, LC_STEP_PRE, l);
        if (st == LINCOLL_OK)
            st = lc_enc_csteps(np, tp, B, R->during, R->nduring, (int)t, LC_STEP_DURING, l);
        if (st == LINCOLL_OK)
            st = lc_enc_csteps(np, tp, B, R->post, R->npost, (int)t, LC_STEP_POST, l);
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

size_t lc_enc_chunk_size(const lc_config_t *cfg, unsigned T, size_t B, size_t req)
{
    if (T == 0 || req == LINCOLL_ENCODE_CHUNK_NONE) return B;
    /* n T rounds, and twice that under LINCOLL_ENCODE_CHECKSUM */
    const unsigned nmax_tag = (unsigned)((LC_PLAN_MAX_ROUNDS / 2 - 1) / T);
    size_t S;
    if (req != 0) { /* asked for */
        S = lc_enc_round_up(req < B ? req : B, LC_ENC_CHUNK_ALIGN);
        unsigned lim = nmax_tag < LC_ENC_MAX_CHUNKS ? nmax_tag : LC_ENC_MAX_CHUNKS;
        if (lim < 1) lim = 1;
        if ((B + S - 1) / S > lim) {
            size_t S2 = lc_enc_round_up((B + lim - 1) / lim, LC_ENC_CHUNK_ALIGN);
            lc_debug("encode: chunk of %zu bytes gives more than %u chunks; using %zu", S, lim, S2);
            S = S2;
        }
    } else {
        S = lc_pipeline_piece(cfg, T, B, LC_ENC_CHUNK_AUTO_MIN, LC_ENC_CHUNK_AUTO_Q,
                              LC_ENC_AUTO_MAX);
    }
    return S < B ? S : B;
}

lincoll_status_t lc_enc_chunk_plan(lc_enc_b_t *b)
{
    lc_plan_t *tp = b->plan;
    lc_enc_priv_t *pv = b->priv;
    const size_t B = b->B;
    const unsigned T = tp->nrounds;
    pv->nchunks = 1;
    pv->chunk = B;
    int any = 0;
    for (unsigned t = 0; t < T; t++)
        any |= tp->rounds[t].nxfers > 0;
    if (!any || T == 0 || b->chunk_req == LINCOLL_ENCODE_CHUNK_NONE) return LINCOLL_OK;
    const size_t S = lc_enc_chunk_size(tp->env.cfg, T, B, b->chunk_req);
    unsigned n = (unsigned)((B + S - 1) / S);
    if (n < 2) return LINCOLL_OK;
    lc_plan_t **pc = calloc(n, sizeof(*pc));
    if (pc == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    for (unsigned c = 0; c < n && st == LINCOLL_OK; c++) {
        size_t o = (size_t)c * S, l = o + S <= B ? S : B - o;
        st = lc_enc_piece(tp, B, o, l, &pc[c]);
    }
    lc_plan_t *np = NULL;
    if (st == LINCOLL_OK) {
        /* the algorithm's data (coefficient tables) goes with piece 0 */
        pc[0]->priv = tp->priv;
        pc[0]->priv_free = tp->priv_free;
        tp->priv = NULL;
        tp->priv_free = NULL;
        st = lc_pass_pipeline(pc, n, &np);
    } else {
        for (unsigned c = 0; c < n; c++)
            lc_plan_destroy(pc[c]);
    }
    free(pc);
    if (st != LINCOLL_OK) return st;
    lc_plan_destroy(tp);
    b->plan = np;
    pv->nchunks = n;
    pv->chunk = S;
    lc_debug("encode %s: packet of %zu bytes in %u chunks of %zu (%u -> %u message rounds)",
             np->algorithm, B, n, S, T, n * T);
    return LINCOLL_OK;
}

lincoll_status_t lc_enc_slice_plan(lc_enc_b_t *b, size_t S)
{
    lc_plan_t *tp = b->plan;
    lc_enc_priv_t *pv = b->priv;
    const size_t B = b->B;
    const unsigned n = S > 0 && S < B ? (unsigned)((B + S - 1) / S) : 1;
    pv->sliced = 1;
    pv->nchunks = 1;
    pv->chunk = B;
    if (n < 2 || tp->nrounds == 0) return LINCOLL_OK;
    lc_plan_t **pc = calloc(n, sizeof(*pc));
    if (pc == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    for (unsigned c = 0; c < n && st == LINCOLL_OK; c++) {
        size_t o = (size_t)c * S, l = o + S <= B ? S : B - o;
        st = lc_enc_piece(tp, B, o, l, &pc[c]);
    }
    lc_plan_t *np = NULL;
    if (st == LINCOLL_OK) {
        pc[0]->priv = tp->priv;
        pc[0]->priv_free = tp->priv_free;
        tp->priv = NULL;
        tp->priv_free = NULL;
        st = lc_pass_wavefront(pc, n, &np);
    } else {
        for (unsigned c = 0; c < n; c++)
            lc_plan_destroy(pc[c]);
    }
    free(pc);
    if (st != LINCOLL_OK) return st;
    lc_plan_destroy(tp);
    b->plan = np;
    pv->nchunks = n;
    pv->chunk = S;
    lc_debug("encode %s: packet of %zu bytes in %u slices of %zu (%u -> %u rounds, wavefront)",
             np->algorithm, B, n, S, np->nrounds - n + 1, np->nrounds);
    return LINCOLL_OK;
}
