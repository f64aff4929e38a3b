/*
 * core/api/p2p_api.c: the public inits of the plans that are not
 * reductions: point-to-point (lincoll_sendrecv_init), ring shift and the
 * p-port all-to-all.  Argument checks (one log line naming the argument),
 * then the compiler (core/coll) and bind.
 */
#include "core/base/log.h"
#include "core/coll/coll_int.h"
#include "core/exec/exec.h"

/* Compile with build (a pure compiler), finalize, bind on comm. */
#define LC_P2P_BIND(_comm, _name, _ports, _plan_p, _build_call)                                    \
    do {                                                                                           \
        lc_env_t _env = lc_exec_env((_comm), 0);                                                   \
        lc_plan_t *p;                                                                              \
        lincoll_status_t _st = lc_plan_create(&_env, (_name), (_ports), &p);                       \
        if (_st != LINCOLL_OK) return _st;                                                         \
        _st = (_build_call);                                                                       \
        if (_st == LINCOLL_OK) _st = lc_plan_finalize(p);                                          \
        if (_st != LINCOLL_OK) {                                                                   \
            lc_plan_destroy(p);                                                                    \
            return _st;                                                                            \
        }                                                                                          \
        return lc_bind_local((_comm), p, (_plan_p));                                               \
    } while (0)

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
    const lc_dev_arg_t args[2] = {{"sbuf", dst >= 0 ? sbuf : NULL, sbytes},
                                  {"rbuf", src >= 0 ? rbuf : NULL, rbytes}};
    lincoll_status_t dst_st = lc_dev_check_args("lincoll_sendrecv_init", args, 2, NULL);
    if (dst_st != LINCOLL_OK) return dst_st;
    LC_P2P_BIND(comm, "sendrecv", 1, plan_p,
                lc_sendrecv_build(p, sbuf, sbytes, dst, rbuf, rbytes, src, tag, order));
}

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
    const lc_dev_arg_t args[2] = {{"sbuf", sbuf, bytes}, {"rbuf", rbuf, bytes}};
    lincoll_status_t st = lc_dev_check_args("lincoll_ring_shift_init", args, 2, NULL);
    if (st != LINCOLL_OK) return st;
    LC_P2P_BIND(comm, "ring_shift", 1, plan_p, lc_ring_shift_build(p, sbuf, rbuf, bytes, shift));
}

lincoll_status_t lincoll_alltoall_init(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                       size_t bytes, int ports, lincoll_plan_t **plan_p)
{
    LC_CHECK_ARG(comm != NULL, "lincoll_alltoall_init: comm must not be NULL");
    LC_CHECK_ARG(plan_p != NULL, "lincoll_alltoall_init: plan_p must not be NULL");
    LC_CHECK_ARG(ports >= 0 && ports <= 64, "lincoll_alltoall_init: ports=%d outside [0, 64]",
                 ports);
    const int P = comm->size;
    LC_CHECK_ARG(bytes <= ((size_t)1 << 46) / (size_t)P,
                 "lincoll_alltoall_init: bytes=%zu times %d ranks overflows", bytes, P);
    const size_t total = bytes * (size_t)P;
    LC_CHECK_ARG(total == 0 || (sbuf != NULL && rbuf != NULL),
                 "lincoll_alltoall_init: sbuf and rbuf must not be NULL");
    LC_CHECK_ARG(total == 0 || (const char *)sbuf + total <= (const char *)rbuf ||
                     (const char *)rbuf + total <= (const char *)sbuf,
                 "lincoll_alltoall_init: sbuf and rbuf overlap");
    const lc_dev_arg_t args[2] = {{"sbuf", sbuf, total}, {"rbuf", rbuf, total}};
    lincoll_status_t st = lc_dev_check_args("lincoll_alltoall_init", args, 2, NULL);
    if (st != LINCOLL_OK) return st;
    LC_P2P_BIND(comm, "alltoall_ports", ports > 0 ? ports : comm->ctx->ports, plan_p,
                lc_alltoall_ports_build(p, sbuf, rbuf, bytes));
}
