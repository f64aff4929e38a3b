/*
 * core/coll/zcopy_tree.c: pieces the zero-copy collectives share (not an
 * algorithm): the reduction of one segment of every rank's input in
 * rhd_allreduce's bracketing, the "ready"/"done" flags, and the copy of a
 * rank's own allgather block.
 *
 * Reduction order (docs/collectives.md, "Bitwise-reproducible bracketing"): leaves
 * in vrank order, leaf v = x(2v) (+) x(2v+1) for the r folded pairs,
 * x(v+r) otherwise, combined as a balanced binary tree with lower ranks on
 * the left: the results are bitwise identical to rhd_allreduce's for every
 * P and count, on every rank.
 */
#include "core/coll/coll_int.h"

typedef struct lc_zc {
    lc_plan_t *p;
    int round;
    const lc_coll_args_t *a;
    lc_fold_t f;
    const int *src; /* per rank: slot of its input */
    int tmp[64];
    size_t off, cnt; /* the segment, elements */
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

lincoll_status_t lc_zc_reduce_tree(lc_plan_t *p, const lc_coll_args_t *a, int round,
                                   const int *src_slots, size_t off, size_t cnt, lc_bufref_t target)
{
    lc_zc_t z = {.p = p, .round = round, .a = a, .src = src_slots, .off = off, .cnt = cnt};
    for (int i = 0; i < 64; i++)
        z.tmp[i] = -1;
    lc_fold_init(&z.f, p->env.P, 0);
    lc_bufref_t res;
    lincoll_status_t st = lc_zc_tree(&z, 0, z.f.P, target, 0, &res);
    /* P = 1 or a tree of one unfolded leaf: the result is an input */
    if (st == LINCOLL_OK && (res.slot != target.slot || res.off != target.off))
        st = lc_plan_copy(p, round, LC_STEP_POST, target, res, cnt * a->es);
    return st;
}

lincoll_status_t lc_zc_flags(lc_plan_t *p, int round, int win)
{
    lincoll_status_t st = LINCOLL_OK;
    for (int j = 0; j < p->env.P && st == LINCOLL_OK; j++) {
        if (j == p->env.rank) continue;
        st = lc_plan_signal(p, round, j, win);
        LC_COLL_TRY(st, lc_plan_wait(p, round, j, win, 1, lc_ref(0, 0), 0));
    }
    return st;
}

lincoll_status_t lc_zc_own_block(lc_plan_t *p, const lc_coll_args_t *a, int out)
{
    const int me = p->env.rank;
    const size_t es = a->es;
    if (a->inplace || a->counts[me] == 0) return LINCOLL_OK;
    int in = lc_plan_slot_user(p, (void *)a->sbuf, a->counts[me] * es);
    if (in < 0) return LINCOLL_ERR_NOMEM;
    return lc_plan_copy(p, 0, LC_STEP_PRE, lc_ref(out, a->displs[me] * es), lc_ref(in, 0),
                        a->counts[me] * es);
}

int lc_zc_log2(int np)
{
    int k = 0;
    while ((1 << k) < np)
        k++;
    return (1 << k) == np ? k : -1;
}
