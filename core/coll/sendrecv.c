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
#include "core/coll/coll_int.h"

lincoll_status_t lc_sendrecv_build(lc_plan_t *p, const void *sbuf, size_t sbytes, int dst,
                                   void *rbuf, size_t rbytes, int src, unsigned tag,
                                   lincoll_sendrecv_order_t order)
{
    p->p2p = 1;
    p->p2p_tag = tag;
    int in = lc_plan_slot_user(p, (void *)sbuf, dst >= 0 ? sbytes : 0);
    int out = lc_plan_slot_user(p, rbuf, src >= 0 ? rbytes : 0);
    int r0 = lc_plan_round(p);
    int r1 = order == LINCOLL_SENDRECV_CONCURRENT ? r0 : lc_plan_round(p);
    if (in < 0 || out < 0 || r0 < 0 || r1 < 0) return LINCOLL_ERR_NOMEM;
    int send_round = order == LINCOLL_SENDRECV_RECV_FIRST ? r1 : r0;
    int recv_round = order == LINCOLL_SENDRECV_RECV_FIRST ? r0 : r1;
    lincoll_status_t st = LINCOLL_OK;
    if (dst >= 0) st = lc_plan_send(p, send_round, dst, lc_ref(in, 0), sbytes);
    if (st == LINCOLL_OK && src >= 0) st = lc_plan_recv(p, recv_round, src, lc_ref(out, 0), rbytes);
    return st;
}
