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
 * Reference: the direct shared-memory algorithms of intra-node collectives
 * (e.g. UCC tl/shm), with lincoll's plan executor and flags.
 * Cost: 2 alpha (flags) + allgather (P-1)/P.n copied, reduce-scatter P/P.n
 * read + n/P written; C2 = 0.
 * Restrictions: every rank's buffers lincoll memory (output for allgather,
 * input for reduce-scatter) and mapped by every peer; reduce-scatter not in
 * place; total > 0.  Checked collectively by lc_zc_rsag_try.
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

lincoll_status_t lc_zc_allgather_build(lincoll_plan_t *p, const lc_coll_args_t *a, lc_win_t *win)
{
    const int me = p->comm->rank, np = p->comm->size;
    const size_t es = a->es, tb = a->total * es;
    int out = lc_plan_slot_user(p, a->rbuf, tb);
    if (out < 0 || lc_coll_round(p, 1) < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    if (!a->inplace && a->counts[me] > 0) {
        int in = lc_plan_slot_user(p, (void *)a->sbuf, a->counts[me] * es);
        if (in < 0) return LINCOLL_ERR_NOMEM;
        st = lc_plan_copy(p, 0, LC_STEP_PRE, lc_ref(out, a->displs[me] * es), lc_ref(in, 0),
                          a->counts[me] * es);
    }
    LC_COLL_TRY(st, lc_zc_flags(p, 0, out, win));
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        if (j == me || a->counts[j] == 0) continue;
        void *pj = lc_win_peer_ptr(win, j);
        int s = pj != NULL ? lc_plan_slot_user(p, pj, tb) : -1;
        if (s < 0) return pj == NULL ? LINCOLL_ERR_UNSUPPORTED : LINCOLL_ERR_NOMEM;
        st = lc_plan_copy(p, 0, LC_STEP_POST, lc_ref(out, a->displs[j] * es),
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

lincoll_status_t lc_zc_rsag_try(lincoll_comm_t *comm, const lc_coll_args_t *a,
                                lincoll_plan_t **plan_p)
{
    lincoll_context_t *ctx = comm->ctx;
    const size_t tb = a->total * a->es;
    const int ag = a->op == LC_COLL_ALLGATHER;
    /* identical on every rank: op, P, counts, dtype, configuration */
    if ((a->op != LC_COLL_ALLGATHER && a->op != LC_COLL_REDUCE_SCATTER) || comm->size < 2 ||
        a->total == 0 || tb < ctx->cfg.zcopy_threshold || ctx->tl_ops->rkey_ptr == NULL) {
        return LINCOLL_ERR_UNSUPPORTED;
    }
    void *win_buf = (ag || a->inplace) ? a->rbuf : (void *)a->sbuf;
    if (win_buf == NULL || lc_mem_find(ctx, win_buf, tb) == NULL) return LINCOLL_ERR_UNSUPPORTED;
    lincoll_status_t st = LINCOLL_OK, st2 = LINCOLL_OK;
    /* an in-place reduce-scatter on any rank sends everyone to the tag plans */
    if (!lc_zc_all_agree(comm, a, ag || !a->inplace, &st))
        return st != LINCOLL_OK ? st : LINCOLL_ERR_UNSUPPORTED;
    lc_win_t *w = NULL;
    st = lc_win_create(comm, win_buf, tb, &w);
    int mapped = st == LINCOLL_OK;
    for (int j = 0; mapped && j < comm->size; j++)
        mapped = lc_win_peer_ptr(w, j) != NULL;
    int all = lc_zc_all_agree(comm, a, mapped, &st2);
    if (st == LINCOLL_OK) st = st2;
    lincoll_plan_t *plan = NULL;
    if (st == LINCOLL_OK && all) {
        st = lc_plan_create(comm, ag ? "zcopy_allgather" : "zcopy_reduce_scatter", comm->size - 1,
                            &plan);
    }
    if (plan != NULL && st == LINCOLL_OK) {
        plan->elem_size = a->es;
        plan->wins = calloc(1, sizeof(*plan->wins));
        if (plan->wins == NULL) st = LINCOLL_ERR_NOMEM;
    }
    if (plan != NULL && st == LINCOLL_OK) {
        plan->wins[plan->nwins++] = w;
        w = NULL;
        st = ag ? lc_zc_allgather_build(plan, a, plan->wins[0])
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
