/*
 * core/base/info.c: build options, kernel dispatch and transports for lincoll_info.
 */
#include <lincoll/info.h>

#include "core/base/log.h"
#include "kernels/kernels.h"

#ifndef LINCOLL_BUILD_OPTIONS
#define LINCOLL_BUILD_OPTIONS "unknown"
#endif

const char *lincoll_info_build(void)
{
    return LINCOLL_BUILD_OPTIONS;
}

lincoll_status_t lincoll_info_kernel_isa(const char **active, const char **best)
{
    if (active == NULL || best == NULL) {
        lc_error("lincoll_info_kernel_isa: active and best must not be NULL");
        return LINCOLL_ERR_INVALID;
    }
    *active = lc_isa_name(lc_kernel_isa());
    *best = lc_isa_name(lc_cpu_best_isa());
    return LINCOLL_OK;
}

const char *lincoll_info_transports(void)
{
    return "ucx sim";
}
