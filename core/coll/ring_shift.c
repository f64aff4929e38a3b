/*
 * core/coll/ring_shift.c: ring shift — every rank sends one buffer to
 * rank + s and receives one from rank - s (mod P).
 *
 * Reference: the "shift" step of 1D ring algorithms (e.g. ring matmul).
 * Cost: alpha + n*beta (one round, one message each way).
 * Restrictions: none (s mod P == 0 is a local copy).
 */
#include "core/base/log.h"
#include "core/plan/plan.h"

lincoll_status_t lincoll_ring_shift_init(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                         size_t bytes, int shift, lincoll_plan_t **plan_p)
{
    LC_CHECK_ARG(comm != NULL, "lincoll_ring_shift_init: comm must not be NULL");
    LC_CHECK_ARG(plan_p != NULL, "lincoll_ring_shift_init: plan_p must not be NULL");
    LC_CHECK_ARG(bytes == 0 || (sbuf != NULL && rbuf != NULL),
                 "lincoll_ring_shift_init: sbuf and rbuf must not be NULL for %zu bytes", bytes);
    LC_CHECK_ARG(bytes == 0 || (const char *)sbuf + bytes <= (const char *)rbuf ||
                     (const char *)rbuf + bytes <= (const char *)sbuf,
                 "lincoll_ring_shift_init: sbuf and rbuf overlap");
    int P = comm->size, me = comm->rank;
    int s = ((shift % P) + P) % P;
    lincoll_plan_t *p;
    lincoll_status_t st = lc_plan_create(comm, "ring_shift", 1, &p);
    if (st != LINCOLL_OK) {
        return st;
    }
    int in = lc_plan_slot_user(p, (void *)sbuf, bytes);
    int out = lc_plan_slot_user(p, rbuf, bytes);
    int r = lc_plan_round(p);
    if (in < 0 || out < 0 || r < 0) {
        st = LINCOLL_ERR_NOMEM;
    } else if (s == 0) {
        st = lc_plan_copy(p, r, 1, lc_ref(out, 0), lc_ref(in, 0), bytes);
    } else {
        st = lc_plan_recv(p, r, (me - s + P) % P, lc_ref(out, 0), bytes);
        if (st == LINCOLL_OK) st = lc_plan_send(p, r, (me + s) % P, lc_ref(in, 0), bytes);
    }
    if (st == LINCOLL_OK) st = lc_plan_finalize(p);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(p);
        return st;
    }
    *plan_p = p;
    return LINCOLL_OK;
}
