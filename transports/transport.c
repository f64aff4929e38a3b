/*
 * transports/transport.c: the transport log hook.
 */
#include "transport.h"

#include <stdarg.h>
#include <stdio.h>

static void lc_tl_log_stderr(lincoll_log_level_t level, const char *file, int line, const char *fmt,
                             ...)
{
    if (level > LINCOLL_LOG_WARN) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[lincoll] %s:%d ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

lc_tl_log_fn_t lc_tl_log = lc_tl_log_stderr;

void lc_tl_set_log(lc_tl_log_fn_t fn)
{
    lc_tl_log = fn ? fn : lc_tl_log_stderr;
}
