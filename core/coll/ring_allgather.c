/*
 * core/coll/ring_allgather.c: allgather (block and v forms) around a ring;
 * the bandwidth baseline.
 *
 * p - 1 rounds: in round s rank i forwards block (i-s) mod p to i+1 and
 * receives block (i-s-1) mod p from i-1, straight into rbuf.
 *
 * Reference: Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005 (ring
 * allgather); MPICH allgather_intra_ring.c.
 * Cost (n = total bytes): (p-1).alpha + (p-1)/p.n.beta
 * Restrictions: none.  In place (LINCOLL_IN_PLACE: own block already in
 * rbuf).  No scratch.
 */
#include "core/coll/coll_int.h"

static lincoll_status_t lc_ring_allgather_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t es = a->es, mine = a->counts[me];
    lincoll_status_t st = LINCOLL_OK;
    int out = lc_plan_slot_user(p, a->rbuf, a->total * es);
    int in = a->inplace ? -1 : lc_plan_slot_user(p, (void *)a->sbuf, mine * es);
    if (out < 0 || (!a->inplace && in < 0) || lc_coll_round(p, np > 1 ? np - 2 : 0) < 0) {
        return LINCOLL_ERR_NOMEM;
    }
    if (!a->inplace) {
        LC_COLL_TRY(
            st, lc_plan_copy(p, 0, 0, lc_ref(out, a->displs[me] * es), lc_ref(in, 0), mine * es));
    }
    const int right = (me + 1) % np, left = (me - 1 + np) % np;
    for (int s = 0; s < np - 1 && st == LINCOLL_OK; s++) {
        const int sb = ((me - s) % np + np) % np, rb = ((me - s - 1) % np + np) % np;
        LC_COLL_TRY(st,
                    lc_plan_recv(p, s, left, lc_ref(out, a->displs[rb] * es), a->counts[rb] * es));
        LC_COLL_TRY(st,
                    lc_plan_send(p, s, right, lc_ref(out, a->displs[sb] * es), a->counts[sb] * es));
    }
    return st;
}

static double lc_ring_allgather_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return (m.p - 1) * m.al + m.fp * m.n * m.be;
}

const lc_coll_alg_t lc_alg_ring_allgather = {.name = "ring",
                                             .plan_name = "ring_allgather",
                                             .op = LC_COLL_ALLGATHER,
                                             .cost = lc_ring_allgather_cost,
                                             .compile = lc_ring_allgather_build};
