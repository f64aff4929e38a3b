/*
 * core/matmul/layout.c: distributions (ScaLAPACK-style block-cyclic
 * descriptors on a Pr x Pc x c grid), the sub-matrix helpers the plan
 * compilers share (pack with COPY steps, GEMM steps).  The public
 * descriptor calls (lincoll_matdesc_*) are matmul_api_layout.c's; the
 * scatter / gather plans that move a global matrix from one rank into a
 * distribution and back are compiled by scatter_gather.c.
 *
 * Scatter: the root packs each rank's local array (one COPY per column
 * segment of every block it owns, or one COPY when the block is contiguous)
 * into a scratch area and sends it; ceil((P-1)/p) rounds on p ports.
 * Cost = ceil((P-1)/p).alpha + (mn - local).beta at the root; no
 * scratch on the receivers unless their lld is not tight.  Gather is the
 * mirror image.  Layer 0 only (2.5D layers > 0 get nothing).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/matmul/mm_int.h"

void lc_mm_why(char *why, size_t len, const char *fmt, ...)
{
    if (why == NULL || len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

/* ---- geometry -------------------------------------------------------------- */

int64_t lc_mm_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs)
{
    int mydist = (nprocs + iproc - isrc) % nprocs;
    int64_t nblocks = n / nb;
    int64_t num = (nblocks / nprocs) * nb;
    int64_t extra = nblocks % nprocs;
    if (mydist < extra) {
        num += nb;
    } else if (mydist == extra) {
        num += n % nb;
    }
    return num;
}

int lc_mm_owner(int64_t g, int64_t nb, int isrc, int nprocs)
{
    return (int)((g / nb + isrc) % nprocs);
}

int64_t lc_mm_g2l(int64_t g, int64_t nb, int nprocs)
{
    return (g / nb / nprocs) * nb + g % nb;
}

int lc_mm_rank(const lincoll_matdesc_t *d, int layer, int row, int col)
{
    return (layer * d->pr + row) * d->pc + col;
}

int64_t lc_mm_tight_ld(const lincoll_matdesc_t *d, int64_t rows, int64_t cols)
{
    int64_t v = d->layout == LINCOLL_ROW_MAJOR ? cols : rows;
    return v > 1 ? v : 1;
}

lincoll_status_t lc_mm_check_desc(const lincoll_matdesc_t *d, const char *name, int P)
{
    LC_CHECK_ARG(d != NULL, "matmul: %s must not be NULL", name);
    LC_CHECK_ARG(d->m >= 0 && d->n >= 0, "matmul: %s: m=%lld n=%lld must be >= 0", name,
                 (long long)d->m, (long long)d->n);
    LC_CHECK_ARG(d->mb >= 1 && d->nb >= 1, "matmul: %s: block sizes mb=%lld nb=%lld must be >= 1",
                 name, (long long)d->mb, (long long)d->nb);
    LC_CHECK_ARG(d->pr >= 1 && d->pc >= 1 && d->layers >= 1,
                 "matmul: %s: grid %dx%dx%d must have positive dimensions", name, d->pr, d->pc,
                 d->layers);
    LC_CHECK_ARG(d->rsrc >= 0 && d->rsrc < d->pr && d->csrc >= 0 && d->csrc < d->pc,
                 "matmul: %s: rsrc=%d csrc=%d outside the %dx%d grid", name, d->rsrc, d->csrc,
                 d->pr, d->pc);
    LC_CHECK_ARG(d->layout == LINCOLL_COL_MAJOR || d->layout == LINCOLL_ROW_MAJOR,
                 "matmul: %s: unknown layout %d", name, (int)d->layout);
    LC_CHECK_ARG((long)d->pr * d->pc * d->layers == P,
                 "matmul: %s: grid %dx%dx%d covers %ld ranks but the communicator has %d", name,
                 d->pr, d->pc, d->layers, (long)d->pr * d->pc * d->layers, P);
    LC_CHECK_ARG(d->lld >= 0, "matmul: %s: lld=%lld must be >= 0 (0 = tight)", name,
                 (long long)d->lld);
    return LINCOLL_OK;
}

/* lld check for one rank: ScaLAPACK's LLD >= max(1, local rows) */
lincoll_status_t lc_mm_check_ld(const lincoll_matdesc_t *d, const char *name, int rank, int t)
{
    int64_t rows, cols, ld;
    LC_CHECK_ARG(rank >= 0 && rank < d->pr * d->pc * d->layers,
                 "matmul: %s: rank %d outside the %dx%dx%d grid", name, rank, d->pr, d->pc,
                 d->layers);
    lc_mm_desc_local(d, rank, &rows, &cols, &ld);
    /* a transposed local array is stored cols x rows */
    int64_t need = t ? lc_mm_tight_ld(d, cols, rows) : lc_mm_tight_ld(d, rows, cols);
    LC_CHECK_ARG(d->lld == 0 || d->lld >= need,
                 "matmul: %s: lld=%lld is smaller than the %s-major local %s of %lld on rank %d%s",
                 name, (long long)d->lld, d->layout == LINCOLL_ROW_MAJOR ? "row" : "column",
                 d->layout == LINCOLL_ROW_MAJOR ? "columns" : "rows", (long long)need, rank,
                 t ? " (local array stored transposed)" : "");
    return LINCOLL_OK;
}

lc_mm_region_t lc_mm_local(const lincoll_matdesc_t *d, int slot, int row, int col, int64_t ld)
{
    lc_mm_region_t g = {slot,
                        0,
                        ld,
                        lc_mm_numroc(d->m, d->mb, row, d->rsrc, d->pr),
                        lc_mm_numroc(d->n, d->nb, col, d->csrc, d->pc),
                        0};
    if (ld <= 0) g.ld = lc_mm_tight_ld(d, g.rows, g.cols);
    return g;
}

lc_mm_region_t lc_mm_tight(lincoll_layout_t L, int slot, int64_t rows, int64_t cols, int t)
{
    int64_t sr = t ? cols : rows, sc = t ? rows : cols;
    int64_t ld = L == LINCOLL_ROW_MAJOR ? sc : sr;
    lc_mm_region_t g = {slot, 0, ld > 1 ? ld : 1, rows, cols, t};
    return g;
}

size_t lc_mm_elem_off(lincoll_layout_t L, const lc_mm_region_t *g, int64_t r, int64_t c, size_t es)
{
    if (g->t) {
        int64_t x = r;
        r = c, c = x;
    }
    int64_t e = L == LINCOLL_ROW_MAJOR ? r * g->ld + c : c * g->ld + r;
    return g->off + (size_t)e * es;
}

lc_mm_region_t lc_mm_sub(lincoll_layout_t L, const lc_mm_region_t *g, int64_t r0, int64_t c0,
                         int64_t rows, int64_t cols, size_t es)
{
    lc_mm_region_t s = {g->slot, lc_mm_elem_off(L, g, r0, c0, es), g->ld, rows, cols, g->t};
    return s;
}

int lc_mm_contig(lincoll_layout_t L, const lc_mm_region_t *g)
{
    int64_t sr = g->t ? g->cols : g->rows, sc = g->t ? g->rows : g->cols; /* as stored */
    return L == LINCOLL_ROW_MAJOR ? (sr <= 1 || sc == g->ld) : (sc <= 1 || sr == g->ld);
}

static size_t lc_mm_bytes(const lc_mm_region_t *g, size_t es)
{
    return (size_t)(g->rows * g->cols) * es;
}

lincoll_status_t lc_mm_copy(lc_plan_t *p, int round, int post, lincoll_layout_t L,
                            const lc_mm_region_t *dst, const lc_mm_region_t *src, size_t es)
{
    if (dst->rows == 0 || dst->cols == 0) return LINCOLL_OK;
    if (dst->t != src->t) {
        lc_error("plan %s: copy between a transposed and a plain region", p->algorithm);
        return LINCOLL_ERR_INTERNAL;
    }
    if (lc_mm_contig(L, dst) && lc_mm_contig(L, src)) {
        return lc_plan_copy(p, round, post, lc_ref(dst->slot, dst->off),
                            lc_ref(src->slot, src->off), lc_mm_bytes(dst, es));
    }
    int row = L == LINCOLL_ROW_MAJOR;
    int64_t sr = dst->t ? dst->cols : dst->rows, sc = dst->t ? dst->rows : dst->cols;
    int64_t nvec = row ? sr : sc, len = row ? sc : sr;
    lincoll_status_t st = LINCOLL_OK;
    for (int64_t v = 0; v < nvec && st == LINCOLL_OK; v++) {
        size_t d = dst->off + (size_t)(v * dst->ld) * es, s = src->off + (size_t)(v * src->ld) * es;
        st = lc_plan_copy(p, round, post, lc_ref(dst->slot, d), lc_ref(src->slot, s),
                          (size_t)len * es);
    }
    return st;
}

lincoll_status_t lc_mm_gemm(lc_plan_t *p, const lc_mm_t *mm, int round, int post, int64_t m,
                            int64_t n, int64_t k, double beta, const lc_mm_region_t *A,
                            const lc_mm_region_t *B, const lc_mm_region_t *C)
{
    if (m == 0 || n == 0 || mm->comm_only) return LINCOLL_OK;
    if (C->t) {
        lc_error("plan %s: GEMM into a transposed C", p->algorithm);
        return LINCOLL_ERR_INTERNAL;
    }
    lc_gemm_ext_t *g = calloc(1, sizeof(*g));
    if (g == NULL) return LINCOLL_ERR_NOMEM;
    *g = (lc_gemm_ext_t){.m = m,
                         .n = n,
                         .k = k,
                         .alpha = mm->alpha,
                         .beta = beta,
                         .dtype = mm->dtype,
                         .layout = mm->dc.layout,
                         .ta = A->t ? LINCOLL_TRANS : LINCOLL_NO_TRANS,
                         .tb = B->t ? LINCOLL_TRANS : LINCOLL_NO_TRANS,
                         .progress = post == LC_STEP_DURING,
                         .a = lc_ref(A->slot, A->off),
                         .b = lc_ref(B->slot, B->off),
                         .c = lc_ref(C->slot, C->off),
                         .lda = A->ld > 0 ? A->ld : 1,
                         .ldb = B->ld > 0 ? B->ld : 1,
                         .ldc = C->ld > 0 ? C->ld : 1};
    if (k == 0) g->a = g->b = g->c;
    lc_step_t s = lc_step_gemm_make(g);
    lc_mm_priv_t *pv = p->priv;
    if (pv != NULL) pv->info.flops += 2.0 * (double)m * (double)n * (double)k;
    return lc_plan_step(p, round, post, &s);
}

lc_mm_region_t lc_mm_user(lc_plan_t *p, const lc_mm_t *mm, const lincoll_matdesc_t *d,
                          const void *ptr, int t)
{
    lc_mm_region_t g = {-1, 0, 1, 0, 0, t};
    if (mm->pl == 0) {
        g = lc_mm_local(d, -1, mm->pi, mm->pj, d->lld);
        g.t = t;
        if (d->lld <= 0) g.ld = lc_mm_tight(d->layout, -1, g.rows, g.cols, t).ld;
    }
    size_t size = 0;
    if (g.rows > 0 && g.cols > 0) {
        int64_t sr = t ? g.cols : g.rows, sc = t ? g.rows : g.cols; /* as stored */
        int64_t nvec = d->layout == LINCOLL_ROW_MAJOR ? sr : sc;
        int64_t len = d->layout == LINCOLL_ROW_MAJOR ? sc : sr;
        size = (size_t)((nvec - 1) * g.ld + len) * mm->es;
    }
    g.slot = lc_plan_slot_user(p, size ? (void *)ptr : NULL, size);
    return g;
}

/* extent in bytes of a GEMM operand (op shape rows x cols, leading dimension ld) */
static size_t lc_mm_span(lincoll_layout_t L, int trans, int64_t rows, int64_t cols, int64_t ld,
                         size_t es)
{
    int64_t sr = trans ? cols : rows, sc = trans ? rows : cols;
    int64_t nvec = L == LINCOLL_ROW_MAJOR ? sr : sc, len = L == LINCOLL_ROW_MAJOR ? sc : sr;
    return nvec > 0 && len > 0 ? (size_t)((nvec - 1) * ld + len) * es : 0;
}

static int lc_mm_hits(lc_bufref_t a, size_t alen, const lc_xfer_t *x)
{
    return a.slot == x->buf.slot && a.off < x->buf.off + x->len && x->buf.off < a.off + alen;
}

lincoll_status_t lc_mm_check_during(const lc_plan_t *p)
{
    for (unsigned r = 0; r < p->nrounds; r++) {
        const lc_round_t *R = &p->rounds[r];
        for (unsigned i = 0; i < R->nduring; i++) {
            const lc_gemm_ext_t *g = R->during[i].ext;
            if (R->during[i].kind != LC_STEP_GEMM || g == NULL || g->k == 0) continue;
            size_t es = lincoll_dtype_size(g->dtype);
            size_t sa = lc_mm_span(g->layout, g->ta == LINCOLL_TRANS, g->m, g->k, g->lda, es);
            size_t sb = lc_mm_span(g->layout, g->tb == LINCOLL_TRANS, g->k, g->n, g->ldb, es);
            size_t sc = lc_mm_span(g->layout, 0, g->m, g->n, g->ldc, es);
            for (unsigned k = 0; k < R->nxfers; k++) {
                const lc_xfer_t *x = &R->xfers[k];
                if (x->kind == LC_XFER_WAIT) continue;
                int recv = x->kind == LC_XFER_RECV;
                if (lc_mm_hits(g->c, sc, x) ||
                    (recv && (lc_mm_hits(g->a, sa, x) || lc_mm_hits(g->b, sb, x)))) {
                    lc_error("plan %s: round %u runs a GEMM during its transfers on a buffer "
                             "they use",
                             p->algorithm, r);
                    return LINCOLL_ERR_INTERNAL;
                }
            }
        }
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_mm_finish(lc_plan_t *p, const lc_mm_t *mm, lincoll_matmul_algo_t algo,
                              int64_t panel, lincoll_matmul_bcast_t bcast)
{
    p->elem_size = mm->es;
    lincoll_status_t st = lc_mm_check_during(p);
    if (st == LINCOLL_OK) st = lc_plan_finalize(p);
    if (st != LINCOLL_OK) return st;
    lc_mm_priv_t *pv = p->priv;
    const lincoll_plan_stats_t *s = &p->stats;
    lincoll_matmul_info_t *in = &pv->info;
    in->algo = algo;
    in->panel = panel;
    in->bcast = bcast;
    in->words_sent = s->bytes_sent / mm->es;
    in->words_recvd = s->bytes_recvd / mm->es;
    in->msgs_sent = s->msgs_sent;
    in->msgs_recvd = s->msgs_recvd;
    in->rounds = s->rounds;
    uint64_t local = 0;
    for (unsigned i = 0; i < p->nslots; i++) {
        if (p->slots[i].kind == LC_SLOT_USER) local += p->slots[i].size;
    }
    in->memory_bytes = local + s->scratch_bytes;
    double M = (double)in->memory_bytes / (double)mm->es;
    double vol = (double)mm->m * (double)mm->n * (double)mm->k;
    in->lower_bound_words = M > 0 ? vol / (2.0 * 1.4142135623730951 * mm->P * sqrt(M)) - M : 0;
    const lc_config_t *cfg = p->env.cfg;
    in->predicted_comm_us =
        1e6 * ((double)s->rounds * cfg->model_alpha + (double)s->c2_bytes / cfg->model_bw);
    /* one host: every byte is a copy through the shared memory system, and a
     * rank that sends and receives in one round (the ring's exchange, Cannon's
     * shifts) competes with its partner's copy: a round costs the bytes this
     * rank sends plus those it receives (half-duplex), not the largest message */
    double host = 0;
    for (unsigned r = 0; r < p->nrounds; r++) {
        const lc_round_t *R = &p->rounds[r];
        size_t moved = 0;
        for (unsigned i = 0; i < R->nxfers; i++)
            moved += R->xfers[i].len;
        if (R->nxfers > 0) host += cfg->model_alpha + (double)moved / cfg->model_bw;
    }
    in->predicted_comm_host_us = 1e6 * host;
    return LINCOLL_OK;
}

/* ---- descriptor helpers (pure; the public lincoll_matdesc_* calls in
 * matmul_api_layout.c check their arguments and call these) ------------------ */

void lc_mm_desc_coords(const lincoll_matdesc_t *d, int rank, int *row, int *col, int *layer)
{
    if (row) *row = (rank / d->pc) % d->pr;
    if (col) *col = rank % d->pc;
    if (layer) *layer = rank / (d->pr * d->pc);
}

void lc_mm_desc_local(const lincoll_matdesc_t *d, int rank, int64_t *rows, int64_t *cols,
                      int64_t *ld)
{
    int i, j, l;
    lc_mm_desc_coords(d, rank, &i, &j, &l);
    int64_t r = 0, c = 0;
    if (l == 0) {
        r = lc_mm_numroc(d->m, d->mb, i, d->rsrc, d->pr);
        c = lc_mm_numroc(d->n, d->nb, j, d->csrc, d->pc);
    }
    if (rows) *rows = r;
    if (cols) *cols = c;
    if (ld) *ld = d->lld > 0 ? d->lld : lc_mm_tight_ld(d, r, c);
}

lincoll_status_t lc_mm_round(lc_plan_t *p, int r)
{
    while ((int)p->nrounds <= r) {
        if (lc_plan_round(p) < 0) return LINCOLL_ERR_NOMEM;
    }
    return LINCOLL_OK;
}

int lc_mm_hibit(int v)
{
    int b = -1;
    while (v > 0) {
        v >>= 1;
        b++;
    }
    return b;
}
