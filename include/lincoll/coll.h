/**
 * @file coll.h
 * @brief Reduction and gather collectives: allreduce, reduce-scatter,
 *        allgather, broadcast, reduce — any number of ranks.
 *
 * Every operation exists as a blocking call and as a persistent plan
 * (`*_init`) that is started with lincoll_start(), completed with
 * lincoll_test() / lincoll_wait() and can be started again any number of
 * times; buffers are bound to the plan at init and must stay valid while it
 * lives.  All ranks of the communicator must make the same calls in the same
 * order with matching arguments (count, dtype, op, root, counts[]).
 *
 * Algorithms (chosen per call by an alpha-beta-gamma cost model with
 * LINCOLL_MODEL_ALPHA / _BW / _COMPUTE_BW, or forced: per call with
 * lincoll_coll_opts_t::algo through the `*_init_opts` inits, per process with
 * `LINCOLL_<OP>_ALGO=auto|NAME`, OP one of ALLREDUCE, REDUCE_SCATTER,
 * ALLGATHER, BCAST, REDUCE; `lincoll_info -a` lists every NAME from the
 * registry, and test check_registry_docs holds this list to it):
 *  - allreduce: rhd, rd, ring, zcopy_rd, zcopy;
 *  - reduce_scatter: rhd, ring, zcopy_rh, zcopy;
 *  - allgather: rhd, ring, zcopy_rd, zcopy;
 *  - bcast: rhd, binomial, zcopy, zcopy_direct;
 *  - reduce: rhd, binomial, zcopy, zcopy_direct;
 * where rhd is recursive halving-doubling (HCCL's non-power-of-two fold: pairs
 * (2i, 2i+1), i < p - 2^floor(log2 p)); the zcopy algorithms load from and
 * store into the peers' memory where every rank maps every other
 * (lincoll memory on one host; docs/collectives.md).
 * Precedence: opts->algo, then LINCOLL_<OP>_ALGO, then the cost model
 * (lincoll_coll_opts_t).  A forced algorithm that cannot serve the call
 * (its size or rank-count restrictions, or zero copy where the peers'
 * memory is not mapped) falls back to the cost model's choice with a
 * warning, or fails with ::LINCOLL_ERR_UNSUPPORTED when
 * LINCOLL_ALGO_FALLBACK=error.  The plan's algorithm name is in
 * lincoll_plan_stats().
 *
 * Determinism: for a fixed algorithm and rank count every element is
 * reduced once along a fixed tree and then copied, so results are bitwise
 * identical on every rank and from run to run, and do not depend on count
 * or on the element's position.  They can differ between algorithms (and so
 * between message sizes when the choice is automatic): pin the algorithm
 * with opts->algo or LINCOLL_<OP>_ALGO for bitwise reproducibility across
 * sizes.
 *
 * Operators: those of lincoll_reduce() (see reduce.h); a (dtype, op) pair
 * without meaning (BXOR on floats, arithmetic on LINCOLL_BYTE) is
 * ::LINCOLL_ERR_UNSUPPORTED.  All operators are commutative.
 *
 * Init calls communicate where zero copy may serve the call: on a
 * communicator whose ranks share one host (a real bootstrap, a transport
 * that maps peers), a persistent `*_init` whose best candidate is a
 * zero-copy algorithm exchanges bind records with every rank of the
 * communicator (two allgathers: the records, then every rank's attach
 * status; docs/architecture.md, "Window lifetime").  It is then collective
 * like the operation itself: every rank must call it, and besides the
 * statuses of a local init it can return ::LINCOLL_ERR_MISMATCH (a rank
 * passed other arguments), ::LINCOLL_ERR_TIMEOUT (a rank did not reach the
 * init within LINCOLL_TIMEOUT) or ::LINCOLL_ERR_PEER_FAILED (a rank died),
 * on every rank alike.  The blocking calls never take zero copy and their
 * init part never communicates.
 *
 * Errors: bad arguments give ::LINCOLL_ERR_INVALID and one log line naming
 * the argument; ranks whose arguments disagree get ::LINCOLL_ERR_MISMATCH
 * (message sizes differ) or, on ranks left waiting, ::LINCOLL_ERR_TIMEOUT
 * after LINCOLL_TIMEOUT — never a buffer overflow.
 */
#ifndef LINCOLL_COLL_H
#define LINCOLL_COLL_H

#include <stddef.h>
#include <stdint.h>
#include <lincoll/context.h>
#include <lincoll/plan.h>
#include <lincoll/status.h>
#include <lincoll/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Pass as the send buffer to run in place: the input is taken from the
 * receive buffer (allgather: from the rank's own block of it).
 */
#define LINCOLL_IN_PLACE ((const void *)1)

/**
 * @brief Options of the collective inits that take them (`*_init_opts`);
 *        NULL = all defaults.  Zero-initialize, then set what you need.
 *
 * Every field must be equal on every rank, like the other arguments.
 * Collectives have no port setting: each algorithm's schedule fixes the
 * ports it uses (one for the tag algorithms, p - 1 for most zero-copy ones).
 */
typedef struct lincoll_coll_opts {
    /**
     * Algorithm of this call.  NULL, "" or "auto": LINCOLL_<OP>_ALGO, and
     * where that is unset or auto the cost model.  Otherwise the name of one
     * of the operation's algorithms, short or plan name, case-insensitive
     * ("rhd", "ring", "binomial", "zcopy_rd", "rhd_allreduce", ...;
     * `lincoll_info -a` lists them): it is used whatever LINCOLL_<OP>_ALGO
     * says.  A name the operation has no algorithm of (another operation's
     * included) is ::LINCOLL_ERR_INVALID with one log line naming opts->algo.
     * An algorithm of the operation that cannot serve this call falls back
     * to the cost model's choice with one warning, or is
     * ::LINCOLL_ERR_UNSUPPORTED when LINCOLL_ALGO_FALLBACK=error, the same on
     * every rank (for a zero-copy algorithm after the init's agreement, as
     * with LINCOLL_<OP>_ALGO).  The string is read during the init only.
     */
    const char *algo;
    /** operation tag: 0 = the communicator's start order; 1..::LINCOLL_TAG_MAX =
     *  this operation's name on the communicator (see ::LINCOLL_TAG_MAX).  Equal on
     *  every rank. */
    uint64_t tag;
    /**
     * Non-zero: only algorithms whose init needs no communication (the tag
     * algorithms; no zero copy), as the blocking calls use.  The init is
     * then local on every rank, so ranks may make it at different times
     * (a plan cache that one rank hits while another misses), and the plan
     * maps no memory: its buffers are only addresses, never registrations.
     * A forced zero-copy opts->algo then falls back as where peers' memory
     * is not mapped.
     */
    int local_init;
} lincoll_coll_opts_t;

/**
 * @brief Persistent allreduce: rbuf[i] = sbuf_0[i] (+) ... (+) sbuf_(p-1)[i].
 * @param [in]  comm   communicator.
 * @param [in]  sbuf   count elements, or ::LINCOLL_IN_PLACE (or rbuf) for in place;
 *                     must not partly overlap @p rbuf.
 * @param [out] rbuf   count elements (may be NULL only if count is 0).
 * @param [in]  count  elements per rank (0 allowed).
 * @param [in]  dtype  element type.
 * @param [in]  op     reduction operator.
 * @param [out] plan_p the plan.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_UNSUPPORTED or
 *         ::LINCOLL_ERR_NOMEM; where the init communicates (see the file
 *         documentation) also ::LINCOLL_ERR_MISMATCH, ::LINCOLL_ERR_TIMEOUT
 *         or ::LINCOLL_ERR_PEER_FAILED, the same on every rank.
 */
LINCOLL_API lincoll_status_t lincoll_allreduce_init(lincoll_comm_t *comm, const void *sbuf,
                                                    void *rbuf, size_t count, lincoll_dtype_t dtype,
                                                    lincoll_op_t op, lincoll_plan_t **plan_p);

/**
 * @brief lincoll_allreduce_init() with options.
 * @param [in] opts options (the algorithm), or NULL for all defaults.
 * @return as the init without options; also ::LINCOLL_ERR_INVALID for an
 *         opts->algo the operation has no algorithm of, and
 *         ::LINCOLL_ERR_UNSUPPORTED for one that cannot serve the call under
 *         LINCOLL_ALGO_FALLBACK=error (lincoll_coll_opts_t).
 */
LINCOLL_API lincoll_status_t lincoll_allreduce_init_opts(lincoll_comm_t *comm, const void *sbuf,
                                                         void *rbuf, size_t count,
                                                         lincoll_dtype_t dtype, lincoll_op_t op,
                                                         const lincoll_coll_opts_t *opts,
                                                         lincoll_plan_t **plan_p);

/**
 * @brief Blocking allreduce (compiles, runs and frees a plan).
 * @return see lincoll_allreduce_init(), plus any error of lincoll_wait().
 */
LINCOLL_API lincoll_status_t lincoll_allreduce(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                               size_t count, lincoll_dtype_t dtype,
                                               lincoll_op_t op);

/**
 * @brief Persistent reduce-scatter, v form: the element-wise reduction of
 *        every rank's sbuf (sum of counts elements) is split in rank order;
 *        rank i receives counts[i] elements.
 * @param [in]  comm   communicator of p ranks.
 * @param [in]  sbuf   sum(counts) elements, or ::LINCOLL_IN_PLACE (or rbuf): then
 *                     rbuf holds the sum(counts) input elements, the result lands
 *                     at its start and the rest of rbuf is overwritten.
 * @param [out] rbuf   counts[rank] elements (sum(counts) in place).
 * @param [in]  counts p element counts (zeros allowed), equal on every rank.
 * @param [in]  dtype  element type.
 * @param [in]  op     reduction operator.
 * @param [out] plan_p the plan.
 * @return see lincoll_allreduce_init().
 */
LINCOLL_API lincoll_status_t lincoll_reduce_scatterv_init(lincoll_comm_t *comm, const void *sbuf,
                                                          void *rbuf, const size_t *counts,
                                                          lincoll_dtype_t dtype, lincoll_op_t op,
                                                          lincoll_plan_t **plan_p);

/**
 * @brief lincoll_reduce_scatterv_init() with options.
 * @param [in] opts options (the algorithm), or NULL for all defaults.
 * @return as the init without options; also ::LINCOLL_ERR_INVALID for an
 *         opts->algo the operation has no algorithm of, and
 *         ::LINCOLL_ERR_UNSUPPORTED for one that cannot serve the call under
 *         LINCOLL_ALGO_FALLBACK=error (lincoll_coll_opts_t).
 */
LINCOLL_API lincoll_status_t lincoll_reduce_scatterv_init_opts(
    lincoll_comm_t *comm, const void *sbuf, void *rbuf, const size_t *counts, lincoll_dtype_t dtype,
    lincoll_op_t op, const lincoll_coll_opts_t *opts, lincoll_plan_t **plan_p);

/**
 * @brief Blocking reduce-scatter, v form.
 * @return see lincoll_reduce_scatterv_init().
 */
LINCOLL_API lincoll_status_t lincoll_reduce_scatterv(lincoll_comm_t *comm, const void *sbuf,
                                                     void *rbuf, const size_t *counts,
                                                     lincoll_dtype_t dtype, lincoll_op_t op);

/**
 * @brief Persistent reduce-scatter, block form: every rank receives @p count
 *        elements (sbuf holds p * count).
 * @return see lincoll_reduce_scatterv_init().
 */
LINCOLL_API lincoll_status_t lincoll_reduce_scatter_init(lincoll_comm_t *comm, const void *sbuf,
                                                         void *rbuf, size_t count,
                                                         lincoll_dtype_t dtype, lincoll_op_t op,
                                                         lincoll_plan_t **plan_p);

/**
 * @brief lincoll_reduce_scatter_init() with options.
 * @param [in] opts options (the algorithm), or NULL for all defaults.
 * @return as the init without options; also ::LINCOLL_ERR_INVALID for an
 *         opts->algo the operation has no algorithm of, and
 *         ::LINCOLL_ERR_UNSUPPORTED for one that cannot serve the call under
 *         LINCOLL_ALGO_FALLBACK=error (lincoll_coll_opts_t).
 */
LINCOLL_API lincoll_status_t lincoll_reduce_scatter_init_opts(
    lincoll_comm_t *comm, const void *sbuf, void *rbuf, size_t count, lincoll_dtype_t dtype,
    lincoll_op_t op, const lincoll_coll_opts_t *opts, lincoll_plan_t **plan_p);

/**
 * @brief Blocking reduce-scatter, block form.
 * @return see lincoll_reduce_scatterv_init().
 */
LINCOLL_API lincoll_status_t lincoll_reduce_scatter(lincoll_comm_t *comm, const void *sbuf,
                                                    void *rbuf, size_t count, lincoll_dtype_t dtype,
                                                    lincoll_op_t op);

/**
 * @brief Persistent allgather, v form: rank i contributes counts[i] elements;
 *        every rank receives all of them in rank order (displacements are the
 *        prefix sums of @p counts).
 * @param [in]  comm   communicator of p ranks.
 * @param [in]  sbuf   counts[rank] elements, or ::LINCOLL_IN_PLACE (or the rank's
 *                     own block of rbuf): the own block is already in rbuf.
 * @param [out] rbuf   sum(counts) elements; must not partly overlap @p sbuf.
 * @param [in]  counts p element counts (zeros allowed), equal on every rank.
 * @param [in]  dtype  element type (any, including ::LINCOLL_BYTE).
 * @param [out] plan_p the plan.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_NOMEM; where the
 *         init communicates also ::LINCOLL_ERR_MISMATCH, ::LINCOLL_ERR_TIMEOUT
 *         or ::LINCOLL_ERR_PEER_FAILED (see lincoll_allreduce_init()).
 */
LINCOLL_API lincoll_status_t lincoll_allgatherv_init(lincoll_comm_t *comm, const void *sbuf,
                                                     void *rbuf, const size_t *counts,
                                                     lincoll_dtype_t dtype,
                                                     lincoll_plan_t **plan_p);

/**
 * @brief lincoll_allgatherv_init() with options.
 * @param [in] opts options (the algorithm), or NULL for all defaults.
 * @return as the init without options; also ::LINCOLL_ERR_INVALID for an
 *         opts->algo the operation has no algorithm of, and
 *         ::LINCOLL_ERR_UNSUPPORTED for one that cannot serve the call under
 *         LINCOLL_ALGO_FALLBACK=error (lincoll_coll_opts_t).
 */
LINCOLL_API lincoll_status_t lincoll_allgatherv_init_opts(lincoll_comm_t *comm, const void *sbuf,
                                                          void *rbuf, const size_t *counts,
                                                          lincoll_dtype_t dtype,
                                                          const lincoll_coll_opts_t *opts,
                                                          lincoll_plan_t **plan_p);

/**
 * @brief Blocking allgather, v form.
 * @return see lincoll_allgatherv_init().
 */
LINCOLL_API lincoll_status_t lincoll_allgatherv(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                                const size_t *counts, lincoll_dtype_t dtype);

/**
 * @brief Persistent allgather, block form: @p count elements per rank.
 * @return see lincoll_allgatherv_init().
 */
LINCOLL_API lincoll_status_t lincoll_allgather_init(lincoll_comm_t *comm, const void *sbuf,
                                                    void *rbuf, size_t count, lincoll_dtype_t dtype,
                                                    lincoll_plan_t **plan_p);

/**
 * @brief lincoll_allgather_init() with options.
 * @param [in] opts options (the algorithm), or NULL for all defaults.
 * @return as the init without options; also ::LINCOLL_ERR_INVALID for an
 *         opts->algo the operation has no algorithm of, and
 *         ::LINCOLL_ERR_UNSUPPORTED for one that cannot serve the call under
 *         LINCOLL_ALGO_FALLBACK=error (lincoll_coll_opts_t).
 */
LINCOLL_API lincoll_status_t lincoll_allgather_init_opts(lincoll_comm_t *comm, const void *sbuf,
                                                         void *rbuf, size_t count,
                                                         lincoll_dtype_t dtype,
                                                         const lincoll_coll_opts_t *opts,
                                                         lincoll_plan_t **plan_p);

/**
 * @brief Blocking allgather, block form.
 * @return see lincoll_allgatherv_init().
 */
LINCOLL_API lincoll_status_t lincoll_allgather(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                               size_t count, lincoll_dtype_t dtype);

/**
 * @brief Persistent broadcast of @p count elements from @p root.
 * @param [in]     comm   communicator.
 * @param [in,out] buf    count elements: input at the root, output elsewhere.
 * @param [in]     count  elements (0 allowed).
 * @param [in]     dtype  element type.
 * @param [in]     root   rank in [0, p).
 * @param [out]    plan_p the plan.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_NOMEM; where the
 *         init communicates also ::LINCOLL_ERR_MISMATCH, ::LINCOLL_ERR_TIMEOUT
 *         or ::LINCOLL_ERR_PEER_FAILED (see lincoll_allreduce_init()).
 */
LINCOLL_API lincoll_status_t lincoll_bcast_init(lincoll_comm_t *comm, void *buf, size_t count,
                                                lincoll_dtype_t dtype, int root,
                                                lincoll_plan_t **plan_p);

/**
 * @brief lincoll_bcast_init() with options.
 * @param [in] opts options (the algorithm), or NULL for all defaults.
 * @return as the init without options; also ::LINCOLL_ERR_INVALID for an
 *         opts->algo the operation has no algorithm of, and
 *         ::LINCOLL_ERR_UNSUPPORTED for one that cannot serve the call under
 *         LINCOLL_ALGO_FALLBACK=error (lincoll_coll_opts_t).
 */
LINCOLL_API lincoll_status_t lincoll_bcast_init_opts(lincoll_comm_t *comm, void *buf, size_t count,
                                                     lincoll_dtype_t dtype, int root,
                                                     const lincoll_coll_opts_t *opts,
                                                     lincoll_plan_t **plan_p);

/**
 * @brief Blocking broadcast.
 * @return see lincoll_bcast_init().
 */
LINCOLL_API lincoll_status_t lincoll_bcast(lincoll_comm_t *comm, void *buf, size_t count,
                                           lincoll_dtype_t dtype, int root);

/**
 * @brief Persistent reduce to @p root: rbuf[i] = sbuf_0[i] (+) ... at the root.
 * @param [in]  comm   communicator.
 * @param [in]  sbuf   count elements, or ::LINCOLL_IN_PLACE (or rbuf): the input
 *                     is in rbuf (on a non-root rbuf is then left unspecified).
 * @param [out] rbuf   count elements at the root; ignored elsewhere (may be NULL)
 *                     unless in place.
 * @param [in]  count  elements (0 allowed).
 * @param [in]  dtype  element type.
 * @param [in]  op     reduction operator.
 * @param [in]  root   rank in [0, p).
 * @param [out] plan_p the plan.
 * @return see lincoll_allreduce_init().
 */
LINCOLL_API lincoll_status_t lincoll_reduce_init(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                                 size_t count, lincoll_dtype_t dtype,
                                                 lincoll_op_t op, int root,
                                                 lincoll_plan_t **plan_p);

/**
 * @brief lincoll_reduce_init() with options.
 * @param [in] opts options (the algorithm), or NULL for all defaults.
 * @return as the init without options; also ::LINCOLL_ERR_INVALID for an
 *         opts->algo the operation has no algorithm of, and
 *         ::LINCOLL_ERR_UNSUPPORTED for one that cannot serve the call under
 *         LINCOLL_ALGO_FALLBACK=error (lincoll_coll_opts_t).
 */
LINCOLL_API lincoll_status_t lincoll_reduce_init_opts(lincoll_comm_t *comm, const void *sbuf,
                                                      void *rbuf, size_t count,
                                                      lincoll_dtype_t dtype, lincoll_op_t op,
                                                      int root, const lincoll_coll_opts_t *opts,
                                                      lincoll_plan_t **plan_p);

/**
 * @brief Blocking reduce.
 * @return see lincoll_reduce_init().
 */
LINCOLL_API lincoll_status_t lincoll_reduce_coll(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                                 size_t count, lincoll_dtype_t dtype,
                                                 lincoll_op_t op, int root);

#ifdef __cplusplus
}
#endif
#endif
