/**
 * @file plan.h
 * @brief Persistent plans: compile once, start many times.
 *
 * Every lincoll operation compiles to a plan: rounds of sends, receives and
 * puts on up to p ports, with local compute steps between them.  A plan is
 * started, then tested or waited on; it can be started again once it has
 * completed.  lincoll_plan_stats() reports its static cost.
 */
#ifndef LINCOLL_PLAN_H
#define LINCOLL_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <lincoll/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque compiled plan. */
typedef struct lincoll_plan lincoll_plan_t;

/** Static cost of a plan, for the calling rank and for the whole plan. */
typedef struct lincoll_plan_stats {
    char algorithm[32];     /**< name of the algorithm that compiled it (a copy: valid after
                                 the plan is freed) */
    unsigned rounds;        /**< C1: rounds in which this rank sends, receives, puts or waits */
    uint64_t c2_elems;      /**< C2: sum over rounds of the largest transfer (elements) of this
                                 rank, or of the bytes its steps load from or store into peers'
                                 memory in that round when that is larger (zero copy) */
    uint64_t c2_bytes;      /**< C2 in bytes */
    uint64_t msgs_sent;     /**< messages (and puts) this rank sends per start */
    uint64_t bytes_sent;    /**< bytes this rank sends per start */
    uint64_t msgs_recvd;    /**< messages this rank receives per start */
    uint64_t bytes_recvd;   /**< bytes this rank receives per start */
    uint64_t compute_elems; /**< elements this rank touches in compute steps */
    uint64_t scratch_bytes; /**< scratch memory the plan owns on this rank */
    unsigned ports;         /**< ports p the plan was compiled for */
    double predicted_us;    /**< alpha-beta-gamma prediction of one start, microseconds: per
                                 round alpha (if it transfers) + max(its largest transfer at
                                 beta, the compute that overlaps it at gamma) + the rest of its
                                 compute; rounds that run every n-th start weigh 1/n */
    unsigned global_rounds; /**< rounds of the whole schedule (the same on every rank; a rank
                                 that sits some out has rounds < global_rounds) */
    uint64_t moved_bytes;   /**< bytes this rank's steps load from or store into peers'
                                 mapped memory per start (zero-copy plans) */
} lincoll_plan_stats_t;

/**
 * @brief Start a plan (non-blocking).
 * @param [in] plan a compiled plan that is not running.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_BUSY (still running)
 *         or a transport error.
 */
LINCOLL_API lincoll_status_t lincoll_start(lincoll_plan_t *plan);

/**
 * @brief Drive a started plan without blocking.
 * @return ::LINCOLL_INPROGRESS, ::LINCOLL_OK when complete, or the error that
 *         ended it (::LINCOLL_ERR_TIMEOUT, ::LINCOLL_ERR_PEER_FAILED, ...).
 */
LINCOLL_API lincoll_status_t lincoll_test(lincoll_plan_t *plan);

/**
 * @brief Drive a started plan until it completes or fails (bounded by the
 *        context timeout).
 * @return ::LINCOLL_OK or the error that ended it.
 */
LINCOLL_API lincoll_status_t lincoll_wait(lincoll_plan_t *plan);

/**
 * @brief Free a plan (a running plan is canceled first).
 *
 * A plan that failed or was canceled may leave transfers the transport could
 * not stop: a send still in flight, or a receive whose message kept arriving
 * past the timeout (a peer cut off mid-message whose link came back).  The
 * plan's own memory is then kept until lincoll_finalize; the buffers the
 * caller bound to the plan may still be read or written until then, and
 * lincoll_plan_free says so with ::LINCOLL_ERR_BUSY.
 * @param [in] plan plan, or NULL (no-op).
 * @return ::LINCOLL_OK, or ::LINCOLL_ERR_BUSY: the plan is freed, but keep the
 *         buffers bound to it until lincoll_finalize of its context.
 */
LINCOLL_API lincoll_status_t lincoll_plan_free(lincoll_plan_t *plan);

/**
 * @brief Static cost of a plan.
 * @param [in]  plan  plan.
 * @param [out] stats filled on success.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_plan_stats(const lincoll_plan_t *plan,
                                                lincoll_plan_stats_t *stats);

/**
 * @brief Print the plan (rounds, ports, peers, sizes, steps) to @p buf.
 * @param [in]  plan plan.
 * @param [out] buf  text, NUL-terminated, truncated to @p len.
 * @param [in]  len  size of @p buf.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_plan_dump(const lincoll_plan_t *plan, char *buf, size_t len);

/**
 * @brief Ring shift: every rank sends @p bytes from @p sbuf to rank
 *        (rank + shift) mod P and receives into @p rbuf from (rank - shift) mod P.
 *
 * One round.  Buffers are bound to the plan; they must stay valid while it lives.
 * @param [in]  comm  communicator.
 * @param [in]  sbuf  send buffer (may be NULL only if @p bytes is 0).
 * @param [out] rbuf  receive buffer, must not overlap @p sbuf.
 * @param [in]  bytes message size.
 * @param [in]  shift distance (any integer; reduced mod P).
 * @param [out] plan_p the plan.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_ring_shift_init(lincoll_comm_t *comm, const void *sbuf,
                                                     void *rbuf, size_t bytes, int shift,
                                                     lincoll_plan_t **plan_p);

/**
 * @brief All-to-all exchange on p ports: block j of @p sbuf (each @p bytes
 *        long) goes to rank j and lands as block i of rank j's @p rbuf.
 *
 * ceil((P-1)/p) rounds; in round r a rank sends to ranks rank+1+r*p ..
 * rank+(r+1)*p and receives from the mirror ranks.
 * @param [in]  comm  communicator of P ranks.
 * @param [in]  sbuf  P blocks.
 * @param [out] rbuf  P blocks, must not overlap @p sbuf.
 * @param [in]  bytes block size.
 * @param [in]  ports p >= 1 (0 = the context's default).
 * @param [out] plan_p the plan.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_alltoall_init(lincoll_comm_t *comm, const void *sbuf,
                                                   void *rbuf, size_t bytes, int ports,
                                                   lincoll_plan_t **plan_p);

/** Order of the two halves of a lincoll_sendrecv_init() plan. */
typedef enum lincoll_sendrecv_order {
    LINCOLL_SENDRECV_CONCURRENT = 0, /**< send and receive in the same round */
    LINCOLL_SENDRECV_SEND_FIRST,     /**< round 0 sends, round 1 receives (ping) */
    LINCOLL_SENDRECV_RECV_FIRST      /**< round 0 receives, round 1 sends (pong) */
} lincoll_sendrecv_order_t;

/** Largest user tag of lincoll_sendrecv_tagged_init(). */
#define LINCOLL_SENDRECV_TAG_MAX 4095

/**
 * @brief Point-to-point plan: send @p sbytes to @p dst and/or receive
 *        @p rbytes from @p src.
 *
 * Point-to-point plans have their own tag space: any subset of ranks may
 * make and start them, in any number, without affecting how the
 * communicator's collectives match (a collective started after rank 0 and 1
 * exchanged messages matches on every rank as if they had not).  Messages
 * from one sender to one receiver match in the order their plans were
 * started (as MPI's non-overtaking rule); lincoll_sendrecv_tagged_init()
 * separates independent streams between the same pair.
 *
 * Either side may be omitted by passing a negative rank.  Two ranks running
 * SEND_FIRST and RECV_FIRST plans against each other form a ping-pong (a
 * receive matches only a send of the same round, so SEND_FIRST against
 * SEND_FIRST times out).  A rank sending to itself must also receive from
 * itself in the same plan, with ::LINCOLL_SENDRECV_CONCURRENT.
 * @param [in]  comm   communicator.
 * @param [in]  sbuf   send buffer (may be NULL if @p sbytes is 0 or @p dst < 0).
 * @param [in]  sbytes bytes to send.
 * @param [in]  dst    destination rank, or -1 for none.
 * @param [out] rbuf   receive buffer (may be NULL if @p rbytes is 0 or @p src < 0).
 * @param [in]  rbytes bytes expected (a different size from the sender is an error).
 * @param [in]  src    source rank, or -1 for none.
 * @param [in]  order  see ::lincoll_sendrecv_order_t.
 * @param [out] plan_p the plan.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_sendrecv_init(lincoll_comm_t *comm, const void *sbuf,
                                                   size_t sbytes, int dst, void *rbuf,
                                                   size_t rbytes, int src,
                                                   lincoll_sendrecv_order_t order,
                                                   lincoll_plan_t **plan_p);

/**
 * @brief lincoll_sendrecv_init() with a user tag: a receive matches only
 *        sends made with the same @p tag (same pair, same round).
 * @param [in] tag 0 .. ::LINCOLL_SENDRECV_TAG_MAX (0 is lincoll_sendrecv_init()'s).
 * Other parameters and return values as lincoll_sendrecv_init(); a tag above
 * the maximum is ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_sendrecv_tagged_init(lincoll_comm_t *comm, const void *sbuf,
                                                          size_t sbytes, int dst, void *rbuf,
                                                          size_t rbytes, int src, unsigned tag,
                                                          lincoll_sendrecv_order_t order,
                                                          lincoll_plan_t **plan_p);

#ifdef __cplusplus
}
#endif
#endif
