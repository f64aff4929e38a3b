/*
 * core/coll/zcopy_allreduce.c: allreduce by direct loads and stores in the
 * peers' buffers (zero copy), for ranks whose memory is mapped into each
 * other's address space (UCX-allocated shared memory on one node).
 *
 * What: every rank's input and output buffers are windows; each rank maps
 * every peer's windows (transport rkey_ptr).  With P near-equal segments,
 * rank i owns segment i:
 *   round 0  flag "ready" to every peer (a 0-byte put with signal) and wait
 *            for theirs: every peer has entered this start, so its input is
 *            valid and its output free;
 *            then reduce segment i reading every peer's input in place, into
 *            its own output, and store it into every peer's output;
 *   round 1  flag "done" to every peer and wait for theirs: nobody reads my
 *            input or writes my output any more, so the call may return.
 * No data message is sent and no intermediate copy is made: per rank, the
 * reduction reads P segments and writes one, the stores write P-1.
 *
 * Reduction order: the same bracketing as rhd_allreduce (design/RHD.md §6.2):
 * leaves in vrank order, leaf v = x(2v) (+) x(2v+1) for the r folded pairs,
 * x(v+r) otherwise, combined as a balanced binary tree with lower ranks on the
 * left.  Results are bitwise identical to rhd_allreduce for every p and
 * count, on every rank.
 *
 * Reference: the shared-memory "direct" reduce-scatter + allgather of
 * intra-node collectives (e.g. UCC tl/shm, NCCL's one-process-per-GPU
 * P2P/read kernels), with RHD's bracketing for determinism.
 * Cost (n bytes, every transfer a load/store at memory speed):
 *   2.alpha_flag + (P+1)/P.n.gamma_read + ... : modelled by the plan as
 *   2 rounds of 0-byte messages (2 alpha) plus the reduction of n/P
 *   elements (gamma) and (P-1)/P.n bytes stored into the peers' outputs,
 *   counted as bytes moved (beta); C2 = 0.
 * Restrictions: allreduce only; p >= 2; every rank's input and output are
 * lincoll memory that every peer maps (selection checks it collectively and
 * falls back to the tag plans otherwise); the plan owns two windows and
 * needs P-1 ports per round (flags to every peer at once).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/coll/coll_int.h"
#include "core/context/win.h"

typedef struct lc_zc {
    lincoll_plan_t *p;
    int round;
    const lc_coll_args_t *a;
    lc_fold_t f;
    int *src; /* per rank: slot of its input (mapped) */
    int tmp[64];
    size_t off, cnt; /* my segment, elements */
} lc_zc_t;

static lc_bufref_t lc_zc_x(const lc_zc_t *z, int rank)
{
    return lc_ref(z->src[rank], z->off * z->a->es);
}

static lincoll_status_t lc_zc_temp(lc_zc_t *z, int i, lc_bufref_t *ref)
{
    if (z->tmp[i] < 0) {
        z->tmp[i] = lc_plan_slot_scratch(z->p, z->cnt * z->a->es);
        if (z->tmp[i] < 0) return LINCOLL_ERR_NOMEM;
    }
    *ref = lc_ref(z->tmp[i], 0);
    return LINCOLL_OK;
}

/* Sum of leaves [lo, lo+n) into target (or a leaf's own input when n == 1
 * and it is not folded); *res says where the result is. */
static lincoll_status_t lc_zc_tree(lc_zc_t *z, int lo, int n, lc_bufref_t target, int depth,
                                   lc_bufref_t *res)
{
    const lc_coll_args_t *a = z->a;
    if (n == 1) {
        if (lo < z->f.r) {
            *res = target;
            return lc_plan_reduce(z->p, z->round, LC_STEP_POST, target, lc_zc_x(z, 2 * lo),
                                  lc_zc_x(z, 2 * lo + 1), z->cnt, a->dtype, a->rop);
        }
        *res = lc_zc_x(z, lo + z->f.r);
        return LINCOLL_OK;
    }
    lc_bufref_t tl = target, tr = target, l, r;
    lincoll_status_t st = LINCOLL_OK;
    const int h = n / 2;
    /* a child needs a temporary unless it is a single unfolded leaf (its input) */
    if (h > 1 || lo < z->f.r) LC_COLL_TRY(st, lc_zc_temp(z, 2 * depth, &tl));
    if (h > 1 || lo + h < z->f.r) LC_COLL_TRY(st, lc_zc_temp(z, 2 * depth + 1, &tr));
    LC_COLL_TRY(st, lc_zc_tree(z, lo, h, tl, depth + 1, &l));
    LC_COLL_TRY(st, lc_zc_tree(z, lo + h, h, tr, depth + 1, &r));
    LC_COLL_TRY(
        st, lc_plan_reduce(z->p, z->round, LC_STEP_POST, target, l, r, z->cnt, a->dtype, a->rop));
    *res = target;
    return st;
}

lincoll_status_t lc_zc_reduce_tree(lincoll_plan_t *p, const lc_coll_args_t *a, int round,
                                   int *src_slots, size_t off, size_t cnt, lc_bufref_t target)
{
    lc_zc_t z = {.p = p, .round = round, .a = a, .src = src_slots, .off = off, .cnt = cnt};
    for (int i = 0; i < 64; i++)
        z.tmp[i] = -1;
    lc_fold_init(&z.f, p->comm->size, 0);
    lc_bufref_t res;
    return lc_zc_tree(&z, 0, z.f.P, target, 0, &res);
}

lincoll_status_t lc_zc_allreduce_build(lincoll_plan_t *p, const lc_coll_args_t *a,
                                       lc_win_t *win_src, lc_win_t *win_out)
{
    const int me = p->comm->rank, np = p->comm->size;
    const size_t es = a->es, n = a->count, bytes = n * es;
    if (np < 2 || win_out == NULL || (!a->inplace && win_src == NULL)) return LINCOLL_ERR_INTERNAL;
    lc_zc_t z = {.p = p, .a = a};
    for (int i = 0; i < 64; i++)
        z.tmp[i] = -1;
    lc_fold_init(&z.f, np, 0);
    const lc_segs_t sg = {n / (size_t)np, n % (size_t)np};
    z.off = lc_seg_off(&sg, (size_t)me);
    z.cnt = lc_seg_sum(&sg, (size_t)me, 1);
    z.src = calloc((size_t)np, sizeof(int));
    int *out = calloc((size_t)np, sizeof(int));
    lincoll_status_t st = (z.src && out) ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        void *o = lc_win_peer_ptr(win_out, j);
        void *s = a->inplace ? o : lc_win_peer_ptr(win_src, j);
        if (o == NULL || s == NULL) {
            lc_error("zcopy_allreduce: rank %d's buffers are not mapped here", j);
            st = LINCOLL_ERR_UNSUPPORTED;
            break;
        }
        out[j] = lc_plan_slot_user(p, o, bytes);
        z.src[j] = a->inplace ? out[j] : lc_plan_slot_user(p, s, bytes);
        if (out[j] < 0 || z.src[j] < 0) st = LINCOLL_ERR_NOMEM;
    }
    if (st == LINCOLL_OK && lc_coll_round(p, 1) < 0) st = LINCOLL_ERR_NOMEM;
    /* round 0: ready flags; round 1: done flags (0-byte puts with signal) */
    for (int R = 0; R < 2 && st == LINCOLL_OK; R++) {
        for (int j = 0; j < np && st == LINCOLL_OK; j++) {
            if (j == me) continue;
            st = lc_plan_put(p, R, j, lc_ref(out[me], 0), 0, win_out, 0);
            LC_COLL_TRY(st, lc_plan_wait_put(p, R, j, 0, win_out));
        }
    }
    if (st == LINCOLL_OK && z.cnt > 0) {
        lc_bufref_t mine = lc_ref(out[me], z.off * es), res;
        st = lc_zc_tree(&z, 0, z.f.P, mine, 0, &res);
        for (int j = 0; j < np && st == LINCOLL_OK; j++) {
            if (j == me) continue;
            st = lc_zc_copy(p, 0, LC_STEP_POST, lc_ref(out[j], z.off * es), mine, z.cnt * es);
        }
    }
    free(z.src);
    free(out);
    return st;
}

/* ---- small messages: recursive doubling by put into mapped scratch --------- */

/* Scratch layout [parity][round][bytes]: start s writes parity s%2, so a put
 * of start s+1 never lands where the peer still reads start s (a rank
 * begins start s+2 only after every partner has finished start s).  The
 * per-start hook points the puts and reduces at this start's half. */
typedef struct lc_zc_rd {
    int slot;
    size_t bytes, half;
    unsigned long starts;
} lc_zc_rd_t;

static lincoll_status_t lc_zc_rd_on_start(lincoll_plan_t *p)
{
    lc_zc_rd_t *d = p->priv;
    size_t par = (d->starts++ & 1) ? d->half : 0;
    for (unsigned j = 0; j < p->nrounds; j++) {
        lc_round_t *R = &p->rounds[j];
        for (unsigned i = 0; i < R->nxfers; i++)
            if (R->xfers[i].kind == LC_XFER_PUT) R->xfers[i].roff = par + j * d->bytes;
        for (unsigned i = 0; i < R->npost; i++) {
            lc_step_t *st = &R->post[i];
            if (st->a.slot == (uint32_t)d->slot) st->a.off = par + j * d->bytes;
            if (st->b.slot == (uint32_t)d->slot) st->b.off = par + j * d->bytes;
        }
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_zc_rd_allreduce_build(lincoll_plan_t *p, const lc_coll_args_t *a,
                                          lc_win_t *win_scr)
{
    const int me = p->comm->rank, np = p->comm->size;
    const size_t bytes = a->count * a->es;
    int k = 0;
    while ((1 << k) < np)
        k++;
    if (np < 2 || (1 << k) != np || win_scr == NULL || win_scr->len < 2 * (size_t)k * bytes)
        return LINCOLL_ERR_INTERNAL;
    lc_zc_rd_t *d = calloc(1, sizeof(*d));
    if (d == NULL) return LINCOLL_ERR_NOMEM;
    p->priv = d;
    p->priv_free = free;
    p->on_start = lc_zc_rd_on_start;
    d->bytes = bytes;
    d->half = (size_t)k * bytes;
    int out = lc_plan_slot_user(p, a->rbuf, bytes);
    int src = a->inplace ? out : lc_plan_slot_user(p, (void *)a->sbuf, bytes);
    d->slot = lc_plan_slot_user(p, win_scr->base, 2 * d->half);
    if (out < 0 || src < 0 || d->slot < 0 || lc_coll_round(p, k - 1) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    int cur = src;
    for (int j = 0; j < k && st == LINCOLL_OK; j++) {
        const int peer = me ^ (1 << j);
        lc_bufref_t mine = lc_ref(cur, 0), theirs = lc_ref(d->slot, (size_t)j * bytes);
        st = lc_plan_put(p, j, peer, mine, bytes, win_scr, (size_t)j * bytes);
        LC_COLL_TRY(st, lc_plan_wait_put(p, j, peer, bytes, win_scr));
        LC_COLL_TRY(st,
                    lc_plan_reduce(p, j, LC_STEP_POST, lc_ref(out, 0), me < peer ? mine : theirs,
                                   me < peer ? theirs : mine, a->count, a->dtype, a->rop));
        cur = out;
    }
    return st;
}

/* Agreement record: a magic word and the call's shape guard against ranks
 * that disagree on the path (or the arguments), which then fail with
 * LINCOLL_ERR_MISMATCH here or time out in their tag plan, never silently. */
#define LC_ZC_MAGIC UINT64_C(0x7a636f7079617231) /* "zcopyar1" */

/* All ranks' flag AND-ed (one allgather). */
int lc_zc_all_agree(lincoll_comm_t *comm, const lc_coll_args_t *a, int mine, lincoll_status_t *st)
{
    uint64_t rec[4] = {LC_ZC_MAGIC ^ (uint64_t)a->op, a->total ^ (uint64_t)a->root << 48,
                       (uint64_t)a->dtype | (uint64_t)a->rop << 16 | (uint64_t)a->es << 32,
                       (uint64_t)(mine != 0)};
    uint64_t *all = malloc((size_t)comm->size * sizeof(rec));
    int ok = 0;
    if (all == NULL) {
        *st = LINCOLL_ERR_NOMEM;
        return 0;
    }
    *st = lc_comm_allgather_bytes(comm, rec, all, sizeof(rec));
    if (*st == LINCOLL_OK) {
        ok = 1;
        for (int i = 0; i < comm->size; i++) {
            const uint64_t *o = all + 4 * (size_t)i;
            if (o[0] != rec[0] || o[1] != rec[1] || o[2] != rec[2]) {
                lc_error("allreduce: rank %d passed other arguments (count %llu) or took another "
                         "path; zero-copy calls need lincoll memory on every rank or on none",
                         i, (unsigned long long)o[1]);
                *st = LINCOLL_ERR_MISMATCH;
                ok = 0;
                break;
            }
            ok &= o[3] == 1;
        }
    }
    free(all);
    return ok;
}

lincoll_status_t lc_zc_allreduce_try(lincoll_comm_t *comm, const lc_coll_args_t *a,
                                     lincoll_plan_t **plan_p)
{
    lincoll_context_t *ctx = comm->ctx;
    const size_t bytes = a->count * a->es;
    if (a->op == LC_COLL_BCAST || a->op == LC_COLL_REDUCE) return lc_zc_small_try(comm, a, plan_p);
    if (a->op == LC_COLL_REDUCE_SCATTER || a->op == LC_COLL_ALLGATHER)
        return lc_zc_rsag_try(comm, a, plan_p);
    /* every rank sees the same op, P, count, dtype and configuration */
    if (a->op != LC_COLL_ALLREDUCE || comm->size < 2 || a->count == 0 ||
        ctx->tl_ops->rkey_ptr == NULL) {
        return LINCOLL_ERR_UNSUPPORTED;
    }
    lincoll_status_t st = LINCOLL_OK;
    /* only calls over lincoll memory take part (every rank or none, see above) */
    if (lc_mem_find(ctx, a->rbuf, bytes) == NULL ||
        (!a->inplace && lc_mem_find(ctx, a->sbuf, bytes) == NULL)) {
        return LINCOLL_ERR_UNSUPPORTED;
    }
    if (!lc_zc_all_agree(comm, a, 1, &st)) {
        return st != LINCOLL_OK ? st : LINCOLL_ERR_UNSUPPORTED;
    }
    /* below the threshold on a power of two: recursive doubling by put into
     * mapped scratch (one round per doubling); else direct loads/stores */
    int k = 0;
    while ((1 << k) < comm->size)
        k++;
    const int rd = bytes < ctx->cfg.zcopy_threshold && (1 << k) == comm->size;
    lc_win_t *wo = NULL, *ws = NULL;
    if (rd) {
        st = lc_win_create(comm, NULL, 2 * (size_t)k * bytes, &wo);
    } else {
        st = lc_win_create(comm, a->rbuf, bytes, &wo);
        if (st == LINCOLL_OK && !a->inplace) st = lc_win_create(comm, (void *)a->sbuf, bytes, &ws);
    }
    int mapped = st == LINCOLL_OK;
    for (int j = 0; mapped && j < comm->size; j++) {
        mapped =
            lc_win_peer_ptr(wo, j) != NULL && (a->inplace || rd || lc_win_peer_ptr(ws, j) != NULL);
    }
    /* every rank takes part in the agreement, even after a local failure */
    lincoll_status_t st2 = LINCOLL_OK;
    int all = lc_zc_all_agree(comm, a, mapped, &st2);
    if (st == LINCOLL_OK) st = st2;
    lincoll_plan_t *plan = NULL;
    if (st == LINCOLL_OK && all) {
        st = lc_plan_create(comm, rd ? "zcopy_rd_allreduce" : "zcopy_allreduce",
                            rd ? 1 : comm->size - 1, &plan);
    }
    if (plan != NULL) {
        plan->elem_size = a->es;
        plan->wins = calloc(2, sizeof(*plan->wins));
        if (plan->wins == NULL) st = LINCOLL_ERR_NOMEM;
    }
    if (st == LINCOLL_OK && plan != NULL) {
        plan->wins[plan->nwins++] = wo;
        if (ws != NULL) plan->wins[plan->nwins++] = ws;
        wo = ws = NULL; /* the plan owns them now */
        st = rd ? lc_zc_rd_allreduce_build(plan, a, plan->wins[0])
                : lc_zc_allreduce_build(plan, a, plan->nwins > 1 ? plan->wins[1] : NULL,
                                        plan->wins[0]);
        if (st == LINCOLL_OK) st = lc_plan_finalize(plan);
    }
    lc_win_destroy(wo);
    lc_win_destroy(ws);
    if (st != LINCOLL_OK || plan == NULL) {
        lc_plan_destroy(plan);
        return st != LINCOLL_OK ? st : LINCOLL_ERR_UNSUPPORTED;
    }
    lc_debug("allreduce of %zu bytes on %d ranks: %s (peers' memory mapped)", bytes, comm->size,
             plan->algorithm);
    *plan_p = plan;
    return LINCOLL_OK;
}
