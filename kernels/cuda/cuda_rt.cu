/*
 * kernels/cuda/cuda_rt.cu: the CUDA runtime calls lincoll makes — device
 * probe, pointer types, allocation, streams, copies, IPC handles.
 *
 * The runtime is linked statically (CMakeLists.txt: CUDA_RUNTIME_LIBRARY
 * Static), and it opens the driver (libcuda.so.1) itself on the first call:
 * with no driver, or no device, cudaGetDeviceCount fails, lc_cuda_usable()
 * says why and every other entry returns LINCOLL_ERR_UNSUPPORTED.  Nothing
 * here aborts.
 */
#include "cuda_kernels.h"
#include "cuda_int.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lc_cuda_stream {
    cudaStream_t s;
    cudaEvent_t done;
    int recorded; /* done was recorded after the last enqueue */
};

static pthread_once_t lc_cuda_once = PTHREAD_ONCE_INIT;
static int lc_cuda_ok;
static char lc_cuda_why[160] = "not probed";
static int lc_cuda_sms = 1;
typedef CUresult (*lc_cu_range_fn_t)(CUdeviceptr *, size_t *, CUdeviceptr);
static lc_cu_range_fn_t lc_cu_range;

static void lc_cuda_probe(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n < 1) {
        snprintf(lc_cuda_why, sizeof(lc_cuda_why), "no usable CUDA device (%s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        (void)cudaGetLastError();
        return;
    }
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&lc_cuda_sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        lc_cuda_sms = 1;
    }
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000, cudaEnableDefault,
                                         &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
        lc_cu_range = (lc_cu_range_fn_t)fn;
    (void)cudaGetLastError();
    snprintf(lc_cuda_why, sizeof(lc_cuda_why), "%d device(s)", n);
    lc_cuda_ok = 1;
}

extern "C" int lc_cuda_usable(const char **why_p)
{
    pthread_once(&lc_cuda_once, lc_cuda_probe);
    if (why_p != NULL) *why_p = lc_cuda_why;
    return lc_cuda_ok;
}

int lc_cuda_sm_count(void)
{
    return lc_cuda_sms;
}

lincoll_status_t lc_cuda_err(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return LINCOLL_OK;
    (void)cudaGetLastError();
    lc_kerror("CUDA: %s: %s", what, cudaGetErrorString(e));
    return e == cudaErrorMemoryAllocation ? LINCOLL_ERR_NOMEM : LINCOLL_ERR_TRANSPORT;
}

#define LC_CUDA_NEED()                                                                             \
    do {                                                                                           \
        if (!lc_cuda_usable(NULL)) return LINCOLL_ERR_UNSUPPORTED;                                 \
    } while (0)

extern "C" int lc_cuda_ptr_is_device(const void *ptr)
{
    if (ptr == NULL || !lc_cuda_usable(NULL)) return 0;
    cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeDevice;
}

extern "C" lincoll_status_t lc_cuda_malloc(size_t len, void **ptr_p)
{
    LC_CUDA_NEED();
    return lc_cuda_err(cudaMalloc(ptr_p, len ? len : 1), "cudaMalloc");
}

extern "C" void lc_cuda_free(void *ptr)
{
    if (ptr != NULL && lc_cuda_usable(NULL)) (void)lc_cuda_err(cudaFree(ptr), "cudaFree");
}

extern "C" lincoll_status_t lc_cuda_host_alloc(size_t len, void **ptr_p)
{
    LC_CUDA_NEED();
    return lc_cuda_err(cudaMallocHost(ptr_p, len ? len : 1), "cudaMallocHost");
}

extern "C" void lc_cuda_host_free(void *ptr)
{
    if (ptr != NULL && lc_cuda_usable(NULL)) (void)lc_cuda_err(cudaFreeHost(ptr), "cudaFreeHost");
}

extern "C" lincoll_status_t lc_cuda_stream_create(lc_cuda_stream_t **s_p)
{
    LC_CUDA_NEED();
    lc_cuda_stream_t *s = (lc_cuda_stream_t *)calloc(1, sizeof(*s));
    if (s == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st =
        lc_cuda_err(cudaStreamCreateWithFlags(&s->s, cudaStreamNonBlocking), "cudaStreamCreate");
    if (st == LINCOLL_OK) {
        st = lc_cuda_err(cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming),
                         "cudaEventCreate");
        if (st != LINCOLL_OK) cudaStreamDestroy(s->s);
    }
    if (st != LINCOLL_OK) {
        free(s);
        return st;
    }
    *s_p = s;
    return LINCOLL_OK;
}

extern "C" void lc_cuda_stream_destroy(lc_cuda_stream_t *s)
{
    if (s == NULL) return;
    (void)cudaStreamSynchronize(s->s);
    cudaEventDestroy(s->done);
    cudaStreamDestroy(s->s);
    free(s);
}

cudaStream_t lc_cuda_raw(lc_cuda_stream_t *s)
{
    s->recorded = 0;
    return s->s;
}

extern "C" lincoll_status_t lc_cuda_copy(lc_cuda_stream_t *s, void *dst, const void *src, size_t n)
{
    if (n == 0) return LINCOLL_OK;
    return lc_cuda_err(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, lc_cuda_raw(s)),
                       "cudaMemcpyAsync");
}

extern "C" lincoll_status_t lc_cuda_memset(lc_cuda_stream_t *s, void *dst, int value, size_t n)
{
    if (n == 0) return LINCOLL_OK;
    return lc_cuda_err(cudaMemsetAsync(dst, value, n, lc_cuda_raw(s)), "cudaMemsetAsync");
}

extern "C" lincoll_status_t lc_cuda_query(lc_cuda_stream_t *s)
{
    if (!s->recorded) {
        lincoll_status_t st = lc_cuda_err(cudaEventRecord(s->done, s->s), "cudaEventRecord");
        if (st != LINCOLL_OK) return st;
        s->recorded = 1;
    }
    cudaError_t e = cudaEventQuery(s->done);
    if (e == cudaErrorNotReady) return LINCOLL_INPROGRESS;
    return lc_cuda_err(e, "device work");
}

extern "C" lincoll_status_t lc_cuda_sync(lc_cuda_stream_t *s)
{
    return lc_cuda_err(cudaStreamSynchronize(s->s), "cudaStreamSynchronize");
}

/* ---- IPC ------------------------------------------------------------------ */

static_assert(sizeof(cudaIpcMemHandle_t) == LC_CUDA_IPC_BYTES, "IPC handle size");

extern "C" lincoll_status_t lc_cuda_ipc_export(const void *ptr, void *handle, size_t *off_p)
{
    LC_CUDA_NEED();
    CUdeviceptr base = 0;
    size_t size = 0;
    if (lc_cu_range == NULL ||
        lc_cu_range(&base, &size, (CUdeviceptr)(uintptr_t)ptr) != CUDA_SUCCESS) {
        lc_kdebug("CUDA IPC: the allocation holding %p is unknown", ptr);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    cudaIpcMemHandle_t h;
    cudaError_t e = cudaIpcGetMemHandle(&h, (void *)(uintptr_t)base);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        lc_kdebug("CUDA IPC: no handle for %p: %s", ptr, cudaGetErrorString(e));
        return LINCOLL_ERR_UNSUPPORTED;
    }
    memcpy(handle, &h, sizeof(h));
    *off_p = (size_t)((uintptr_t)ptr - (uintptr_t)base);
    return LINCOLL_OK;
}

extern "C" lincoll_status_t lc_cuda_ipc_open(const void *handle, void **base_p)
{
    LC_CUDA_NEED();
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof(h));
    return lc_cuda_err(cudaIpcOpenMemHandle(base_p, h, cudaIpcMemLazyEnablePeerAccess),
                       "cudaIpcOpenMemHandle");
}

extern "C" void lc_cuda_ipc_close(void *base)
{
    if (base != NULL) (void)lc_cuda_err(cudaIpcCloseMemHandle(base), "cudaIpcCloseMemHandle");
}
