/**
 * @file log.h
 * @brief Log levels and the log callback for embedding programs.
 *
 * lincoll writes one line per event: level, rank, file:line and the message.
 * By default lines at or below LINCOLL_LOG_LEVEL (default "warn") go to
 * stderr.  A daemon that owns its logging installs a handler instead.
 */
#ifndef LINCOLL_LOG_H
#define LINCOLL_LOG_H

#include <lincoll/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Severity of a log line; lower is more severe. */
typedef enum lincoll_log_level {
    LINCOLL_LOG_ERROR = 0, /**< an operation failed */
    LINCOLL_LOG_WARN = 1,  /**< something unexpected that lincoll worked around */
    LINCOLL_LOG_INFO = 2,  /**< choices made (algorithm, transport, binding) */
    LINCOLL_LOG_DEBUG = 3, /**< details for debugging */
    LINCOLL_LOG_TRACE = 4  /**< every message and round */
} lincoll_log_level_t;

/**
 * @brief Log handler installed by an embedding program.
 * @param [in] level severity.
 * @param [in] rank  world rank of the caller, or -1 before bootstrap.
 * @param [in] file  source file that logged.
 * @param [in] line  source line.
 * @param [in] msg   the message, without a trailing newline.
 * @param [in] arg   the pointer given to lincoll_log_set_handler().
 */
typedef void (*lincoll_log_func_t)(lincoll_log_level_t level, int rank, const char *file, int line,
                                   const char *msg, void *arg);

/**
 * @brief Route lincoll's log lines to @p fn (NULL restores stderr).
 *
 * The handler is called only for lines at or below the current level.
 * It may be called from any lincoll call; it must not call back into lincoll.
 * @param [in] fn  handler, or NULL.
 * @param [in] arg passed to every call of @p fn.
 */
LINCOLL_API void lincoll_log_set_handler(lincoll_log_func_t fn, void *arg);

/**
 * @brief Set the log level (overrides LINCOLL_LOG_LEVEL).
 * @param [in] level new level.
 * @return ::LINCOLL_OK, or ::LINCOLL_ERR_INVALID for an unknown level.
 */
LINCOLL_API lincoll_status_t lincoll_log_set_level(lincoll_log_level_t level);

#ifdef __cplusplus
}
#endif
#endif
