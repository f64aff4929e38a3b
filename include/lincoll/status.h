/**
 * @file status.h
 * @brief Status codes returned by every lincoll call.
 *
 * Every public function returns a ::lincoll_status_t.  Zero is success,
 * ::LINCOLL_INPROGRESS means a non-blocking operation has not finished yet,
 * and every negative value is an error.  lincoll_strerror() names each code.
 */
#ifndef LINCOLL_STATUS_H
#define LINCOLL_STATUS_H

#include <lincoll/visibility.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Result of a lincoll call. */
typedef enum lincoll_status {
    LINCOLL_OK = 0,               /**< success */
    LINCOLL_INPROGRESS = 1,       /**< non-blocking operation still running */
    LINCOLL_ERR_INVALID = -1,     /**< an argument is invalid (the log names it) */
    LINCOLL_ERR_NOMEM = -2,       /**< out of memory */
    LINCOLL_ERR_UNSUPPORTED = -3, /**< valid request this build or algorithm cannot serve */
    LINCOLL_ERR_NOT_FOUND = -4,   /**< a named object (variable, algorithm, key) does not exist */
    LINCOLL_ERR_TIMEOUT = -5,     /**< an operation did not finish within LINCOLL_TIMEOUT */
    LINCOLL_ERR_PEER_FAILED = -6, /**< a peer process died or its connection broke */
    LINCOLL_ERR_TRANSPORT = -7,   /**< the transport (UCX) reported an error */
    LINCOLL_ERR_BOOTSTRAP = -8,   /**< the launcher bootstrap (PMIx, TCP store) failed */
    LINCOLL_ERR_SINGULAR = -9,    /**< a matrix that must be invertible is singular */
    LINCOLL_ERR_MISMATCH = -10,   /**< ranks disagree on arguments that must match */
    LINCOLL_ERR_TRUNCATED = -11,  /**< a message was larger than the buffer for it */
    LINCOLL_ERR_AUTH = -12,       /**< a peer did not present the job secret */
    LINCOLL_ERR_BUSY = -13,       /**< the object is in use (a plan still running) */
    LINCOLL_ERR_IO = -14,         /**< an operating-system call failed */
    LINCOLL_ERR_CORRUPT = -15,    /**< data failed an integrity check */
    LINCOLL_ERR_CANCELED = -16,   /**< the operation was canceled */
    LINCOLL_ERR_INTERNAL = -17    /**< an internal invariant failed (a bug) */
} lincoll_status_t;

/** True when @p s is an error code. */
#define LINCOLL_IS_ERR(s) ((s) < 0)

/**
 * @brief Name a status code.
 * @param [in] status any value; unknown values give "unknown status".
 * @return a static, NUL-terminated string (never NULL).
 */
LINCOLL_API const char *lincoll_strerror(lincoll_status_t status);

#ifdef __cplusplus
}
#endif
#endif
