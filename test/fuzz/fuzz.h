/*
 * test/fuzz/fuzz.h: shared by the fuzz targets.
 */
#ifndef LC_FUZZ_H
#define LC_FUZZ_H

#include <lincoll/log.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Silence the library's log (errors are the expected outcome here). */
static inline void lc_fuzz_drop_log(lincoll_log_level_t level, int rank, const char *file, int line,
                                    const char *msg, void *arg)
{
    (void)level, (void)rank, (void)file, (void)line, (void)msg, (void)arg;
}

static inline void lc_fuzz_quiet(void)
{
    static int done;
    if (!done) {
        lincoll_log_set_handler(lc_fuzz_drop_log, NULL);
        lincoll_log_set_level(LINCOLL_LOG_ERROR);
        done = 1;
    }
}

#endif
