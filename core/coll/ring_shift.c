/*
 * core/coll/ring_shift.c: ring shift — every rank sends one buffer to
 * rank + s and receives one from rank - s (mod P).
 *
 * Reference: the "shift" step of 1D ring algorithms (e.g. ring matmul).
 * Cost: alpha + n*beta (one round, one message each way).
 * Restrictions: none (s mod P == 0 is a local copy).
 */
#include "core/coll/coll_int.h"

lincoll_status_t lc_ring_shift_build(lc_plan_t *p, const void *sbuf, void *rbuf, size_t bytes,
                                     int shift)
{
    const int P = p->env.P, me = p->env.rank;
    const int s = ((shift % P) + P) % P;
    int in = lc_plan_slot_user(p, (void *)sbuf, bytes);
    int out = lc_plan_slot_user(p, rbuf, bytes);
    int r = lc_plan_round(p);
    if (in < 0 || out < 0 || r < 0) return LINCOLL_ERR_NOMEM;
    if (s == 0) return lc_plan_copy(p, r, LC_STEP_POST, lc_ref(out, 0), lc_ref(in, 0), bytes);
    lincoll_status_t st = lc_plan_recv(p, r, (me - s + P) % P, lc_ref(out, 0), bytes);
    if (st == LINCOLL_OK) st = lc_plan_send(p, r, (me + s) % P, lc_ref(in, 0), bytes);
    return st;
}
