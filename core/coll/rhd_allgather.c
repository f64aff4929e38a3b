/*
 * core/coll/rhd_allgather.c: allgather (block and v forms) by recursive
 * doubling with distance doubling, natural block order, any p.
 *
 * Phases (docs/collectives.md, "RHD allgather"), k = floor(log2 p), P = 2^k,
 * r = p - P, groups as in rhd_reduce_scatter.c:
 *   round 0        fold: odd rank 2i+1 < 2r sends its block to 2i;
 *   rounds 1..k    AG, distance doubling: the window of groups doubles and
 *                  stays contiguous, so every message is one contiguous range;
 *   round k+1      the proxy sends the whole result to its extra (one message).
 * (Rounds shift down by one when p is a power of two.)
 *
 * Reference: Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005 (recursive
 * doubling allgather); HCCL AllGatherRecursiveHD (GatherInPartOneToEven →
 * AG in block → GatherInPartOneToOdd).
 * Cost (n = total bytes, b = n/p):
 *   p = 2^k:  k.alpha + (p-1)/p.n.beta
 *   other p:  (k+2).alpha + (b + b.sum_j M_j + n).beta, M_j = P/2^j + min(r, P/2^j)
 * Restrictions: none.  In place: sbuf == LINCOLL_IN_PLACE (or rbuf + own
 * displacement), the own block already sits in rbuf.  No scratch.
 */
#include <stdlib.h>

#include "core/coll/coll_int.h"

static lincoll_status_t lc_rhd_allgather_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t es = a->es, total = a->total, mine = a->counts[me], dme = a->displs[me];
    lincoll_status_t st = LINCOLL_OK;
    int out = lc_plan_slot_user(p, a->rbuf, total * es);
    int in = a->inplace ? -1 : lc_plan_slot_user(p, (void *)a->sbuf, mine * es);
    if (out < 0 || (!a->inplace && in < 0)) return LINCOLL_ERR_NOMEM;
    lc_bufref_t own = a->inplace ? lc_ref(out, dme * es) : lc_ref(in, 0);
    if (lc_coll_round(p, 0) < 0) return LINCOLL_ERR_NOMEM;
    lc_fold_t f;
    lc_fold_init(&f, np, 0);
    const int k = f.k, P = f.P, base = f.r > 0 ? 1 : 0;
    const int v = lc_fold_vrank(&f, me);
    if (v < 0) { /* extra: block out, everything back */
        if (lc_coll_round(p, k + 1) < 0) return LINCOLL_ERR_NOMEM;
        LC_COLL_TRY(st, lc_plan_send(p, 0, me - 1, own, mine * es));
        LC_COLL_TRY(st, lc_plan_recv(p, k + 1, me - 1, lc_ref(out, 0), total * es));
        return st;
    }
    if (!a->inplace) {
        LC_COLL_TRY(st, lc_plan_copy(p, 0, 0, lc_ref(out, dme * es), own, mine * es));
    }
    if (np == 1) return st;
    if (lc_coll_round(p, k + 2 * base - 1) < 0) return LINCOLL_ERR_NOMEM;
    size_t *goff = malloc(((size_t)P + 1) * sizeof(*goff));
    if (goff == NULL) return LINCOLL_ERR_NOMEM;
    for (int g = 0; g < P; g++)
        goff[g] = a->displs[lc_fold_real(&f, g)];
    goff[P] = total;
    const int proxy = me < 2 * f.r;
    if (proxy) {
        LC_COLL_TRY(st, lc_plan_recv(p, 0, me + 1, lc_ref(out, a->displs[me + 1] * es),
                                     a->counts[me + 1] * es));
    }
    size_t lo = (size_t)v, w = 1;
    for (int j = 0; j < k && st == LINCOLL_OK; j++) {
        const int mask = 1 << j, peer = lc_fold_real(&f, v ^ mask), R = base + j;
        const size_t sib = (v & mask) ? lo - w : lo + w;
        LC_COLL_TRY(st, lc_plan_recv(p, R, peer, lc_ref(out, goff[sib] * es),
                                     (goff[sib + w] - goff[sib]) * es));
        LC_COLL_TRY(st, lc_plan_send(p, R, peer, lc_ref(out, goff[lo] * es),
                                     (goff[lo + w] - goff[lo]) * es));
        lo = sib < lo ? sib : lo;
        w *= 2;
    }
    free(goff);
    if (proxy) {
        LC_COLL_TRY(st, lc_plan_send(p, k + 1, me + 1, lc_ref(out, 0), total * es));
    }
    return st;
}

static double lc_rhd_allgather_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return (m.k + 2 * m.d) * m.al + (m.fr * m.n + m.d * (m.n + m.b)) * m.be;
}

const lc_coll_alg_t lc_alg_rhd_allgather = {.name = "rhd",
                                            .plan_name = "rhd_allgather",
                                            .op = LC_COLL_ALLGATHER,
                                            .cost = lc_rhd_allgather_cost,
                                            .compile = lc_rhd_allgather_build};
