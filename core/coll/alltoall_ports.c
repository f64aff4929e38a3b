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
#include "core/base/log.h"
#include "core/plan/plan.h"

lincoll_status_t lincoll_alltoall_init(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                       size_t bytes, int ports, lincoll_plan_t **plan_p)
{
    LC_CHECK_ARG(comm != NULL, "lincoll_alltoall_init: comm must not be NULL");
    LC_CHECK_ARG(plan_p != NULL, "lincoll_alltoall_init: plan_p must not be NULL");
    LC_CHECK_ARG(ports >= 0 && ports <= 64, "lincoll_alltoall_init: ports=%d outside [0, 64]",
                 ports);
    int P = comm->size, me = comm->rank;
    LC_CHECK_ARG(bytes <= ((size_t)1 << 46) / (size_t)P,
                 "lincoll_alltoall_init: bytes=%zu times %d ranks overflows", bytes, P);
    size_t total = bytes * (size_t)P;
    LC_CHECK_ARG(total == 0 || (sbuf != NULL && rbuf != NULL),
                 "lincoll_alltoall_init: sbuf and rbuf must not be NULL");
    LC_CHECK_ARG(total == 0 || (const char *)sbuf + total <= (const char *)rbuf ||
                     (const char *)rbuf + total <= (const char *)sbuf,
                 "lincoll_alltoall_init: sbuf and rbuf overlap");
    int p_ = ports > 0 ? ports : comm->ctx->ports;
    lincoll_plan_t *p;
    lincoll_status_t st = lc_plan_create(comm, "alltoall_ports", p_, &p);
    if (st != LINCOLL_OK) {
        return st;
    }
    int in = lc_plan_slot_user(p, (void *)sbuf, total);
    int out = lc_plan_slot_user(p, rbuf, total);
    if (in < 0 || out < 0) {
        st = LINCOLL_ERR_NOMEM;
    }
    int first = -1;
    for (int d0 = 1; st == LINCOLL_OK && d0 < P; d0 += p_) {
        int r = lc_plan_round(p);
        if (first < 0) first = r;
        for (int d = d0; st == LINCOLL_OK && d < d0 + p_ && d < P; d++) {
            size_t to = (size_t)((me + d) % P), from = (size_t)((me - d + P) % P);
            st = lc_plan_recv(p, r, (int)from, lc_ref(out, from * bytes), bytes);
            if (st == LINCOLL_OK) st = lc_plan_send(p, r, (int)to, lc_ref(in, to * bytes), bytes);
        }
    }
    if (st == LINCOLL_OK) {
        if (first < 0) first = lc_plan_round(p);
        /* own block: a local copy while the first round's messages fly */
        st = lc_plan_copy(p, first, 0, lc_ref(out, (size_t)me * bytes),
                          lc_ref(in, (size_t)me * bytes), bytes);
    }
    if (st == LINCOLL_OK) st = lc_plan_finalize(p);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(p);
        return st;
    }
    *plan_p = p;
    return LINCOLL_OK;
}
