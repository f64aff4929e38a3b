/*
 * core/plan/pass_pipeline.c: chunk pipelining as a pass over any plan
 * (docs/architecture.md, "Passes").
 *
 * What: the family compiles its algorithm n times, once per piece of the
 * data (piece c = bytes [c S, c S + l_c) of every buffer), giving n plans of
 * identical structure (T rounds each).  This pass merges them round-major:
 * global round g = t n + c carries round t of piece c, and moves each
 * piece's compute next to another piece's transfers:
 *   POST and DURING steps of (c, t) -> DURING of global round g + 1 (the last: POST),
 *   PRE steps of (c, t)             -> DURING of global round g - 1 (the first: PRE).
 * Round g +- 1 belongs to another piece (n >= 2), whose buffers are other
 * slots, so those steps touch none of its transfers; and piece c's next
 * round is g + n >= g + 2, so every dependency within a piece stays
 * satisfied (the order within one DURING list is post(g-1) then pre(g+1)).
 * With the executor's DURING steps, the compute of piece c runs while the
 * transfers of piece c+1 fly.
 *
 * Slots, rings and credits of the pieces are concatenated (references are
 * renumbered, also inside GF and GEMM operand blocks).  Windows of one key
 * merge into one: a scratch window grows by each piece's length, a window
 * over a user buffer by each piece's part of it (the parts must follow on);
 * each piece's views and puts move by its offset in the merged window.  So
 * pipelining composes with zero-copy plans.  Rounds that run every n-th
 * start cannot be pipelined.
 *
 * Wavefront (lc_pass_wavefront): global round g = t + c carries round t of
 * every piece c with 0 <= g - c < T, so piece c + 1 runs one round behind
 * piece c and the merged plan has T + n - 1 rounds instead of n T.  Steps
 * stay in their round and phase: a piece's round t + 1 is the next merged
 * round, so its dependencies hold as in the template, and the pieces'
 * buffers are other slots.  This is the pipeline of a chain (ECPipe: slice c
 * leaves hop t while slice c + 1 arrives): a rank that forwards in template
 * round t and receives in round t - 1 sends slice c and receives slice
 * c + 1 in one merged round.  The merged rounds must respect the port limit
 * (lc_plan_finalize checks it): it holds when no rank sends, or receives, in
 * more template rounds than it has ports.
 * Cost: the plan stats of the merged plan model the overlap themselves
 * (plan_cost.c: a round costs the larger of its transfer and its DURING
 * compute).  lc_pipeline_piece() is the choice every rank makes alike: the
 * piece size with the least predicted time on the profile "one piece moved
 * and one folded per round", which depends only on the bytes, T and the
 * model constants:
 *   n = 1: T (alpha + l beta + l gamma)
 *   n > 1: l gamma + sum over n T rounds of (alpha + max(l beta, l gamma)),
 *          l = bytes / n.
 * Wavefront: T + n - 1 rounds of one piece each (per rank), the chain's
 * (T + n - 1)(alpha + l beta) when every hop is a round of one slice.
 * Restrictions: pieces with the same number of rounds and the same every/phase
 * (1) in each; at most LC_PLAN_MAX_ROUNDS rounds in all.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/plan/plan.h"
#include "core/plan/plan_steps.h"

/* A copy of step s with its slots renumbered by +base (ext copied too). */
static lincoll_status_t lc_step_remap(const lc_step_t *s, uint32_t base, lc_step_t *o)
{
    *o = *s;
    o->dst.slot += base;
    o->a.slot += base;
    o->b.slot += base;
    o->ext = NULL;
    if (s->ext == NULL) return LINCOLL_OK;
    if (s->kind == LC_STEP_GF_LINCOMB || s->kind == LC_STEP_GF_MAD) {
        const lc_gf_step_ext_t *e = s->ext;
        size_t n = (size_t)(e->nsrc + e->ndst);
        lc_gf_step_ext_t *c = malloc(sizeof(*c) + n * sizeof(lc_bufref_t));
        if (c == NULL) return LINCOLL_ERR_NOMEM;
        memcpy(c, e, sizeof(*c) + n * sizeof(lc_bufref_t));
        for (size_t i = 0; i < n; i++)
            c->refs[i].slot += base;
        o->ext = c;
        return LINCOLL_OK;
    }
    if (s->kind == LC_STEP_GEMM) {
        lc_gemm_ext_t *g = malloc(sizeof(*g));
        if (g == NULL) return LINCOLL_ERR_NOMEM;
        *g = *(const lc_gemm_ext_t *)s->ext;
        g->a.slot += base;
        g->b.slot += base;
        g->c.slot += base;
        o->ext = g;
        return LINCOLL_OK;
    }
    return LINCOLL_ERR_INTERNAL;
}

static lincoll_status_t lc_add_steps(lc_plan_t *np, const lc_step_t *s, unsigned n, uint32_t base,
                                     int round, int when)
{
    for (unsigned i = 0; i < n; i++) {
        lc_step_t c;
        lincoll_status_t st = lc_step_remap(&s[i], base, &c);
        if (st == LINCOLL_OK) st = lc_plan_step(np, round, when, &c);
        if (st != LINCOLL_OK) return st;
    }
    return LINCOLL_OK;
}

/* The merged plan's window of key, or -1. */
static int lc_win_by_key(const lc_plan_t *p, int key)
{
    for (unsigned i = 0; i < p->nwins; i++)
        if (p->wins[i].key == key) return (int)i;
    return -1;
}

/* How the references of one piece move in the merged plan. */
typedef struct lc_piece_map {
    uint32_t sbase;       /* slot offset */
    uint32_t rbase;       /* ring offset */
    const int *wmap;      /* piece window -> merged window */
    const size_t *wdelta; /* piece window -> its offset in the merged window */
} lc_piece_map_t;

/* One round R of a piece into merged round g (of G): its transfers, and its
 * steps where the mode puts them. */
static lincoll_status_t lc_pipeline_place(lc_plan_t *np, const lc_round_t *R,
                                          const lc_piece_map_t *m, unsigned g, unsigned G, int wave)
{
    const uint32_t b = m->sbase;
    lincoll_status_t st = LINCOLL_OK;
    if (R->every != 1) {
        lc_debug("plan %s: a round that runs every %u-th start cannot be pipelined", np->algorithm,
                 R->every);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    for (unsigned i = 0; i < R->nxfers && st == LINCOLL_OK; i++) {
        lc_xfer_t x = R->xfers[i];
        x.buf.slot += b;
        switch (x.kind) {
        case LC_XFER_SEND:
            st = lc_plan_send(np, (int)g, x.peer, x.buf, x.len);
            break;
        case LC_XFER_RECV:
            st = lc_plan_recv(np, (int)g, x.peer, x.buf, x.len);
            break;
        case LC_XFER_PUT:
            st = lc_plan_put(np, (int)g, x.peer, x.buf, x.len, m->wmap[x.win],
                             x.roff + m->wdelta[x.win], x.ring ? x.ring + m->rbase : 0);
            break;
        case LC_XFER_WAIT:
            st = lc_plan_wait(np, (int)g, x.peer, m->wmap[x.win], x.count, x.buf, x.len);
            break;
        }
    }
    if (st != LINCOLL_OK) return st;
    if (wave) { /* the piece's next round is the next merged round: steps stay */
        st = lc_add_steps(np, R->pre, R->npre, b, (int)g, LC_STEP_PRE);
        if (st == LINCOLL_OK)
            st = lc_add_steps(np, R->during, R->nduring, b, (int)g, LC_STEP_DURING);
        if (st == LINCOLL_OK) st = lc_add_steps(np, R->post, R->npost, b, (int)g, LC_STEP_POST);
        return st;
    }
    st = g == 0 ? lc_add_steps(np, R->pre, R->npre, b, 0, LC_STEP_PRE)
                : lc_add_steps(np, R->pre, R->npre, b, (int)g - 1, LC_STEP_DURING);
    int after = g + 1 < G ? (int)g + 1 : (int)g, when = g + 1 < G ? LC_STEP_DURING : LC_STEP_POST;
    if (st == LINCOLL_OK) st = lc_add_steps(np, R->during, R->nduring, b, after, when);
    if (st == LINCOLL_OK) st = lc_add_steps(np, R->post, R->npost, b, after, when);
    return st;
}

/* Where round t of piece c goes: round-major (g = t n + c, compute moved
 * beside the neighbouring pieces' transfers) or wavefront (g = t + c,
 * compute stays in its round). */
static lincoll_status_t lc_pipeline_build(lc_plan_t **pc, unsigned n, lc_plan_t *np, int wave)
{
    const unsigned T = pc[0]->nrounds;
    lincoll_status_t st = LINCOLL_OK;
    uint32_t *sbase = calloc(n, sizeof(*sbase)), *rbase = calloc(n, sizeof(*rbase));
    int **wmap = calloc(n, sizeof(*wmap));
    if (sbase == NULL || rbase == NULL || wmap == NULL) st = LINCOLL_ERR_NOMEM;
    /* windows (by key), slots, rings, credits */
    size_t **wdelta = calloc(n, sizeof(*wdelta)); /* piece c's offset in merged window */
    if (wdelta == NULL) st = LINCOLL_ERR_NOMEM;
    for (unsigned c = 0; st == LINCOLL_OK && c < n; c++) {
        const lc_plan_t *q = pc[c];
        if (q->nrounds != T || q->p2p) {
            lc_error("plan %s: pieces of a pipeline differ in rounds", q->algorithm);
            st = LINCOLL_ERR_INTERNAL;
            break;
        }
        sbase[c] = np->nslots;
        rbase[c] = np->nrings ? np->nrings - 1 : 0;
        wmap[c] = calloc(q->nwins ? q->nwins : 1, sizeof(int));
        wdelta[c] = calloc(q->nwins ? q->nwins : 1, sizeof(size_t));
        if (wmap[c] == NULL || wdelta[c] == NULL) {
            st = LINCOLL_ERR_NOMEM;
            break;
        }
        for (unsigned i = 0; st == LINCOLL_OK && i < q->nslots; i++) {
            if (np->nslots == np->cap_slots) {
                unsigned cap = np->cap_slots ? 2 * np->cap_slots : 8;
                lc_slot_t *ns = realloc(np->slots, cap * sizeof(*ns));
                if (ns == NULL) {
                    st = LINCOLL_ERR_NOMEM;
                    break;
                }
                np->slots = ns;
                np->cap_slots = cap;
            }
            lc_slot_t sl = q->slots[i];
            if (sl.ring != 0) sl.ring += rbase[c];
            np->slots[np->nslots++] = sl; /* views are remapped below */
        }
        /* windows of one key merge: a scratch window grows by the piece's
         * length; a window over a user buffer grows by the piece's part,
         * which must follow the part before (the pieces of one buffer) */
        for (unsigned w = 0; st == LINCOLL_OK && w < q->nwins; w++) {
            const lc_win_decl_t *d = &q->wins[w];
            int m = lc_win_by_key(np, d->key);
            if (m < 0) {
                m = d->kind == LC_WIN_USER ? lc_plan_win_user(np, d->key, (int)(sbase[c] + d->slot))
                                           : lc_plan_win_scratch(np, d->key, d->len);
                if (m < 0) st = LINCOLL_ERR_NOMEM;
                if (m >= 0) np->wins[m].mtype = d->mtype;
                wmap[c][w] = m;
                continue;
            }
            lc_win_decl_t *e = &np->wins[m];
            if (e->kind != d->kind) st = LINCOLL_ERR_INTERNAL;
            if (st == LINCOLL_OK && d->kind == LC_WIN_USER) {
                lc_slot_t *es = &np->slots[e->slot];
                const char *dp = q->slots[d->slot].ptr;
                if (dp != (const char *)es->ptr + e->len) st = LINCOLL_ERR_INTERNAL;
                if (st == LINCOLL_OK) es->size = e->len + d->len;
            }
            if (st != LINCOLL_OK) {
                lc_error("plan %s: pieces declare window key %d over memory that does not follow "
                         "on",
                         q->algorithm, d->key);
                st = LINCOLL_ERR_UNSUPPORTED;
                break;
            }
            wdelta[c][w] = e->len;
            e->len += d->len;
            wmap[c][w] = m;
        }
        for (unsigned i = 0; st == LINCOLL_OK && i < q->nslots; i++) {
            if (q->slots[i].kind != LC_SLOT_PEER) continue;
            lc_slot_t *sl = &np->slots[sbase[c] + i];
            sl->win = wmap[c][q->slots[i].win];
            sl->off += wdelta[c][q->slots[i].win];
        }
        for (unsigned g = 1; st == LINCOLL_OK && g < q->nrings; g++) {
            if (lc_plan_ring(np, q->rings[g].depth, q->rings[g].stride) == 0)
                st = LINCOLL_ERR_NOMEM;
        }
        for (unsigned i = 0; st == LINCOLL_OK && i < q->ncredits; i++) {
            st =
                lc_plan_credit(np, wmap[c][q->credits[i].win], q->credits[i].peer, q->credits[i].n);
        }
    }
    const unsigned G = wave ? (T > 0 ? T + n - 1 : 0) : n * T;
    if (st == LINCOLL_OK && G > LC_PLAN_MAX_ROUNDS) {
        lc_error("plan %s: %u pieces of %u rounds are more than %u rounds", np->algorithm, n, T,
                 LC_PLAN_MAX_ROUNDS);
        st = LINCOLL_ERR_UNSUPPORTED;
    }
    if (st == LINCOLL_OK && G > 0 && lc_plan_rounds_upto(np, (int)G - 1) < 0)
        st = LINCOLL_ERR_NOMEM;
    /* round t of piece c into merged round g = t n + c (one (t, c) per g),
     * or g = t + c (pieces c = max(0, g - T + 1) .. min(g, n - 1), in order) */
    for (unsigned g = 0; g < G && st == LINCOLL_OK; g++) {
        unsigned lo = wave ? (g + 1 > T ? g + 1 - T : 0) : g % n;
        unsigned hi = wave ? (g < n - 1 ? g : n - 1) : g % n;
        for (unsigned c = lo; c <= hi && st == LINCOLL_OK; c++) {
            const unsigned t = wave ? g - c : g / n;
            const lc_piece_map_t m = {sbase[c], rbase[c], wmap[c], wdelta[c]};
            st = lc_pipeline_place(np, &pc[c]->rounds[t], &m, g, G, wave);
        }
    }
    for (unsigned c = 0; wmap != NULL && c < n; c++)
        free(wmap[c]);
    for (unsigned c = 0; wdelta != NULL && c < n; c++)
        free(wdelta[c]);
    free(wmap);
    free(wdelta);
    free(sbase);
    free(rbase);
    return st;
}

static lincoll_status_t lc_pass_merge(lc_plan_t **pieces, unsigned n, int wave, lc_plan_t **out_p)
{
    lc_plan_t *np = NULL;
    lincoll_status_t st = n >= 1 ? LINCOLL_OK : LINCOLL_ERR_INTERNAL;
    int ports = 1;
    for (unsigned c = 0; c < n; c++)
        ports = pieces[c]->ports > ports ? pieces[c]->ports : ports;
    /* memory types first: each piece's staging copies then move with its
     * other steps, beside another piece's transfers */
    for (unsigned c = 0; st == LINCOLL_OK && c < n; c++)
        st = lc_pass_device(pieces[c]);
    if (st == LINCOLL_OK) st = lc_plan_create(&pieces[0]->env, pieces[0]->algorithm, ports, &np);
    if (st == LINCOLL_OK) {
        np->elem_size = pieces[0]->elem_size;
        np->dev_done = 1;
        for (unsigned c = 0; c < n; c++)
            np->has_dev |= pieces[c]->has_dev;
        st = lc_pipeline_build(pieces, n, np, wave);
    }
    if (st == LINCOLL_OK) { /* the algorithm's data goes with the result */
        np->priv = pieces[0]->priv;
        np->priv_free = pieces[0]->priv_free;
        pieces[0]->priv = NULL;
        pieces[0]->priv_free = NULL;
    } else {
        lc_plan_destroy(np);
        np = NULL;
    }
    for (unsigned c = 0; c < n; c++) {
        lc_plan_destroy(pieces[c]);
        pieces[c] = NULL;
    }
    *out_p = np;
    return st;
}

static size_t lc_round_up(size_t v, size_t q)
{
    return (v + q - 1) / q * q;
}

/* predicted seconds of one start cut in n pieces (see the file comment) */
static double lc_pipeline_time(const lc_config_t *cfg, unsigned T, size_t bytes, unsigned n)
{
    const double a = cfg->model_alpha, be = 1.0 / cfg->model_bw, ga = 1.0 / cfg->model_compute_bw;
    const double l = (double)bytes / (double)n;
    if (n <= 1) return T * (a + l * be + l * ga);
    const double x = l * be, c = l * ga;
    return c + (double)n * T * (a + (x > c ? x : c));
}

size_t lc_pipeline_piece(const lc_config_t *cfg, unsigned T, size_t bytes, size_t min_piece,
                         size_t quantum, unsigned max_pieces)
{
    size_t S = bytes;
    if (T == 0 || bytes == 0) return S;
    const unsigned lim_rounds = LC_PLAN_MAX_ROUNDS / 2 / T; /* room for the checksum pass */
    const unsigned lim = max_pieces < lim_rounds ? max_pieces : lim_rounds;
    double best = lc_pipeline_time(cfg, T, bytes, 1);
    size_t prev = bytes;
    for (unsigned n = 2; n <= lim && bytes / n >= min_piece; n++) {
        size_t s = lc_round_up((bytes + n - 1) / n, quantum);
        if (s >= prev) continue;
        prev = s;
        unsigned nn = (unsigned)((bytes + s - 1) / s);
        if (nn < 2) continue;
        double t = lc_pipeline_time(cfg, T, bytes, nn);
        if (t < best) {
            best = t;
            S = s;
        }
    }
    return S;
}

lincoll_status_t lc_pass_pipeline(lc_plan_t **pieces, unsigned n, lc_plan_t **out_p)
{
    return lc_pass_merge(pieces, n, 0, out_p);
}

lincoll_status_t lc_pass_wavefront(lc_plan_t **pieces, unsigned n, lc_plan_t **out_p)
{
    return lc_pass_merge(pieces, n, 1, out_p);
}
