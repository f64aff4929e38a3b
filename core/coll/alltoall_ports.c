/*
 * core/coll/alltoall_ports.c: all-to-all exchange on p ports.
 *
 * Block j of every rank's send buffer goes to rank j.  Round r (0-based)
 * uses distances d = 1 + r*p ... min(P-1, (r+1)*p): a rank sends block
 * me+d to rank me+d and receives block me-d from rank me-d, for each d —
 * p sends and p receives per round, every pair exactly once.
 *
 * Reference: the linear-shift all-to-all of Bruck et al. (1997), generalized
 * to the p-port model of the all-to-all encode paper (Wang & Raviv).
 * Cost: ceil((P-1)/p) * alpha + ceil((P-1)/p) * n * beta (n = block bytes).
 * Restrictions: none; sbuf and rbuf must not overlap.
 */
#include "core/coll/coll_int.h"

lincoll_status_t lc_alltoall_ports_build(lc_plan_t *p, const void *sbuf, void *rbuf, size_t bytes)
{
    const int P = p->env.P, me = p->env.rank, p_ = p->ports;
    const size_t total = bytes * (size_t)P;
    int in = lc_plan_slot_user(p, (void *)sbuf, total);
    int out = lc_plan_slot_user(p, rbuf, total);
    if (in < 0 || out < 0) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    int first = -1;
    for (int d0 = 1; st == LINCOLL_OK && d0 < P; d0 += p_) {
        int r = lc_plan_round(p);
        if (r < 0) return LINCOLL_ERR_NOMEM;
        if (first < 0) first = r;
        for (int d = d0; st == LINCOLL_OK && d < d0 + p_ && d < P; d++) {
            size_t to = (size_t)((me + d) % P), from = (size_t)((me - d + P) % P);
            st = lc_plan_recv(p, r, (int)from, lc_ref(out, from * bytes), bytes);
            if (st == LINCOLL_OK) st = lc_plan_send(p, r, (int)to, lc_ref(in, to * bytes), bytes);
        }
    }
    if (st == LINCOLL_OK) {
        if (first < 0) first = lc_plan_round(p);
        if (first < 0) return LINCOLL_ERR_NOMEM;
        /* own block: a local copy while the first round's messages fly */
        st = lc_plan_copy(p, first, LC_STEP_PRE, lc_ref(out, (size_t)me * bytes),
                          lc_ref(in, (size_t)me * bytes), bytes);
    }
    return st;
}
