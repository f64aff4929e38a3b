/*
 * core/base/log.c: the logger, the embedding program's handler, and the
 * hooks that route kernels/ and transports/ log lines through it.
 */
#include "core/base/log.h"
#include "kernels/kernels.h"
#include "transports/transport.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

lincoll_log_level_t lc_log_level = LINCOLL_LOG_WARN;
static int lc_log_rank = -1;
static lincoll_log_func_t lc_log_handler;
static void *lc_log_handler_arg;

static const char *const lc_log_names[] = {"error", "warn", "info", "debug", "trace"};

void lc_log_set_rank(int rank)
{
    lc_log_rank = rank;
}

static void lc_log_va(lincoll_log_level_t level, const char *file, int line, const char *fmt,
                      va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (lc_log_handler != NULL) {
        lc_log_handler(level, lc_log_rank, base, line, msg, lc_log_handler_arg);
        return;
    }
    char out[1200];
    int n = snprintf(out, sizeof(out), "[lincoll %s rank %d pid %d] %s:%d %s\n",
                     lc_log_names[level], lc_log_rank, (int)getpid(), base, line, msg);
    if (n > (int)sizeof(out)) {
        n = (int)sizeof(out);
    }
    /* one write() per line so concurrent ranks do not interleave mid-line */
    ssize_t w = write(STDERR_FILENO, out, (size_t)n);
    (void)w;
}

void lc_log(lincoll_log_level_t level, const char *file, int line, const char *fmt, ...)
{
    if (!lc_log_enabled(level)) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    lc_log_va(level, file, line, fmt, ap);
    va_end(ap);
}

void lincoll_log_set_handler(lincoll_log_func_t fn, void *arg)
{
    lc_log_handler = fn;
    lc_log_handler_arg = arg;
}

lincoll_status_t lincoll_log_set_level(lincoll_log_level_t level)
{
    if ((int)level < LINCOLL_LOG_ERROR || level > LINCOLL_LOG_TRACE) {
        lc_error("lincoll_log_set_level: level %d is not a lincoll_log_level_t", (int)level);
        return LINCOLL_ERR_INVALID;
    }
    lc_log_level = level;
    return LINCOLL_OK;
}

__attribute__((constructor)) static void lc_log_install_hooks(void)
{
    lc_kernels_set_log(lc_log);
    lc_tl_set_log(lc_log);
}
