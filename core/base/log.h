/*
 * core/base/log.h: one line per event with level, rank, file:line.
 *
 * Log once, where an error is first detected; callers only propagate the
 * status.  Messages are lowercase and name the argument or variable at fault.
 */
#ifndef LC_LOG_H
#define LC_LOG_H

#include <lincoll/log.h>

/** Current threshold (lines above it are dropped). */
extern lincoll_log_level_t lc_log_level;

/** Rank printed in log lines (-1 before bootstrap). */
void lc_log_set_rank(int rank);

void lc_log(lincoll_log_level_t level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define lc_log_enabled(_lvl) ((_lvl) <= lc_log_level)
#define LC_LOG(_lvl, ...)                                                                          \
    do {                                                                                           \
        if (lc_log_enabled(_lvl)) lc_log((_lvl), __FILE__, __LINE__, __VA_ARGS__);                 \
    } while (0)
#define lc_error(...) LC_LOG(LINCOLL_LOG_ERROR, __VA_ARGS__)
#define lc_warn(...)  LC_LOG(LINCOLL_LOG_WARN, __VA_ARGS__)
#define lc_info(...)  LC_LOG(LINCOLL_LOG_INFO, __VA_ARGS__)
#define lc_debug(...) LC_LOG(LINCOLL_LOG_DEBUG, __VA_ARGS__)
#define lc_trace(...) LC_LOG(LINCOLL_LOG_TRACE, __VA_ARGS__)

/** Reject an argument: log it once and return LINCOLL_ERR_INVALID. */
#define LC_CHECK_ARG(_cond, ...)                                                                   \
    do {                                                                                           \
        if (!(_cond)) {                                                                            \
            lc_error(__VA_ARGS__);                                                                 \
            return LINCOLL_ERR_INVALID;                                                            \
        }                                                                                          \
    } while (0)

#endif
