/*
 * kernels/cuda/cuda_kernels.h: lincoll's CUDA device code and the CUDA
 * runtime calls it needs, behind a plain C interface (docs/accelerators.md).
 *
 * Compiled only with LINCOLL_WITH_CUDA (the .cu files by nvcc; the CUDA
 * runtime is linked statically, so the library needs no libcudart at run
 * time and loads where no driver is installed: then lc_cuda_usable() is 0
 * and every other call returns LINCOLL_ERR_UNSUPPORTED).  cuBLAS is opened
 * with dlopen at the first GEMM, so it is not a link dependency either.
 *
 * Streams: every enqueueing call takes an lc_cuda_stream_t (one per bound
 * plan); nothing here synchronizes unless its name says so.  Pointers may be
 * device memory of the current device, memory mapped from a peer process by
 * lc_cuda_ipc_open(), or (copies only) host memory.
 *
 * Kernels and their references (the CPU _base kernels, bit for bit):
 *   lc_cuda_reduce   dst = a (op) b over every (dtype, op) the CPU table has
 *                    (kernels/reduce/reduce_base.c, the same 16-bit float
 *                    rounding and NaN rules);
 *   lc_cuda_gf_run   GF(2^8) and GF(2^16) lincomb and mad
 *                    (kernels/gf/gf_base.c), with tables built once per
 *                    coefficient matrix (lc_cuda_gf_tab_create);
 *   lc_cuda_gemm     lincoll_gemm's arguments through cuBLAS (float, double).
 * kernels/ never includes core/: errors go through lc_klog (kernels.h).
 */
#ifndef LC_CUDA_KERNELS_H
#define LC_CUDA_KERNELS_H

#include <lincoll/gemm.h>
#include <lincoll/status.h>
#include <lincoll/types.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An in-order queue of device work (a cudaStream_t and its completion event). */
typedef struct lc_cuda_stream lc_cuda_stream_t;

/** 1 when the runtime found a usable device, else 0 (then *why_p says why). */
int lc_cuda_usable(const char **why_p);

/** Memory type of a pointer: 1 device memory, 0 anything else (host,
 *  pinned host, managed, unknown to CUDA, or no usable device). */
int lc_cuda_ptr_is_device(const void *ptr);

lincoll_status_t lc_cuda_malloc(size_t len, void **ptr_p);
void lc_cuda_free(void *ptr);
/** Page-locked host memory (the staging buffers of host transfers). */
lincoll_status_t lc_cuda_host_alloc(size_t len, void **ptr_p);
void lc_cuda_host_free(void *ptr);

lincoll_status_t lc_cuda_stream_create(lc_cuda_stream_t **s_p);
void lc_cuda_stream_destroy(lc_cuda_stream_t *s);
/** Copy n bytes (any direction: the runtime tells from the pointers). */
lincoll_status_t lc_cuda_copy(lc_cuda_stream_t *s, void *dst, const void *src, size_t n);
lincoll_status_t lc_cuda_memset(lc_cuda_stream_t *s, void *dst, int value, size_t n);
/** LINCOLL_OK when everything enqueued so far has finished,
 *  LINCOLL_INPROGRESS while it runs, or the error it met. */
lincoll_status_t lc_cuda_query(lc_cuda_stream_t *s);
/** Wait for everything enqueued so far. */
lincoll_status_t lc_cuda_sync(lc_cuda_stream_t *s);

/** 1 when lc_cuda_reduce serves (dtype, op) (the pairs of the CPU table). */
int lc_cuda_reduce_supported(lincoll_dtype_t dtype, lincoll_op_t op);
/** dst[i] = a[i] (op) b[i], i < count; dst may equal a or b. */
lincoll_status_t lc_cuda_reduce(lc_cuda_stream_t *s, void *dst, const void *a, const void *b,
                                size_t count, lincoll_dtype_t dtype, lincoll_op_t op);

/** Device tables of an r x k GF(2^8) (q = 256) or GF(2^16) (q = 65536)
 *  matrix m (row-major, reduced elements); col >= 0: only column col (a
 *  mad), col < 0: every column (a lincomb). */
typedef struct lc_cuda_gf_tab lc_cuda_gf_tab_t;
lincoll_status_t lc_cuda_gf_tab_create(uint64_t q, int r, int k, const uint64_t *m, int col,
                                       lc_cuda_gf_tab_t **tab_p);
void lc_cuda_gf_tab_destroy(lc_cuda_gf_tab_t *tab);
/** Lincomb tables: dst_j = sum_i m_ji src_i over len bytes (k sources).
 *  Mad tables: dst_j += m_j,col src[0].  len: a multiple of the element
 *  size; no dst may overlap a source. */
lincoll_status_t lc_cuda_gf_run(lc_cuda_stream_t *s, const lc_cuda_gf_tab_t *tab, size_t len,
                                const void *const *src, void *const *dst);

/** lincoll_gemm() on device operands through cuBLAS (float, double). */
lincoll_status_t lc_cuda_gemm(lc_cuda_stream_t *s, lincoll_layout_t layout, lincoll_trans_t ta,
                              lincoll_trans_t tb, int64_t m, int64_t n, int64_t k,
                              lincoll_dtype_t dtype, double alpha, const void *a, int64_t lda,
                              const void *b, int64_t ldb, double beta, void *c, int64_t ldc);
/** "cublas" once cuBLAS was opened, or the reason it could not be. */
const char *lc_cuda_blas_status(void);

/** CUDA IPC: a handle of LC_CUDA_IPC_BYTES bytes naming the allocation
 *  that holds ptr, and ptr's offset in it; a process on the same host opens
 *  it (not the exporting process) and gets the allocation's base. */
#define LC_CUDA_IPC_BYTES 64
lincoll_status_t lc_cuda_ipc_export(const void *ptr, void *handle, size_t *off_p);
lincoll_status_t lc_cuda_ipc_open(const void *handle, void **base_p);
void lc_cuda_ipc_close(void *base);

#ifdef __cplusplus
}
#endif
#endif
