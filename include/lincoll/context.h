/**
 * @file context.h
 * @brief Context (one per process), communicators, registered memory.
 *
 * lincoll_init() finds the launcher (PMIx under mpirun or srun --mpi=pmix,
 * the TCP store of lincoll-run, or a single process), starts the transport
 * and exchanges addresses.  The world communicator spans every rank;
 * lincoll_comm_split() makes sub-communicators.
 */
#ifndef LINCOLL_CONTEXT_H
#define LINCOLL_CONTEXT_H

#include <stddef.h>
#include <lincoll/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque per-process context. */
typedef struct lincoll_context lincoll_context_t;
/** Opaque communicator: an ordered group of ranks. */
typedef struct lincoll_comm lincoll_comm_t;

/** Optional parameters of lincoll_init(); zero-initialize and set what you need. */
typedef struct lincoll_init_params {
    /** Ports p (sends and receives in flight per round); 0 = LINCOLL_PORTS. */
    int ports;
    /** Seconds before a stuck operation fails; < 0 = LINCOLL_TIMEOUT. 0 = never. */
    double timeout;
} lincoll_init_params_t;

/**
 * @brief Create the process's context: bootstrap, transport, world communicator.
 *
 * Collective over every process of the job.  Reads the LINCOLL_* variables
 * once; a bad value fails with ::LINCOLL_ERR_INVALID and a log line naming it.
 * @param [in]  params optional (NULL = defaults from the environment).
 * @param [out] ctx_p  the new context, set only on success.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_BOOTSTRAP,
 *         ::LINCOLL_ERR_TRANSPORT, ::LINCOLL_ERR_TIMEOUT or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_init(const lincoll_init_params_t *params,
                                          lincoll_context_t **ctx_p);

/**
 * @brief Destroy a context (collective; waits for peers to finish, bounded
 *        by LINCOLL_TIMEOUT).  Communicators, plans and memory of the context
 *        must have been freed; any left are freed here with a warning.
 * @param [in] ctx context, or NULL (no-op).
 * @return ::LINCOLL_OK, or the first error met while shutting down.
 */
LINCOLL_API lincoll_status_t lincoll_finalize(lincoll_context_t *ctx);

/**
 * @brief The world communicator (owned by the context; do not free).
 * @param [in]  ctx    context.
 * @param [out] comm_p world communicator.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_comm_world(lincoll_context_t *ctx, lincoll_comm_t **comm_p);

/**
 * @brief Rank of the calling process in @p comm.
 * @return the rank (0 .. size-1), or -1 if @p comm is NULL.
 */
LINCOLL_API int lincoll_comm_rank(const lincoll_comm_t *comm);

/**
 * @brief Number of ranks in @p comm.
 * @return the size, or -1 if @p comm is NULL.
 */
LINCOLL_API int lincoll_comm_size(const lincoll_comm_t *comm);

/**
 * @brief Split @p comm by color; ranks are ordered by (key, old rank).
 *
 * Collective over @p comm.  Ranks passing a negative color get *new_p = NULL.
 * @param [in]  comm  parent communicator.
 * @param [in]  color group selector (>= 0), or negative to opt out.
 * @param [in]  key   ordering key within the new group.
 * @param [out] new_p new communicator (free with lincoll_comm_free()).
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_TIMEOUT,
 *         ::LINCOLL_ERR_PEER_FAILED or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_comm_split(lincoll_comm_t *comm, int color, int key,
                                                lincoll_comm_t **new_p);

/**
 * @brief Free a communicator made by lincoll_comm_split().
 * @param [in] comm communicator, or NULL (no-op). The world is refused.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_comm_free(lincoll_comm_t *comm);

/**
 * @brief Barrier over @p comm (through the data transport).
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_TIMEOUT or ::LINCOLL_ERR_PEER_FAILED.
 */
LINCOLL_API lincoll_status_t lincoll_barrier(lincoll_comm_t *comm);

/**
 * @brief Drive communication once (for programs with their own event loop).
 * @param [in] ctx context.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_progress(lincoll_context_t *ctx);

/**
 * @brief Allocate memory registered with the transport: the zero-copy path.
 *
 * Peers can put into it directly (true one-sided RMA over shared memory).
 * Plans whose buffers come from here skip registration and copies.
 * @param [in]  ctx    context.
 * @param [in]  bytes  size (> 0).
 * @param [out] addr_p the memory, 64-byte aligned.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_NOMEM or ::LINCOLL_ERR_TRANSPORT.
 */
LINCOLL_API lincoll_status_t lincoll_mem_alloc(lincoll_context_t *ctx, size_t bytes, void **addr_p);

/**
 * @brief Free memory from lincoll_mem_alloc().
 * @param [in] ctx  context.
 * @param [in] addr address returned by lincoll_mem_alloc(), or NULL (no-op).
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID (not lincoll memory).
 */
LINCOLL_API lincoll_status_t lincoll_mem_free(lincoll_context_t *ctx, void *addr);

/**
 * @brief Register user memory with the transport (kept until deregistered).
 * @param [in] ctx   context.
 * @param [in] addr  start (not NULL).
 * @param [in] bytes size (> 0).
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_TRANSPORT.
 */
LINCOLL_API lincoll_status_t lincoll_mem_register(lincoll_context_t *ctx, void *addr, size_t bytes);

/**
 * @brief Drop a registration made by lincoll_mem_register().
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID (not registered).
 */
LINCOLL_API lincoll_status_t lincoll_mem_deregister(lincoll_context_t *ctx, void *addr);

#ifdef __cplusplus
}
#endif
#endif
