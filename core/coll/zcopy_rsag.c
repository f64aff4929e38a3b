/*
 * core/coll/zcopy_rsag.c: large reduce-scatter and allgather by direct loads
 * from the peers' mapped buffers (one node, lincoll memory),
 * zcopy_reduce_scatter and zcopy_allgather.
 *
 * What (vectors of at least LINCOLL_COLL_ZCOPY_THRESHOLD bytes):
 *   allgather       round 0  each rank places its block in its own output
 *                            (unless in place), flags "ready" to every peer
 *                            and waits for theirs; then copies every peer's
 *                            block straight out of that peer's output;
 *                   round 1  "done" flags: nobody reads my output any more.
 *   reduce-scatter  round 0  "ready" flags; then each rank reduces its block
 *                            reading every peer's input in place, into its
 *                            output; round 1 "done" flags.
 * Reduction order: rhd_allreduce's bracketing (design/RHD.md §6.2; leaves
 * in vrank order, balanced tree, lower ranks left) — deterministic for a
 * given P, but for floats at P > 2 not bitwise equal to rhd_reduce_scatter,
 * whose distance-halving tree differs.
 *
 * Small vectors (below 2x the threshold for reduce-scatter, 8x for
 * allgather: measured, see lc_zc_rsag_try) on P = 2^k ranks, one latency per
 * round instead of two flag rounds, by puts into the peer's mapped scratch
 * ring (LC_ZC_DEPTH slots, start s uses slot s % DEPTH).  No credits are
 * needed: a partner puts start s's round j only after finishing start s - 1,
 * whose round j needed this rank's put of start s - 1, made after this rank
 * had finished start s - 2; the slot start s uses was last read by start
 * s - DEPTH <= s - 2:
 *   zcopy_rh_reduce_scatter  rhd_reduce_scatter's recursive halving with
 *            distance halving, k rounds: round j puts the half of the
 *            current group window the partner keeps into its scratch region
 *            j, waits for the partner's put and reduces it into the kept
 *            half (same bracketing and operand order as rhd_reduce_scatter:
 *            bitwise equal to it); in place or not;
 *   zcopy_rd_allgather  recursive doubling, k rounds: round j puts the
 *            2^j blocks this rank holds (contiguous: blocks are in rank
 *            order) into the partner's scratch at their own offsets and
 *            copies the partner's 2^j blocks from its scratch into place.
 *
 * Reference: the direct shared-memory algorithms of intra-node collectives
 * (e.g. UCC tl/shm), with lincoll's plan executor and flags; small ones:
 * MPICH's recursive halving / doubling over eager shared-memory buffers.
 * Cost: direct: 2 alpha (flags) + allgather (P-1)/P.n copied, reduce-scatter
 * P/P.n read + n/P written; C2 = 0.  Small (n = total bytes): k alpha +
 * (P-1)/P.n beta (puts) + reduce-scatter (P-1)/P.n gamma, allgather
 * (P-1)/P.n copied (+ n/P when not in place).
 * Restrictions: every rank's buffers lincoll memory (output for allgather,
 * input for reduce-scatter) and mapped by every peer; direct reduce-scatter
 * not in place; total > 0; small ones P a power of two (at most 2^16 ranks:
 * 64 puts per ring).  Checked collectively by lc_zc_rsag_try.
 */
#include <stdlib.h>

#include "core/base/log.h"
#include "core/coll/coll_int.h"
#include "core/context/win.h"

static lincoll_status_t lc_zc_flags(lincoll_plan_t *p, int round, int ref_slot, lc_win_t *win)
{
    lincoll_status_t st = LINCOLL_OK;
    for (int j = 0; j < p->comm->size && st == LINCOLL_OK; j++) {
        if (j == p->comm->rank) continue;
        st = lc_plan_put(p, round, j, lc_ref(ref_slot, 0), 0, win, 0);
        LC_COLL_TRY(st, lc_plan_wait_put(p, round, j, 0, win));
    }
    return st;
}

/* Allgather, not in place: this rank's block into its own output before
 * round 0 (a copy step in PRE). */
static lincoll_status_t lc_zc_own_block(lincoll_plan_t *p, const lc_coll_args_t *a, int out)
{
    const int me = p->comm->rank;
    const size_t es = a->es;
    if (a->inplace || a->counts[me] == 0) return LINCOLL_OK;
    int in = lc_plan_slot_user(p, (void *)a->sbuf, a->counts[me] * es);
    if (in < 0) return LINCOLL_ERR_NOMEM;
    return lc_zc_copy(p, 0, LC_STEP_PRE, lc_ref(out, a->displs[me] * es), lc_ref(in, 0),
                      a->counts[me] * es);
}

lincoll_status_t lc_zc_allgather_build(lincoll_plan_t *p, const lc_coll_args_t *a, lc_win_t *win)
{
    const int me = p->comm->rank, np = p->comm->size;
    const size_t es = a->es, tb = a->total * es;
    int out = lc_plan_slot_user(p, a->rbuf, tb);
    if (out < 0 || lc_coll_round(p, 1) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_zc_own_block(p, a, out);
    LC_COLL_TRY(st, lc_zc_flags(p, 0, out, win));
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        if (j == me || a->counts[j] == 0) continue;
        void *pj = lc_win_peer_ptr(win, j);
        int s = pj != NULL ? lc_plan_slot_user(p, pj, tb) : -1;
        if (s < 0) return pj == NULL ? LINCOLL_ERR_UNSUPPORTED : LINCOLL_ERR_NOMEM;
        st = lc_zc_copy(p, 0, LC_STEP_POST, lc_ref(out, a->displs[j] * es),
                        lc_ref(s, a->displs[j] * es), a->counts[j] * es);
    }
    LC_COLL_TRY(st, lc_zc_flags(p, 1, out, win));
    return st;
}

lincoll_status_t lc_zc_reduce_scatter_build(lincoll_plan_t *p, const lc_coll_args_t *a,
                                            lc_win_t *win)
{
    const int me = p->comm->rank, np = p->comm->size;
    const size_t es = a->es, tb = a->total * es, mine = a->counts[me];
    if (a->inplace) return LINCOLL_ERR_INTERNAL;
    int out = lc_plan_slot_user(p, a->rbuf, mine * es);
    int *x = calloc((size_t)np, sizeof(int));
    if (out < 0 || x == NULL || lc_coll_round(p, 1) < 0) {
        free(x);
        return LINCOLL_ERR_NOMEM;
    }
    lincoll_status_t st = lc_zc_flags(p, 0, out, win);
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        void *pj = lc_win_peer_ptr(win, j);
        x[j] = pj != NULL ? lc_plan_slot_user(p, pj, tb) : -1;
        if (x[j] < 0) st = pj == NULL ? LINCOLL_ERR_UNSUPPORTED : LINCOLL_ERR_NOMEM;
    }
    if (st == LINCOLL_OK && mine > 0)
        st = lc_zc_reduce_tree(p, a, 0, x, a->displs[me], mine, lc_ref(out, 0));
    LC_COLL_TRY(st, lc_zc_flags(p, 1, out, win));
    free(x);
    return st;
}

/* log2(P) when P is a power of two, else -1 */
static int lc_zc_log2(int np)
{
    int k = 0;
    while ((1 << k) < np)
        k++;
    return (1 << k) == np ? k : -1;
}

/* Small reduce-scatter, P = 2^k: see the file comment.  win: scratch ring of
 * LC_ZC_DEPTH slots of k * total elements, in whole cache lines (region j
 * of a ring slot: round j). */
lincoll_status_t lc_zc_rh_reduce_scatter_build(lincoll_plan_t *p, const lc_coll_args_t *a,
                                               lc_win_t *win)
{
    const int me = p->comm->rank, np = p->comm->size, k = lc_zc_log2(np);
    const size_t es = a->es, total = a->total, mine = a->counts[me], dme = a->displs[me];
    const size_t region = total * es, stride = lc_zc_ring_stride((size_t)k * region);
    if (k < 1 || total == 0 || win == NULL || win->len < LC_ZC_DEPTH * stride)
        return LINCOLL_ERR_INTERNAL;
    lc_zc_ring_t *g = lc_zc_ring(p, stride);
    int out = lc_plan_slot_user(p, a->rbuf, (a->inplace ? total : mine) * es);
    int src = a->inplace ? out : lc_plan_slot_user(p, (void *)a->sbuf, total * es);
    int work = (a->inplace || k == 1) ? out : lc_plan_slot_scratch(p, region);
    int scr = g != NULL ? lc_zc_ring_slot(p, g, win->base, stride) : -1;
    if (g == NULL || out < 0 || src < 0 || work < 0 || scr < 0 || lc_coll_round(p, k - 1) < 0)
        return LINCOLL_ERR_NOMEM;
    /* goff[v] = element offset of rank v's block, goff[np] = total */
    size_t *goff = malloc(((size_t)np + 1) * sizeof(*goff));
    if (goff == NULL) return LINCOLL_ERR_NOMEM;
    for (int v = 0; v < np; v++)
        goff[v] = a->displs[v];
    goff[np] = total;
    lincoll_status_t st = LINCOLL_OK;
    int cur = src;
    size_t lo = 0, w = (size_t)np;
    for (int j = k - 1; j >= 0 && st == LINCOLL_OK; j--) {
        const int mask = 1 << j, peer = me ^ mask, R = k - 1 - j;
        const size_t h = w / 2;
        const size_t keep = (me & mask) ? lo + h : lo, give = (me & mask) ? lo : lo + h;
        const size_t kn = goff[keep + h] - goff[keep], ko = goff[keep];
        const size_t gn = goff[give + h] - goff[give];
        st = lc_zc_ring_put(p, g, R, peer, lc_ref(cur, goff[give] * es), gn * es, win,
                            (size_t)R * region);
        LC_COLL_TRY(st, lc_plan_wait_put(p, R, peer, kn * es, win));
        /* the last step out of place reduces straight into rbuf */
        const int direct = j == 0 && !a->inplace;
        if (kn > 0) {
            lc_bufref_t m = lc_ref(cur, ko * es), t = lc_ref(scr, (size_t)R * region);
            LC_COLL_TRY(st, lc_plan_reduce(
                                p, R, LC_STEP_POST, direct ? lc_ref(out, 0) : lc_ref(work, ko * es),
                                me < peer ? m : t, me < peer ? t : m, kn, a->dtype, a->rop));
        }
        cur = work;
        lo = keep;
        w = h;
    }
    free(goff);
    if (st == LINCOLL_OK && a->inplace && dme > 0 && mine > 0)
        st = lc_zc_copy(p, k - 1, LC_STEP_POST, lc_ref(out, 0), lc_ref(work, dme * es), mine * es);
    return st;
}

/* Small allgather, P = 2^k: see the file comment.  win: scratch ring of
 * LC_ZC_DEPTH slots of total elements, in whole cache lines (blocks land at
 * their own offsets). */
lincoll_status_t lc_zc_rd_allgather_build(lincoll_plan_t *p, const lc_coll_args_t *a, lc_win_t *win)
{
    const int me = p->comm->rank, np = p->comm->size, k = lc_zc_log2(np);
    const size_t es = a->es, tb = a->total * es;
    if (k < 1 || tb == 0 || win == NULL || win->len < LC_ZC_DEPTH * lc_zc_ring_stride(tb))
        return LINCOLL_ERR_INTERNAL;
    lc_zc_ring_t *g = lc_zc_ring(p, lc_zc_ring_stride(tb));
    int out = lc_plan_slot_user(p, a->rbuf, tb);
    int scr = g != NULL ? lc_zc_ring_slot(p, g, win->base, tb) : -1;
    if (g == NULL || out < 0 || scr < 0 || lc_coll_round(p, k - 1) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_zc_own_block(p, a, out);
    for (int j = 0; j < k && st == LINCOLL_OK; j++) {
        const int n = 1 << j, peer = me ^ n, g0 = me & ~(n - 1), p0 = peer & ~(n - 1);
        const size_t off = a->displs[g0] * es, len = a->total * es - off;
        const size_t poff = a->displs[p0] * es, plen = a->total * es - poff;
        /* blocks [g0, g0 + n) and [p0, p0 + n) */
        const size_t mlen = g0 + n < np ? a->displs[g0 + n] * es - off : len;
        const size_t pl = p0 + n < np ? a->displs[p0 + n] * es - poff : plen;
        st = lc_zc_ring_put(p, g, j, peer, lc_ref(out, off), mlen, win, off);
        LC_COLL_TRY(st, lc_plan_wait_put(p, j, peer, pl, win));
        if (pl > 0)
            LC_COLL_TRY(st,
                        lc_zc_copy(p, j, LC_STEP_POST, lc_ref(out, poff), lc_ref(scr, poff), pl));
    }
    return st;
}

lincoll_status_t lc_zc_rsag_try(lincoll_comm_t *comm, const lc_coll_args_t *a,
                                lincoll_plan_t **plan_p)
{
    lincoll_context_t *ctx = comm->ctx;
    const size_t tb = a->total * a->es;
    const int ag = a->op == LC_COLL_ALLGATHER;
    /* identical on every rank: op, P, counts, dtype, configuration */
    /* small: puts into scratch rings on a power of two, else direct loads.
     * Measured on 2 ranks (lincoll_perf, 3 interleaved runs, us): the rings
     * win up to 2 KiB for reduce-scatter (0.13-0.17 vs 0.18-0.22; 4 KiB:
     * 0.26-0.77 vs 0.20-0.24) and up to 8 KiB for allgather (4 KiB 0.29 vs
     * 0.31-0.35, 8 KiB 0.38-0.42 vs 0.42-0.45; 32 KiB 0.88-0.98 vs
     * 0.83-0.87): below 2x and 8x LINCOLL_COLL_ZCOPY_THRESHOLD. */
    const size_t lim = ctx->cfg.zcopy_threshold * (ag ? 8 : 2);
    const int k = lc_zc_log2(comm->size), small = tb < lim;
    if ((a->op != LC_COLL_ALLGATHER && a->op != LC_COLL_REDUCE_SCATTER) || comm->size < 2 ||
        a->total == 0 || (small && k < 0) || ctx->tl_ops->rkey_ptr == NULL) {
        return LINCOLL_ERR_UNSUPPORTED;
    }
    void *win_buf = (ag || a->inplace) ? a->rbuf : (void *)a->sbuf;
    if (win_buf == NULL || lc_mem_find(ctx, win_buf, tb) == NULL) return LINCOLL_ERR_UNSUPPORTED;
    lincoll_status_t st = LINCOLL_OK, st2 = LINCOLL_OK;
    /* an in-place direct reduce-scatter on any rank sends everyone to the tag plans */
    if (!lc_zc_all_agree(comm, a, small || ag || !a->inplace, &st))
        return st != LINCOLL_OK ? st : LINCOLL_ERR_UNSUPPORTED;
    lc_win_t *w = NULL;
    if (small)
        st = lc_win_create(comm, NULL, LC_ZC_DEPTH * lc_zc_ring_stride((ag ? 1 : (size_t)k) * tb),
                           &w);
    else
        st = lc_win_create(comm, win_buf, tb, &w);
    int mapped = st == LINCOLL_OK;
    for (int j = 0; mapped && j < comm->size; j++)
        mapped = lc_win_peer_ptr(w, j) != NULL;
    int all = lc_zc_all_agree(comm, a, mapped, &st2);
    if (st == LINCOLL_OK) st = st2;
    lincoll_plan_t *plan = NULL;
    if (st == LINCOLL_OK && all) {
        st = lc_plan_create(comm,
                            small ? (ag ? "zcopy_rd_allgather" : "zcopy_rh_reduce_scatter")
                            : ag  ? "zcopy_allgather"
                                  : "zcopy_reduce_scatter",
                            small ? 1 : comm->size - 1, &plan);
    }
    if (plan != NULL && st == LINCOLL_OK) {
        plan->elem_size = a->es;
        plan->wins = calloc(1, sizeof(*plan->wins));
        if (plan->wins == NULL) st = LINCOLL_ERR_NOMEM;
    }
    if (plan != NULL && st == LINCOLL_OK) {
        plan->wins[plan->nwins++] = w;
        w = NULL;
        st = small ? (ag ? lc_zc_rd_allgather_build(plan, a, plan->wins[0])
                         : lc_zc_rh_reduce_scatter_build(plan, a, plan->wins[0]))
             : ag  ? lc_zc_allgather_build(plan, a, plan->wins[0])
                   : lc_zc_reduce_scatter_build(plan, a, plan->wins[0]);
        if (st == LINCOLL_OK) st = lc_plan_finalize(plan);
    }
    lc_win_destroy(w);
    if (st != LINCOLL_OK || plan == NULL) {
        lc_plan_destroy(plan);
        return st != LINCOLL_OK ? st : LINCOLL_ERR_UNSUPPORTED;
    }
    lc_debug("%s of %zu bytes on %d ranks: %s", lc_coll_op_name(a->op), tb, comm->size,
             plan->algorithm);
    *plan_p = plan;
    return LINCOLL_OK;
}
