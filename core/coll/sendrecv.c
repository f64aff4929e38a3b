/*
 * core/coll/sendrecv.c: point-to-point plan (one send and/or one receive).
 *
 * Cost: alpha + n*beta per direction; SEND_FIRST/RECV_FIRST take two rounds
 * (a ping-pong pair), CONCURRENT one.
 * Restrictions: dst/src are ranks of the communicator or negative (none); a
 * message to this rank itself needs dst = src = this rank and CONCURRENT.
 *
 * Matching: the plan's tags carry the point-to-point bit and the user tag
 * (0 for lincoll_sendrecv_init), never the communicator's collective
 * sequence, so point-to-point traffic between any subset of ranks leaves the
 * next collective's tags unchanged.  Messages from one sender to one
 * receiver with the same tag and round match in the order they were posted.
 */
#include "core/base/log.h"
#include "core/plan/plan.h"

lincoll_status_t lincoll_sendrecv_init(lincoll_comm_t *comm, const void *sbuf, size_t sbytes,
                                       int dst, void *rbuf, size_t rbytes, int src,
                                       lincoll_sendrecv_order_t order, lincoll_plan_t **plan_p)
{
    return lincoll_sendrecv_tagged_init(comm, sbuf, sbytes, dst, rbuf, rbytes, src, 0, order,
                                        plan_p);
}

lincoll_status_t lincoll_sendrecv_tagged_init(lincoll_comm_t *comm, const void *sbuf, size_t sbytes,
                                              int dst, void *rbuf, size_t rbytes, int src,
                                              unsigned tag, lincoll_sendrecv_order_t order,
                                              lincoll_plan_t **plan_p)
{
    LC_CHECK_ARG(comm != NULL, "lincoll_sendrecv_init: comm must not be NULL");
    LC_CHECK_ARG(plan_p != NULL, "lincoll_sendrecv_init: plan_p must not be NULL");
    LC_CHECK_ARG(dst < comm->size, "lincoll_sendrecv_init: dst=%d outside [0, %d)", dst,
                 comm->size);
    LC_CHECK_ARG(src < comm->size, "lincoll_sendrecv_init: src=%d outside [0, %d)", src,
                 comm->size);
    LC_CHECK_ARG(dst < 0 || sbytes == 0 || sbuf != NULL,
                 "lincoll_sendrecv_init: sbuf must not be NULL");
    LC_CHECK_ARG(src < 0 || rbytes == 0 || rbuf != NULL,
                 "lincoll_sendrecv_init: rbuf must not be NULL");
    LC_CHECK_ARG(tag <= LINCOLL_SENDRECV_TAG_MAX, "lincoll_sendrecv_init: tag=%u above %u", tag,
                 (unsigned)LINCOLL_SENDRECV_TAG_MAX);
    LC_CHECK_ARG(order >= LINCOLL_SENDRECV_CONCURRENT && order <= LINCOLL_SENDRECV_RECV_FIRST,
                 "lincoll_sendrecv_init: order=%d is not a lincoll_sendrecv_order_t", (int)order);
    /* A message to this rank itself is received by this plan or by none: a
     * receive matches the sender's round, so both halves must be in one. */
    LC_CHECK_ARG((dst == comm->rank) == (src == comm->rank),
                 "lincoll_sendrecv_init: dst=%d src=%d: a send to this rank (%d) needs a "
                 "receive from it in the same plan and vice versa",
                 dst, src, comm->rank);
    LC_CHECK_ARG(dst != comm->rank || order == LINCOLL_SENDRECV_CONCURRENT,
                 "lincoll_sendrecv_init: dst = src = this rank needs order "
                 "LINCOLL_SENDRECV_CONCURRENT (order=%d would never match)",
                 (int)order);
    lincoll_plan_t *p;
    lincoll_status_t st = lc_plan_create(comm, "sendrecv", 1, &p);
    if (st != LINCOLL_OK) {
        return st;
    }
    p->p2p = 1;
    p->p2p_tag = tag;
    int in = lc_plan_slot_user(p, (void *)sbuf, dst >= 0 ? sbytes : 0);
    int out = lc_plan_slot_user(p, rbuf, src >= 0 ? rbytes : 0);
    int r0 = lc_plan_round(p);
    int r1 = order == LINCOLL_SENDRECV_CONCURRENT ? r0 : lc_plan_round(p);
    if (in < 0 || out < 0 || r0 < 0 || r1 < 0) {
        st = LINCOLL_ERR_NOMEM;
    }
    int send_round = order == LINCOLL_SENDRECV_RECV_FIRST ? r1 : r0;
    int recv_round = order == LINCOLL_SENDRECV_RECV_FIRST ? r0 : r1;
    if (st == LINCOLL_OK && dst >= 0) st = lc_plan_send(p, send_round, dst, lc_ref(in, 0), sbytes);
    if (st == LINCOLL_OK && src >= 0) st = lc_plan_recv(p, recv_round, src, lc_ref(out, 0), rbytes);
    if (st == LINCOLL_OK) st = lc_plan_finalize(p);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(p);
        return st;
    }
    *plan_p = p;
    return LINCOLL_OK;
}
