/*
 * core/api/mem_api.c: the public memory calls (include/lincoll/context.h and
 * include/lincoll/mem.h): lincoll_mem_alloc/free/register/deregister,
 * lincoll_mem_alloc_type and the memory-type queries.  Argument checks (one
 * log line naming the argument), then the context's list of regions
 * (core/context: host memory through the transport) or the device backend
 * (core/dev: device memory).  Neither of those calls the other.
 */
#include <lincoll/context.h>
#include <lincoll/mem.h>

#include "core/base/log.h"
#include "core/context/context.h"
#include "core/dev/dev.h"

#define LC_MEM_MAX_BYTES ((size_t)1 << 46)

/* ---- host memory: the context's regions ------------------------------------ */

lincoll_status_t lincoll_mem_alloc(lincoll_context_t *ctx, size_t bytes, void **addr_p)
{
    LC_CHECK_ARG(ctx != NULL, "lincoll_mem_alloc: ctx must not be NULL");
    LC_CHECK_ARG(addr_p != NULL, "lincoll_mem_alloc: addr_p must not be NULL");
    LC_CHECK_ARG(bytes > 0 && bytes <= LC_MEM_MAX_BYTES,
                 "lincoll_mem_alloc: bytes=%zu must be in [1, 2^46]", bytes);
    return lc_mem_add(ctx, NULL, bytes, 1, addr_p);
}

lincoll_status_t lincoll_mem_free(lincoll_context_t *ctx, void *addr)
{
    LC_CHECK_ARG(ctx != NULL, "lincoll_mem_free: ctx must not be NULL");
    if (addr == NULL) {
        return LINCOLL_OK;
    }
    if (lc_dev_mem_release(ctx, addr) == LINCOLL_OK) { /* lincoll_mem_alloc_type device memory */
        return LINCOLL_OK;
    }
    return lc_mem_remove(ctx, addr, 1, "lincoll_mem_free");
}

lincoll_status_t lincoll_mem_register(lincoll_context_t *ctx, void *addr, size_t bytes)
{
    LC_CHECK_ARG(ctx != NULL, "lincoll_mem_register: ctx must not be NULL");
    LC_CHECK_ARG(addr != NULL, "lincoll_mem_register: addr must not be NULL");
    LC_CHECK_ARG(bytes > 0 && bytes <= LC_MEM_MAX_BYTES,
                 "lincoll_mem_register: bytes=%zu must be in [1, 2^46]", bytes);
    LC_CHECK_ARG(lc_mem_find(ctx, addr, bytes) == NULL,
                 "lincoll_mem_register: [%p, +%zu) is already registered", addr, bytes);
    return lc_mem_add(ctx, addr, bytes, 0, NULL);
}

lincoll_status_t lincoll_mem_deregister(lincoll_context_t *ctx, void *addr)
{
    LC_CHECK_ARG(ctx != NULL, "lincoll_mem_deregister: ctx must not be NULL");
    LC_CHECK_ARG(addr != NULL, "lincoll_mem_deregister: addr must not be NULL");
    return lc_mem_remove(ctx, addr, 0, "lincoll_mem_deregister");
}

/* ---- memory types: host through the context, device through core/dev ------ */

LINCOLL_API lincoll_status_t lincoll_mem_alloc_type(lincoll_context_t *ctx, size_t bytes,
                                                    lincoll_mem_type_t type, void **addr_p)
{
    LC_CHECK_ARG(ctx != NULL, "lincoll_mem_alloc_type: ctx must not be NULL");
    LC_CHECK_ARG(addr_p != NULL, "lincoll_mem_alloc_type: addr_p must not be NULL");
    LC_CHECK_ARG((unsigned)type < LINCOLL_MEM_TYPE_LAST,
                 "lincoll_mem_alloc_type: type=%d is not a lincoll_mem_type_t", (int)type);
    if (type == LINCOLL_MEM_HOST) return lincoll_mem_alloc(ctx, bytes, addr_p);
    LC_CHECK_ARG(bytes > 0 && bytes <= LC_MEM_MAX_BYTES,
                 "lincoll_mem_alloc_type: bytes=%zu must be in [1, 2^46]", bytes);
    return lc_dev_mem_alloc(ctx, "lincoll_mem_alloc_type", bytes, addr_p);
}

LINCOLL_API lincoll_status_t lincoll_mem_type_of(lincoll_context_t *ctx, const void *addr,
                                                 size_t bytes, lincoll_mem_type_t *type_p)
{
    LC_CHECK_ARG(ctx != NULL, "lincoll_mem_type_of: ctx must not be NULL");
    LC_CHECK_ARG(addr != NULL, "lincoll_mem_type_of: addr must not be NULL");
    LC_CHECK_ARG(type_p != NULL, "lincoll_mem_type_of: type_p must not be NULL");
    *type_p = lc_dev_mem_type(addr, bytes) == LC_MEM_DEV ? LINCOLL_MEM_CUDA : LINCOLL_MEM_HOST;
    return LINCOLL_OK;
}

LINCOLL_API int lincoll_mem_type_supported(lincoll_mem_type_t type, const char **why_p)
{
    if (type == LINCOLL_MEM_HOST) {
        if (why_p != NULL) *why_p = "host";
        return 1;
    }
    if (why_p != NULL) *why_p = type == LINCOLL_MEM_CUDA ? lc_dev_why() : "unknown memory type";
    return type == LINCOLL_MEM_CUDA && lc_dev() != NULL;
}

LINCOLL_API const char *lincoll_mem_type_name(lincoll_mem_type_t type)
{
    return type == LINCOLL_MEM_HOST ? "host" : type == LINCOLL_MEM_CUDA ? "cuda" : "unknown";
}
