/*
 * core/coll/ring_reduce_scatter.c: reduce-scatter (block and v forms) around
 * a ring; the bandwidth baseline.
 *
 * p - 1 rounds.  In round s rank i sends block (i-s-1) mod p to i+1 (its own
 * input in round 0, afterwards the partial it reduced in round s-1) and
 * receives block (i-s-2) mod p from i-1, reducing it with its own input; after
 * round p-2 it holds block i reduced over all ranks.
 *
 * Reference: Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for
 * clusters of workstations", JPDC 69(2), 2009; MPICH/Open MPI ring RS.
 * Cost (n = total bytes): (p-1).alpha + (p-1)/p.n.(beta + gamma)
 * (equal blocks; with uneven blocks C2 sums the largest block per round).
 * Restrictions: commutative operators (all lincoll operators); fixed order
 * for a given p: bitwise reproducible.  In place (rbuf holds the total
 * input, result at its start) and out of place (the last reduce writes into
 * rbuf).  Scratch: the largest block, plus total elements out of place.
 */
#include "core/coll/coll_int.h"

static lincoll_status_t lc_ring_reduce_scatter_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t es = a->es, total = a->total, mine = a->counts[me];
    lincoll_status_t st = LINCOLL_OK;
    int out = lc_plan_slot_user(p, a->rbuf, (a->inplace ? total : mine) * es);
    int src = a->inplace ? out : lc_plan_slot_user(p, (void *)a->sbuf, total * es);
    if (out < 0 || src < 0 || lc_coll_round(p, 0) < 0) return LINCOLL_ERR_NOMEM;
    if (np == 1) {
        return src == out ? LINCOLL_OK
                          : lc_plan_copy(p, 0, 0, lc_ref(out, 0), lc_ref(src, 0), total * es);
    }
    size_t maxc = 0;
    for (int i = 0; i < np; i++)
        maxc = a->counts[i] > maxc ? a->counts[i] : maxc;
    int tmp = lc_plan_slot_scratch(p, (maxc ? maxc : 1) * es);
    int work = a->inplace ? out : lc_plan_slot_scratch(p, (total ? total : 1) * es);
    if (tmp < 0 || work < 0 || lc_coll_round(p, np - 2) < 0) return LINCOLL_ERR_NOMEM;
    const int right = (me + 1) % np, left = (me - 1 + np) % np;
    for (int s = 0; s < np - 1 && st == LINCOLL_OK; s++) {
        const int sb = ((me - s - 1) % np + np) % np, rb = ((me - s - 2) % np + np) % np;
        const size_t rn = a->counts[rb];
        LC_COLL_TRY(st, lc_plan_send(p, s, right, lc_ref(s == 0 ? src : work, a->displs[sb] * es),
                                     a->counts[sb] * es));
        LC_COLL_TRY(st, lc_plan_recv(p, s, left, lc_ref(tmp, 0), rn * es));
        if (rn > 0) {
            const int direct = (s == np - 2 && !a->inplace);
            lc_bufref_t dst = direct ? lc_ref(out, 0) : lc_ref(work, a->displs[rb] * es);
            LC_COLL_TRY(st, lc_plan_reduce(p, s, 1, dst, lc_ref(src, a->displs[rb] * es),
                                           lc_ref(tmp, 0), rn, a->dtype, a->rop));
        }
    }
    if (a->inplace && a->displs[me] > 0) {
        LC_COLL_TRY(st, lc_plan_copy(p, np - 2, 1, lc_ref(out, 0), lc_ref(work, a->displs[me] * es),
                                     mine * es));
    }
    return st;
}

static double lc_ring_reduce_scatter_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return (m.p - 1) * m.al + m.fp * m.n * (m.be + m.ga);
}

const lc_coll_alg_t lc_alg_ring_reduce_scatter = {.name = "ring",
                                                  .plan_name = "ring_reduce_scatter",
                                                  .op = LC_COLL_REDUCE_SCATTER,
                                                  .cost = lc_ring_reduce_scatter_cost,
                                                  .compile = lc_ring_reduce_scatter_build};
