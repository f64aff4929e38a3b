/*
 * core/coll/zcopy_small.c: small broadcast and reduce by one put into a
 * peer's mapped scratch (ranks on one node, lincoll memory), zcopy_bcast and
 * zcopy_reduce.
 *
 * What (root R, n bytes below LINCOLL_COLL_ZCOPY_THRESHOLD):
 *   bcast   round 0  (first start of a batch of LC_ZC_CREDIT_BATCH = 4)
 *                    R waits for every peer's credit for the batch's ring
 *                    slots (the peer has consumed the broadcasts of
 *                    LC_ZC_DEPTH = 8 starts ago; the first 2 batches are
 *                    pre-credited), so R may run 5-8 broadcasts ahead;
 *           round 1  R puts the vector into every peer's scratch (a CPU
 *                    store + signal when mapped); each peer waits for it and
 *                    copies it into its buffer;
 *           round 2  (last start of a batch) each peer gives R its credit
 *                    back (0-byte put).
 *   reduce  the mirror image: round 0 every non-root waits for R's credit,
 *           round 1 puts its vector into slot [rank] of R's scratch; R waits
 *           for all of them and reduces (rhd_allreduce's bracketing: the
 *           result is bitwise equal to rhd_allreduce's on every rank, which
 *           differs from rhd_reduce's for non-commutative-in-floating-point
 *           sums at P > 2); round 2 R returns the credits.
 * The root never waits for the data path of its peers: in steady state a
 * broadcast costs one store + one flag (one latency), a reduce one latency
 * plus the root's reduction.
 *
 * Reference: the eager shared-memory bcast/reduce of intra-node MPI
 * collectives (Open MPI coll/sm's per-peer control flags and fragments),
 * with credits instead of a barrier.
 * Large broadcasts (>= the threshold), zcopy_direct_bcast: every peer copies
 * the root's buffer out of the root's mapped window between a "ready" flag
 * from the root and a "done" flag back (2 alpha + n.beta, one copy).
 * Large reduces, zcopy_direct_reduce: rank i reduces segment i from every
 * input in place into the root's mapped output (see the builder).
 * Cost: alpha + n.beta (+ (P-1).n.gamma at the root of a reduce); C2 = n.
 * Restrictions: bcast and reduce, 0 < n < LINCOLL_COLL_ZCOPY_THRESHOLD, P <= 65, every
 * rank's buffer lincoll memory and every peer mapped (checked collectively
 * by lc_zc_small_try; otherwise the tag plans run).  Scratch: 8 slots of n
 * bytes per rank (bcast), of P.n at a reduce root, each in whole cache lines.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/base/log.h"
#include "core/coll/coll_int.h"
#include "core/context/win.h"

/* Scratch ring: start s uses slot s % LC_ZC_DEPTH, so a root (bcast) or a
 * non-root (reduce) runs up to LC_ZC_DEPTH calls ahead of its peers before a
 * credit wait blocks it (credits are pre-issued for the first DEPTH starts,
 * and travel once per LC_ZC_CREDIT_BATCH starts).
 * The per-start hook moves the scratch slots and put offsets to this start's
 * ring slot; every rank starts a plan equally often, so all agree on it. */
struct lc_zc_ring {
    size_t stride;
    unsigned long starts;
    unsigned nslot, nput;
    int slot[64];
    char *slot_base[64];
    int put_round[64], put_idx[64];
    size_t put_base[64];
    /* batched credits (zcopy_bcast, zcopy_reduce; -1 elsewhere): the round
     * that waits for a credit runs on the first start of every batch, the
     * round that returns one on the last; in between they are empty (the
     * executor skips them) */
    int cwait, cret;
    unsigned cwait_n, cret_n;
};

/* Credits travel once per LC_ZC_CREDIT_BATCH starts: the consumer returns
 * one after the last start of a batch (it has read all of the batch's
 * slots), the producer waits for one before the first start of a batch.
 * With LC_ZC_DEPTH / LC_ZC_CREDIT_BATCH batches pre-credited, the producer
 * of start s (first of its batch) waits for the credit sent after start
 * s - DEPTH + BATCH - 1, i.e. until start s - DEPTH, the last user of the
 * slots it is about to fill, has been consumed. */
#define LC_ZC_CREDIT_BATCH 4
_Static_assert(LC_ZC_DEPTH % LC_ZC_CREDIT_BATCH == 0, "whole batches per ring");

static lincoll_status_t lc_zc_ring_on_start(lincoll_plan_t *p)
{
    lc_zc_ring_t *g = p->priv;
    unsigned long s = g->starts++;
    size_t k = (size_t)(s % LC_ZC_DEPTH) * g->stride;
    for (unsigned i = 0; i < g->nslot; i++)
        p->slots[g->slot[i]].ptr = g->slot_base[i] + k;
    for (unsigned i = 0; i < g->nput; i++)
        p->rounds[g->put_round[i]].xfers[g->put_idx[i]].roff = g->put_base[i] + k;
    unsigned ph = (unsigned)(s % LC_ZC_CREDIT_BATCH);
    if (g->cwait >= 0) p->rounds[g->cwait].nxfers = ph == 0 ? g->cwait_n : 0;
    if (g->cret >= 0) p->rounds[g->cret].nxfers = ph == LC_ZC_CREDIT_BATCH - 1 ? g->cret_n : 0;
    return LINCOLL_OK;
}

/* Round cw (only credit waits) and round cr (only credit puts) of plan p
 * run once per batch; call after the plan is built. */
static void lc_zc_ring_credits(lincoll_plan_t *p, lc_zc_ring_t *g, int cw, int cr)
{
    g->cwait = cw;
    g->cret = cr;
    g->cwait_n = p->rounds[cw].nxfers;
    g->cret_n = p->rounds[cr].nxfers;
}

lc_zc_ring_t *lc_zc_ring(lincoll_plan_t *p, size_t stride)
{
    lc_zc_ring_t *g = calloc(1, sizeof(*g));
    if (g != NULL) {
        g->stride = stride;
        g->cwait = g->cret = -1;
        p->priv = g;
        p->priv_free = free;
        p->on_start = lc_zc_ring_on_start;
    }
    return g;
}

/* A user slot over scratch that moves with the ring (-1 when out of room). */
int lc_zc_ring_slot(lincoll_plan_t *p, lc_zc_ring_t *g, char *base, size_t len)
{
    if (g->nslot >= 64) return -1;
    int s = lc_plan_slot_user(p, base, len);
    if (s >= 0) {
        g->slot[g->nslot] = s;
        g->slot_base[g->nslot++] = base;
    }
    return s;
}

/* A put whose remote offset moves with the ring. */
lincoll_status_t lc_zc_ring_put(lincoll_plan_t *p, lc_zc_ring_t *g, int round, int peer,
                                lc_bufref_t src, size_t len, lc_win_t *win, size_t roff)
{
    if (g->nput >= 64) return LINCOLL_ERR_INTERNAL;
    g->put_round[g->nput] = round;
    g->put_idx[g->nput] = (int)p->rounds[round].nxfers;
    g->put_base[g->nput++] = roff;
    return lc_plan_put(p, round, peer, src, len, win, roff);
}

lincoll_status_t lc_zc_copy(lincoll_plan_t *p, int round, int post, lc_bufref_t dst,
                            lc_bufref_t src, size_t len)
{
    lincoll_status_t st = lc_plan_copy(p, round, post, dst, src, len);
    if (st == LINCOLL_OK) {
        p->compute_bytes -= (double)len;
        p->moved_bytes += (double)len;
    }
    return st;
}

size_t lc_zc_small_winlen(const lc_coll_args_t *a, int P, int rank)
{
    size_t bytes = a->count * a->es;
    if (a->op == LC_COLL_REDUCE)
        return rank == a->root ? LC_ZC_DEPTH * lc_zc_ring_stride((size_t)P * bytes) : 64;
    return LC_ZC_DEPTH * lc_zc_ring_stride(bytes);
}

lincoll_status_t lc_zc_bcast_build(lincoll_plan_t *p, const lc_coll_args_t *a, lc_win_t *win)
{
    const int me = p->comm->rank, np = p->comm->size, R = a->root;
    const size_t bytes = a->count * a->es;
    if (np < 2 || np > 65 || win == NULL || win->len < lc_zc_small_winlen(a, np, me))
        return LINCOLL_ERR_INTERNAL;
    lc_zc_ring_t *g = lc_zc_ring(p, lc_zc_ring_stride(bytes));
    int buf = lc_plan_slot_user(p, a->rbuf, bytes);
    if (g == NULL || buf < 0 || lc_coll_round(p, 2) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    if (me == R) {
        for (int j = 0; j < np && st == LINCOLL_OK; j++) {
            if (j == R) continue;
            /* the first DEPTH / BATCH batches are pre-credited */
            win->consumed[j] = (uint64_t)0 - LC_ZC_DEPTH / LC_ZC_CREDIT_BATCH;
            st = lc_plan_wait_put(p, 0, j, 0, win);
            LC_COLL_TRY(st, lc_zc_ring_put(p, g, 1, j, lc_ref(buf, 0), bytes, win, 0));
        }
        if (st == LINCOLL_OK) lc_zc_ring_credits(p, g, 0, 2);
        return st;
    }
    int scr = lc_zc_ring_slot(p, g, win->base, bytes);
    if (scr < 0) return LINCOLL_ERR_NOMEM;
    st = lc_plan_wait_put(p, 1, R, bytes, win);
    LC_COLL_TRY(st, lc_zc_copy(p, 1, LC_STEP_POST, lc_ref(buf, 0), lc_ref(scr, 0), bytes));
    LC_COLL_TRY(st, lc_plan_put(p, 2, R, lc_ref(buf, 0), 0, win, 0));
    if (st == LINCOLL_OK) lc_zc_ring_credits(p, g, 0, 2);
    return st;
}

lincoll_status_t lc_zc_reduce_build(lincoll_plan_t *p, const lc_coll_args_t *a, lc_win_t *win)
{
    const int me = p->comm->rank, np = p->comm->size, R = a->root;
    const size_t bytes = a->count * a->es;
    if (np < 2 || np > 65 || win == NULL || win->len < lc_zc_small_winlen(a, np, me))
        return LINCOLL_ERR_INTERNAL;
    lc_zc_ring_t *g = lc_zc_ring(p, lc_zc_ring_stride((size_t)np * bytes));
    const void *in = a->inplace ? a->rbuf : a->sbuf;
    int src = lc_plan_slot_user(p, (void *)in, bytes);
    if (g == NULL || src < 0 || lc_coll_round(p, 2) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    if (me != R) {
        /* the first DEPTH / BATCH batches are pre-credited */
        win->consumed[R] = (uint64_t)0 - LC_ZC_DEPTH / LC_ZC_CREDIT_BATCH;
        st = lc_plan_wait_put(p, 0, R, 0, win);
        LC_COLL_TRY(st, lc_zc_ring_put(p, g, 1, R, lc_ref(src, 0), bytes, win, (size_t)me * bytes));
        if (st == LINCOLL_OK) lc_zc_ring_credits(p, g, 0, 2);
        return st;
    }
    int out = lc_plan_slot_user(p, a->rbuf, bytes);
    int *x = calloc((size_t)np, sizeof(int));
    if (out < 0 || x == NULL) {
        free(x);
        return LINCOLL_ERR_NOMEM;
    }
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        x[j] = j == R ? src : lc_zc_ring_slot(p, g, (char *)win->base + (size_t)j * bytes, bytes);
        if (x[j] < 0) st = LINCOLL_ERR_NOMEM;
        if (j != R) {
            LC_COLL_TRY(st, lc_plan_wait_put(p, 1, j, bytes, win));
            LC_COLL_TRY(st, lc_plan_put(p, 2, j, lc_ref(out, 0), 0, win, 0));
        }
    }
    LC_COLL_TRY(st, lc_zc_reduce_tree(p, a, 1, x, 0, a->count, lc_ref(out, 0)));
    if (st == LINCOLL_OK) lc_zc_ring_credits(p, g, 0, 2);
    free(x);
    return st;
}

/* Large broadcast (>= the threshold): every peer copies the root's buffer
 * straight out of the root's mapped window.  Round 0: the root flags "ready"
 * to every peer (its buffer holds this call's data); each peer copies.
 * Round 1: each peer flags "done" to the root, which may then return. */
lincoll_status_t lc_zc_bcast_direct_build(lincoll_plan_t *p, const lc_coll_args_t *a, lc_win_t *win)
{
    const int me = p->comm->rank, np = p->comm->size, R = a->root;
    const size_t bytes = a->count * a->es;
    if (np < 2 || win == NULL) return LINCOLL_ERR_INTERNAL;
    int buf = lc_plan_slot_user(p, a->rbuf, bytes);
    if (buf < 0 || lc_coll_round(p, 1) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    if (me == R) {
        for (int j = 0; j < np && st == LINCOLL_OK; j++) {
            if (j == R) continue;
            st = lc_plan_put(p, 0, j, lc_ref(buf, 0), 0, win, 0);
            LC_COLL_TRY(st, lc_plan_wait_put(p, 1, j, 0, win));
        }
        /* the root's call lasts until its peers have copied the vector:
         * their copy (in parallel, n bytes each) is on its critical path */
        p->moved_bytes += (double)bytes;
        return st;
    }
    void *rp = lc_win_peer_ptr(win, R);
    int rs = rp != NULL ? lc_plan_slot_user(p, rp, bytes) : -1;
    if (rs < 0) return rp == NULL ? LINCOLL_ERR_UNSUPPORTED : LINCOLL_ERR_NOMEM;
    st = lc_plan_wait_put(p, 0, R, 0, win);
    LC_COLL_TRY(st, lc_zc_copy(p, 0, LC_STEP_POST, lc_ref(buf, 0), lc_ref(rs, 0), bytes));
    LC_COLL_TRY(st, lc_plan_put(p, 1, R, lc_ref(buf, 0), 0, win, 0));
    return st;
}

/* Large reduce (>= the threshold), zcopy_direct_reduce: like zcopy_allreduce
 * without the copies back.  Round 0: "ready" flags between all ranks (every
 * input valid, the root's output free); rank i reduces segment i reading
 * every rank's input in place and stores it into the root's output
 * (rhd_allreduce's bracketing).  Round 1: "done" flags.  win_in: the inputs;
 * win_out: the root's output (other ranks expose their input there). */
lincoll_status_t lc_zc_reduce_direct_build(lincoll_plan_t *p, const lc_coll_args_t *a,
                                           lc_win_t *win_in, lc_win_t *win_out)
{
    const int me = p->comm->rank, np = p->comm->size, R = a->root;
    const size_t es = a->es, n = a->count, bytes = n * es;
    if (np < 2 || win_in == NULL || win_out == NULL) return LINCOLL_ERR_INTERNAL;
    const lc_segs_t sg = {n / (size_t)np, n % (size_t)np};
    const size_t off = lc_seg_off(&sg, (size_t)me), cnt = lc_seg_sum(&sg, (size_t)me, 1);
    void *op = lc_win_peer_ptr(win_out, R);
    int outR = op != NULL ? lc_plan_slot_user(p, op, bytes) : -1;
    int *x = calloc((size_t)np, sizeof(int));
    lincoll_status_t st = (outR >= 0 && x != NULL) ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    if (op == NULL) st = LINCOLL_ERR_UNSUPPORTED;
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        void *pj = lc_win_peer_ptr(win_in, j);
        x[j] = pj != NULL ? lc_plan_slot_user(p, pj, bytes) : -1;
        if (x[j] < 0) st = pj == NULL ? LINCOLL_ERR_UNSUPPORTED : LINCOLL_ERR_NOMEM;
    }
    if (st == LINCOLL_OK && lc_coll_round(p, 1) < 0) st = LINCOLL_ERR_NOMEM;
    for (int R2 = 0; R2 < 2 && st == LINCOLL_OK; R2++) {
        for (int j = 0; j < np && st == LINCOLL_OK; j++) {
            if (j == me) continue;
            st = lc_plan_put(p, R2, j, lc_ref(x[me], 0), 0, win_in, 0);
            LC_COLL_TRY(st, lc_plan_wait_put(p, R2, j, 0, win_in));
        }
    }
    if (st == LINCOLL_OK && cnt > 0)
        st = lc_zc_reduce_tree(p, a, 0, x, off, cnt, lc_ref(outR, off * es));
    free(x);
    return st;
}

lincoll_status_t lc_zc_small_try(lincoll_comm_t *comm, const lc_coll_args_t *a,
                                 lincoll_plan_t **plan_p)
{
    lincoll_context_t *ctx = comm->ctx;
    const size_t bytes = a->count * a->es;
    /* identical on every rank: op, P, count, dtype, root, configuration */
    if ((a->op != LC_COLL_BCAST && a->op != LC_COLL_REDUCE) || comm->size < 2 || a->count == 0 ||
        ctx->tl_ops->rkey_ptr == NULL) {
        return LINCOLL_ERR_UNSUPPORTED;
    }
    /* large: bcast copies from the root's window; reduce stores into it */
    const int direct = bytes >= ctx->cfg.zcopy_threshold;
    const int dred = direct && a->op == LC_COLL_REDUCE;
    if (!direct && comm->size > 65) return LINCOLL_ERR_UNSUPPORTED; /* ring bookkeeping */
    const void *in = (a->op == LC_COLL_BCAST || a->inplace) ? a->rbuf : a->sbuf;
    if (lc_mem_find(ctx, in, bytes) == NULL) return LINCOLL_ERR_UNSUPPORTED;
    lincoll_status_t st = LINCOLL_OK, st2 = LINCOLL_OK;
    /* a direct reduce stores into the root's output: it must be lincoll memory too */
    const int root_ok = !dred || comm->rank != a->root || lc_mem_find(ctx, a->rbuf, bytes) != NULL;
    if (!lc_zc_all_agree(comm, a, root_ok, &st))
        return st != LINCOLL_OK ? st : LINCOLL_ERR_UNSUPPORTED;
    lc_win_t *w = NULL, *w2 = NULL;
    if (dred) {
        st = lc_win_create(comm, (void *)in, bytes, &w);
        if (st == LINCOLL_OK)
            st = lc_win_create(comm, comm->rank == a->root ? a->rbuf : (void *)in, bytes, &w2);
    } else {
        st = direct ? lc_win_create(comm, a->rbuf, bytes, &w)
                    : lc_win_create(comm, NULL, lc_zc_small_winlen(a, comm->size, comm->rank), &w);
    }
    int mapped = st == LINCOLL_OK;
    for (int j = 0; mapped && j < comm->size; j++)
        mapped = lc_win_peer_ptr(w, j) != NULL && (!dred || lc_win_peer_ptr(w2, j) != NULL);
    int all = lc_zc_all_agree(comm, a, mapped, &st2);
    if (st == LINCOLL_OK) st = st2;
    lincoll_plan_t *plan = NULL;
    if (st == LINCOLL_OK && all) {
        st = lc_plan_create(comm,
                            dred                     ? "zcopy_direct_reduce"
                            : direct                 ? "zcopy_direct_bcast"
                            : a->op == LC_COLL_BCAST ? "zcopy_bcast"
                                                     : "zcopy_reduce",
                            comm->size - 1, &plan);
    }
    if (plan != NULL && st == LINCOLL_OK) {
        plan->elem_size = a->es;
        plan->wins = calloc(2, sizeof(*plan->wins));
        if (plan->wins == NULL) st = LINCOLL_ERR_NOMEM;
    }
    if (plan != NULL && st == LINCOLL_OK) {
        plan->wins[plan->nwins++] = w;
        if (w2 != NULL) plan->wins[plan->nwins++] = w2;
        w = w2 = NULL;
        st = dred     ? lc_zc_reduce_direct_build(plan, a, plan->wins[0], plan->wins[1])
             : direct ? lc_zc_bcast_direct_build(plan, a, plan->wins[0])
             : a->op == LC_COLL_BCAST ? lc_zc_bcast_build(plan, a, plan->wins[0])
                                      : lc_zc_reduce_build(plan, a, plan->wins[0]);
        if (st == LINCOLL_OK) st = lc_plan_finalize(plan);
    }
    lc_win_destroy(w);
    lc_win_destroy(w2);
    if (st != LINCOLL_OK || plan == NULL) {
        lc_plan_destroy(plan);
        return st != LINCOLL_OK ? st : LINCOLL_ERR_UNSUPPORTED;
    }
    lc_debug("%s of %zu bytes on %d ranks: %s", lc_coll_op_name(a->op), bytes, comm->size,
             plan->algorithm);
    *plan_p = plan;
    return LINCOLL_OK;
}
