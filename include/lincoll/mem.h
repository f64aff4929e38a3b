/**
 * @file mem.h
 * @brief Memory types: host and CUDA device buffers in every operation.
 *
 * Every buffer an operation is given has a memory type.  lincoll finds it
 * from the pointer when the plan is compiled (the CUDA driver's pointer
 * attributes), or it is the type the buffer was allocated with by
 * lincoll_mem_alloc_type().  Plans are compiled knowing the types:
 * - compute steps on device buffers run as CUDA kernels (reductions, GF(2^8)
 *   and GF(2^16) kernels, GEMM through cuBLAS) on a stream of the plan;
 * - messages from or into device memory travel through page-locked host
 *   staging buffers whose copies overlap the transfers, unless the transport
 *   takes device memory itself (a UCX built with CUDA);
 * - zero-copy plans between processes of one host map each other's device
 *   buffers with CUDA IPC and read and write them directly.
 *
 * Device buffers must hold their data when lincoll_start() is called (the
 * work that wrote them has completed, e.g. cudaStreamSynchronize), and hold
 * the results once lincoll_test() or lincoll_wait() returned ::LINCOLL_OK.
 *
 * Without CUDA support (a build with LINCOLL_WITH_CUDA=OFF, or no usable
 * device), a device buffer fails the init call with ::LINCOLL_ERR_UNSUPPORTED
 * and one log line naming the argument; so does a device buffer given to an
 * operation that cannot take one yet (see docs/accelerators.md).  Managed
 * (cudaMallocManaged) and page-locked host memory count as host memory.
 */
#ifndef LINCOLL_MEM_H
#define LINCOLL_MEM_H

#include <stddef.h>
#include <lincoll/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where a buffer lives. */
typedef enum lincoll_mem_type {
    LINCOLL_MEM_HOST = 0, /**< host memory (the CPU's loads and stores reach it) */
    LINCOLL_MEM_CUDA = 1, /**< CUDA device memory of the calling process's current device */
    LINCOLL_MEM_TYPE_LAST /**< number of types (not a type) */
} lincoll_mem_type_t;

/**
 * @brief Allocate memory of a given type.
 *
 * ::LINCOLL_MEM_HOST is lincoll_mem_alloc().  ::LINCOLL_MEM_CUDA is device
 * memory of the current device (cudaMalloc); zero-copy plans between
 * processes of one host share it through CUDA IPC.  Free either with
 * lincoll_mem_free().
 * @param [in]  ctx    context.
 * @param [in]  bytes  size (> 0).
 * @param [in]  type   ::LINCOLL_MEM_HOST or ::LINCOLL_MEM_CUDA.
 * @param [out] addr_p the memory (64-byte aligned on the host, 256 on a device).
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID (bad argument, logged),
 *         ::LINCOLL_ERR_UNSUPPORTED (::LINCOLL_MEM_CUDA without CUDA support or
 *         without a usable device; the log says which), ::LINCOLL_ERR_NOMEM or
 *         ::LINCOLL_ERR_TRANSPORT.
 */
LINCOLL_API lincoll_status_t lincoll_mem_alloc_type(lincoll_context_t *ctx, size_t bytes,
                                                    lincoll_mem_type_t type, void **addr_p);

/**
 * @brief The memory type lincoll sees for [addr, addr + bytes).
 *
 * What plan compilation uses: lincoll_mem_alloc_type() memory has its type;
 * other memory is asked of the CUDA driver (host when there is none).
 * @param [in]  ctx    context.
 * @param [in]  addr   start (not NULL).
 * @param [in]  bytes  size.
 * @param [out] type_p the type.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_mem_type_of(lincoll_context_t *ctx, const void *addr,
                                                 size_t bytes, lincoll_mem_type_t *type_p);

/**
 * @brief Whether operations can take buffers of @p type here.
 * @param [in]  type  a memory type.
 * @param [out] why_p optional: a static line saying what is present or why not
 *                    ("cuda: 1 device(s)", "built without CUDA", ...).
 * @return 1 when they can, 0 otherwise.
 */
LINCOLL_API int lincoll_mem_type_supported(lincoll_mem_type_t type, const char **why_p);

/**
 * @brief Name of a memory type ("host", "cuda").
 * @return a static string; "unknown" for an unknown value.
 */
LINCOLL_API const char *lincoll_mem_type_name(lincoll_mem_type_t type);

#ifdef __cplusplus
}
#endif
#endif
