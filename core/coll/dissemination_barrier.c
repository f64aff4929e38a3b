/*
 * core/coll/dissemination_barrier.c: barrier by dissemination.
 *
 * What: in round k every rank sends a 0-byte message to rank + 2^k and
 * receives one from rank - 2^k (mod P); after ceil(log2 P) rounds every rank
 * has heard, directly or not, from every other.
 * Reference: Hensgen, Finkel and Manber, "Two algorithms for barrier
 * synchronization" (1988).
 * Cost: ceil(log2 P) alpha; no data.
 * Restrictions: none (any P; P = 1 is an empty plan).
 */
#include "core/coll/coll_int.h"

lincoll_status_t lc_dissemination_barrier_build(lc_plan_t *p)
{
    const int P = p->env.P, me = p->env.rank;
    int slot = lc_plan_slot_user(p, NULL, 0);
    lincoll_status_t st = slot < 0 ? LINCOLL_ERR_NOMEM : LINCOLL_OK;
    for (int d = 1; d < P && st == LINCOLL_OK; d *= 2) {
        int round = lc_plan_round(p);
        st = round < 0 ? LINCOLL_ERR_NOMEM
                       : lc_plan_send(p, round, (me + d) % P, lc_ref(slot, 0), 0);
        if (st == LINCOLL_OK) st = lc_plan_recv(p, round, (me - d + P) % P, lc_ref(slot, 0), 0);
    }
    return st;
}
