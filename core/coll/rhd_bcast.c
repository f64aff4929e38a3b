/*
 * core/coll/rhd_bcast.c: broadcast by binomial scatter + recursive-doubling
 * allgather (van de Geijn), any p and root; the bandwidth-optimal RHD
 * broadcast for large messages.
 *
 * Phases (docs/collectives.md, "RHD broadcast"), k = floor(log2 p), P = 2^k,
 * r = p - P.  The pair members of the root's parity s represent their pairs
 * (s = root & 1 when root < 2r, else 0), so the root is always in the block.
 * Relative vrank u = v XOR vrank(root); segment u (P near-equal segments) is
 * owned by u.
 *   rounds 0..k-1   binomial scatter, distance halving;
 *   rounds k..2k-1  allgather, distance doubling;
 *   round 2k        each representative sends the whole buffer to its partner.
 *
 * Reference: M. Barnett, S. Gupta, D. Payne, L. Shuler, R. van de Geijn,
 * J. Watts, "Interprocessor collective communication library (InterCom)",
 * SHPCC 1994; MPICH bcast_intra_scatter_recursive_doubling_allgather.c; HCCL
 * BcastRecursiveHalvingDoubling for the root-parity fold.
 * Cost (n bytes):
 *   p = 2^k:  2k.alpha + 2(p-1)/p.n.beta
 *   other p:  (2k+1).alpha + (2(P-1)/P + 1).n.beta
 * Restrictions: none (count < P leaves segments empty; their messages are
 * sent with 0 bytes).  No scratch; no compute.
 */
#include "core/coll/coll_int.h"

static lincoll_status_t lc_rhd_bcast_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t es = a->es, n = a->count, bytes = n * es;
    lincoll_status_t st = LINCOLL_OK;
    int buf = lc_plan_slot_user(p, a->rbuf, bytes);
    if (buf < 0 || lc_coll_round(p, 0) < 0) return LINCOLL_ERR_NOMEM;
    if (np == 1) return LINCOLL_OK;
    lc_fold_t f;
    lc_fold_init(&f, np, 0);
    lc_fold_init(&f, np, a->root < 2 * f.r ? (a->root & 1) : 0);
    const int k = f.k, P = f.P;
    if (lc_coll_round(p, 2 * k + (f.r > 0 ? 1 : 0) - 1) < 0) return LINCOLL_ERR_NOMEM;
    const int v = lc_fold_vrank(&f, me);
    if (v < 0) {
        return lc_plan_recv(p, 2 * k, me ^ 1, lc_ref(buf, 0), bytes);
    }
    const lc_segs_t sg = {n / (size_t)P, n % (size_t)P};
    const int u = v ^ lc_fold_vrank(&f, a->root);
    for (int t = 0; t < k && st == LINCOLL_OK; t++) { /* scatter */
        const int m = 1 << (k - 1 - t), peer = lc_fold_real(&f, v ^ m);
        if ((u & (2 * m - 1)) == 0) {
            size_t s = (size_t)(u + m);
            LC_COLL_TRY(st, lc_plan_send(p, t, peer, lc_ref(buf, lc_seg_off(&sg, s) * es),
                                         lc_seg_sum(&sg, s, (size_t)m) * es));
        } else if ((u & (2 * m - 1)) == m) {
            LC_COLL_TRY(st, lc_plan_recv(p, t, peer, lc_ref(buf, lc_seg_off(&sg, (size_t)u) * es),
                                         lc_seg_sum(&sg, (size_t)u, (size_t)m) * es));
        }
    }
    size_t lo = (size_t)u, w = 1;
    for (int j = 0; j < k && st == LINCOLL_OK; j++) { /* allgather */
        const int m = 1 << j, peer = lc_fold_real(&f, v ^ m);
        const size_t sib = (u & m) ? lo - w : lo + w;
        LC_COLL_TRY(st, lc_plan_recv(p, k + j, peer, lc_ref(buf, lc_seg_off(&sg, sib) * es),
                                     lc_seg_sum(&sg, sib, w) * es));
        LC_COLL_TRY(st, lc_plan_send(p, k + j, peer, lc_ref(buf, lc_seg_off(&sg, lo) * es),
                                     lc_seg_sum(&sg, lo, w) * es));
        lo = sib < lo ? sib : lo;
        w *= 2;
    }
    if (me < 2 * f.r) {
        LC_COLL_TRY(st, lc_plan_send(p, 2 * k, me ^ 1, lc_ref(buf, 0), bytes));
    }
    return st;
}

static double lc_rhd_bcast_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return (2 * m.k + m.d) * m.al + (2 * m.fr + m.d) * m.n * m.be;
}

const lc_coll_alg_t lc_alg_rhd_bcast = {.name = "rhd",
                                        .plan_name = "rhd_bcast",
                                        .op = LC_COLL_BCAST,
                                        .cost = lc_rhd_bcast_cost,
                                        .compile = lc_rhd_bcast_build};
