/*
 * core/coll/rhd_reduce.c: reduce by recursive-halving reduce-scatter plus a
 * binomial gather to the root (Rabenseifner), any p and root.
 *
 * Phases (docs/collectives.md, "RHD reduce"), k = floor(log2 p), P = 2^k, r = p - P.
 * The pair members of the root's parity s represent their pairs (s = root & 1
 * when root < 2r, else 0), so the root is always in the block and no extra
 * hop to it is needed.
 *   round 0          fold: each non-representative sends its vector to its
 *                    partner, which reduces it (lower real rank on the left);
 *   rounds 1..k      RS, distance halving over P segments: vrank v ends with
 *                    segment v (natural placement);
 *   rounds k+1..2k   gather, distance doubling, towards vrank(root).
 * (Rounds shift down by one when p is a power of two.)
 *
 * Reference: R. Rabenseifner, ICCS 2004; Thakur, Rabenseifner, Gropp,
 * IJHPCA 19(1), 2005; HCCL ReduceRecursiveHalvingDoubling (root parity).
 * Cost (n bytes):
 *   p = 2^k:  2k.alpha + 2(p-1)/p.n.beta + (p-1)/p.n.gamma
 *   other p:  (2k+1).alpha + (2(P-1)/P + 1).n.beta + ((P-1)/P + 1).n.gamma
 * Restrictions: commutative operators (the RS merges non-adjacent ranks);
 * all lincoll operators are.  Fixed tree for a given (p, root): bitwise
 * reproducible.  In place at the root (sbuf == rbuf or LINCOLL_IN_PLACE);
 * rbuf is ignored on other ranks unless in place (then it is the input and
 * is left unspecified).  Scratch: count elements of work on non-roots plus
 * the largest receive (count on representatives).
 */
#include "core/coll/coll_int.h"

static lincoll_status_t lc_rhd_reduce_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P, root = a->root;
    const size_t es = a->es, n = a->count, bytes = n * es;
    lincoll_status_t st = LINCOLL_OK;
    const int use_out = (me == root) || a->inplace;
    int out = lc_plan_slot_user(p, use_out ? a->rbuf : NULL, use_out ? bytes : 0);
    int src = a->inplace ? out : lc_plan_slot_user(p, (void *)a->sbuf, bytes);
    if (out < 0 || src < 0 || lc_coll_round(p, 0) < 0) return LINCOLL_ERR_NOMEM;
    if (np == 1) {
        return src == out ? LINCOLL_OK
                          : lc_plan_copy(p, 0, 0, lc_ref(out, 0), lc_ref(src, 0), bytes);
    }
    lc_fold_t f;
    lc_fold_init(&f, np, 0);
    lc_fold_init(&f, np, root < 2 * f.r ? (root & 1) : 0);
    const int k = f.k, P = f.P, base = f.r > 0 ? 1 : 0;
    const lc_segs_t sg = {n / (size_t)P, n % (size_t)P};
    const int v = lc_fold_vrank(&f, me);
    /* every rank holds the schedule's rounds (global_rounds), also one that
     * only sends in the fold */
    if (lc_coll_round(p, 2 * k + base - 1) < 0) return LINCOLL_ERR_NOMEM;
    if (v < 0) {
        return lc_plan_send(p, 0, me ^ 1, lc_ref(src, 0), bytes);
    }
    const int rep = me < 2 * f.r;
    size_t tmpn = lc_seg_sum(&sg, 0, (size_t)P / 2);
    if (rep) tmpn = n;
    int tmp = lc_plan_slot_scratch(p, (tmpn ? tmpn : 1) * es);
    int work = me == root ? out : lc_plan_slot_scratch(p, (n ? n : 1) * es);
    if (tmp < 0 || work < 0) return LINCOLL_ERR_NOMEM;
    int cur = src;
    if (rep) {
        LC_COLL_TRY(st, lc_plan_recv(p, 0, me ^ 1, lc_ref(tmp, 0), bytes));
        if (n > 0) {
            lc_bufref_t m = lc_ref(src, 0), t = lc_ref(tmp, 0);
            int left = (me & 1) == 0; /* my real rank is the lower one */
            LC_COLL_TRY(st, lc_plan_reduce(p, 0, 1, lc_ref(work, 0), left ? m : t, left ? t : m, n,
                                           a->dtype, a->rop));
        }
        cur = work;
    }
    size_t lo = 0, w = (size_t)P;
    for (int j = k - 1; j >= 0 && st == LINCOLL_OK; j--) { /* RS, distance halving */
        const int mask = 1 << j, pv = v ^ mask, peer = lc_fold_real(&f, pv);
        const int R = base + (k - 1 - j);
        const size_t h = w / 2;
        const size_t keep = (v & mask) ? lo + h : lo, give = (v & mask) ? lo : lo + h;
        const size_t kn = lc_seg_sum(&sg, keep, h), ko = lc_seg_off(&sg, keep);
        LC_COLL_TRY(st, lc_plan_recv(p, R, peer, lc_ref(tmp, 0), kn * es));
        LC_COLL_TRY(st, lc_plan_send(p, R, peer, lc_ref(cur, lc_seg_off(&sg, give) * es),
                                     lc_seg_sum(&sg, give, h) * es));
        if (kn > 0) {
            lc_bufref_t m = lc_ref(cur, ko * es), t = lc_ref(tmp, 0);
            LC_COLL_TRY(st, lc_plan_reduce(p, R, 1, lc_ref(work, ko * es), v < pv ? m : t,
                                           v < pv ? t : m, kn, a->dtype, a->rop));
        }
        cur = work;
        lo = keep;
        w = h;
    }
    const int vr = lc_fold_vrank(&f, root);
    lo = (size_t)v;
    w = 1;
    for (int j = 0; j < k && st == LINCOLL_OK; j++) { /* gather, distance doubling */
        const int m = 1 << j, peer = lc_fold_real(&f, v ^ m), R = base + k + j;
        const size_t sib = (v & m) ? lo - w : lo + w;
        if ((v & m) == (vr & m)) {
            LC_COLL_TRY(st, lc_plan_recv(p, R, peer, lc_ref(work, lc_seg_off(&sg, sib) * es),
                                         lc_seg_sum(&sg, sib, w) * es));
            lo = sib < lo ? sib : lo;
            w *= 2;
        } else {
            LC_COLL_TRY(st, lc_plan_send(p, R, peer, lc_ref(work, lc_seg_off(&sg, lo) * es),
                                         lc_seg_sum(&sg, lo, w) * es));
            break;
        }
    }
    return st;
}

static double lc_rhd_reduce_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return (2 * m.k + m.d) * m.al + (2 * m.fr + m.d) * m.n * m.be + (m.fr + m.d) * m.n * m.ga;
}

const lc_coll_alg_t lc_alg_rhd_reduce = {.name = "rhd",
                                         .plan_name = "rhd_reduce",
                                         .op = LC_COLL_REDUCE,
                                         .cost = lc_rhd_reduce_cost,
                                         .compile = lc_rhd_reduce_build};
