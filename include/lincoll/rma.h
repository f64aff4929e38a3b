/**
 * @file rma.h
 * @brief One-sided windows: put into a peer's memory and signal it.
 *
 * A window is a region on every rank of a communicator.  lincoll_put() writes
 * into a peer's region; with ::LINCOLL_PUT_SIGNAL the peer's signal counter
 * for the caller is incremented after the data has landed, and
 * lincoll_win_wait_signal() on the peer waits for it.  Regions from
 * lincoll_mem_alloc() are truly one-sided over shared memory; other memory
 * is registered by lincoll_win_create() and may need the target to progress.
 */
#ifndef LINCOLL_RMA_H
#define LINCOLL_RMA_H

#include <stddef.h>
#include <lincoll/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque window. */
typedef struct lc_win lincoll_win_t;

/** lincoll_put() flag: signal the target once the data has landed. */
#define LINCOLL_PUT_SIGNAL 1u

/**
 * @brief Create a window over [base, base + bytes) on every rank (collective).
 * @param [in]  comm   communicator.
 * @param [in]  base   local region (not NULL).
 * @param [in]  bytes  size (> 0; may differ between ranks).
 * @param [out] win_p  the window.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_NOMEM, a transport
 *         or peer error.
 */
LINCOLL_API lincoll_status_t lincoll_win_create(lincoll_comm_t *comm, void *base, size_t bytes,
                                                lincoll_win_t **win_p);

/**
 * @brief Free a window (local; complete or flush puts first).
 * @return ::LINCOLL_OK.
 */
LINCOLL_API lincoll_status_t lincoll_win_free(lincoll_win_t *win);

/**
 * @brief Post a put of @p bytes from @p src to @p offset in @p peer's region.
 *
 * Non-blocking: @p src must not change until lincoll_win_flush() returns.
 * @param [in] win    window.
 * @param [in] peer   target rank in the window's communicator.
 * @param [in] src    source (not NULL unless @p bytes is 0).
 * @param [in] bytes  size.
 * @param [in] offset offset in the target's region; offset + bytes must fit.
 * @param [in] flags  0 or ::LINCOLL_PUT_SIGNAL.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_PEER_FAILED or a
 *         transport error.
 */
LINCOLL_API lincoll_status_t lincoll_put(lincoll_win_t *win, int peer, const void *src,
                                         size_t bytes, size_t offset, unsigned flags);

/**
 * @brief Wait until every put posted on @p win has completed at its target.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_TIMEOUT or a transport/peer error.
 */
LINCOLL_API lincoll_status_t lincoll_win_flush(lincoll_win_t *win);

/**
 * @brief Wait until @p count more signalled puts from @p peer have landed here.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_TIMEOUT or
 *         ::LINCOLL_ERR_PEER_FAILED.
 */
LINCOLL_API lincoll_status_t lincoll_win_wait_signal(lincoll_win_t *win, int peer, size_t count);

#ifdef __cplusplus
}
#endif
#endif
